"""A small DSL describing API field trees, and the walks built on it.

A tree is made of `Node` values. Each node says its JSON type, whether it is required, which API
versions carry it and, where it matters, the KubeVirt release that added it (`since`). One description
serves every version and release: `select(node, version, release)` keeps only what that version had
at that release. The schema generator and the unknown-field detection both walk the same nodes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from transform.kubevirt import apis

Release = tuple[int, int]

# The instancetype.kubevirt.io versions, oldest first, as transform.kubevirt.apis lists them.
_VERSIONS: tuple[str, ...] = tuple(
    dict.fromkeys(a.version for a in apis.rows("instancetype.kubevirt.io") if not a.legacy)
)
ALL_VERSIONS: frozenset[str] = frozenset(_VERSIONS)


def _from(version: str) -> frozenset[str]:
    """`version` and every later one (a field added in `version` stays in the versions after it)."""
    return frozenset(_VERSIONS[_VERSIONS.index(version) :])


# Kubernetes resource.Quantity (the pattern the CRD generator emits for int-or-string quantities).
QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))"
    r"(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)


@dataclass(frozen=True)
class Node:
    """One field. `kind` is one of: object, map, array, string, boolean, integer, quantity, any.

    * object: `props` are the known children; `open=True` means other children are allowed
      (not described, never reported as unknown; the described ones are still checked).
    * map: string keys, string values (nodeSelector, annotations, labels).
    * array: `items` is the element node.
    * `required`: required in every release; `required_before`: required only in releases before it.
    * `since`: first KubeVirt release carrying the field (None = as old as its parent).
    * `versions`: API versions whose types have the field.
    """

    kind: str
    props: Mapping[str, Node] = field(default_factory=dict)
    items: Node | None = None
    fmt: str | None = None
    required: bool = False
    required_before: Release | None = None
    since: Release | None = None
    versions: frozenset[str] = ALL_VERSIONS
    open: bool = False
    minimum: int | None = None
    maximum: int | None = None
    pattern: str | None = None
    list_type: str | None = None
    const_false_props: bool = False  # additionalProperties: false (closed wrapper objects)

    def is_required(self, release: Release) -> bool:
        if self.required:
            return True
        return self.required_before is not None and release < self.required_before


# ---------------------------------------------------------------- constructors (the DSL proper)

S = Node("string")
B = Node("boolean")
I32 = Node("integer", fmt="int32")
I64 = Node("integer", fmt="int64")
INT = Node("integer")
Q = Node("quantity", pattern=QUANTITY_PATTERN)
SMAP = Node("map")
ANY_OBJ = Node("object", open=True)


def obj(**props: Node) -> Node:
    return Node("object", props=props)


def arr(items: Node, list_type: str | None = None) -> Node:
    return Node("array", items=items, list_type=list_type)


def req(node: Node) -> Node:
    return replace(node, required=True)


def req_before(node: Node, release: Release) -> Node:
    return replace(node, required_before=release)


def since(node: Node, release: Release) -> Node:
    return replace(node, since=release)


def beta(node: Node, release: Release | None = None) -> Node:
    """A field v1beta1 (and later versions) has; `release` = the KubeVirt release that added it (None: v1.0.0)."""
    return replace(node, versions=_from("v1beta1"), since=release)


def from_v1alpha2(node: Node, release: Release | None = None) -> Node:
    return replace(node, versions=_from("v1alpha2"), since=release)


def bounded(node: Node, minimum: int, maximum: int) -> Node:
    return replace(node, minimum=minimum, maximum=maximum)


# ---------------------------------------------------------------- selection and walks


def has(node: Node, version: str, release: Release) -> bool:
    return version in node.versions and (node.since is None or node.since <= release)


def children(node: Node, version: str, release: Release) -> dict[str, Node]:
    return {name: child for name, child in node.props.items() if has(child, version, release)}


def iter_unknown(
    value: Any, node: Node, version: str, release: Release, path: tuple[Any, ...] = ()
) -> Iterator[tuple[Any, ...]]:
    """Paths (relative to `value`) of keys the node does not describe at (version, release)."""
    if node.kind == "object" and isinstance(value, dict):
        known = children(node, version, release)
        for key, sub in value.items():
            child = known.get(key)
            if child is None:
                if not node.open:
                    yield (*path, key)
            else:
                yield from iter_unknown(sub, child, version, release, (*path, key))
    elif node.kind == "array" and isinstance(value, list) and node.items is not None:
        for index, sub in enumerate(value):
            yield from iter_unknown(sub, node.items, version, release, (*path, index))


def pruned(value: Any, node: Node, version: str, release: Release) -> Any:
    """A copy of `value` without the keys `iter_unknown` would report (containers are copied)."""
    if node.kind == "object" and isinstance(value, dict):
        known = children(node, version, release)
        return {
            k: pruned(v, known[k], version, release) if k in known else _deepcopy(v)
            for k, v in value.items()
            if k in known or node.open
        }
    if node.kind == "array" and isinstance(value, list) and node.items is not None:
        return [pruned(v, node.items, version, release) for v in value]
    return _deepcopy(value)


def _deepcopy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _deepcopy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deepcopy(v) for v in value]
    return value


def node_at(node: Node, path: tuple[Any, ...]) -> Node | None:
    """The node describing `path` (ints step into arrays); None when the path leaves the tree."""
    for part in path:
        if isinstance(part, int):
            if node.kind != "array" or node.items is None:
                return None
            node = node.items
        elif node.kind == "object" and part in node.props:
            node = node.props[part]
        else:
            return None
    return node


def iter_nodes(node: Node, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Node]]:
    """Every (path, node) below `node`; array elements appear as the segment "[]"."""
    for name, child in node.props.items():
        yield (*path, name), child
        yield from iter_nodes(child, (*path, name))
    if node.items is not None:
        yield (*path, "[]"), node.items
        yield from iter_nodes(node.items, (*path, "[]"))
