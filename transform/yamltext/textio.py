"""Bytes <-> text without losing anything: BOM, line endings, final newline; document spans."""

from __future__ import annotations

import codecs
import functools
import re
from dataclasses import dataclass

from transform.kubevirt import apis

# Bytes that mark a document worth parsing. Anything without one of them is passed through
# untouched and never parsed (the pre-filter: 95% of a GitOps repo). The API groups' markers come
# from the table: `kubevirt.io/` is in every apiVersion, owner reference and label of a KubeVirt or
# CDI group, `cdi.io/v1alpha1` is CDI 1.0's group; ControllerRevision finds instancetype revisions
# (apps/v1) and VirtualMachine partial VM documents. Kustomizations are read whole.
# Helm's release records: `helm.sh/release.v1` (a Secret's type) and `sh.helm.release.v1.` (the name
# of both drivers' records) share `release.v1`; the record itself is base64 and names nothing.
HELM_NEEDLE = "release.v1"
NEEDLES_STR = ("ControllerRevision", "VirtualMachine", *apis.needles(), HELM_NEEDLE)
NEEDLES = tuple(n.encode() for n in NEEDLES_STR)

# Line breaks as YAML reads them: LF, CRLF and a lone CR. `(?<![^\r\n])` is "at the start of a line".
_MARKER = re.compile(r"(?<![^\r\n])(?:(?:---|\.\.\.)(?=[ \t\r\n]|\Z)|%)")
_TAB_INDENT = re.compile(r"(?<![^\r\n])[ ]*\t")
_BREAK = re.compile(r"\r\n?|\n")
_CONTENT = re.compile(r"(?<![^\r\n])(?![ \t]*(?:#|[\r\n]|\Z)|(?:---|\.\.\.)[ \t]*(?:#[^\r\n]*)?(?:[\r\n]|\Z)|%)")


class ReadError(Exception):
    """Input that is not text we can safely rewrite."""


@dataclass(frozen=True)
class Source:
    text: str  # without the BOM, line endings as in the file (a CR-only file's as LF: see `cr`)
    bom: bool
    newline: str  # the file's dominant line ending, used for inserted lines
    cr: bool = False  # every line break of the file is a lone CR (classic Mac): `text` has LF instead

    def encode(self, text: str) -> bytes:
        if self.cr:
            text = text.replace("\n", "\r")
        return (codecs.BOM_UTF8 if self.bom else b"") + text.encode("utf-8")


def is_candidate(data: bytes) -> bool:
    """Does `data` hold a marker, as its bytes or behind a YAML/JSON escape (`kubevirt\\x2eio`)?"""
    return holds_bytes(data, NEEDLES_STR, NEEDLES)


