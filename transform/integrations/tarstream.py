"""Reading a gzip-compressed tar archive as a stream: one member at a time, flat memory, and the checks
that make a rewritten archive safe (no absolute paths, no `..`, no links that leave the archive)."""

from __future__ import annotations

import gzip
import posixpath
import re
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

_TAIL = 4 * tarfile.RECORDSIZE
_CHUNK = 1 << 20


class BackupError(Exception):
    """The archive cannot be processed at all: nothing is written."""


class Reader:
    """The decompressed tar stream; keeps its last bytes to check what follows the archive's end."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.pos = 0
        self.head = b""
        self.tail = b""

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        if len(self.head) < 512:
            self.head += data[: 512 - len(self.head)]
        self.pos += len(data)
        self.tail = (self.tail + data)[-_TAIL:]
        return data


@contextmanager
def open_archive(path: str) -> Iterator[tuple[tarfile.TarFile, Reader, gzip.GzipFile]]:
    with gzip.open(path, "rb") as gz:
        reader = Reader(gz)  # type: ignore[arg-type]
        tf = tarfile.open(fileobj=reader, mode="r|")  # type: ignore[call-overload]
        yield tf, reader, gz


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
    while chunk := reader.raw.read(_CHUNK):
        if chunk.strip(b"\0"):
            raise BackupError(f"{path}: unexpected data after the end of the tar archive (corrupt header?)")


def unsafe(m: tarfile.TarInfo, links: set[str]) -> str | None:
    """Why this entry must not be in an archive we rewrite, or None."""
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
        if target.startswith("/"):
            return f"link to an absolute path ({target})"
        base = posixpath.dirname(name) if m.issym() else ""
        resolved = posixpath.normpath(posixpath.join(base, target))
        if resolved == ".." or resolved.startswith("../") or (m.islnk() and ".." in target.split("/")):
            return f"link pointing outside the archive ({target})"
    if m.issparse():
        return "sparse file (not written by Velero; not supported)"
    return None


def read_member(tf: tarfile.TarFile, m: tarfile.TarInfo) -> bytes:
    fh = tf.extractfile(m)
    return fh.read() if fh is not None else b""
