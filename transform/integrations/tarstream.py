"""Reading a tar archive (gzip-compressed or not) as a stream: one member at a time, flat memory, and the
checks that make an archive safe to read and to rewrite - the one reader of `backup` and `scan`.

Limits apply while streaming, before the work: a long-name or PAX header over MAX_TAR_HEADER_BYTES is
refused before it is read, and the decompressed stream stops at the archive size cap. Entries that an
extractor of our output could be tricked by are refused, by name: absolute paths, `..` components, paths
below a symbolic link, links whose target is absolute or has a `..` component (so no chain of links can
leave the extraction directory), device files, FIFOs and setuid/setgid/sticky modes (Velero never
writes any of them), and sparse files.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import re
import struct
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any, TypeVar

from transform.integrations import tarnames
from transform.integrations.background import ReadAhead
from transform.model.findings import quote_name
from transform.model.limits import DEFAULT_MAX_ARCHIVE_BYTES, MAX_TAR_HEADER_BYTES
from transform.pipeline.sources import not_regular

if TYPE_CHECKING:
    from typing_extensions import Self

_TAIL = 4 * tarfile.RECORDSIZE
_WINDOW = 4 * MAX_TAR_HEADER_BYTES + 16 * tarfile.RECORDSIZE  # a global, a PAX, a long name and link, a block
_CHUNK = 1 << 20


class BackupError(Exception):
    """The archive cannot be processed at all: nothing is written."""


class Reader:
    """The decompressed tar stream; keeps its last bytes to check what follows the archive's end, and
    stops at `limit` decompressed bytes (a gzip bomb is refused while it expands, not after)."""

    def __init__(
        self, raw: IO[bytes], path: str = "", limit: int = DEFAULT_MAX_ARCHIVE_BYTES, *, window: bool = False
    ) -> None:
        self.raw = raw
        self.path = path
        self.limit = limit
        self.pos = 0
        self.head = b""
        self.tail = b""
        self.window: bytearray | None = bytearray() if window else None  # the last bytes read (headers)
        self.window_at = 0  # the stream offset of window[0]

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            return b"".join(iter(lambda: self.read(_CHUNK), b""))
        data = self.raw.read(size)
        if len(self.head) < 512:
            self.head += data[: 512 - len(self.head)]
        self.pos += len(data)
        if self.pos > self.limit:
            raise BackupError(
                f"{self.path}: the archive expands to more than {self.limit} bytes (raise --max-archive-size "
                "if it is a real backup)"
            )
        self.tail = (self.tail + data)[-_TAIL:]
        if self.window is not None:
            self.window += data
            if len(self.window) > 2 * _WINDOW:
                drop = len(self.window) - _WINDOW
                del self.window[:drop]
                self.window_at += drop
        return data

    def raw_bytes(self, start: int, end: int) -> bytes | None:
        """The stream's bytes from `start` to `end` if still held (None: read too long ago)."""
        if self.window is None or start < self.window_at or end > self.window_at + len(self.window):
            return None
        return bytes(self.window[start - self.window_at : end - self.window_at])


class _CappedInfo(tarfile.TarInfo):
    """TarInfo that refuses a long-name or PAX header larger than MAX_TAR_HEADER_BYTES before reading it,
    and reads a plain header block faster than tarfile (the same fields; anything else is left to tarfile)."""

    @classmethod
    def frombuf(cls, buf: bytes | bytearray, encoding: str, errors: str) -> Self:
        fast = _frombuf(cls, bytes(buf), encoding, errors)
        return fast if fast is not None else super().frombuf(buf, encoding, errors)

    def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type in _HEADER_TYPES:
            total = self.size + getattr(tarfile_, "_global_header_bytes", 0) if self.type == tarfile.XGLTYPE else 0
            if max(self.size, total) > MAX_TAR_HEADER_BYTES:
                raise BackupError(
                    f"a tar {'PAX' if self.type != tarfile.GNUTYPE_LONGNAME else 'long-name'} header of "
                    f"{self.size} bytes at byte {self.offset} (the limit is {MAX_TAR_HEADER_BYTES}): not a backup"
                )
            if self.type == tarfile.XGLTYPE:
                tarfile_._global_header_bytes = total  # type: ignore[attr-defined]
        return super()._proc_member(tarfile_)  # type: ignore[misc]


