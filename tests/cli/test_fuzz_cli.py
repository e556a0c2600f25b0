"""A bounded fuzz run over the whole command line (issue 15, item 10): every subcommand, stdin, krm and
backup, fed mutated fixtures and the hostile reproducers. Any exit 123, traceback or exception out of
`main` fails. CI runs a few seconds (FUZZ_SECONDS); the `slow` run gives it a minute."""

from __future__ import annotations

import gzip
import io
import os
import pathlib
import random
import sys
import tarfile
import time

import pytest

from tests.cli.test_fuzz import FIXTURES, OPS
from tests.pipeline.test_hostile_input import HOSTILE
from transform.cli.main import main

SEEDS = [p.read_bytes() for p in FIXTURES] + [data for data, _ in HOSTILE.values()]
EXTRA = [b"%YAML 1.1\n", b"\t---\n", b"\r", b"\xef\xbb\xbf", b".nan", b"1.0e+999", b"&x ", b"*x", b"<<: *x\n", b"\x00"]
# issue 23: markers behind escapes, control characters and markup in keys and values
EXTRA += [b'"instancetype.kubevirt\\x2eio/v1alpha1"', b"\\u002e", b'"Virtual\\x4dachine"', b"\\/", b"\\\n"]
EXTRA += [b'"\\e[2J\\nforged.yaml:1:1: error: x": 1\n', b"\x1b[2J", b"`<img src=x>`|", b"!custom ", b"\xff"]
FAST_SECONDS = float(os.environ.get("FUZZ_SECONDS", "4"))
SLOW_SECONDS = 60.0


def _mutant(rng: random.Random) -> bytes:
    data = rng.choice(SEEDS)
    for _ in range(rng.randint(0, 3)):
        if rng.random() < 0.2:
            i = rng.randrange(len(data) + 1)
            data = data[:i] + rng.choice(EXTRA) + data[i:]
        else:
            data = rng.choice(OPS)(rng, data)
    return data


def _resource_list(rng: random.Random) -> bytes:
    items = b"".join(
        b"- " + b"\n  ".join(_mutant(rng).replace(b"---\n", b"").splitlines()) + b"\n" for _ in range(rng.randint(1, 3))
    )
    head = b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
    return head + (b"items:\n" + items if rng.random() < 0.9 else _mutant(rng))


def _tarball(rng: random.Random, path: pathlib.Path) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        info = tarfile.TarInfo("metadata/version")
        info.size = 6
        tf.addfile(info, io.BytesIO(b"1.1.0\n"))
        for n in range(rng.randint(1, 3)):
            data = _mutant(rng)
            info = tarfile.TarInfo(f"resources/controllerrevisions.apps/namespaces/default/r{n}.json")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    raw = gzip.compress(buf.getvalue())
    if rng.random() < 0.3:  # a damaged archive
        b = bytearray(raw)
        b[rng.randrange(len(b))] ^= 0xFF
        raw = bytes(b)
    path.write_bytes(raw)


def _headers(rng: random.Random, path: pathlib.Path) -> None:
    """A tarball whose members carry header chains the readers may disagree on (issue 23, item 1): PAX
    path/linkpath, GNU long names/links, global and Solaris headers, prefixes under other magics."""
    from tests.integrations import tarforge as tar

    names = [b"resources/controllerrevisions.apps/namespaces/default/r.json", b"../../ESCAPED.json", b"n" * 120]
    parts = []
    for _ in range(rng.randint(1, 3)):
        chain = []
        for _ in range(rng.randint(0, 3)):
            pick = rng.choice(["x", "L", "K", "g", "X", "xl"])
            value = rng.choice(names)
            chain.append(
                tar.gnu_long(value, pick.encode())
                if pick in "LK"
                else tar.pax({b"linkpath" if pick == "xl" else b"path": value}, b"x" if pick == "xl" else pick.encode())
            )
        magic = rng.choice([tar.USTAR, tar.GNU, b"\0" * 8])
        kind = rng.choice([b"0", b"2", b"5", b"\0"])
        data = _mutant(rng) if kind in (b"0", b"\0") or rng.random() < 0.1 else b""
        base = tar.member(rng.choice(names)[:100], data, kind, magic=magic, prefix=rng.choice([b"", b"resources"]))
        parts += [*chain, base]
    path.write_bytes(tar.archive(*parts))


