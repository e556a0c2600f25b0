"""The JSON value of a composed node tree, as sigs.k8s.io/yaml makes it, within limits.

Scalars take the value their tag gives (`resolver.py`); keys become JSON strings as sigs.k8s.io/yaml
writes them (`yes:` -> "true", `1.0:` -> "1"; null and uint64 keys are refused); `<<` merges as
go-yaml v2 does (in order: a merged key overrides one set before it; in a sequence of maps the earlier
map wins); tags on collections are ignored. Aliases are never expanded into copies: the limits (depth,
expanded size, recursion) are computed on the tree first.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from transform.yamltext.nodeclasses import MAPPING, SCALAR, SEQUENCE
from transform.yamltext.resolver import (
    BOOL,
    BOOLS,
    FLOAT,
    INT,
    MERGE,
    NULL,
    SPECIAL_FLOATS,
    STR,
    KubernetesResolver,
    go_int,
    key_text,
    scalar_value,
)

MAX_DEPTH = 200  # the schema validator (jsonschema_rs) gives up at ~256 levels; Python recursion at ~490
MAX_EXPANDED_NODES = 2_000_000


class ParseError(Exception):
    """The text is not YAML we can read; line/column are 1-based (0 = unknown)."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def error_at(message: str, node: Node) -> ParseError:
    return ParseError(message, node.start_mark.line + 1, node.start_mark.column + 1)


def _float(text: str) -> float:
    """A float's value; `.inf`/`.nan` too (Kubernetes resolves them, then cannot encode them: the
    pipeline refuses them with the field's path)."""
    special = SPECIAL_FLOATS.get(text)
    return float(text.replace("_", "")) if special is None else special


_TAGS = KubernetesResolver.TAGS
_MERGE_TAG = _TAGS[MERGE]
_STR_TAG = _TAGS[STR]
_NONE = object()
# converters for the shared tag objects that the resolver gives every plain and quoted scalar
_SCALARS: dict[int, Any] = {
    id(_TAGS[STR]): str,
    id(_TAGS[INT]): go_int,
    id(_TAGS[FLOAT]): _float,
    id(_TAGS[BOOL]): BOOLS.__getitem__,
    id(_TAGS[NULL]): lambda text: None,
    id(_TAGS[MERGE]): str,  # `<<` as a value is the string "<<"
}


def tagged_value(tag: Any, text: str) -> Any:
    """A scalar's value, as `Builder` makes it, for a tag the resolver gave (one of its shared tag objects):
    KeyError for another tag, ValueError when go-yaml refuses the text."""
    return _SCALARS[id(tag)](text)


class Builder:
    """One pass over the tree: values, duplicate-key maps noticed, depth limited; anchored nodes built once."""

    def __init__(self) -> None:
        self.memo: dict[int, Any] = {}
        self.dup_maps: list[Node] = []

    def value(self, node: Node, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise error_at(f"nesting deeper than {MAX_DEPTH} levels; refusing to parse", node)
        if node.anchor is not None:
            found = self.memo.get(id(node), _NONE)
            if found is not _NONE:
                return found
        cls = node.__class__
        if cls in SCALAR:
            conv = _SCALARS.get(id(node.ctag))
            try:
                value = conv(node.value) if conv is not None else scalar_value(str(node.tag), node.value)
            except ValueError as exc:
                raise error_at(f"invalid YAML value: {exc}", node) from None
        elif cls in SEQUENCE:
            value = [self.value(n, depth + 1) for n in node.value]
        else:
            value = self.mapping(node, depth)
        if node.anchor is not None:
            self.memo[id(node)] = value
        return value

    def key(self, node: Node) -> str:
        if node.__class__ not in SCALAR:
            raise error_at("a mapping key must be a scalar (Kubernetes cannot use a mapping or list as a key)", node)
        if node.ctag is _STR_TAG:
            return node.value
        tag = str(node.tag)
        try:
            if tag == FLOAT and node.value in SPECIAL_FLOATS:
                return key_text(SPECIAL_FLOATS[node.value])  # `.inf:` is the key ".inf"
            return key_text(scalar_value(tag, node.value))
        except ValueError as exc:
            raise error_at(f"invalid mapping key {node.value!r}: {exc}", node) from None

    def mapping(self, node: Node, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        explicit = 0
        for k, v in node.value:
            if k.ctag is _MERGE_TAG and k.__class__ in SCALAR:
                self.merge(v, out, depth + 1)
                self.dup_maps.append(node)  # merged keys: let the duplicate check look at this map
                continue
            explicit += 1
            out[self.key(k)] = self.value(v, depth + 1)
        if len(out) < explicit:
            self.dup_maps.append(node)
        return out

    def merge(self, node: Node, out: dict[str, Any], depth: int) -> None:
        """go-yaml v2's merge: a map (or alias of one), or a sequence of them, the earlier winning."""
        if node.__class__ in SEQUENCE:
            maps = list(reversed(node.value))
        else:
            maps = [node] if node.__class__ in MAPPING else []
        if not maps or any(m.__class__ not in MAPPING for m in maps):
            raise error_at("the value of a merge key `<<` must be a mapping or a list of mappings", node)
        for m in maps:
            out.update(self.value(m, depth))


def to_value(root: Node) -> tuple[Any, list[Node]]:
    """The JSON-shaped value of `root` and the mappings that may hold duplicate keys."""
    builder = Builder()
    return builder.value(root, 1), builder.dup_maps


def expanded_size(root: Node) -> int:
    """Number of nodes after alias expansion, computed without expanding (billion laughs)."""
    memo: dict[int, int] = {}
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if key in memo and not done:
            continue
        if isinstance(node, ScalarNode):
            memo[key] = 1
            continue
        children: list[Node] = (
            [n for pair in node.value for n in pair] if isinstance(node, MappingNode) else list(node.value)
        )
        if not done:
            memo[key] = -1  # in progress: exactly the nodes on the path from the root to this one
            if any(memo.get(id(c)) == -1 for c in children):
                raise error_at("recursive alias: a node contains itself (Kubernetes rejects it too)", node)
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in memo)
        else:
            total = 1 + sum(max(memo.get(id(c), 1), 1) for c in children)
            memo[key] = min(total, MAX_EXPANDED_NODES + 1)
    return memo.get(id(root), 1)


def node_depth(root: Node) -> int:
    """Nesting depth of the composed tree, iteratively; an alias (a node seen before) is not re-entered."""
    worst = 0
    seen: set[int] = set()
    stack: list[tuple[Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        worst = max(worst, depth)
        if isinstance(node, MappingNode):
            stack.extend((n, depth + 1) for pair in node.value for n in pair)
        elif isinstance(node, SequenceNode):
            stack.extend((n, depth + 1) for n in node.value)
    return worst


def duplicates(
    node: Node, path: tuple[Any, ...], out: list[tuple[tuple[Any, ...], Node]], seen: set[int] | None = None
) -> None:
    """Keys written twice in one mapping (by their text), with the field path of the second."""
    seen = set() if seen is None else seen
    if id(node) in seen:  # an alias: already checked where it was defined (and never expanded: billion laughs)
        return
    seen.add(id(node))
    if isinstance(node, MappingNode):
        keys: set[str] = set()
        for k, v in node.value:
            key = k.value if isinstance(k, ScalarNode) else None
            if key is not None:
                if key in keys:
                    out.append((path + (key,), k))
                keys.add(key)
            duplicates(v, path + (key,), out, seen)
    elif isinstance(node, SequenceNode):
        for i, item in enumerate(node.value):
            duplicates(item, path + (i,), out, seen)
