"""Edits that would land in a node used more than once: an anchored node is also every alias of it
and every mapping that merges it (`<<`), so changing it in place would change them all."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from transform.yamltext import aliasuses, edits, emit, nodepath, values
from transform.yamltext import nodes as yamlnodes
from transform.yamltext.nodes import MappingNode, Node, SequenceNode


def _shared_nodes(root: Node) -> set[int]:
    """Nodes reached more than once (through an alias or a merge key)."""
    seen: set[int] = set()
    shared: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            shared.add(id(node))
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            stack.extend(n for pair in node.value for n in pair)
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
    return shared


def _changed_paths(old: Any, new: Any) -> Iterator[tuple[Any, ...]]:
    """Paths where `new` differs from `old` (the deepest container both have), iteratively."""
    stack: list[tuple[Any, Any, tuple[Any, ...]]] = [(old, new, ())]
    while stack:
        a, b, path = stack.pop()
        if isinstance(a, dict) and isinstance(b, dict):
            for k in a.keys() | b.keys():
                if k not in a or k not in b:
                    yield (*path, k)
                else:
                    stack.append((a[k], b[k], (*path, k)))
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            stack.extend((x, y, (*path, i)) for i, (x, y) in enumerate(zip(a, b, strict=True)))
        elif not edits.same(a, b):
            yield path


def _merged_child(node: Node, key: Any) -> tuple[Node | None, Node | None]:
    """nodepath.child (go-yaml v2's order: a `<<` after a key overrides it); second: the mapping merged into
    `node` that the child was found through (None: the mapping's own pair)."""
    if not isinstance(key, str):
        return nodepath.child(node, key), None
    found = nodepath.source(node, key)
    if found is None:
        return None, None
    return found[1], (found[3] if found[3] is not node else None)


Occurrence = tuple[tuple[Any, ...], Node, Node, "Node | int"]  # path, the shared node, where it is used


def _shared_hit(root: Node, old: Any, new: Any) -> Occurrence | None:
    """The first change that would land in a node used more than once, and the place (container, slot)
    through which the changed path reaches it."""
    shared = _shared_nodes(root)
    if not shared:
        return None
    for path in _changed_paths(old, new):
        node: Node | None = root
        for part in path:
            if isinstance(part, str) and isinstance(node, MappingNode):
                found = nodepath.source(node, part)
                if found is None:
                    break
                key, value, holder, top = found
                if top is not node and id(top) in shared:  # a change in a shared mapping merged here
                    return (path, top, *_merge_slot(node, top))
                if id(value) in shared:
                    return path, value, holder, key
                node = value
            elif isinstance(part, int) and isinstance(node, SequenceNode) and 0 <= part < len(node.value):
                if id(node.value[part]) in shared:
                    return path, node.value[part], node, part
                node = node.value[part]
            else:
                break
    return None


def _merge_slot(node: MappingNode, merged: Node) -> tuple[Node, Node | int]:
    for k, v in node.value:
        if nodepath.is_merge(k):
            if v is merged:
                return node, k
            if isinstance(v, SequenceNode):
                for i, item in enumerate(v.value):
                    if item is merged:
                        return v, i
    raise AssertionError("a merged mapping is merged by its mapping")  # pragma: no cover - nodepath.source


def shared_edit(root: Node, old: Any, new: Any) -> tuple[tuple[Any, ...], Node] | None:
    """The first change that would land in a node used more than once (anchored and aliased)."""
    hit = _shared_hit(root, old, new)
    return None if hit is None else (hit[0], hit[1])


_MAX_ROUNDS = 32  # each round writes out at least one alias


def unshare(text: str, root: Node, old: Any, new: Any, newline: str) -> tuple[str, Node] | None:
    """`text` (with its tree) in which no change from `old` to `new` lands in a node used elsewhere: the alias
    through which a change reaches an anchored node is written out in full, as the value it reads (a change
    at the anchor itself writes out every alias of it instead, so that each keeps reading what it read); the
    result reads as `old` exactly, or None (then the change cannot be made without changing other uses)."""
    for _ in range(_MAX_ROUNDS):
        hit = _shared_hit(root, old, new)
        if hit is None:
            return text, root
        _, node, container, slot = hit
        uses = aliasuses.alias_uses(text, root)
        if not uses:
            return None
        mine = [u for u in uses if u.container is container and (u.slot is slot or _same_index(u.slot, slot))]
        if not mine:  # the change is at the anchor: every alias keeps the old value
            mine = [u for u in uses if u.target is node and u.slot is not None]
        if not mine:
            return None
        style = emit.detect_style(text, root, newline)
        value = values.Builder().value(node, 1)
        # JSON where a value could need quoting in a flow context (a string, a collection), else the file's own
        written = emit.flow(value, style) if isinstance(value, (dict, list, str)) else emit.scalar(value, style)
        text = edits.apply(text, [edits.Edit(u.start, u.end, written) for u in mine])
        try:
            doc = yamlnodes.parse(text)
        except yamlnodes.ParseError:
            return None
        if doc is None or not edits.same(doc.value, old):
            return None
        root = doc.root
    return None


def _same_index(a: Node | int | None, b: Node | int) -> bool:
    return isinstance(a, int) and isinstance(b, int) and a == b
