#!/usr/bin/env python3
"""Pack an upstream reference tree into reference/<tree>.tar.xz (what the scripts and test oracles read).

A tree is a directory of upstream data as extracted from KubeVirt's and CDI's sources (reference/README.md
says which sources, tags and commits): `crd-schemas` (CRD openAPIV3Schemas: kubevirt-releases/, cdi-releases/,
the old instancetype versions, apps/v1 ControllerRevision) and `go-json` (the reflected Go type table).
Members are sorted, owned by 0:0, mode 0644/0755, mtime 0, so the archive depends on the files only;
xz at preset 9e (the trees are JSON that repeats itself across releases: 17 MB become about 150 kB).

Usage: python scripts/pack_reference.py DIR [DIR ...]   (each DIR's name is the tree's name)
"""

from __future__ import annotations

import argparse
import io
import lzma
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pack(tree: Path) -> bytes:
    buf = io.BytesIO()
    with (
        lzma.open(buf, "wb", preset=9 | lzma.PRESET_EXTREME) as xz,
        tarfile.open(fileobj=xz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for path in sorted([tree, *tree.rglob("*")], key=lambda p: p.relative_to(tree.parent).as_posix()):
            info = tarfile.TarInfo(path.relative_to(tree.parent).as_posix())
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if path.is_dir():
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif path.is_file():
                data = path.read_bytes()
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "reference")
    args = parser.parse_args(argv)
    for tree in args.trees:
        if not tree.is_dir():
            print(f"{tree}: not a directory", file=sys.stderr)
            return 2
        target = args.out / f"{tree.resolve().name}.tar.xz"
        target.write_bytes(pack(tree.resolve()))
        print(f"{target}: {target.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
