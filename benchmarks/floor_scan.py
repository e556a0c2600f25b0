"""Floor for "scan the input": read every byte and look for the KubeVirt markers, nothing else.

    python benchmarks/floor_scan.py tree DIR    # os.scandir walk, read each file, 3 byte needles
    python benchmarks/floor_scan.py file PATH   # one file (the 20 MB export)
    python benchmarks/floor_scan.py tar PATH    # every member of a .tar.gz (the Velero backup)

Prints ``<hits> <files> <bytes>``. Imports only what each mode needs, so that the process is a fair floor.
"""

from __future__ import annotations

import os
import sys

NEEDLES = (b"instancetype.kubevirt.io", b"ControllerRevision", b"kind: VirtualMachine")


def _hit(data: bytes) -> bool:
    return any(n in data for n in NEEDLES)


def scan_tree(root: str) -> tuple[int, int, int]:
    hits = files = size = 0
    stack = [root]
    while stack:
        with os.scandir(stack.pop()) as it:
            for entry in it:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    with open(entry.path, "rb") as f:
                        data = f.read()
                    files += 1
                    size += len(data)
                    hits += _hit(data)
    return hits, files, size


def scan_file(path: str) -> tuple[int, int, int]:
    with open(path, "rb") as f:
        data = f.read()
    return int(_hit(data)), 1, len(data)


def scan_tar(path: str) -> tuple[int, int, int]:
    import tarfile

    hits = files = size = 0
    with tarfile.open(path, "r:gz") as tf:
        for member in tf:
            if not member.isfile():
                continue
            f = tf.extractfile(member)
            if f is None:
                continue
            data = f.read()
            files += 1
            size += len(data)
            hits += _hit(data) or b'"kind":"VirtualMachine' in data
    return hits, files, size


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("tree", "file", "tar"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, path = argv
    fn = {"tree": scan_tree, "file": scan_file, "tar": scan_tar}[mode]
    hits, files, size = fn(path)
    print(hits, files, size)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
