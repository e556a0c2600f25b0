"""Parse YAML/JSON documents once, with positions, as Kubernetes reads them (YAML 1.1).

libyaml (PyYAML's C composer) gives every node a character span in the original text at
10-20 MB/s; ruamel's round trip is 20-40x slower and has no C parser in 0.19. The node tree
is used to locate edits and findings; `to_plain` gives the JSON-shaped value that the
conversion rules and the validators see.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

_Base: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):
    """libyaml composer + YAML 1.1 resolution as go-yaml (Kubernetes) does it: `y`/`n` are booleans."""


_Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), list("yYnN"))
_RESOLVER = _Loader.__new__(_Loader)


def resolve_tag(plain: str) -> str:
    """The tag a plain (unquoted) scalar gets in Kubernetes' YAML 1.1 reading."""
    return _RESOLVER.resolve(ScalarNode, plain, (True, False))


MAX_DEPTH = 200  # the schema validator (jsonschema_rs) gives up at ~256 levels; Python recursion at ~490
MAX_EXPANDED_NODES = 2_000_000


class ParseError(Exception):
    """The text is not YAML we can read; line/column are 1-based (0 = unknown)."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class Document:
    """One parsed document: its root node and the JSON-shaped value.

    A JSON document is read with the json module (50x faster than composing it) and its node tree,
    needed only to edit it or to point at a line, is composed on first use.
    """

    def __init__(
        self, root: Node | None, value: Any, duplicates: list[tuple[tuple[Any, ...], Node]] | None, text: str = ""
    ) -> None:
        self._root = root
        self.value = value
        self._duplicates = duplicates
        self._text = text

    @property
    def root(self) -> Node:
        if self._root is None:
            root = compose(self._text)
            assert root is not None
            self._root = root
        return self._root

    @property
    def duplicates(self) -> list[tuple[tuple[Any, ...], Node]]:
        if self._duplicates is None:
            self._duplicates = []
            _duplicates(self.root, (), self._duplicates)
        return self._duplicates


_STR = "tag:yaml.org,2002:str"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class _Constructor(yaml.constructor.SafeConstructor):
    """Safe constructor that keeps timestamps as the strings Kubernetes sees."""

    bool_values = {**yaml.constructor.SafeConstructor.bool_values, "y": True, "n": False}


_Constructor.add_constructor(_TIMESTAMP, yaml.constructor.SafeConstructor.construct_yaml_str)  # type: ignore[type-var]
_Constructor.add_constructor(  # type: ignore[type-var]
    "tag:yaml.org,2002:binary", yaml.constructor.SafeConstructor.construct_yaml_str
)


def _check_depth(text: str) -> None:
    """libyaml's composer recurses in C: a very deep document crashes the interpreter.

    Reject it before parsing. Brackets count flow nesting (an over-estimate: brackets in
    strings count too); indentation and `- - -` runs bound block nesting.
    """
    if text.count("[") + text.count("{") > MAX_DEPTH:
        depth = worst = 0
        for m in re.finditer(r"[\[\]{}]", text):
            depth += 1 if m.group() in "[{" else -1
            worst = max(worst, depth)
        if worst > MAX_DEPTH:
            raise ParseError(f"nesting deeper than {MAX_DEPTH} levels; refusing to parse")
    if (" " * (MAX_DEPTH * 2) in text and re.search(rf"(?<![^\r\n]) {{{MAX_DEPTH * 2},}}\S", text)) or (
        text.count("-") > MAX_DEPTH and re.search(rf"(?:-[ \t]+){{{MAX_DEPTH},}}", text)
    ):
        raise ParseError(f"nesting deeper than {MAX_DEPTH} levels; refusing to parse")


def _expanded_size(root: Node) -> int:
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
                raise ParseError(
                    "recursive alias: a node contains itself (Kubernetes rejects it too)",
                    node.start_mark.line + 1,
                    node.start_mark.column + 1,
                )
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in memo)
        else:
            total = 1 + sum(max(memo.get(id(c), 1), 1) for c in children)
            memo[key] = min(total, MAX_EXPANDED_NODES + 1)
    return memo.get(id(root), 1)


def _node_depth(root: Node) -> int:
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


def _duplicates(
    node: Node, path: tuple[Any, ...], out: list[tuple[tuple[Any, ...], Node]], seen: set[int] | None = None
) -> None:
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
            _duplicates(v, path + (key,), out, seen)
    elif isinstance(node, SequenceNode):
        for i, item in enumerate(node.value):
            _duplicates(item, path + (i,), out, seen)


def _plain_keys(value: Any) -> Any:
    """JSON shape: string keys (YAML 1.1 `on:` is a bool key; Kubernetes stringifies it)."""
    if isinstance(value, dict):
        return {
            (k if isinstance(k, str) else ("true" if k is True else "false" if k is False else str(k))): (
                _plain_keys(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_plain_keys(v) for v in value]
    return value


def compose(text: str) -> Node | None:
    """Compose one document's text (no `---` splitting here) into a node tree."""
    _check_depth(text)
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        msg = " ".join(p for p in (exc.context, exc.problem) if p)
        raise ParseError(
            f"invalid YAML: {msg}", (mark.line + 1) if mark else 0, (mark.column + 1) if mark else 0
        ) from None
    except yaml.YAMLError as exc:
        raise ParseError(f"invalid YAML: {exc}") from None
    return root


