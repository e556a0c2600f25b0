"""Edits that would land in a node used more than once: an anchored node is also every alias of it
and every mapping that merges it (`<<`), so changing it in place would change them all."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from transform.yamltext import edits, nodepath
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


def shared_edit(root: Node, old: Any, new: Any) -> tuple[tuple[Any, ...], Node] | None:
    """The first change that would land in a node used more than once (anchored and aliased)."""
    shared = _shared_nodes(root)
    if not shared:
        return None
    for path in _changed_paths(old, new):
        node: Node | None = root
        for part in path:
            if node is None or id(node) in shared:
                break
            node, via = _merged_child(node, part)
            if via is not None and id(via) in shared:
                node = via
        if node is not None and id(node) in shared:
            return path, node
    return None
