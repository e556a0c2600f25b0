"""Rewriting a tar stream without re-encoding it: the writing half of `backup`.

The checked first pass (tarfile, with every check of tarstream) records a Span for each member the
second pass may have to change; nothing else is parsed again. The second pass copies the
decompressed stream as raw bytes (headers, PAX records, padding: exactly as they were) and stops
only at the recorded members: an unchanged one is copied too; a changed one keeps its header
blocks with only the size field (and checksum) patched, or gets a header built anew from its
checked fields where patching cannot do (a new name, a new link target, a PAX `size` record, a
size the field cannot hold). Every header copied was checked first (tarnames: each reader reads
it as the same entry).
"""

from __future__ import annotations

import array
import gzip
import io
import tarfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Literal

from transform.integrations.background import WriteBehind
from transform.integrations.tarstream import BackupError, Reader

_CHUNK = 1 << 20
Format = Literal[0, 1, 2]  # tarfile.USTAR_FORMAT, GNU_FORMAT, PAX_FORMAT
_MAX_OCTAL_SIZE = 8**11 - 1  # eleven octal digits and a NUL


@dataclass(slots=True)
class Span:
    """Where one member lies in the decompressed stream (offsets from its start)."""

    start: int  # its segment: from the end of the member before it (a global PAX header is in it)
    header: int  # its first header block (a PAX or GNU long-name header, or its own)
    data: int  # its data (its own header block is the 512 bytes before)
    end: int  # the end of its data's last block: the next member's segment
    size: int
    name: str
    kind: str  # "item" (may be upgraded), "large" (an item over the document limit), "link" (a hard link)
    linkname: str = ""
    pax_size: bool = False  # a PAX record gives its size: the header field is not the one readers use


def span(tf: tarfile.TarFile, m: tarfile.TarInfo, start: int, kind: str) -> Span:
    """The span of `m`, just read by `tf.next()` (tarfile's offset is then the next member's)."""
    end = tf.offset
    return Span(start, m.offset, m.offset_data, end, m.size, m.name, kind, m.linkname, "size" in m.pax_headers)


@dataclass
class Layout:
    """Where every member ends (for progress) and how many regular files it completes; 16 bytes a member."""

    ends: array.array[int] = field(default_factory=lambda: array.array("q"))
    files: array.array[int] = field(default_factory=lambda: array.array("q"))

    def add(self, end: int, files: int) -> None:
        self.ends.append(end)
        self.files.append(files)


class Splicer:
    """Reads the decompressed stream once, front to back; writes it (or nothing: `out` None) with
    the segments the caller replaces. `progress(files done, 0)` is called for every member passed."""

    def __init__(
        self,
        reader: Reader,
        out: IO[bytes] | gzip.GzipFile | WriteBehind | None,
        path: str,
        layout: Layout,
        progress: Callable[[int, int], None],
    ) -> None:
        self.reader = reader
        self.out = out
        self.path = path
        self.layout = layout
        self.progress = progress
        self.pos = 0  # read
        self.written = 0
        self.passed = 0  # members

    def passed_to(self, pos: int) -> None:
        """Report progress up to offset `pos` (read or not)."""
        ends, files, i = self.layout.ends, self.layout.files, self.passed
        while i < len(ends) and ends[i] <= pos:
            self.progress(files[i], 0)
            i += 1
        self.passed = i

    def copy(self, to: int) -> None:
        """Copy the stream up to offset `to` unchanged."""
        while self.pos < to:
            chunk = self._read(min(_CHUNK, to - self.pos))
            self.write(chunk)

    def take(self, to: int) -> bytes:
        """The stream's bytes up to offset `to` (not written: the caller writes them or others)."""
        return self._read(to - self.pos)

    def write(self, data: bytes) -> None:
        if self.out is not None:
            self.out.write(data)
        self.written += len(data)

    def close(self) -> None:
        """The end-of-archive marker, padded to a whole record (as tarfile writes it)."""
        tail = tarfile.BLOCKSIZE * 2
        tail += -(self.written + tail) % tarfile.RECORDSIZE
        self.write(b"\0" * tail)

    def _read(self, size: int) -> bytes:
        data = self.reader.read(size)
        while 0 < len(data) < size:  # a short read of a buffered stream: only at its end
            more = self.reader.read(size - len(data))
            if not more:
                break
            data += more
        if len(data) != size:
            raise BackupError(f"{self.path}: the backup changed while it was being read; nothing written")
        self.pos += size
        self.passed_to(self.pos)
        return data


def replaced(segment: bytes, sp: Span, data: bytes, name: str, fmt: Format) -> bytes:
    """The member of `segment` (its span `sp`) with new data and name: its headers patched in place
    when only the size changes, else re-encoded; data padded to whole blocks."""
    pad = b"\0" * (-len(data) % tarfile.BLOCKSIZE)
    own = sp.data - sp.start - tarfile.BLOCKSIZE
    block = segment[own : own + tarfile.BLOCKSIZE]
    if name == sp.name and not sp.pax_size and len(data) <= _MAX_OCTAL_SIZE and block[124] not in (0o200, 0o377):
        head = bytearray(block)
        head[124:136] = b"%011o\0" % len(data)
        head[148:156] = b"        "
        head[148:156] = b"%06o\0 " % sum(head)
        return b"".join((segment[:own], head, data, pad))
    return b"".join((reencoded(segment, sp, fmt, name=name, size=len(data)), data, pad))


_KEPT_PAX = ("mtime", "atime", "ctime", "uid", "gid", "uname", "gname")  # checked, and no name in them


def reencoded(segment: bytes, sp: Span, fmt: Format, *, name: str = "", size: int = 0, linkname: str = "") -> bytes:
    """The segment's headers (a global PAX header, checked, kept as it was) with the member's own
    built anew from the checked fields: a new name (and size) for an item, a new target for a hard
    link; of its PAX records only the times and owners are kept (no record is copied unread)."""
    own = segment[sp.header - sp.start : sp.data - sp.start]
    with tarfile.open(fileobj=io.BytesIO(own + b"\0" * (2 * tarfile.BLOCKSIZE)), mode="r|") as tf:
        m = tf.next()
    if m is None or m.name != sp.name or m.linkname != sp.linkname:
        raise BackupError("the backup changed while it was being read; nothing written")
    new = tarfile.TarInfo(name or m.name)
    new.type, new.mode, new.uid, new.gid, new.mtime = m.type, m.mode, m.uid, m.gid, m.mtime
    new.uname, new.gname = m.uname, m.gname
    new.size = size if name else m.size
    new.linkname = m.linkname if name else linkname
    new.pax_headers = {k: v for k, v in m.pax_headers.items() if k in _KEPT_PAX}
    return segment[: sp.header - sp.start] + new.tobuf(fmt, tarfile.ENCODING, "surrogateescape")
