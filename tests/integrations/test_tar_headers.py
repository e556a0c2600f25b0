"""The streaming reader parses plain tar header blocks itself (faster than tarfile): every field must
be what tarfile reads, and every block it does not take on (base-256 numbers, odd checksums, sparse,
garbage) must go to tarfile, which accepts or refuses it as before."""

from __future__ import annotations

import io
import tarfile
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from transform.integrations import tarstream

FIELDS: tuple[str, ...]
FIELDS = ("name", "mode", "uid", "gid", "size", "mtime", "chksum", "type", "linkname", "uname", "gname")
FIELDS += ("devmajor", "devminor", "pax_headers")


def _read(buf: bytes, info: type[tarfile.TarInfo]) -> Any:
    try:
        m = info.frombuf(buf, "utf-8", "surrogateescape")
    except tarfile.HeaderError as exc:
        return type(exc).__name__
    return tuple(getattr(m, f) for f in FIELDS)


def _blocks() -> list[bytes]:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        for name, kind in [("a/b.json", tarfile.REGTYPE), ("dir/", tarfile.DIRTYPE), ("l", tarfile.SYMTYPE)]:
            ti = tarfile.TarInfo(name)
            ti.type, ti.linkname, ti.uname, ti.gname, ti.mtime = (
                kind,
                "t" if kind == tarfile.SYMTYPE else "",
                "u",
                "g",
                7,
            )
            tf.addfile(ti, io.BytesIO(b"") if kind == tarfile.REGTYPE else None)
    raw = buf.getvalue()
    ustar = tarfile.TarInfo("p" * 90 + "/" + "n" * 90).tobuf(tarfile.USTAR_FORMAT)  # prefix + name
    big = tarfile.TarInfo("big")
    big.size = 8**11 + 5  # base-256 size field (GNU)
    return [raw[i : i + 512] for i in range(0, 1536, 512)] + [ustar[:512], big.tobuf(tarfile.GNU_FORMAT)[:512]]


def test_fast_header_matches_tarfile_on_real_blocks() -> None:
    for block in _blocks():
        assert _read(block, tarstream._CappedInfo) == _read(block, tarfile.TarInfo)
    assert _read(b"\0" * 512, tarstream._CappedInfo) == "EOFHeaderError"
    assert _read(b"x" * 100, tarstream._CappedInfo) == "TruncatedHeaderError"


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(range(5)),
    st.lists(st.tuples(st.integers(0, 511), st.sampled_from(b"0123457 \0\x80\xff_+xa/\x1c")), max_size=6),
)
def test_fast_header_matches_tarfile_on_mutated_blocks(which: int, edits: list[tuple[int, int]]) -> None:
    block = bytearray(_blocks()[which])
    for pos, byte in edits:
        block[pos] = byte
    for fix_checksum in (False, True):
        if fix_checksum:
            block[148:156] = b"        "
            block[148:156] = b"%06o\0 " % sum(block)
        assert _read(bytes(block), tarstream._CappedInfo) == _read(bytes(block), tarfile.TarInfo)
