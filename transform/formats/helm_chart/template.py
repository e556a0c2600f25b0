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

- the same in a flow mapping, on one line or over several (`scaleTargetRef: {apiVersion: ..., kind:
  VirtualMachinePool, name: x}`, `- {apiVersion: ..., kind: VirtualMachine, ...}` under `ownerReferences`: the
  reference rule; a document that is one flow mapping: the object rule): transform.convert.helmflowmaps;
- a templated apiVersion beside a KubeVirt kind (`{{ .Values.apiVersion }}`) is rendered where it names
  only what the chart itself sets (transform.formats.helm_chart.render) and judged as a literal one (a warning
  where it renders to a version the target replaces); otherwise a warning: the tool cannot tell its value;
- a ControllerRevision's payload is never touched (a warning): revisions are upgraded rendered.

A values file is data: a value changes only where it is the whole apiVersion of a KubeVirt kind named
beside it, and nothing else is reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from transform.convert import apiversion
from transform.formats.helm_chart import flowmaps as helmflowmaps
from transform.formats.helm_chart.lines import KINDS, Line, Result, literal, structure, templated
from transform.kubevirt import apis
from transform.model.findings import Finding, info, warning

__all__ = ["KINDS", "Result", "upgrade"]


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


def _kind(siblings: list[Line]) -> tuple[str | None, Line | None]:
    """The literal kind beside an apiVersion (None: none, or templated) and its line."""
    for s in siblings:
        if s.key == "kind":
            lit = literal(s.value)
            return (lit[0] if lit else None), s
    return None, None


def _uniform(value: str, targets: apis.Targets) -> tuple[str | None, bool]:
    """An apiVersion without a literal kind: (new version, True) when every kind of it goes the same way."""
    rows = [r for r in apis.TABLE if r.api_version == value]
    kinds = [k for r in rows for k in (r.kinds or ("",))]
    news = {apiversion.reference_rule(value, k, targets)[0] for k in kinds}
    return (news.pop(), True) if len(news) == 1 else (None, False)


def upgrade(
    text: str, targets: apis.Targets, *, values: bool = False, context: Mapping[str, str] | None = None
) -> Result:
    """A template's (or, `values`, a values file's) text with old KubeVirt/CDI apiVersions rewritten;
    `context`: what the chart sets (`.Chart.*`, `.Values.*`), to render a templated apiVersion from."""
    raw = text.split("\n")
    lines = structure(raw)
    out = Result(text)
    edits: dict[int, tuple[int, int, str]] = {}
    bounds = [i for i, ln in enumerate(lines) if ln.boundary]
    flows = helmflowmaps.Flows(raw)
    for lo, hi in zip([-1, *bounds], [*bounds, len(lines)], strict=True):
        doc = range(lo + 1, hi)
        if not doc:
            continue
        top = min(lines[i].first for i in doc)
        kinds = [lines[i] for i in doc if lines[i].key == "kind" and lines[i].key_col == top and not lines[i].dash]
        lit = literal(kinds[0].value) if kinds else None
        if not values and lit and lit[0] == "ControllerRevision":
            _revision_note(out, raw, lines[lo + 1], lines[hi - 1], kinds[0])
            continue
        claimed: set[int] = set()  # lines a flow mapping over several lines has read
        end_line = lines[hi].number if hi < len(lines) else len(raw)
        for i in doc:
            ln = lines[i]
            if ln.number in claimed:
                continue
            if ln.key == "apiVersion":
                _api_version(out, edits, lines, i, top, targets, values, context)
            else:
                whole = ln.key is None and not ln.dash and ln.first == top
                claimed |= helmflowmaps.flow_mapping(out, edits, flows, ln, end_line, targets, values, whole)
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
    context: Mapping[str, str] | None = None,
) -> None:
    ln = lines[i]
    kind, kind_line = _kind(_siblings(lines, i))
    lead = len(ln.value) - len(ln.value.lstrip(" \t"))
    where: dict[str, Any] = {"line": ln.number + 1, "column": ln.value_at + lead + 1}
    lit = literal(ln.value)
    if lit is None:
        if not values and "{{" in ln.value and (kind in KINDS or "kubevirt.io" in ln.value or "cdi.io" in ln.value):
            templated(out, ln, kind, targets, where, context)
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
    if new_kind and kind and new_kind != kind and kind_line is not None and (kl := literal(kind_line.value)):
        edits[kind_line.number] = (kind_line.value_at + kl[1], kind_line.value_at + kl[2], new_kind)
    out.upgraded += whole  # a reference is no object: counted as in files (a changed file, 0 objects)


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
