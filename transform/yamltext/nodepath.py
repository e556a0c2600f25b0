"""Find nodes in a composed document by field path, and report where they are (1-based)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode


def child(node: Node | None, key: Any) -> Node | None:
    """The value node at `key` (str for mappings, int for sequences); last duplicate wins."""
    if isinstance(node, MappingNode) and isinstance(key, str):
        found = None
        for k, v in node.value:
            if isinstance(k, ScalarNode) and k.value == key:
                found = v
        return found
    if isinstance(node, SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
        return node.value[key]
    return None


def key_node(node: Node | None, key: str) -> Node | None:
    if isinstance(node, MappingNode):
        for k, _ in reversed(node.value):
            if isinstance(k, ScalarNode) and k.value == key:
                return k
    return None


def node_at(root: Node | None, path: tuple[Any, ...]) -> Node | None:
    node = root
    for part in path:
        node = child(node, part)
        if node is None:
            return None
    return node


def locate(root: Node | None, path: tuple[Any, ...]) -> tuple[int, int]:
    """Best 1-based (line, column) for a field path: the deepest existing node on it.

    A missing field points at its parent's key, which is where a person would add it.
    """
    node = root
    best: Node | None = root
    for part in path:
        nxt = child(node, part)
        if nxt is None:
            if isinstance(part, str):
                k = key_node(node, part)
                if k is not None:
                    best = k
            break
        k = key_node(node, part) if isinstance(part, str) else None
        best = k if (k is not None and nxt is not None and isinstance(nxt, ScalarNode)) else nxt
        node = nxt
    if best is None:
        return (0, 0)
    return (best.start_mark.line + 1, best.start_mark.column + 1)


def iter_scalars(node: Node) -> Iterator[ScalarNode]:
    stack = [node]
    seen: set[int] = set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, ScalarNode):
            yield n
        elif isinstance(n, MappingNode):
            for k, v in n.value:
                stack.extend((k, v))
        elif isinstance(n, SequenceNode):
            stack.extend(n.value)
