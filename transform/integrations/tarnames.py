"""How each tar reader names a member: Python's tarfile (our checks), Go's archive/tar (Velero's
restore) and GNU tar. A member's header blocks (PAX `x`, GNU long-name `L` and long-link `K`, its
own) are read here from their raw bytes with each reader's rules; a member whose name, link target,
size or type differs between the readers is refused, so the name that is checked is the name every
reader restores.

The rules (Go: golang/go src/archive/tar/reader.go; GNU tar: confirmed with GNU tar 1.34):
- name: Go takes the GNU long name over a PAX `path`, GNU tar the PAX `path` over the long name,
  tarfile whichever of the two headers comes first; each takes the last of several (tarfile the
  first), so more than one header of a kind (not byte-identical) is refused outright;
- the ustar `prefix` field: tarfile joins it whatever the magic, Go and GNU tar only under the
  POSIX `ustar\\0` magic (Go also reads a star trailer's shorter prefix, and GNU-magic headers of
  old Go writers);
- a global PAX header (`g`) applies to every later member in tarfile and GNU tar, never in Go: one
  that sets a name, a link, a size or sparse data is refused; so are a Solaris `X` header (Go reads
  it as a member), PAX records Go cannot read, sparse records, a NUL in a name, a non-decimal size,
  and a header-only entry (directory, link) with a size (GNU tar skips data there, the others not).
"""

from __future__ import annotations

import re
import tarfile
from dataclasses import dataclass

_BLOCK = tarfile.BLOCKSIZE
_META = (b"x", b"L", b"K")
_KIND_NAMES = {b"x": "PAX", b"L": "GNU long-name", b"K": "GNU long-link"}
_HEADER_ONLY = (b"1", b"2", b"3", b"4", b"5", b"6")
_DIGITS = re.compile(rb"[0-9]+")
_NAMED = (b"path", b"linkpath", b"size")
_OCTAL = re.compile(rb"[0-7]+")


class HeaderProblem(Exception):
    """The member's headers are read differently by different readers (or not at all by one)."""


@dataclass(frozen=True, slots=True)
class View:
    """A member as one reader sees it (names as raw bytes, without a trailing slash)."""

    name: bytes
    linkname: bytes
    size: int
    kind: bytes


def _cstr(field: bytes) -> bytes:
    return field.partition(b"\0")[0]


def _octal(field: bytes) -> int:
    """A header number as Go's archive/tar reads it: base-256, or octal digits between spaces and NULs."""
    if field[:1] and field[0] & 0x80:
        if field[0] & 0x40:
            raise HeaderProblem("a negative base-256 number")
        return int.from_bytes(bytes([field[0] & 0x7F]) + field[1:], "big")
    digits = _cstr(field.strip(b" \0"))
    if digits and not _OCTAL.fullmatch(digits):
        raise HeaderProblem(f"a number field {field!r} that Go's archive/tar does not read")
    return int(digits or b"0", 8)


def pax_records(data: bytes) -> dict[bytes, bytes]:
    """The records of a PAX header, read as Go reads them (strictly); HeaderProblem where Go would
    stop the restore, or where tarfile's laxer reading could find other records."""
    records: dict[bytes, bytes] = {}
    pos = 0
    while pos < len(data):
        sp = data.find(b" ", pos)
        length = data[pos:sp] if sp >= 0 else b""
        if not _DIGITS.fullmatch(length):
            raise HeaderProblem("a PAX record without a decimal length (Go's archive/tar cannot read it)")
        n = int(length)
        end = pos + n
        if n < 5 or end > len(data) or data[end - 1 : end] != b"\n" or b"=" not in data[sp + 1 : end - 1]:
            raise HeaderProblem("a malformed PAX record (Go's archive/tar cannot read it)")
        key, _, value = data[sp + 1 : end - 1].partition(b"=")
        if key.startswith(b"GNU.sparse."):
            raise HeaderProblem("a sparse PAX record (not written by Velero; not supported)")
        if key in (b"path", b"linkpath") and b"\0" in value:
            raise HeaderProblem(f"a NUL in the PAX {key.decode()} record")
        if key == b"size" and not _DIGITS.fullmatch(value):
            raise HeaderProblem(f"a PAX size {value!r} that the readers parse differently")
        if key in records and records[key] != value:
            raise HeaderProblem(f"two PAX {key.decode(errors='replace')} records")
        records[key] = value
        pos = end
    return records


def check_global(data: bytes) -> None:
    """A global PAX header: tarfile and GNU tar apply it to every later member, Go to none."""
    records = pax_records(data)
    named = [k.decode() for k in _NAMED if k in records]
    if named:
        raise HeaderProblem(
            f"a global PAX header setting {', '.join(named)} (Go's archive/tar, which Velero uses, ignores it)"
        )