def _case(rng: random.Random, tmp: pathlib.Path) -> tuple[list[str], bytes | None]:
    kind = rng.choice(["fix", "check", "diff", "validate", "scan", "stdin", "krm", "backup", "dir", "headers"])
    formats = ["--format=json", "--format=markdown", "--format=sarif", "--format=junit"]
    options = rng.sample(["--rename", "--strict", rng.choice(formats), "--modernize", "-q"], k=rng.randint(0, 2))
    if kind == "headers":
        _headers(rng, tmp / "in.tar.gz")
        if rng.random() < 0.5:
            return ["scan", str(tmp / "in.tar.gz")], None
        return ["backup", str(tmp / "in.tar.gz"), "-o", str(tmp / "out.tar.gz")], None
    if kind == "krm":
        return ["krm"], _resource_list(rng)
    if kind == "stdin":
        command = rng.choice(["fix", "check", "diff", "validate", "scan"])
        return [command, "-"] + [o for o in options if command == "fix" or o != "--modernize"], _mutant(rng)
    if kind == "backup":
        _tarball(rng, tmp / "in.tar.gz")
        extra = ["--rename"] if "--rename" in options else []
        if rng.random() < 0.5:
            return ["scan", str(tmp / "in.tar.gz")], None
        return ["backup", str(tmp / "in.tar.gz"), "-o", str(tmp / "out.tar.gz"), *extra], None
    tree = tmp / "tree"
    tree.mkdir()
    for n in range(rng.randint(1, 4) if kind == "dir" else 1):
        (tree / f"f{n}.{rng.choice(['yaml', 'json', 'yml'])}").write_bytes(_mutant(rng))
    command = rng.choice(["fix", "check", "diff", "validate", "scan"]) if kind == "dir" else kind
    options = [o for o in options if command == "fix" or o != "--modernize"]
    if command == "scan":
        options = [o for o in options if o == "--strict" or o.startswith("--format")]
    return [command, *options, str(tree)], None


def _fuzz(seed: int, seconds: float, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> int:
    rng = random.Random(seed)
    deadline = time.monotonic() + seconds
    runs = 0
    stdin = sys.stdin
    try:
        while time.monotonic() < deadline:
            work = tmp_path / f"case{runs}"
            work.mkdir()
            argv, data = _case(rng, work)
            sys.stdin = io.TextIOWrapper(io.BytesIO(data or b""))
            try:
                code = main(argv)
            except BaseException as exc:  # pragma: no cover - the message is the point
                pytest.fail(f"{argv}: {type(exc).__name__}: {exc}\ninput: {data!r}")
            out = capsys.readouterr()
            if code == 123 and data is not None:
                (work / "stdin.bin").write_bytes(data)  # to reproduce: the case directory keeps every input
            assert code != 123, (argv, data, out.err)
            assert "Traceback" not in out.err + out.out and "internal error" not in out.err, (argv, out.err)
            if argv[0] in ("check", "validate", "scan") or (argv[0] == "fix" and "-" not in argv):
                assert "\x1b" not in out.out and "\x1b" not in out.err, (argv, out.out)  # reports escape input
            if argv[0] == "backup" and code in (0, 1):
                _names_stay_inside(work / "out.tar.gz")
            runs += 1
    finally:
        sys.stdin = stdin
    return runs


def _names_stay_inside(path: pathlib.Path) -> None:
    """An archive `backup` wrote: every name and link target as tarfile reads it stays inside (the
    headers it wrote were checked or built by it: tests/integrations/test_tar_readers.py)."""
    with tarfile.open(path, "r:gz") as tf:
        for m in tf:
            for name in (m.name, m.linkname if m.issym() or m.islnk() else ""):
                assert not name.startswith("/") and ".." not in name.split("/"), name


def test_fuzz_every_command_bounded(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _fuzz(20251130, FAST_SECONDS, tmp_path, capsys) > 5


@pytest.mark.slow
def test_fuzz_every_command_long(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _fuzz(424242, SLOW_SECONDS, tmp_path, capsys) > 100
