"""Helm chart files as text: a template's literal `apiVersion:` lines, and a values file's data.

A chart's `templates/` files are Go templates, not YAML: they are never parsed or validated as
objects. Lines are read the way YAML lays out a block mapping: a key's siblings are the keys at its
column until a line starts left of it (a `{{ ... }}`-only line, a comment or a blank line is
transparent; `---` ends a document). On such lines:

- an `apiVersion:` whose literal value is an old KubeVirt/CDI version is rewritten (the value only,
  one line: the rest of the file stays byte for byte) by the table's rules for the kind beside it:
  the document's own `kind:` line, or a reference's (`scaleTargetRef`, `ownerReferences[]`);

      apiVersion: pool.kubevirt.io/v1alpha1   -->   apiVersion: pool.kubevirt.io/v1beta1
      kind: VirtualMachinePool                      kind: VirtualMachinePool

- the same in a one-line flow mapping (`scaleTargetRef: {apiVersion: ..., kind: VirtualMachinePool, name: x}`,
  `- {apiVersion: ..., kind: VirtualMachine, ...}` under `ownerReferences`), by the reference rule;
- a templated apiVersion beside a KubeVirt kind (`{{ .Values.apiVersion }}`) is a warning: its value
  is decided elsewhere;
- a ControllerRevision's payload is never touched (a warning): revisions are upgraded rendered.

A values file is data: a value changes only where it is the whole apiVersion of a KubeVirt kind named
beside it, and nothing else is reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from transform.convert import apiversion, helmflow
from transform.kubevirt import apis
from transform.model.findings import Finding, info, warning

KINDS: frozenset[str] = frozenset(k for r in apis.TABLE for k in (*r.kinds, *r.kind_renames))
_BLOCK = re.compile(r"[ \t]+(?:&\S+[ \t]+|![^ \t]*[ \t]+)*[|>][-+0-9]*[ \t]*(?:#.*)?$")
_ACTION = re.compile(r"\{\{.*?\}\}")
_COMMENT_ACTION = re.compile(r"[ \t]*\{\{-?[ \t]*/\*.*?\*/[ \t]*-?\}\}")
_VALUE = re.compile(r"""[ \t]*(?P<q>["']?)(?P<v>[^"'#\s,][^"'#\s,]*)(?P=q)[ \t]*,?[ \t]*(?:#.*)?$""")


@dataclass(frozen=True)
class Line:
    number: int  # 0-based
    first: int  # column of the first character (a `-` of a sequence item, or the key)
    key_col: int
    key: str | None
    dash: bool
    value: str  # the text after `key:` (with any comment)
    value_at: int  # its offset in the line
    boundary: bool = False  # `---`: a new document


@dataclass
class Result:
    text: str
    findings: list[Finding] = field(default_factory=list)
    upgraded: int = 0  # objects (a document's own apiVersion, a values file's object); references are not counted
    uses: list[tuple[int, str, str]] = field(default_factory=list)  # (line, apiVersion, kind) of each literal one


def _read_line(number: int, raw: str) -> Line | None:
    """None: a line that structures nothing (blank, comment, template actions only)."""
    text = raw.rstrip("\r")
    content = text.lstrip(" ")
    if not content or content.startswith("#"):
        return None
    first = len(text) - len(content)
    if content.startswith("{{") and not _ACTION.sub("", content).strip():
        return None
    if content.startswith("---") and content[3:4] in ("", " ", "\t"):
        return Line(number, first, first, None, False, "", 0, boundary=True)
    col, dash = first, False
    while content.startswith("-") and content[1:2] in ("", " ", "\t"):
        stripped = content[1:].lstrip(" \t")
        col += len(content) - len(stripped)
        content, dash = stripped, True
    m = helmflow.KEY.match(content)
    if m is None:
        return Line(number, first, col, None, dash, "", 0)
    return Line(number, first, col, helmflow.key_text(m), dash, content[m.end() :], col + m.end())


def _structure(raw: list[str]) -> list[Line]:
    """The lines that structure the text: not blank, comment or action-only lines, nor a block scalar's."""
    out: list[Line] = []
    block = -1  # the key column of the block scalar being read
    for n, r in enumerate(raw):
        if block >= 0:
            text = r.rstrip("\r")
            if not text.strip() or len(text) - len(text.lstrip(" ")) > block:
                continue
            block = -1
        ln = _read_line(n, r)
        if ln is None:
            continue
        out.append(ln)
        if ln.key is not None and _BLOCK.match(ln.value):
            block = ln.key_col
    return out


def _siblings(lines: list[Line], i: int) -> list[Line]:
    """The other keys of the block mapping holding `lines[i]`."""
    me = lines[i]
    c = me.key_col
    out: list[Line] = []
    if not me.dash:
        for j in range(i - 1, -1, -1):
            other = lines[j]
            if other.boundary or other.first < c:
                if not other.boundary and other.dash and other.key_col == c:
                    out.append(other)
                break
            if other.first == c and other.key_col == c:
                out.append(other)
    for j in range(i + 1, len(lines)):
        other = lines[j]
        if other.boundary or other.first < c:
            break
        if other.first == c and other.key_col == c and not other.dash:
            out.append(other)
    return out


def _list_item(lines: list[Line], i: int, top: int) -> bool:
    """Is `lines[i]` a key of an item of the document's top-level `items:` sequence (a `kind: List`)?"""
    me, opener = lines[i], i
    # the `- ` line that opens the mapping holding `me` (deeper lines, nested items too, are passed over)
    while not (lines[opener].dash and lines[opener].key_col == me.key_col):
        opener -= 1
        if opener < 0 or lines[opener].boundary or lines[opener].first < me.key_col and not lines[opener].dash:
            return False
        if lines[opener].dash and lines[opener].key_col < me.key_col:
            return False
    first = lines[opener]
    for j in range(opener - 1, -1, -1):
        other = lines[j]
        if other.boundary:
            return False
        if other.key is not None and other.key_col < first.key_col and not (other.dash and other.first == first.first):
            return other.key == "items" and other.key_col == top and not other.dash
    return False


def _literal(value: str) -> tuple[str, int, int] | None:
    """(value, start, end) of a one-line scalar value (quotes kept out of the span); None if templated. A
    template comment after it (`kubevirt.io/v1alpha3 {{- /* legacy */}}`) renders nothing: the value is literal."""
    value = _COMMENT_ACTION.sub(lambda m: " " * len(m.group()), value)
    if "{{" in value:
        return None
    m = _VALUE.match(value)
    if m is None:
        return None
    return m["v"], m.start("v"), m.end("v")


def _kind(siblings: list[Line]) -> tuple[str | None, Line | None]:
    """The literal kind beside an apiVersion (None: none, or templated) and its line."""
    for s in siblings:
        if s.key == "kind":
            lit = _literal(s.value)
            return (lit[0] if lit else None), s
    return None, None


def _newest_served(group: str, targets: apis.Targets) -> str | None:
    served = [r for r in apis.rows(group) if r.serves(targets.of(r))]
    return served[-1].api_version if served else None


def _uniform(value: str, targets: apis.Targets) -> tuple[str | None, bool]:
    """An apiVersion without a literal kind: (new version, True) when every kind of it goes the same way."""
    rows = [r for r in apis.TABLE if r.api_version == value]
    kinds = [k for r in rows for k in (r.kinds or ("",))]
    news = {apiversion.reference_rule(value, k, targets)[0] for k in kinds}
    return (news.pop(), True) if len(news) == 1 else (None, False)


def upgrade(text: str, targets: apis.Targets, *, values: bool = False) -> Result:
    """A template's (or, `values`, a values file's) text with old KubeVirt/CDI apiVersions rewritten."""
    raw = text.split("\n")
    lines = _structure(raw)
    out = Result(text)
    edits: dict[int, tuple[int, int, str]] = {}
    bounds = [i for i, ln in enumerate(lines) if ln.boundary]
    for lo, hi in zip([-1, *bounds], [*bounds, len(lines)], strict=True):
        doc = range(lo + 1, hi)
        if not doc:
            continue
        top = min(lines[i].first for i in doc)
        kinds = [lines[i] for i in doc if lines[i].key == "kind" and lines[i].key_col == top and not lines[i].dash]
        lit = _literal(kinds[0].value) if kinds else None
        if not values and lit and lit[0] == "ControllerRevision":
            _revision_note(out, raw, lines[lo + 1], lines[hi - 1], kinds[0])
            continue
        for i in doc:
            if lines[i].key == "apiVersion":
                _api_version(out, edits, lines, i, top, targets, values)
            else:
                _flow_reference(out, edits, raw, lines[i], targets, values)
    if edits:
        for n, (a, b, new) in edits.items():
            raw[n] = raw[n][:a] + new + raw[n][b:]
        out.text = "\n".join(raw)
    return out


def _api_version(
    out: Result,
    edits: dict[int, tuple[int, int, str]],
    lines: list[Line],
    i: int,
    top: int,
    targets: apis.Targets,
    values: bool,
) -> None:
    ln = lines[i]
    kind, kind_line = _kind(_siblings(lines, i))
    lead = len(ln.value) - len(ln.value.lstrip(" \t"))
    where: dict[str, Any] = {"line": ln.number + 1, "column": ln.value_at + lead + 1}
    lit = _literal(ln.value)
    if lit is None:
        if not values and "{{" in ln.value and (kind in KINDS or "kubevirt.io" in ln.value or "cdi.io" in ln.value):
            _templated(out, ln, kind, targets, where)
        return
    value, start, end = lit
    where["column"] = ln.value_at + start + 1
    if apis.group_of(value) is None or (values and kind not in KINDS):
        return
    out.uses.append((ln.number + 1, value, kind or ""))
    # the document's own apiVersion (or a `kind: List`'s item's), not a reference's
    whole = (not ln.dash and ln.key_col == top) or values or _list_item(lines, i, top)
    new_kind = kind
    found: list[Finding] = []
    if kind is None:
        new, uniform = _uniform(value, targets)
        if not uniform:
            out.findings.append(
                warning(
                    "helm.kind-unknown",
                    f"{value} without a literal kind beside it: which version replaces it depends on the kind; "
                    "write the kind out, or upgrade this apiVersion by hand",
                    **where,
                )
            )
    elif whole:
        rule = apiversion.object_rule(value, kind, targets)
        if rule is None:
            return
        new, new_kind, found = rule
    else:
        new = apiversion.reference_rule(value, kind, targets)[0]
    if values:
        found = [f for f in found if new is not None and f.code.endswith(".upgraded")]
    out.findings += [f.at(path=(), **where) for f in found]
    if new is None or new == value:
        return
    if not found:
        what = f"{kind} reference" if kind else "apiVersion"
        out.findings.append(info("helm.upgraded", f"{what}: upgraded {value} -> {new}", **where))
    edits[ln.number] = (ln.value_at + start, ln.value_at + end, new)
    if new_kind and kind and new_kind != kind and kind_line is not None and (kl := _literal(kind_line.value)):
        edits[kind_line.number] = (kind_line.value_at + kl[1], kind_line.value_at + kl[2], new_kind)
    out.upgraded += whole  # a reference is no object: counted as in files (a changed file, 0 objects)


def _flow_reference(
    out: Result, edits: dict[int, tuple[int, int, str]], raw: list[str], ln: Line, targets: apis.Targets, values: bool
) -> None:
    """A one-line flow mapping `{apiVersion: <old>, kind: <KubeVirt kind>, ...}`: a reference in a template
    (the reference rule), a whole apiVersion of a KubeVirt kind in a values file (the object rule, as there)."""
    text = raw[ln.number].rstrip("\r")
    start = ln.value_at + len(ln.value) - len(ln.value.lstrip(" \t")) if ln.key is not None else ln.key_col
    if not text.startswith("{", start) or text.startswith("{{", start) or "apiVersion" not in text:
        return
    entries = {key: (a, b) for key, a, b in helmflow.entries(text, start) or []}
    if "apiVersion" not in entries or "kind" not in entries:
        return
    kind_at, api_at = entries["kind"], entries["apiVersion"]
    kind = _literal(text[kind_at[0] : kind_at[1]])
    if kind is None or kind[0] not in KINDS:
        return
    value_text = text[api_at[0] : api_at[1]]
    lead = len(value_text) - len(value_text.lstrip(" \t"))
    where: dict[str, Any] = {"line": ln.number + 1, "column": api_at[0] + lead + 1}
    lit = _literal(value_text)
    if lit is None:
        if "{{" in value_text and not values:
            flat = Line(ln.number, 0, 0, "apiVersion", False, value_text, api_at[0])
            _templated(out, flat, kind[0], targets, where)
        return
    value, a, b = lit
    if apis.group_of(value) is None:
        return
    where["column"] = api_at[0] + a + 1
    out.uses.append((ln.number + 1, value, kind[0]))
    if values:
        rule = apiversion.object_rule(value, kind[0], targets)
        if rule is None:
            return
        new, new_kind, found = rule
        found = [f for f in found if new is not None and f.code.endswith(".upgraded")]
    else:
        new, new_kind, found = apiversion.reference_rule(value, kind[0], targets)[0], kind[0], []
    out.findings += [f.at(path=(), **where) for f in found]
    if new is None or new == value:
        return
    if not found:
        out.findings.append(info("helm.upgraded", f"{kind[0]} reference: upgraded {value} -> {new}", **where))
    spans = [(api_at[0] + a, api_at[0] + b, new)]
    if new_kind != kind[0]:
        spans.append((kind_at[0] + kind[1], kind_at[0] + kind[2], new_kind))
    for x, y, repl in sorted(spans, reverse=True):
        text = text[:x] + repl + text[y:]
    edits[ln.number] = (0, len(raw[ln.number].rstrip("\r")), text)
    out.upgraded += values


def _revision_note(out: Result, raw: list[str], first: Line, last: Line, kind: Line) -> None:
    """A ControllerRevision document: its payload is left alone; say so when it names a KubeVirt group."""
    body = "\n".join(raw[first.number : last.number + 1])
    if any(n in body for n in apis.needles()):
        out.findings.append(
            warning(
                "helm.revision-template",
                "a ControllerRevision in a template: its payload is not upgraded (a template cannot be decoded); "
                "render the chart and upgrade the rendered revision, or leave revisions to KubeVirt",
                line=kind.number + 1,
                column=kind.key_col + 1,
            )
        )


def _templated(out: Result, ln: Line, kind: str | None, targets: apis.Targets, where: dict[str, Any]) -> None:
    rows = [r for r in apis.TABLE if kind in r.kinds or kind in r.kind_renames] if kind else []
    group = rows[-1].group if rows else None
    newest = _newest_served(group, targets) if group else None
    hint = f" ({newest} for {kind} on {targets.text(rows[-1])})" if newest and rows else ""
    out.findings.append(
        warning(
            "helm.templated-apiversion",
            f"apiVersion is templated ({_without_comment(ln.value)}): the tool cannot see its value; make sure it "
            f"renders to a version the target serves{hint}, e.g. in values.yaml",
            **where,
        )
    )


def _without_comment(value: str) -> str:
    """A templated value as written, less a trailing `# comment` outside its `{{ }}` actions."""
    at = _ACTION.sub(lambda m: "x" * len(m.group()), value).find(" #")
    return (value[:at] if at >= 0 else value).strip()
