"""The items of a block-style ResourceList, cut at the byte level: each item is then read and upgraded
as one document of a multi-document stream (one parse per item, never a node tree of the whole list).

`items:` at column 0 is followed by its block sequence: an item starts at each `- key:` line at the
sequence's column and runs to the next one; comment and blank lines at or left of that column stay with
the item before them (after the last item, with the rest of the list). The cut is proven by the caller,
not trusted: every item must read alone as YAML (`nodes.well_formed`: a quote or flow collection that
crossed a cut leaves the item it starts in unterminated), and the rest of the list, the items replaced
by one `- ~` line (`Layout.skeleton`), must read as a ResourceList with that line for its items.
Anything else (JSON, flow style, directives, a tab or an item other than `- key:` at the sequence's
column, line breaks other than LF and CRLF) has no layout: the caller reads the list whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from transform.model.findings import Severity
from transform.yamltext import textio

if TYPE_CHECKING:
    from transform.model.findings import Finding
    from transform.yamltext.emit import Style


class Part(Protocol):
    """The upgraded items' findings, as the engine gives them (`pipeline.parts.Part`)."""

    findings: list[Finding]
    after_edits: list[int]  # findings located in the edited text


_KEY = r"^{}:[ \t]*(?:#[^\r\n]*)?\r?\n"  # the list's key at column 0
_SKIP = re.compile(r"[ ]*(?:#[^\r\n]*)?\r?\n")  # a blank or comment line
_DASH = re.compile(r"([ ]*)- (?=[A-Za-z_][\w.\-/]*:(?:[ ]|\r?\n))")  # `- key:` (the item is a block mapping)
_DIRECTIVE = re.compile(r"^%", re.M)
_BARE_KEY = re.compile(r"[A-Za-z_][\w.\-/]*:(?:[ \t]+#.*)?")  # a key whose value is on the next lines


@dataclass(frozen=True)
class Layout:
    spans: list[textio.Chunk]  # each item: from the start of its `- ` line to the start of the next
    indent: int  # the column of the items' dashes
    seq: tuple[int, int]  # the items' text in the ResourceList's text
    size: int  # the length of that text
    spaced: str  # the text with each item's dash made a space: a span of it reads alone as the item
    block: str  # one `- ~` line: the items' text in `skeleton`
    skeleton: str  # the text with the items' text replaced by `block`
    key: int = 0  # where the list's key (`items:`) starts


def layout(text: str, newline: str, key: str = "items") -> Layout | None:
    """The items of a block-style ResourceList (or the entries of its `results`), or None (see the
    module's doc)."""
    if any(c in text for c in "\x85\u2028\u2029") or text.count("\r") != text.count("\r\n"):
        return None  # line breaks as YAML 1.1 reads them: LF and CRLF only here
    if "%" in text and _DIRECTIVE.search(text):
        return None
    found = list(re.finditer(_KEY.format(key), text, re.M))
    if len(found) != 1:
        return None
    pos = found[0].end()
    while (m := _SKIP.match(text, pos)) is not None and m.end() > pos:
        pos = m.end()
    first = _DASH.match(text, pos)
    if first is None:
        return None
    n = len(first.group(1))
    starts, end = [pos], len(text)
    for m in re.compile(rf"\n( {{0,{n}}})(?=[^ \r\n])").finditer(text, pos + 1):
        line, col = m.start() + 1, len(m.group(1))
        c = text[line + col]
        if c == "\t":
            return None
        if c == "#":
            continue
        if col == n and c == "-" and text[line + n + 1 : line + n + 2] in ("", " ", "\r", "\n"):
            if not _DASH.match(text, line):
                return None  # an item that is not a block mapping
            starts.append(line)
            continue
        end = line  # the next key of the ResourceList (or something the skeleton refuses)
        break
    end = _without_trailing(text, starts[-1], end, n)
    spans = [textio.Chunk(a, b) for a, b in zip(starts, [*starts[1:], end], strict=True)]
    parts, prev = [], 0
    for start in starts:
        parts += [text[prev : start + n], " "]
        prev = start + n + 1
    spaced = "".join([*parts, text[prev:]])
    block = f"{' ' * n}- ~  # {len(starts)} {key}" + (newline if text.endswith("\n", 0, end) else "")
    skeleton = text[:pos] + block + text[end:]
    return Layout(spans, n, (pos, end), len(text), spaced, block, skeleton, found[0].start())


def _without_trailing(text: str, last: int, end: int, n: int) -> int:
    """`end` moved back over the comment lines at most `n` columns in that end the items (the
    ResourceList's own: a key added after the items goes before them, as the planner puts it); blank lines
    right after the last item stay with it (a `|+` scalar keeps them)."""
    cut = end
    while cut > last:
        start = text.rfind("\n", 0, cut - 1) + 1
        line = text[start:cut].rstrip("\r\n")
        body = line.lstrip(" ")
        if body and not (body.startswith("#") and len(line) - len(body) <= n):
            break
        cut = start
    while cut < end and not text[cut : (nl := text.find("\n", cut) + 1 or end)].strip():
        cut = nl
    return cut


def proven(lay: Layout, text: str, key: str = "items") -> bool:
    """Whether the cut is the parser's: read whole (events only, `nodes.block_entries`), `text` has its
    `key` where the cut found it and one entry starting at each item's first key, and nothing but blank
    and comment lines between the cut's end and the sequence's. A quote or flow collection that pairs
    across the cut differently from the items read one by one (a `'` opened before a fake `items:`
    line) fails here: the list is then read whole."""
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.yamltext import nodes as yamlnodes

    got = yamlnodes.block_entries(text, key)
    if got is None:
        return False
    at, entries, end = got
    if at != lay.key or entries != [s.start + lay.indent + 2 for s in lay.spans] or end < lay.seq[1]:
        return False
    pos = lay.seq[1]
    while pos < end and (m := _SKIP.match(text, pos)) is not None and m.end() > pos:
        pos = m.end()
    return pos >= end


