"""Flow mappings in a Helm chart file (`{apiVersion: ..., kind: ..., ...}`), on one line or over several.

A flow mapping with a literal KubeVirt `kind` and a literal old `apiVersion` is upgraded in place, the
value only (the rest of the file stays byte for byte), by the rule of what it is:

- the document's own object (`{apiVersion: kubevirt.io/v1alpha3, kind: VirtualMachine, ...}`, or a JSON
  document `{ "apiVersion": ..., "kind": ... }` laid out over lines), and any object of a values file:
  the object rule, as a file's object gets it;
- a reference (`scaleTargetRef: {apiVersion: pool.kubevirt.io/v1alpha1, kind: VirtualMachinePool, name: x}`,
  an `ownerReferences` item): the reference rule.

Over several lines, line breaks are white space and `# comments` are skipped, as YAML reads a flow
mapping; template actions and quoted scalars are opaque. A templated apiVersion beside a KubeVirt kind is
the `helm.templated-apiversion` warning, as on a block line. A flow mapping over several lines that
cannot be read that way (it does not close, a template action splits an entry, a value spans lines) and
names a KubeVirt apiVersion is never skipped silently: `helm.flow-unread`, naming its line.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

from transform.convert import apiversion
from transform.formats.helm_chart import flow as helmflow
from transform.formats.helm_chart.lines import KINDS, Line, Result, literal, templated
from transform.kubevirt import apis
from transform.model.findings import info, warning

Edits = dict[int, tuple[int, int, str]]
_WHITE = " \t\r\n"


@dataclass(frozen=True)
class Source:
    """A chart file's text and the offset of each line's start (built once per file)."""

    text: str
    starts: tuple[int, ...]
    api: tuple[int, ...] = ()  # the offsets of every `apiVersion` in the text

    @classmethod
    def of(cls, raw: list[str]) -> Source:
        starts, at = [], 0
        for line in raw:
            starts.append(at)
            at += len(line) + 1
        text = "\n".join(raw)
        return cls(text, tuple(starts), tuple(m.start() for m in re.finditer("apiVersion", text)))

    def names_api(self, begin: int, end: int) -> bool:
        """Does `apiVersion` occur in text[begin:end]? (A look-up, not a scan: a document of many flow
        mappings over lines asks it once per mapping.)"""
        i = bisect.bisect_left(self.api, begin)
        return i < len(self.api) and self.api[i] + len("apiVersion") <= end

    def at(self, offset: int) -> tuple[int, int]:
        """(0-based line, 0-based column) of `offset`."""
        line = bisect.bisect_right(self.starts, offset) - 1
        return line, offset - self.starts[line]


@dataclass
class Flows:
    """One file's flow mappings over lines: its `Source`, built on first use; where each `{`/`[` read so far
    closes (None: not in its document), so that a nested mapping is never read twice; and the documents (by
    the offset of their end) already said to hold one that does not close (said once per document)."""

    raw: list[str]
    src: Source | None = None
    closes: dict[int, int | None] = field(default_factory=dict)
    unclosed: set[int] = field(default_factory=set)


def flow_mapping(
    out: Result,
    edits: Edits,
    flows: Flows,
    ln: Line,
    end_line: int,
    targets: apis.Targets,
    values: bool,
    whole: bool,
) -> set[int]:
    """Upgrade the flow mapping opening on `ln` (if any) of the document that ends before line `end_line`; the
    numbers of the lines whose apiVersion and kind it read (the caller reads them no more). `whole`: the
    mapping is the document's own object."""
    raw = flows.raw
    text = raw[ln.number].rstrip("\r")
    start = ln.value_at + len(ln.value) - len(ln.value.lstrip(" \t")) if ln.key is not None else ln.key_col
    if not text.startswith("{", start) or text.startswith("{{", start):
        return set()
    one = helmflow.entries(text, start)
    if one is not None:
        if "apiVersion" not in text:
            return set()
        line = Source(text, (0,))
        return _mapping(out, edits, raw, ln, line, ln.number, one, targets, values, whole, len(one))
    if flows.src is None:
        flows.src = Source.of(raw)
    src = flows.src
    begin = src.starts[ln.number] + start
    end = src.starts[end_line] - 1 if end_line < len(src.starts) else len(src.text)
    # a nested mapping an earlier reading passed: read to where it closes (None: it does not)
    known = flows.closes[begin] if begin in flows.closes else end
    stop = end if known is None else min(known + 1, end)
    if not src.names_api(begin, stop):
        return set()
    found = None if known is None else helmflow.entries_over_lines(src.text, begin, stop, flows.closes)
    if found is None:
        if end not in flows.unclosed:
            flows.unclosed.add(end)
            _unread(out, ln, src.text[begin:stop], "it does not close, or a template action splits it")
        return set()
    entries, close, written = found
    if not src.names_api(begin, close):
        return set()
    return _mapping(out, edits, raw, ln, src, 0, entries, targets, values, whole, written)


