"""Tar headers that readers disagree on (issue 23, item 1): a member carrying a PAX `path`/`linkpath`
and a GNU long name/link, a ustar prefix under another magic, a global PAX name, a Solaris `X` header,
a directory with data. Python's tarfile (the checks), Go's archive/tar (Velero's restore) and GNU tar
read such a member under different names; each is refused (exit 3, nothing written) by `backup` and
`scan`, and a member they all read alike is accepted. GNU tar itself confirms each disagreement; Go's
rule (reader.go: the GNU long name over PAX, the last header of a kind) is modelled here from the
generator's own inputs."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.integrations.tarforge import GNU, archive, gnu_long, header, member, pad, pax
from tests.integrations.test_backup import IT_DIR, compact, instancetype_v1alpha2, run
from transform.cli.main import main
from transform.integrations import velero
from transform.integrations.tarstream import BackupError
from transform.model.settings import Settings

ITEM = f"{IT_DIR}/namespaces/default/csmall.json".encode()
SAFE = b"resources/notes.json"
ESCAPE = b"../../../../ESCAPED.json"
DATA = compact(instancetype_v1alpha2())
TAR = shutil.which("tar")


def _gnu_names(raw: bytes, tmp_path: Path) -> list[str]:
    path = tmp_path / "probe.tar"
    path.write_bytes(raw)
    out = subprocess.run([TAR or "tar", "-tvf", str(path)], capture_output=True, text=True, check=False).stdout
    return [line.split(None, 5)[5] for line in out.splitlines()]


def _tarfile_names(raw: bytes) -> list[str]:
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r|") as tf:
        return [m.name + (f" -> {m.linkname}" if m.issym() else "") for m in tf]


def _raw_pax(data: bytes) -> bytes:
    return header(b"PaxHeaders/x", b"x", len(data)) + pad(data)


# (name, the member's headers, what Velero restores): each is read differently by at least two readers
HOSTILE = {
    "pax-then-gnu-name": ([pax({b"path": ITEM}), gnu_long(ESCAPE), member(b"x", DATA)], ESCAPE),
    "gnu-then-pax-name": ([gnu_long(ITEM), pax({b"path": ESCAPE}), member(b"x", DATA)], ITEM),
    "gnu-link-vs-pax-link": (
        [pax({b"linkpath": b"notes.json"}), gnu_long(b"/etc/passwd", b"K"), member(b"resources/l", kind=b"2")],
        b"/etc/passwd",
    ),
    "two-pax-headers": ([pax({b"path": ITEM}), pax({b"path": ESCAPE}), member(b"x", DATA)], ESCAPE),
    "two-gnu-names": ([gnu_long(ITEM), gnu_long(ESCAPE), member(b"x", DATA)], ESCAPE),
    "prefix-under-v7-magic": ([member(b"notes.json", DATA, magic=b"\0" * 8, prefix=b"resources")], b"notes.json"),
    "prefix-under-gnu-magic": (
        [member(b"ESCAPED.json", DATA, magic=GNU, prefix=b"../../..")],
        b"../../../ESCAPED.json",
    ),
    "global-pax-path": ([pax({b"path": SAFE}, b"g"), member(ESCAPE, DATA)], ESCAPE),
    "solaris-x-header": ([pax({b"path": SAFE}, b"X"), member(ESCAPE, DATA)], ESCAPE),
    "pax-length-with-a-sign": ([_raw_pax(b"+34 path=" + ESCAPE + b"\n"), member(SAFE, DATA)], ESCAPE),
    "nul-in-pax-path": ([pax({b"path": SAFE + b"\0" + ESCAPE}), member(ESCAPE, DATA)], ESCAPE),
    "directory-with-data": (
        [member(b"resources/d/", member(ESCAPE, DATA), kind=b"5"), member(SAFE, b"{}")],
        ESCAPE,
    ),
}


@pytest.mark.integration
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_member_the_readers_name_differently_is_refused(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parts, restored = HOSTILE[case]
    raw = archive(*parts, compress=False)
    py = _tarfile_names(raw)
    go_differs = not any(n.endswith(restored.decode()) for n in py)  # Velero restores another name
    assert go_differs or (TAR and _gnu_names(raw, tmp_path) != py), "not a disagreement: the case is wrong"
    src = tmp_path / "in.tar.gz"
    src.write_bytes(archive(*parts))
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out)], capsys)
    assert code == 3 and ("readers" in err or "header-only" in err), err
    assert not out.exists()
    code, err = run(["scan", str(src)], capsys)
    assert code == 3 and ("readers" in err or "header-only" in err), err


AGREED = {
    "pax-path": [pax({b"path": ITEM}), member(b"x", DATA)],
    "gnu-name": [gnu_long(ITEM), member(b"x", DATA)],
    "both-the-same": [pax({b"path": ITEM}), gnu_long(ITEM), member(b"x", DATA)],
    "ustar-prefix": [member(ITEM.rpartition(b"/")[2], DATA, prefix=ITEM.rpartition(b"/")[0])],
}


@pytest.mark.integration
@pytest.mark.parametrize("case", sorted(AGREED))
def test_a_member_every_reader_names_alike_is_upgraded(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = archive(*AGREED[case], compress=False)
    if TAR:
        assert _gnu_names(raw, tmp_path) == _tarfile_names(raw) == [ITEM.decode()]
    src = tmp_path / "in.tar.gz"
    src.write_bytes(archive(*AGREED[case]))
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out)], capsys)
    assert code == 1 and out.exists(), err
    with tarfile.open(out, "r:gz") as tf:
        (m,) = tf.getmembers()
        assert m.name == ITEM.decode()
        body = tf.extractfile(m)
        assert body is not None and json.loads(body.read())["apiVersion"] == "instancetype.kubevirt.io/v1beta1"


def test_a_rebuilt_header_copies_no_record_it_did_not_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A PAX `size` record makes the changed item's header rebuilt: only its name, size, mode, owner and
    times go into it (was: every record of the input header copied, read or not)."""
    records = {b"path": ITEM, b"size": b"%d" % len(DATA), b"VENDOR.restore-to": ESCAPE, b"mtime": b"7"}
    src = tmp_path / "in.tar.gz"
    src.write_bytes(archive(pax(records), member(b"x", DATA)))
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out)], capsys)
    assert code == 1, err
    with tarfile.open(out, "r:gz") as tf:
        (m,) = tf.getmembers()
    assert m.name == ITEM.decode() and m.mtime == 7
    assert not any(k.startswith("VENDOR") for k in m.pax_headers), m.pax_headers