@functools.lru_cache(maxsize=8)
def _encoded(needles: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(n.encode() for n in needles)


def holds_bytes(data: bytes, needles: tuple[str, ...], encoded: tuple[bytes, ...] | None = None) -> bool:
    """`holds` for bytes (`encoded`: the needles as bytes, when the caller has them)."""
    if any(n in data for n in (encoded or _encoded(needles))):
        return True
    if b"\\" not in data or _HIDING_BYTES.search(data) is None:  # memchr, then one scan: most files stop here
        return False
    return any(n in unescaped(data.decode("latin-1")) for n in needles)


# The escapes of YAML double-quoted scalars and JSON strings that can spell a marker's character (any
# ASCII one), and YAML's escaped line break (the next line's indent dropped): where a marker could
# hide from a byte search. Undone over the whole text, quoted or not: a superset, never a miss.
_ESCAPE = re.compile(r"\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(\r\n|\r|\n)[ \t]*|(.))", re.S)
_HIDING = re.compile(r"\\[xuU/\r\n]")  # an escape that can spell a marker's character (a regex: 100x `in`)
_HIDING_BYTES = re.compile(_HIDING.pattern.encode())
_SIMPLE = {"/": "/", "\\": "\\", '"': '"', "t": "\t", " ": " ", "\t": "\t"}


def unescaped(text: str) -> str:
    """`text` with those escapes undone (an escaped character outside ASCII stays escaped)."""

    def one(m: re.Match[str]) -> str:
        code = m.group(1) or m.group(2) or m.group(3)
        if code is not None:
            n = int(code, 16)
            return chr(n) if n < 0x80 else m.group()
        if m.group(4) is not None:
            return ""
        return _SIMPLE.get(m.group(5), m.group())

    return _ESCAPE.sub(one, text)


def holds(text: str, needles: tuple[str, ...]) -> bool:
    """Does a document's text hold one of `needles`, as written or behind an escape (`unescaped`)?"""
    if any(n in text for n in needles):
        return True
    if "\\" not in text or _HIDING.search(text) is None:
        return False
    return any(n in unescaped(text) for n in needles)


def check_text(data: bytes) -> None:
    """Raise ReadError where `decode` would, and do nothing else (a file that is only checked for being
    text): ASCII without NUL bytes needs no decoding, and no line-ending census."""
    if data.isascii() and b"\x00" not in data:
        return
    decode(data)


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
    if text.startswith("\ufeff"):
        raise ReadError("file starts with two byte-order marks (U+FEFF): remove the extra one")
    if "\r" not in text:  # memchr: most files, and no line-ending census to take
        return Source(text, bom, "\n")
    crlf = text.count("\r\n")
    if "\n" not in text:  # YAML reads a lone CR as a line break: so does everything here
        return Source(text.replace("\r", "\n"), bom, "\n", cr=True)
    newline = "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"
    return Source(text, bom, newline)


_YAML_DIRECTIVE = re.compile(r"%YAML[ \t]+([0-9]+)\.([0-9]+)")


@dataclass(frozen=True)
class Chunk:
    """A slice of the text holding at most one YAML document (plus its markers/comments)."""

    start: int
    end: int


def split_documents(text: str) -> list[Chunk]:
    """Split at `---`/`...` lines, which end a document in every YAML context, and before `%`
    directives (at the start of a line they begin the next document's header, as libyaml reads them)."""
    cuts = [0]
    for start in _marker_starts(text):
        if not text.startswith("...", start):  # `---` or `%`
            if start != 0:
                cuts.append(start)
        else:
            nl = _BREAK.search(text, start + 3)
            cuts.append(len(text) if nl is None else nl.end())
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


def _marker_starts(text: str) -> list[int]:
    """Where `_MARKER` matches, found with str.find (a regex that tries every position, or every line
    break, costs 0.2-0.6 s on a 20 MB export; these searches cost milliseconds)."""
    starts = [0] if _MARKER.match(text) else []
    breaks = "\n\r" if "\r" in text else "\n"
    marks = ("---", "...", "%") if "%" in text else ("---", "...")  # one character: found at memchr speed
    for needle in (b + m for b in breaks for m in marks):
        i = text.find(needle)
        while i >= 0:
            after = text[i + 4 : i + 5] if needle[1] != "%" else ""
            if after in ("", " ", "\t", "\r", "\n"):
                starts.append(i + 1)
            i = text.find(needle, i + 1)
    return sorted(starts)


def stream_problem(body: str) -> str:
    """Why libyaml refuses this chunk in a stream (checked even where the chunk is never parsed), or "".

    A directive always starts a chunk (`split_documents` cuts before it)."""
    if not body.startswith("%"):
        return ""
    lines = [ln for ln in body.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines or not lines[0].startswith("%"):
        return ""
    for ln in lines:
        m = _YAML_DIRECTIVE.match(ln)
        if m and (int(m.group(1)), int(m.group(2))) != (1, 1):
            # go-yaml v2 parserc.go (yaml_parser_process_directives): `token.major != 1 || token.minor != 1`
            return (
                f"`{ln.strip()}`: kubectl cannot read this document: go-yaml v2 (sigs.k8s.io/yaml) refuses every "
                "%YAML version but 1.1 (found incompatible YAML document); remove the directive or write %YAML 1.1"
            )
    first = next((ln for ln in lines if not ln.startswith("%")), "")
    if first[:3] == "---" and first[3:4] in ("", " ", "\t"):
        return ""
    return "a %directive must be followed by a '---' line (YAML: did not find expected <document start>)"


def problem_line(body: str) -> int:
    """The line of `body` (0-based) that `stream_problem` names: a refused %YAML directive's, else the first."""
    if body.startswith("%"):
        for i, ln in enumerate(body.splitlines()):
            m = _YAML_DIRECTIVE.match(ln)
            if m and (int(m.group(1)), int(m.group(2))) != (1, 1):
                return i
    return 0


def tab_indented(body: str) -> bool:
    """A line indented with a tab: an error in YAML's block context (a parse must decide)."""
    return "\t" in body and _TAB_INDENT.search(body) is not None


def _only_directives(body: str) -> bool:
    if "%" not in body:  # most chunks: no need to split them into lines
        return False
    lines = [ln for ln in body.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return bool(lines) and all(ln.startswith("%") for ln in lines)


def has_content(body: str) -> bool:
    """Does this chunk hold a document (a line that is not blank, a comment, a marker or a directive)?"""
    return _CONTENT.search(body) is not None


def count_lines(text: str, start: int = 0, end: int | None = None) -> int:
    """Line breaks in text[start:end], as YAML counts them (LF, CRLF, lone CR)."""
    end = len(text) if end is None else end
    if text.find("\r", start, end) < 0:  # memchr: most files have no CR, and counting them costs more
        return text.count("\n", start, end)
    return text.count("\n", start, end) + text.count("\r", start, end) - text.count("\r\n", start, end)