def _value(blob: str, a: int, b: int) -> tuple[str, int] | None:
    """An entry's value text (white space around it dropped) and its offset; None when it spans lines."""
    raw = blob[a:b]
    lead = len(raw) - len(raw.lstrip(_WHITE))
    core = raw[lead:].rstrip(_WHITE)
    return None if "\n" in core else (core, a + lead)


def _mapping(
    out: Result,
    edits: Edits,
    raw: list[str],
    ln: Line,
    src: Source,
    first: int,
    entries: list[tuple[str, int, int]],
    targets: apis.Targets,
    values: bool,
    whole: bool,
    written: int,
) -> set[int]:
    spans = {key: (a, b) for key, a, b in entries}

    def pos(offset: int) -> tuple[int, int]:
        line, col = src.at(offset)
        return first + line, col

    mapping = src.text[min((a for _, a, _ in entries), default=0) : max((b for _, _, b in entries), default=0)]
    # the lines of its own apiVersion and kind keys: read here, not again as block lines
    claimed = {pos(spans[k][0] - 1)[0] for k in ("apiVersion", "kind") if k in spans}
    if "apiVersion" not in spans or "kind" not in spans:
        if len(entries) < written:  # an entry whose key a template action hides (`{{- if }}` before `kind:`)
            _unread(out, ln, mapping, "a template action splits an entry")
        return claimed
    kind_text, api_text = _value(src.text, *spans["kind"]), _value(src.text, *spans["apiVersion"])
    kind = literal(kind_text[0]) if kind_text is not None else None
    if kind is None or kind[0] not in KINDS or kind_text is None:
        return claimed
    if api_text is None:
        _unread(out, ln, mapping, "its apiVersion spans lines")
        return claimed
    line, col = pos(api_text[1])
    where: dict[str, Any] = {"line": line + 1, "column": col + 1}
    lit = literal(api_text[0])
    if lit is None:
        if "{{" in api_text[0] and not values:
            templated(out, Line(line, 0, 0, "apiVersion", False, api_text[0], col), kind[0], targets, where)
        return claimed
    value, a, b = lit
    if apis.group_of(value) is None:
        return claimed
    where["column"] = col + a + 1
    out.uses.append((line + 1, value, kind[0]))
    if values or whole:
        rule = apiversion.object_rule(value, kind[0], targets)
        if rule is None:
            return claimed
        new, new_kind, found = rule
        if values:
            found = [f for f in found if new is not None and f.code.endswith(".upgraded")]
    else:
        new, new_kind, found = apiversion.reference_rule(value, kind[0], targets)[0], kind[0], []
    out.findings += [f.at(path=(), **where) for f in found]
    if new is None or new == value:
        return claimed
    if not found:
        what = "apiVersion" if whole else f"{kind[0]} reference"
        out.findings.append(info("helm.upgraded", f"{what}: upgraded {value} -> {new}", **where))
    changes = [(api_text[1] + a, api_text[1] + b, new)]
    if new_kind != kind[0]:
        changes.append((kind_text[1] + kind[1], kind_text[1] + kind[2], new_kind))
    by_line: dict[int, list[tuple[int, int, str]]] = {}
    for x, y, repl in changes:
        n, c = pos(x)
        by_line.setdefault(n, []).append((c, c + (y - x), repl))
    for n, cuts in by_line.items():
        text = raw[n].rstrip("\r")
        for c, d, repl in sorted(cuts, reverse=True):
            text = text[:c] + repl + text[d:]
        edits[n] = (0, len(raw[n].rstrip("\r")), text)
    out.upgraded += values or whole
    return claimed


def _unread(out: Result, ln: Line, blob: str, why: str) -> None:
    """A flow mapping over several lines that names a KubeVirt apiVersion and cannot be read: say so."""
    if not any(needle in blob for needle in apis.needles()):
        return
    out.findings.append(
        warning(
            "helm.flow-unread",
            f"a flow mapping ({{...}}) over several lines that this tool cannot read ({why}): a KubeVirt "
            "apiVersion in it is not upgraded; write it as a block mapping (or on one line), or check its "
            "apiVersion by hand",
            line=ln.number + 1,
            column=ln.key_col + 1,
        )
    )