def style(lay: Layout, top: Any, newline: str) -> Style:
    """The style `emit.detect_style` would find in the whole list: the skeleton's, with the quote the whole
    text uses most (counted after a space, as values and list entries start) and, when no value at the top
    shows an indentation step and `items` comes last, the step of the last item's first nested mapping
    (where the whole list's first step would be found)."""
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.yamltext import emit
    from transform.yamltext.nodes import MappingNode

    found = emit.detect_style(lay.skeleton, top.root, newline)
    quote = "'" if lay.spaced.count(" '") > lay.spaced.count(' "') else '"'
    pairs = top.root.value
    stepped = any(
        isinstance(v, MappingNode) and not v.flow_style and v.value and v.start_mark.column > k.start_mark.column
        for k, v in pairs
    )
    last = None if stepped or pairs[-1][0].value != "items" else _step(lay)
    return replace(found, quote=quote, unit=last or found.unit)


def _step(lay: Layout) -> int | None:
    """The indentation step of the last item's first key whose value is a block mapping, read from the text."""
    span, col = lay.spans[-1], lay.indent + 2
    lines = [ln for ln in lay.spaced[span.start : span.end].splitlines() if ln.strip() and ln.lstrip()[0] != "#"]
    for line, after in zip(lines, lines[1:], strict=False):
        if len(line) - len(line.lstrip(" ")) == col and _BARE_KEY.fullmatch(line.strip()):
            step = len(after) - len(after.lstrip(" ")) - col
            if step > 0 and not after.lstrip().startswith("-"):
                return step
    return None


def others(lay: Layout) -> list[str]:
    """The items that hold no KubeVirt marker (as `spaced` has them): the engine never parses them."""
    texts = (lay.spaced[s.start : s.end] for s in lay.spans)
    return [t for t in texts if not textio.holds(t, textio.NEEDLES_STR)]


def restore(lay: Layout, body: str) -> str | None:
    """An upgraded item's text (of `spaced`) with its dash back, or None when its first line no longer
    starts the item's mapping (a comment moved above it)."""
    n = lay.indent
    if body[: n + 2] != " " * (n + 2) or body[n + 2 : n + 3] in ("", " ", "#", "\r", "\n"):
        return None
    return body[:n] + "-" + body[n + 1 :]


def splice(lay: Layout, skeleton: str, text: str) -> str | None:
    """The edited `skeleton` with the items' text of `text` (the ResourceList with its items upgraded) in
    place of its `- ~` lines; None when those lines are not there once, unchanged."""
    at = skeleton.find(lay.block)
    if at < 0 or skeleton.find(lay.block, at + 1) >= 0:
        return None
    items = text[lay.seq[0] : len(text) - (lay.size - lay.seq[1])]
    return skeleton[:at] + items + skeleton[at + len(lay.block) :]


def skeleton(lay: Layout, key: str = "items") -> Any:
    """The ResourceList with one `- ~` line for its items, parsed; None unless it reads as a ResourceList
    with that line for its `key` (no duplicate key, no NaN)."""
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.yamltext import nodes as yamlnodes

    chunks = [c for c in textio.split_documents(lay.skeleton) if textio.has_content(lay.skeleton[c.start : c.end])]
    if len(chunks) != 1:
        return None
    try:
        doc = yamlnodes.parse(lay.skeleton[chunks[0].start : chunks[0].end])
    except yamlnodes.ParseError:
        return None
    if doc is None or not isinstance(doc.value, dict) or doc.value.get("kind") != "ResourceList":
        return None
    value = doc.value
    if value.get(key) != [None] or doc.duplicates or doc.nonfinite:
        return None
    return doc


def as_one_document(part: Part) -> None:
    """Findings in the order of the list read as one document: duplicate keys, what the upgrade found,
    then what reading the upgraded items back found (nothing, when the upgrade found an error)."""
    late = set(part.after_edits)
    rank = [0 if f.code == "input.duplicate-key" else 2 if i in late else 1 for i, f in enumerate(part.findings)]
    failed = any(r == 1 and f.severity is Severity.ERROR for r, f in zip(rank, part.findings, strict=True))
    order = sorted((i for i, r in enumerate(rank) if not (failed and r == 2)), key=rank.__getitem__)
    part.findings, part.after_edits = [part.findings[i] for i in order], []


def reads_back(text: str, expected: dict[str, Any], newline: str) -> bool | None:
    """Whether the ResourceList `text` (its items one `- ~` line) reads as `expected`, its `results` read one
    entry at a time as its items are (a tree of the whole list would be as large as the list); None when
    they cannot be cut so (read it whole)."""
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.yamltext import edits
    from transform.yamltext import nodes as yamlnodes

    lay = layout(text, newline, "results")
    top = skeleton(lay, "results") if lay is not None else None
    results = expected.get("results")
    if lay is None or top is None or not isinstance(results, list) or len(results) != len(lay.spans):
        return None
    if not edits.same({**top.value, "results": results}, expected):  # the rest of the list
        return False
    for span, want in zip(lay.spans, results, strict=True):
        try:
            doc = yamlnodes.parse(lay.spaced[span.start : span.end])
        except yamlnodes.ParseError:
            return False
        if doc is None or not edits.same(doc.value, want):
            return False
    return True
