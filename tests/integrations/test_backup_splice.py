"""`backup` copies the tar stream as raw bytes: every header of an unchanged member stays byte for byte
(vendor PAX records, global headers, field spellings tarfile would not write), a changed member keeps
its header blocks with only the size and checksum new, and each copy of an item is reported under
its own path even though identical copies are upgraded once."""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import json
import random
import tarfile
import threading
from pathlib import Path

import pytest

from tests.integrations.test_backup import (
    CR_DIR,
    F2_NAME,
    IT_DIR,
    NS,
    compact,
    f2_revision,
    instancetype_v1alpha2,
    pod,
    read_tar,
    run,
)
from transform.integrations import velero
from transform.integrations.background import CHUNK, ReadAhead, WriteBehind

POD_PATH = f"resources/pods/namespaces/{NS}/p.json"
IT_PATH = f"{IT_DIR}/namespaces/{NS}/csmall.json"


def _member(tf: tarfile.TarFile, name: str, data: bytes, pax: dict[str, str] | None = None) -> None:
    ti = tarfile.TarInfo(name)
    ti.size, ti.mtime, ti.mode, ti.uname = len(data), 1_700_000_000, 0o644, "velero"
    ti.pax_headers = pax or {}
    tf.addfile(ti, io.BytesIO(data))


def _blocks(raw: bytes) -> list[tuple[int, bytes]]:
    """(offset, header block) of every header in a plain tar stream (tarfile's own reading)."""
    out = []
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tf:
        for m in tf.getmembers():
            out.append((m.offset, raw[m.offset : m.offset_data]))
    return out


def _stream(tmp_path: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT, pax_headers={"VELERO.test": "global"}) as tf:
        _member(tf, "metadata/version", b"1.1.0\n", {"VELERO.note": "kept"})
        _member(tf, POD_PATH, compact(pod()), {"SCHILY.xattr.user.x": "1"})
        _member(tf, IT_PATH, compact(instancetype_v1alpha2()), {"VELERO.note": "on a changed item"})
        _member(tf, f"{IT_DIR}/v1alpha2-preferredversion/namespaces/{NS}/csmall.json", compact(instancetype_v1alpha2()))
    raw = bytearray(buf.getvalue())
    # a field spelling tarfile never writes (Go pads with NULs where tarfile writes octal zeros): kept as it is
    first = _blocks(bytes(raw))[0][0]
    own = raw.index(b"metadata/version", first)
    raw[own + 329 : own + 345] = b"\0" * 16  # devmajor, devminor
    raw[own + 148 : own + 156] = b"        "
    raw[own + 148 : own + 156] = b"%06o\0 " % sum(raw[own : own + 512])
    return bytes(raw)


def test_unchanged_headers_are_copied_byte_for_byte(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = _stream(tmp_path)
    src = tmp_path / "in.tar.gz"
    src.write_bytes(gzip.compress(raw))
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out)], capsys)
    assert code == 1, err
    new = gzip.decompress(out.read_bytes())
    changed_at = raw.index(IT_PATH.encode()) // 512 * 512
    headers_before = raw[: raw.index(b"VELERO.note=on a changed item")]
    assert new.startswith(headers_before[: changed_at - 512])  # global header, pod and version: the same bytes
    members = {m.name: (m, data) for m, data in read_tar(out)}
    assert members["metadata/version"][0].pax_headers["VELERO.test"] == "global"
    assert members[POD_PATH][0].pax_headers["SCHILY.xattr.user.x"] == "1"
    m, data = members[IT_PATH]
    assert m.pax_headers["VELERO.note"] == "on a changed item"  # the changed item's own PAX record
    assert data is not None and json.loads(data)["apiVersion"] == "instancetype.kubevirt.io/v1beta1"
    assert m.size == len(data) and m.mtime == 1_700_000_000 and m.uname == "velero"


def test_a_pax_size_record_gets_a_re_encoded_header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = compact(instancetype_v1alpha2())
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        _member(tf, IT_PATH, data, {"size": str(len(data))})
        _member(tf, POD_PATH, compact(pod()))
    src = tmp_path / "in.tar.gz"
    src.write_bytes(gzip.compress(buf.getvalue()))
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out)], capsys)
    assert code == 1, err
    (m, new), (m2, pod_data) = read_tar(out)
    assert new is not None and json.loads(new)["apiVersion"] == "instancetype.kubevirt.io/v1beta1"
    assert m.size == len(new) != len(data) and m.pax_headers.get("size", str(m.size)) == str(m.size)
    assert m2.name == POD_PATH and pod_data == compact(pod())


