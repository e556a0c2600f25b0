"""Inline kustomize patches, read as YAML as kustomize reads them (not as free text).

An inline patch (`patches[].patch`, an inline `patchesStrategicMerge` entry) is a strategic-merge
document (an object, perhaps partial) or a JSON6902 op list, in a block scalar or inline. Only what
the file rules change is changed: the patch object's own `apiVersion`/`kind`, and the `apiVersion`/
`kind` of a JSON6902 `value` that is a whole KubeVirt object. Each changed scalar is replaced within
its line, so the rest of the patch text (ConfigMap values naming old versions, flavor kind names in
data strings, comments) stays byte for byte. A patch that does not parse is left as it is, with a
warning naming its line.

    - patch: |-                                      - patch: |-
        apiVersion: instancetype.kubevirt.io/v1alpha2    apiVersion: instancetype.kubevirt.io/v1beta1
        kind: VirtualMachineInstancetype       -->       kind: VirtualMachineInstancetype
        metadata:                                        metadata:
          annotations:                                     annotations:
            note: was instancetype.kubevirt.io/v1alpha2      note: was instancetype.kubevirt.io/v1alpha2
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transform import convert
from transform.convert import apiversion, wronggroup
from transform.convert.outcome import Change, Outcome
from transform.kubevirt import apis
from transform.model.findings import Finding, info, warning
from transform.yamltext import emit, textio, values
from transform.yamltext import nodes as yamlnodes
from transform.yamltext.nodes import MappingNode, Node, ScalarNode, SequenceNode

Path = tuple[Any, ...]


@dataclass(frozen=True)
class Patch:
    """Where an inline patch sits and how kustomize applies it."""

    path: Path  # the patch field in the kustomization
    targeted: bool  # applied by `target`: kustomize ignores a strategic-merge patch's own GVK
    pinned: bool  # a resource of the kustomization stays as it is (a remote one): keep the patch's version


def object_gvk(api: str, kind: str, targets: apis.Targets, *, targeted: bool) -> tuple[str, str, list[Finding]] | None:
    """(apiVersion, kind, findings) that the file rules give a whole object (or a patch object) of
    `api`/`kind`; None when they change nothing and say nothing."""
    m = wronggroup.misplaced(api, kind, targets)
    if m is not None:
        return (
            (m.new_api if targeted else api),
            (m.new_kind if targeted else kind),
            [wronggroup.fix_finding(m, target_patch=targeted, targets=targets)],
        )
    group = apis.group_of(api)
    if group in convert.GROUPS:
        up = convert.upgrade_kind(api, kind, targets.kubevirt)
        return None if up is None or up == (api, kind) else (up[0], up[1], [])
    rule = apiversion.object_rule(api, kind, targets) if group is not None else None
    if rule is None:
        return None
    new_api, new_kind, found = rule
    return (new_api or api), new_kind, found


def upgrade_inline(text: str, where: Patch, targets: apis.Targets) -> tuple[str, list[Finding]]:
    """`text` with the patch object's (or the JSON6902 values') apiVersion and kind upgraded."""
    found: list[Finding] = []
    edits: list[tuple[int, int, str]] = []
    for chunk in textio.split_documents(text):
        body = text[chunk.start : chunk.end]
        try:
            doc = yamlnodes.parse(body)
            root = doc.root if doc is not None else None
        except (values.ParseError, ValueError, RecursionError) as exc:
            line = text.count("\n", 0, chunk.start) + (getattr(exc, "line", 0) or 1)
            found.append(
                warning(
                    "kustomize.inline-patch-unparsable",
                    f"inline patch line {line}: not YAML kustomize can read ({getattr(exc, 'message', exc)}): "
                    "left as it is; fix the patch and run again",
                    where.path,
                )
            )
            continue
        if doc is None or root is None:
            continue
        line0 = text.count("\n", 0, chunk.start)
        for obj, node, own in _objects(doc.value, root):
            at = where if own else Patch(where.path, False, where.pinned)
            found += _object(obj, node, (chunk.start, line0), body, at, targets, edits)
    if not edits:
        return text, found
    out, pos = [], 0
    for start, end, new in sorted(edits):
        out += [text[pos:start], new]
        pos = end
    return "".join(out) + text[pos:], found


def _objects(value: Any, root: Node) -> list[tuple[dict[str, Any], MappingNode, bool]]:
    """The patch object (a strategic-merge document), or each JSON6902 op's whole-object `value` (which
    kustomize writes into the resource as it is: its group/version/kind always count): (object, node,
    is the patch object)."""
    if isinstance(value, dict) and isinstance(root, MappingNode):
        return [(value, root, True)]
    out: list[tuple[dict[str, Any], MappingNode, bool]] = []
    if isinstance(value, list) and isinstance(root, SequenceNode):
        for op, item in zip(value, root.value, strict=False):
            node = _value_node(item, "value") if isinstance(op, dict) else None
            if isinstance(op.get("value") if isinstance(op, dict) else None, dict) and isinstance(node, MappingNode):
                out.append((op["value"], node, False))
    return out


def upgrade_ops(out: Outcome, ops: list[Any], targets: apis.Targets) -> None:
    """A JSON6902 patch file (an op list, listed by a kustomization): each op's `value` that is a whole
    KubeVirt object gets the file rules' apiVersion and kind."""
    for i, op in enumerate(ops):
        value = op.get("value") if isinstance(op, dict) else None
        api, kind = (value.get("apiVersion"), value.get("kind")) if isinstance(value, dict) else (None, None)
        rule = (
            object_gvk(api, kind, targets, targeted=False) if isinstance(api, str) and isinstance(kind, str) else None
        )
        if rule is None:
            continue
        new_api, new_kind, found = rule
        out.findings += [f.at(path=(i, "value") + f.path) for f in found]
        if (new_api, new_kind) != (api, kind):
            out.set((i, "value", "apiVersion"), new_api)
            if new_kind != kind:
                out.set((i, "value", "kind"), new_kind)
            out.changes.append(Change((i, "value"), upgraded=True))
            note = f"{api} -> {new_api}" + (f" ({kind} -> {new_kind})" if new_kind != kind else "")
            out.findings.append(info(_code(str(api), str(kind)), f"JSON6902 value: {note}", (i, "value", "apiVersion")))


