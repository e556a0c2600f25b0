"""Bytes <-> text without losing anything: BOM, line endings, final newline; document spans."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from transform.kubevirt import apis

# Bytes that mark a document worth parsing. Anything without one of them is passed through
# untouched and never parsed (the pre-filter: 95% of a GitOps repo). The API groups' markers come
# from the table (`kubevirt.io` covers instancetype, flavor, core, export, ...; `cdi.io/` CDI 1.0).
NEEDLES_STR = ("ControllerRevision", "VirtualMachine", *apis.needles())
NEEDLES = tuple(n.encode() for n in NEEDLES_STR)

_MARKER = re.compile(r"^(?:---|\.\.\.)(?=[ \t\r\n]|$)", re.M)


class ReadError(Exception):
    """Input that is not text we can safely rewrite."""


@dataclass(frozen=True)
class Source:
    text: str  # without the BOM, line endings as in the file
    bom: bool
    newline: str  # the file's dominant line ending, used for inserted lines

    def encode(self, text: str) -> bytes:
        return (codecs.BOM_UTF8 if self.bom else b"") + text.encode("utf-8")


def is_candidate(data: bytes) -> bool:
    return any(n in data for n in NEEDLES)


def decode(data: bytes) -> Source:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        raise ReadError("file is UTF-16/UTF-32 encoded; Kubernetes manifests must be UTF-8 (re-save it as UTF-8)")
    if b"\x00" in data:
        raise ReadError("file contains NUL bytes: it looks binary, not YAML or JSON")
    bom = data.startswith(codecs.BOM_UTF8)
    if bom:
        data = data[len(codecs.BOM_UTF8) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ReadError(f"not valid UTF-8 at line {line}, column {col} (byte 0x{data[exc.start]:02x})") from None
    crlf = text.count("\r\n")
    newline = "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"
    return Source(text, bom, newline)


@dataclass(frozen=True)
class Chunk:
    """A slice of the text holding at most one YAML document (plus its markers/comments)."""

    start: int
    end: int


def split_documents(text: str) -> list[Chunk]:
    """Split at `---`/`...` lines, which end a document in every YAML context."""
    cuts = [0]
    for m in _MARKER.finditer(text):
        if m.group() == "---":
            if m.start() != 0:
                cuts.append(m.start())
        else:
            nl = text.find("\n", m.end())
            cuts.append(len(text) if nl < 0 else nl + 1)
    cuts.append(len(text))
    chunks: list[Chunk] = []
    pending = None
    for a, b in zip(cuts, cuts[1:], strict=False):
        if a >= b:
            continue
        if pending is not None:
            a, pending = pending, None
        body = text[a:b]
        if _only_directives(body):
            pending = a  # `%YAML 1.1` belongs to the next document
            continue
        chunks.append(Chunk(a, b))
    if pending is not None:
        chunks.append(Chunk(pending, len(text)))
    return chunks


def _only_directives(body: str) -> bool:
    lines = [ln for ln in body.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return bool(lines) and all(ln.startswith("%") for ln in lines)


def line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col