def test_each_copy_is_reported_under_its_own_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Identical copies are upgraded once; each is still changed and reported, by its own name."""
    # not a finite number: refused (a problem the input merely had, `"spec":5`, is a warning: issue 21 §1)
    broken = b'{"apiVersion":"instancetype.kubevirt.io/v1alpha2","kind":"VirtualMachineInstancetype","spec":{"cpu":{"guest":1e999}}}'
    paths = [f"{IT_DIR}/namespaces/{NS}/bad.json", f"{IT_DIR}/v1alpha2-preferredversion/namespaces/{NS}/bad.json"]
    revs = [f"{CR_DIR}/namespaces/{NS}/{F2_NAME}.json", f"{CR_DIR}/v1-preferredversion/namespaces/{NS}/{F2_NAME}.json"]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for path in paths:
            _member(tf, path, broken)
        for path in revs:
            _member(tf, path, compact(f2_revision()))
    src = tmp_path / "in.tar.gz"
    src.write_bytes(gzip.compress(buf.getvalue()))
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out), "--format", "json"], capsys)
    assert code == 3, err
    report = json.loads(err)
    files = [f["file"] for f in report["findings"] if f["severity"] == "error"]
    assert sorted(set(files)) == sorted(paths) and files.count(paths[0]) == files.count(paths[1]) > 0
    after = dict((m.name, data) for m, data in read_tar(out))
    assert after[paths[0]] == after[paths[1]] == broken
    assert after[revs[0]] == after[revs[1]] != compact(f2_revision())
    assert report["summary"]["files_changed"] == 2


class _Full(io.RawIOBase):
    """A file system that fills up after `room` bytes."""

    def __init__(self, room: int) -> None:
        self.room = room

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        if len(data) > self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.room -= len(data)
        return len(data)


def test_a_full_disk_while_compressing_is_an_error_and_leaves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The output is compressed by another thread: its error still stops the run with a message."""
    entries = [(POD_PATH, random.Random(1).randbytes(3 << 20))]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        _member(tf, POD_PATH, entries[0][1])
        _member(tf, IT_PATH, compact(instancetype_v1alpha2()))
    src = tmp_path / "in.tar.gz"
    src.write_bytes(gzip.compress(buf.getvalue()))
    out = tmp_path / "out.tar.gz"
    with monkeypatch.context() as m:
        m.setattr(velero.writes, "atomic_file", lambda path: contextlib.nullcontext(_Full(1 << 20)))
        code, err = run(["backup", str(src), "-o", str(out)], capsys)
    assert code == 3 and "cannot write the output: No space left on device" in err, err
    assert not out.exists()
    assert not [t for t in threading.enumerate() if t.name in ("read-ahead", "write-behind")]


def test_read_ahead_hands_over_errors_and_stops_early() -> None:
    class Broken(io.RawIOBase):
        def __init__(self) -> None:
            self.calls = 0

        def readable(self) -> bool:
            return True

        def read(self, size: int = -1) -> bytes:
            self.calls += 1
            if self.calls > 2:
                raise EOFError("truncated")
            return b"x" * size

    with ReadAhead(Broken()) as r:  # type: ignore[arg-type]
        assert r.read(10) == b"x" * 10
        assert r.read(2 * CHUNK - 10) == b"x" * (2 * CHUNK - 10)  # what was read before the error
        with pytest.raises(EOFError):
            r.read(4 * CHUNK)
    with ReadAhead(io.BytesIO(b"y" * (20 * CHUNK))) as r:  # left after one read: the thread stops
        assert r.read(3) == b"yyy"
    assert not r.thread.is_alive()


def test_write_behind_writes_everything_in_order() -> None:
    sink = io.BytesIO()
    with WriteBehind(sink) as w:
        for i in range(3000):
            w.write(b"%d," % i * 200)
        w.close()
    assert sink.getvalue() == b"".join(b"%d," % i * 200 for i in range(3000))