def _code(api: str, kind: str) -> str:
    row = apis.find(api, kind)
    family = row.family if row is not None else "instancetype"
    return "kustomize.inline-patch" if family == "instancetype" else f"{family}.kustomize-inline-patch"


def _after_tag(text: str, pos: int) -> int:
    while text[pos : pos + 1] == "!":
        while pos < len(text) and text[pos] not in " \t\r\n":
            pos += 1
        while pos < len(text) and text[pos] in " \t":
            pos += 1
    return pos


def _value_node(node: Node, key: str) -> Node | None:
    if not isinstance(node, MappingNode):
        return None
    hits = [v for k, v in node.value if isinstance(k, ScalarNode) and k.value == key]
    return hits[-1] if hits else None


def _object(
    obj: dict[str, Any],
    node: MappingNode,
    at: tuple[int, int],
    body: str,
    where: Patch,
    targets: apis.Targets,
    edits: list[tuple[int, int, str]],
) -> list[Finding]:
    api, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api, str) or not isinstance(kind, str):
        return []
    rule = object_gvk(api, kind, targets, targeted=where.targeted)
    if rule is None:
        return []
    new_api, new_kind, found = rule
    offset, line = at[0], at[1] + node.start_mark.line + 1
    found = [f.at(path=where.path, message=f"inline patch: {f.message}") for f in found]
    if (new_api, new_kind) == (api, kind):
        return found
    if where.pinned and not where.targeted:
        return [
            *found,
            warning(
                "kustomize.partial-tree",
                f"inline patch {api} {kind} left as it is: a resource of this kustomization is remote (it stays at "
                "its version), and a patch without a target matches its resource by group, version and kind",
                where.path,
            ),
        ]
    planned = []
    for key, value in (("apiVersion", new_api), ("kind", new_kind)):
        scalar = _value_node(node, key)
        if value == obj.get(key):
            continue
        if not isinstance(scalar, ScalarNode) or scalar.anchor or scalar.end_mark.line != scalar.start_mark.line:
            message = (
                f"inline patch line {line}: {key} {obj.get(key)} left as it is (an anchor, an alias or a "
                "scalar over lines): write it as a plain value and run again"
            )
            return [*found, warning("kustomize.inline-patch-unparsable", message, where.path)]
        start = _after_tag(body, scalar.start_mark.index)  # a tag (`!!str`) stays as written
        planned.append(
            (offset + start, offset + scalar.end_mark.index, emit.scalar(value, _STYLE, emit.quote_of(scalar)))
        )
    edits += planned
    note = f"{api} -> {new_api}" + (f" ({kind} -> {new_kind})" if new_kind != kind else "")
    return [*found, info(_code(api, kind), f"inline patch: {note} (line {line} of the patch)", where.path)]


_STYLE = emit.Style()