def construct(root: Node) -> Any:
    if _expanded_size(root) > MAX_EXPANDED_NODES:
        raise ParseError(
            f"aliases expand to more than {MAX_EXPANDED_NODES} nodes (a 'billion laughs' document?)",
            root.start_mark.line + 1,
            root.start_mark.column + 1,
        )
    try:
        value = _Constructor().construct_document(root)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise ParseError(
            f"invalid YAML: {exc.problem}", (mark.line + 1) if mark else 0, (mark.column + 1) if mark else 0
        ) from None
    except (TypeError, ValueError, RecursionError) as exc:
        raise ParseError(f"invalid YAML value: {exc}") from None
    return _plain_keys(value)


class _Slow(Exception):
    """The fast converter met something it leaves to PyYAML's constructor (merge keys, odd tags)."""


_FAST = _Constructor()
_STR_TAG, _MAP_TAG, _SEQ_TAG = _STR, "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_SCALARS: dict[str, Any] = {
    _STR: lambda n: n.value,
    _TIMESTAMP: lambda n: n.value,
    "tag:yaml.org,2002:binary": lambda n: n.value,
    "tag:yaml.org,2002:null": lambda n: None,
    "tag:yaml.org,2002:bool": lambda n: _Constructor.bool_values[n.value.lower()],
    "tag:yaml.org,2002:int": _FAST.construct_yaml_int,
    "tag:yaml.org,2002:float": _FAST.construct_yaml_float,
}


def _key(value: Any) -> str:
    return value if isinstance(value, str) else "true" if value is True else "false" if value is False else str(value)


def _fast(node: Node, depth: int, dup_maps: list[Node]) -> Any:
    """Plain value of an alias-free tree: one pass, depth-limited, duplicate keys noticed."""
    if depth > MAX_DEPTH:
        raise ParseError(
            f"nesting deeper than {MAX_DEPTH} levels; refusing to parse",
            node.start_mark.line + 1,
            node.start_mark.column + 1,
        )
    if isinstance(node, ScalarNode):
        conv = _SCALARS.get(node.tag)
        if conv is None:
            raise _Slow
        return conv(node)
    if isinstance(node, SequenceNode):
        if node.tag != _SEQ_TAG:
            raise _Slow
        return [_fast(n, depth + 1, dup_maps) for n in node.value]
    if node.tag != _MAP_TAG:
        raise _Slow
    out: dict[str, Any] = {}
    for k, v in node.value:
        if not isinstance(k, ScalarNode) or k.tag == "tag:yaml.org,2002:merge":
            raise _Slow
        out[_key(_fast(k, depth + 1, dup_maps))] = _fast(v, depth + 1, dup_maps)
    if len(out) < len(node.value):
        dup_maps.append(node)
    return out


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) < len(pairs):
        raise _Duplicate
    return out


class _Duplicate(Exception):
    pass


def _json(text: str) -> Document | None:
    """A JSON object document, without composing it; None when it is not plain JSON."""
    stripped = text.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")) or "\t" in text or "\\/" in text:
        return None  # JSON that YAML reads differently (tabs, `\/`) takes the YAML path
    try:
        value = json.loads(stripped, object_pairs_hook=_pairs)
    except _Duplicate:
        return None  # the YAML path reports the duplicate keys with their positions
    except (ValueError, RecursionError):
        return None
    if _json_depth(stripped) > MAX_DEPTH:
        return None
    return Document(None, value, [], text)


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")


def _json_depth(text: str) -> int:
    """Nesting depth of valid JSON, at C speed: keep only the brackets outside strings, then peel
    one level of `[]`/`{}` pairs per pass (a few passes for real documents)."""
    if text.count("{") + text.count("[") <= MAX_DEPTH:
        return 0
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    depth = 0
    while brackets and depth <= MAX_DEPTH:
        brackets = _INNERMOST.sub("", brackets)
        depth += 1
    return depth


def parse(text: str) -> Document | None:
    doc = _json(text)
    if doc is not None:
        return doc
    root = compose(text)
    if root is None:
        return None
    if "&" not in text:  # no anchors, so no aliases: the one-pass converter is exact
        dup_maps: list[Node] = []
        try:
            value = _fast(root, 1, dup_maps)
        except _Slow:
            pass
        except (ValueError, TypeError, KeyError) as exc:
            raise ParseError(f"invalid YAML value: {exc}") from None
        else:
            dups: list[tuple[tuple[Any, ...], Node]] = []
            if dup_maps:
                _duplicates(root, (), dups)
            return Document(root, value, dups)
    if _node_depth(root) > MAX_DEPTH:
        raise ParseError(
            f"nesting deeper than {MAX_DEPTH} levels; refusing to parse",
            root.start_mark.line + 1,
            root.start_mark.column + 1,
        )
    value = construct(root)  # first: it refuses alias bombs before anything walks the tree
    dups = []
    _duplicates(root, (), dups)
    return Document(root, value, dups)