_Info = TypeVar("_Info", bound=tarfile.TarInfo)
_OCTAL = re.compile(rb"[0-7 \0]*")  # a number field tarfile reads as octal text (not base-256)
_NUMBERS = struct.Struct("8s8s8s12s12s8s")  # mode, uid, gid, size, mtime, chksum (bytes 100-156)
_CANONICAL = re.compile(rb"([0-7]{7})\0([0-7]{7})\0([0-7]{7})\0([0-7]{11})\0([0-7]{11})\0([0-7]{6})\0 ")


def _number(field: bytes) -> int:
    return int(field.partition(b"\0")[0].strip() or b"0", 8)  # as tarfile.nti, for [0-7 \0] only


def _frombuf(cls: type[_Info], buf: bytes, encoding: str, errors: str) -> _Info | None:
    """tarfile.TarInfo.frombuf for the common block: 512 bytes, octal number fields, the unsigned
    checksum right, not an old GNU sparse header. None for anything else (tarfile decides, and raises)."""
    if (
        len(buf) != tarfile.BLOCKSIZE
        or buf[156:157] == tarfile.GNUTYPE_SPARSE
        or _OCTAL.fullmatch(buf, 100, 156) is None
        or _OCTAL.fullmatch(buf, 329, 345) is None
        or buf.count(0) == tarfile.BLOCKSIZE
    ):
        return None
    canonical = _CANONICAL.match(buf, 100)  # as tarfile and Go write them: zero-padded, NUL-terminated
    try:
        fields = canonical.groups() if canonical else _NUMBERS.unpack_from(buf, 100)
        mode, uid, gid, size, mtime, chksum = (int(f, 8) for f in fields) if canonical else map(_number, fields)
        devmajor, devminor = _number(buf[329:337]), _number(buf[337:345])
    except ValueError:
        return None
    if chksum != 256 + sum(buf.replace(b"\0", b"")) - sum(buf[148:156]):  # NULs add nothing: not iterated
        return None
    obj = cls()
    obj.name = _text(buf[0:100], encoding, errors)
    obj.mode, obj.uid, obj.gid, obj.size, obj.mtime, obj.chksum = mode, uid, gid, size, mtime, chksum
    obj.type = buf[156:157]
    obj.linkname = _text(buf[157:257], encoding, errors)
    obj.uname = _text(buf[265:297], encoding, errors)
    obj.gname = _text(buf[297:329], encoding, errors)
    obj.devmajor, obj.devminor = devmajor, devminor
    prefix = _text(buf[345:500], encoding, errors)
    if obj.type == tarfile.AREGTYPE and obj.name.endswith("/"):
        obj.type = tarfile.DIRTYPE  # the old V7 spelling of a directory
    if obj.isdir():
        obj.name = obj.name.rstrip("/")
    if prefix and obj.type not in tarfile.GNU_TYPES:
        obj.name = prefix + "/" + obj.name
    return obj


def _text(field: bytes, encoding: str, errors: str) -> str:
    return field.partition(b"\0")[0].decode(encoding, errors)


_HEADER_TYPES = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, tarfile.XHDTYPE, tarfile.XGLTYPE, b"X")


@contextmanager
def open_archive(path: str, limit: int = DEFAULT_MAX_ARCHIVE_BYTES) -> Iterator[tuple[tarfile.TarFile, Reader, Any]]:
    """The tar stream of `path`, gzip-compressed (by its magic bytes) or plain."""
    with open_stream(path, limit, window=True) as (reader, src):
        tf = tarfile.open(fileobj=reader, mode="r|", tarinfo=_CappedInfo)  # type: ignore[call-overload]
        yield tf, reader, src


