"""Raw tar archives built block by block (no tarfile): headers that readers disagree on, for the tests.

Independent of transform/: each header is laid out from the POSIX ustar / GNU layouts by hand."""

from __future__ import annotations

import gzip
from typing import Any

BLOCK = 512
USTAR = b"ustar\x0000"
GNU = b"ustar  \x00"


def header(
    name: bytes,
    kind: bytes = b"0",
    size: int = 0,
    *,
    link: bytes = b"",
    magic: bytes = USTAR,
    prefix: bytes = b"",
    mode: int = 0o644,
) -> bytes:
    """One 512-byte header block, checksum right."""
    b = bytearray(BLOCK)
    b[0:100] = name[:100].ljust(100, b"\0")
    b[100:108] = b"%07o\0" % mode
    b[108:116] = b"%07o\0" % 0
    b[116:124] = b"%07o\0" % 0
    b[124:136] = b"%011o\0" % size
    b[136:148] = b"%011o\0" % 0
    b[156:157] = kind
    b[157:257] = link[:100].ljust(100, b"\0")
    b[257:265] = magic
    b[345:500] = prefix[:155].ljust(155, b"\0")
    b[148:156] = b"        "
    b[148:156] = b"%06o\0 " % sum(b)
    return bytes(b)


def pad(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % BLOCK)


def pax_record(key: bytes, value: bytes) -> bytes:
    body = b" " + key + b"=" + value + b"\n"
    n = len(body) + 1
    while len(b"%d" % n) + len(body) != n:
        n += 1
    return b"%d" % n + body


def pax(records: dict[bytes, bytes], kind: bytes = b"x", magic: bytes = USTAR) -> bytes:
    """A PAX extended header (`x`, or `g` global) with its records."""
    data = b"".join(pax_record(k, v) for k, v in records.items())
    return header(b"PaxHeaders/x", kind, len(data), magic=magic) + pad(data)


def gnu_long(value: bytes, kind: bytes = b"L") -> bytes:
    """A GNU long-name (`L`) or long-link (`K`) header with its data (NUL-terminated)."""
    data = value + b"\0"
    return header(b"././@LongLink", kind, len(data), magic=GNU) + pad(data)


def member(name: bytes, data: bytes = b"", kind: bytes = b"0", **kw: Any) -> bytes:
    return header(name, kind, len(data), **kw) + pad(data)


def archive(*parts: bytes, compress: bool = True) -> bytes:
    raw = b"".join(parts) + b"\0" * (2 * BLOCK)
    raw += b"\0" * (-len(raw) % (20 * BLOCK))
    return gzip.compress(raw, mtime=0) if compress else raw
