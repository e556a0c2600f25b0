"""Find nodes in a composed document by field path, and report where they are (1-based)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from transform.yamltext.resolver import MERGE, KubernetesResolver

_MERGE_TAG = KubernetesResolver.TAGS[MERGE]


def is_merge(key: Node) -> bool:
    """A `<<` merge key (plain, resolved to the merge tag), as `values.Builder` reads it."""
    return getattr(key, "ctag", None) is _MERGE_TAG and isinstance(key, ScalarNode)


def merged_sources(node: Node) -> list[MappingNode]:
    """The mappings a `<<` value merges, in the order go-yaml v2 applies them (`(*decoder).merge`: a sequence
    backwards, so that the earlier map wins); an alias is the anchored node itself."""
    if isinstance(node, SequenceNode):
        return [m for m in reversed(node.value) if isinstance(m, MappingNode)]
    return [node] if isinstance(node, MappingNode) else []


def source(node: Node | None, key: str) -> tuple[Node, Node, MappingNode, MappingNode] | None:
    """(key node, value node, the mapping holding the pair, the mapping merged into `node` that led to it or
    `node` itself) that go-yaml v2 reads for `key`: pairs and `<<` merges applied in document order, each
    overriding what was set before (`(*decoder).mapping`), so a merge after a key wins over it and a later
    duplicate over an earlier one."""
    if not isinstance(node, MappingNode):
        return None
    found: tuple[Node, Node, MappingNode, MappingNode] | None = None
    for k, v in node.value:
        if is_merge(k):
            for m in merged_sources(v):
                hit = source(m, key)
                if hit is not None:
                    found = (hit[0], hit[1], hit[2], m)
        elif isinstance(k, ScalarNode) and k.value == key:
            found = (k, v, node, node)
    return found


def child(node: Node | None, key: Any) -> Node | None:
    """The value node at `key` (str for mappings, int for sequences), as go-yaml v2 reads it (`source`)."""
    if isinstance(node, MappingNode) and isinstance(key, str):
        found = source(node, key)
        return None if found is None else found[1]
    if isinstance(node, SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
        return node.value[key]
    return None


def key_node(node: Node | None, key: str) -> Node | None:
    found = source(node, key)
    return None if found is None else found[0]


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