def _prefixes(block: bytes) -> tuple[bytes, bytes]:
    """The ustar prefix as (Go, GNU tar) join it to the name."""
    magic = block[257:263]
    if magic == b"ustar\0":
        go = _cstr(block[345:476]) if block[508:512] == b"tar\0" else _cstr(block[345:500])
        return go, _cstr(block[345:500])
    if block[257:265] == b"ustar  \0":  # GNU: no prefix, but old Go writers put one there
        try:
            for field in (block[345:357], block[357:369]):
                if field[:1] != b"\0":
                    _octal(field)
        except HeaderProblem:
            s = _cstr(block[345:500])
            return (s if s.isascii() else b""), b""
    return b"", b""


def views(chain: bytes) -> tuple[View, View]:
    """The member whose header blocks (extended headers first, its own last) are `chain`, as Go's
    archive/tar and GNU tar read it. HeaderProblem where they cannot agree whatever the values."""
    meta: dict[bytes, bytes] = {}
    pos = 0
    while True:
        block = chain[pos : pos + _BLOCK]
        if len(block) < _BLOCK:
            raise HeaderProblem("a member's headers that end early")
        kind = block[156:157]
        size = _octal(block[124:136])
        if kind in (b"g", b"X"):
            raise HeaderProblem(f"a {'global PAX' if kind == b'g' else 'Solaris X'} header inside a member's headers")
        if kind not in _META:
            break
        data = chain[pos + _BLOCK : pos + _BLOCK + size]
        if kind in meta and meta[kind] != data:
            raise HeaderProblem(f"two {_KIND_NAMES[kind]} headers for one member")
        meta[kind] = data
        pos += _BLOCK + size + (-size % _BLOCK)
    if pos + _BLOCK != len(chain):
        raise HeaderProblem("data between a member's headers")
    pax = pax_records(meta.get(b"x", b""))
    long_name = _cstr(meta.get(b"L", b""))
    long_link = _cstr(meta.get(b"K", b""))
    go_prefix, gnu_prefix = _prefixes(block)
    base_name, base_link = _cstr(block[0:100]), _cstr(block[157:257])
    size = int(pax[b"size"]) if b"size" in pax else size
    go_name = long_name or pax.get(b"path") or (go_prefix + b"/" if go_prefix else b"") + base_name
    gnu_name = pax.get(b"path") or long_name or (gnu_prefix + b"/" if gnu_prefix else b"") + base_name
    go_link = long_link or pax.get(b"linkpath", base_link)
    gnu_link = pax.get(b"linkpath") or long_link or base_link
    return _view(go_name, go_link, size, kind), _view(gnu_name, gnu_link, size, kind)


def _view(name: bytes, link: bytes, size: int, kind: bytes) -> View:
    if kind in (b"\0", b"") and name.endswith(b"/"):
        kind = b"5"
    elif kind == b"\0":
        kind = b"0"
    return View(name.rstrip(b"/"), link, size, kind)


def tarfile_view(m: tarfile.TarInfo) -> View:
    kind = m.type if m.type != tarfile.AREGTYPE else tarfile.REGTYPE
    name, link = (t.encode(tarfile.ENCODING, "surrogateescape") for t in (m.name, m.linkname))
    return View(name.rstrip(b"/"), link, m.size, kind)


def disagreement(segment: bytes, chain_at: int, m: tarfile.TarInfo) -> str | None:
    """Why the member `m` (tarfile's reading of it) must be refused, or None. `segment`: the raw bytes
    from the end of the member before it to its data; its own headers start at `chain_at`."""
    try:
        pos = 0
        while pos < chain_at:  # global PAX headers before the member
            block = segment[pos : pos + _BLOCK]
            size = _octal(block[124:136])
            if block[156:157] != b"g":
                raise HeaderProblem("an unexpected header before a member")
            check_global(segment[pos + _BLOCK : pos + _BLOCK + size])
            pos += _BLOCK + size + (-size % _BLOCK)
        go, gnu = views(segment[chain_at:])
    except HeaderProblem as exc:
        return f"tar headers that readers disagree on: {exc}"
    if go.kind in _HEADER_ONLY and go.size:
        kind = go.kind.decode(errors="replace")
        return f"a header-only entry (type {kind}) with a size (readers skip it differently)"
    py = tarfile_view(m)
    readers = {"Go's archive/tar (Velero)": go, "GNU tar": gnu, "Python's tarfile": py}
    for what in ("name", "linkname", "size", "kind"):
        seen = {r: getattr(v, what) for r, v in readers.items()}
        if len(set(seen.values())) > 1:
            shown = ", ".join(f"{r} {_show(v)}" for r, v in seen.items())
            label = {"linkname": "link target", "kind": "type"}.get(what, what)
            return f"tar headers that readers disagree on: the {label} is read as {shown}"
    return None


def _show(value: bytes | int) -> str:
    if isinstance(value, int):
        return str(value)
    text = value.decode("utf-8", "backslashreplace")
    return repr(text)