@contextmanager
def open_stream(
    path: str, limit: int = DEFAULT_MAX_ARCHIVE_BYTES, *, window: bool = False
) -> Iterator[tuple[Reader, Any]]:
    """The decompressed bytes of `path` (gzip by its magic bytes, or plain), capped at `limit`."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO must not block the run
    kind = not_regular(os.fstat(fd).st_mode)
    if kind:
        os.close(fd)
        raise BackupError(f"{path}: {kind}, not a regular file: refused")
    with os.fdopen(fd, "rb") as raw:
        compressed = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        with (
            gzip.GzipFile(fileobj=raw, mode="rb") if compressed else contextlib.nullcontext(raw) as src,
            ReadAhead(src) as ahead,  # type: ignore[arg-type]
        ):
            yield Reader(ahead, path, limit, window=window), src  # type: ignore[arg-type]


def members(tf: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    while True:
        m = tf.next()
        if m is None:
            return
        tf.members.clear()  # type: ignore[attr-defined]  # TarFile keeps every header otherwise
        yield m


def finish(path: str, tf: tarfile.TarFile, reader: Reader) -> None:
    """After the last member only zero blocks may follow; reading to the end checks the gzip CRC."""
    pending = reader.pos - tf.offset
    if pending > len(reader.tail) or reader.tail[len(reader.tail) - pending :].strip(b"\0"):
        raise BackupError(f"{path}: corrupt tar header after byte {tf.offset}: the archive cannot be read completely")
    while chunk := reader.read(_CHUNK):
        if chunk.strip(b"\0"):
            raise BackupError(f"{path}: unexpected data after the end of the tar archive (corrupt header?)")


def header_problem(reader: Reader, m: tarfile.TarInfo, start: int) -> str | None:
    """Why the readers of a tar (tarfile, Go's archive/tar, GNU tar) would not all read `m`, just read
    after the member that ended at `start`, as the same entry, or None (tarnames)."""
    segment = reader.raw_bytes(start, m.offset_data)
    if segment is None:
        return "tar headers too long to check"
    return tarnames.disagreement(segment, m.offset - start, m)


def unsafe(m: tarfile.TarInfo, links: set[str]) -> str | None:
    """Why this entry must not be in an archive we read or rewrite, or None. `links`: the symbolic links
    seen so far (the caller adds each accepted one)."""
    name = m.name
    parts = name.split("/")
    if name.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", name):
        return "absolute path"
    if ".." in parts:
        return "path with a '..' component"
    if links and any("/".join(parts[:i]) in links for i in range(1, len(parts))):
        return "path below a symbolic link"
    if m.issym() or m.islnk():
        target = m.linkname
        if target.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", target):
            return f"link to an absolute path ({quote(target)})"
        if ".." in target.replace("\\", "/").split("/"):
            # an extractor resolves `..` through earlier links (`b -> ..`, then `s -> b/../../etc`): any
            # `..` may leave the directory, so none is accepted (Velero writes no links at all)
            return f"link pointing outside the archive ({quote(target)}: a '..' component)"
    if m.ischr() or m.isblk() or m.isfifo():
        return "device file or FIFO (Velero never writes one)"
    if m.mode & 0o7000 and not m.issym():
        return f"setuid/setgid/sticky mode {m.mode:o} (Velero never writes one)"
    if m.issparse():
        return "sparse file (not written by Velero; not supported)"
    return None


def refusal(path: str, refused: list[str]) -> str:
    """The one message for an archive with unsafe entries (each named, quoted)."""
    shown = "; ".join(refused[:5]) + (f"; and {len(refused) - 5} more" if len(refused) > 5 else "")
    return f"{path}: refusing an archive with unsafe entries: {shown}"


def quote(name: str) -> str:

    return quote_name(name)


def read_member(tf: tarfile.TarFile, m: tarfile.TarInfo) -> bytes:
    fh = tf.extractfile(m)
    return fh.read() if fh is not None else b""