def _go_name(chain: list[tuple[str, bytes]], base: bytes) -> bytes:
    """Go's archive/tar (reader.go, Next): the last PAX header's records replace any earlier ones, the
    last GNU long name is kept, and a long name wins over a PAX path."""
    path = next((v for k, v in reversed(chain) if k == "x"), b"")
    long_name = next((v for k, v in reversed(chain) if k == "L"), b"")
    return long_name or path or base


NAMES = st.sampled_from([ITEM, ESCAPE, SAFE, b"resources/" + b"n" * 120 + b".json"])


@pytest.mark.integration
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["x", "L"]), NAMES), max_size=3), NAMES)
def test_refused_exactly_when_readers_disagree(chain: list[tuple[str, bytes]], base: bytes) -> None:
    """Generated header chains: accepted iff Go's, GNU tar's and tarfile's names are one name (and no
    two headers of one kind differ: their other records would be read by different rules too)."""
    parts = [pax({b"path": v}) if k == "x" else gnu_long(v) for k, v in chain] + [member(base[:100], DATA)]
    raw = archive(*parts, compress=False)
    py = _tarfile_names(raw)
    names = {_go_name(chain, base[:100]).decode(), *py}
    if TAR:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            names.update(_gnu_names(raw, Path(tmp)))
    with tempfile_path(raw) as path:
        try:
            velero.scan(str(path), Settings(), velero.Outcome().run)
            refused = ""
        except BackupError as exc:
            refused = str(exc)
    repeated = any(len({v for k2, v in chain if k2 == k}) > 1 for k, _ in chain)  # refused whatever it names
    if len(names) > 1 or repeated:
        assert "readers disagree" in refused, (names, refused)
    else:
        assert "readers disagree" not in refused, (names, refused)


class tempfile_path:  # noqa: N801 - a context manager used like a function
    def __init__(self, raw: bytes) -> None:
        import tempfile

        self.dir = tempfile.TemporaryDirectory()
        self.path = Path(self.dir.name) / "a.tar"
        self.path.write_bytes(raw)

    def __enter__(self) -> Path:
        return self.path

    def __exit__(self, *exc: object) -> None:
        self.dir.cleanup()


def test_main_is_the_entry_point() -> None:
    assert callable(main)


def test_a_refused_backup_summary_names_the_archive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Was: "1 error in 0 files" (low item): the summary's unit is the archive's files, and it is named."""
    src = tmp_path / "in.tar.gz"
    src.write_bytes(archive(*HOSTILE["pax-then-gnu-name"][0]))
    code, out = run(["backup", str(src), "--check"], capsys)
    last = out.strip().splitlines()[-1]
    assert code == 3 and "in 0 files" not in last and last.endswith(f"1 error in {src}"), last
