"""Parse YAML/JSON documents once, with positions, as Kubernetes reads them.

ruamel.yaml composes each document through libyaml's C parser (`ruamel.yaml.clib`) into nodes with
`start_mark`/`end_mark` (`index`, `line`, `column`), `style` and `flow_style`, at 10-20 MB/s; the
Kubernetes resolver (`resolver.py`) tags the plain scalars as sigs.k8s.io/yaml does. Without the C
extension ruamel's pure-Python parser gives the same nodes, slower (`INSTANCETYPE_UPGRADE_YAML_PARSER=pure`
forces it). The node tree is used to locate edits and findings; `Document.value` is the JSON-shaped
value that the conversion rules and the validators see (JSON documents are read by the json module).

Import it (and edits, emit, nodepath) lazily, only for a candidate file (start-up speed). Line numbers: `linebreaks`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from transform.yamltext import linebreaks, resolver, values
from transform.yamltext.pureparser import PureLoader, goyaml_reads_it
from transform.yamltext.resolver import KubernetesResolver
from transform.yamltext.values import MAX_DEPTH, MAX_EXPANDED_NODES, ParseError

try:
    from _ruamel_yaml import CParser  # ruamel.yaml.clib: libyaml's C parser (building nodeclasses' nodes)
except ImportError:  # no wheel for this Python: the pure-Python parser below
    CParser = None

__all__ = [
    "MAX_DEPTH", "MAX_EXPANDED_NODES", "Document", "MappingNode", "Node", "ParseError",
    "ScalarNode", "SequenceNode", "compose", "parse", "well_formed",
]  # fmt: skip

PARSER_ENV = "INSTANCETYPE_UPGRADE_YAML_PARSER"  # "pure" forces ruamel's pure-Python parser


if CParser is not None:

    class CLoader(CParser, KubernetesResolver):
        """libyaml's scanner, parser and composer (in C), with the Kubernetes resolver."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            # no `loadumper=self`: the C composer calls `self.resolve` directly, and a loader that
            # refers to itself is a reference cycle keeping its text and libyaml's buffers alive
            # until the cyclic garbage collector runs
            KubernetesResolver.__init__(self)

    _LOADERS: dict[str, type] = {"libyaml": CLoader, "pure": PureLoader}
else:
    _LOADERS = {"pure": PureLoader}

_loader: type = _LOADERS["pure" if os.environ.get(PARSER_ENV) == "pure" else next(iter(_LOADERS))]


def parser_name() -> str:
    """Which parser composes: `libyaml` (ruamel.yaml.clib, C) or `pure` (ruamel.yaml's Python parser)."""
    return "libyaml" if _loader is _LOADERS.get("libyaml") else "pure"


def parser_description() -> str:
    """One line for `--debug`: which YAML parser composes, and why."""
    if parser_name() == "libyaml":
        return "YAML parser: libyaml (ruamel.yaml.clib C extension)"
    why = f"{PARSER_ENV}=pure" if "libyaml" in _LOADERS else "ruamel.yaml.clib is not installed"
    return f"YAML parser: ruamel.yaml pure Python ({why}; slower, same results)"


def use_parser(name: str) -> str:
    """Select the parser (`libyaml` or `pure`) for this process; returns the previous one (for tests)."""
    global _loader
    previous = parser_name()
    if name not in _LOADERS:
        raise ValueError(f"YAML parser {name!r} is not available here (have: {', '.join(_LOADERS)})")
    _loader = _LOADERS[name]
    return previous


def resolve_tag(plain: str) -> str:
    """The tag a plain (unquoted) scalar gets when Kubernetes reads it."""
    return resolver.resolve_plain(plain)


class Document:
    """One parsed document: its root node and the JSON-shaped value.

    A JSON document is read with the json module (50x faster than composing it) and its node tree,
    needed only to edit it or to point at a line, is composed on first use.
    """

    def __init__(
        self,
        root: Node | None,
        value: Any,
        duplicates: list[tuple[tuple[Any, ...], Node]] | None,
        text: str = "",
        nonfinite: bool = False,
    ) -> None:
        self._root = root
        self.value = value
        self._duplicates = duplicates
        self._text = text
        self.nonfinite = nonfinite  # the value may hold NaN or an infinity, which JSON cannot carry

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
            values.duplicates(self.root, (), self._duplicates)
        return self._duplicates


_BRACKETS = r"[\[\]{}]"  # compiled on first use (re's cache)


def _check_depth(text: str) -> None:
    """libyaml's composer recurses in C: a very deep document crashes the interpreter.

    Reject it before parsing. Brackets count flow nesting (an over-estimate: brackets in
    strings count too); indentation and `- - -` runs bound block nesting.
    """
    if text.count("[") + text.count("{") > MAX_DEPTH:
        depth = worst = 0
        for m in re.finditer(_BRACKETS, text):
            depth += 1 if m.group() in "[{" else -1
            worst = max(worst, depth)
        if worst > MAX_DEPTH:
            raise ParseError(f"nesting deeper than {MAX_DEPTH} levels; refusing to parse")
    if (" " * (MAX_DEPTH * 2) in text and re.search(rf"(?<![^\r\n]) {{{MAX_DEPTH * 2},}}\S", text)) or (
        text.count("-") > MAX_DEPTH and re.search(rf"(?:-[ \t]+){{{MAX_DEPTH},}}", text)
    ):
        raise ParseError(f"nesting deeper than {MAX_DEPTH} levels; refusing to parse")


def compose(text: str) -> Node | None:
    """Compose one document's text (no `---` splitting here) into a node tree."""
    _check_depth(text)
    return _compose(text)


def read_scalar(text: str) -> Any:
    """The value of `text` read alone as one scalar (a new scalar's text, checked before it is written);
    ParseError when it does not parse or is not one scalar."""
    root = _compose(text)
    if root is None or not isinstance(root, ScalarNode):
        raise ParseError("not a single scalar")
    return values.to_value(root)[0]


def block_entries(text: str, key: str, parser: type | None = None) -> tuple[int, list[int], int] | None:
    """Where the parser finds the top-level `key` of a one-document mapping and the entries of its block
    sequence: (the key's offset, each entry's offset, the sequence's end), offsets into `text` as the
    parser counts them; None when `text` does not read so (not YAML, an alias, a flow sequence, the key
    twice, ...). Events only, no node: the whole text's structure for the price of its parse."""
    loader = None
    depth, at_key, want, in_seq = 0, True, False, False
    found, entries, end = -1, [], -1
    chosen = parser or _loader
    try:
        _check_depth(text)
        loader = chosen(text)
        while loader.check_event():
            e = loader.get_event()
            if isinstance(e, AliasEvent):
                return None
            opens = isinstance(e, (MappingStartEvent, SequenceStartEvent))
            if depth == 1 and (opens or isinstance(e, ScalarEvent)):
                if at_key and isinstance(e, ScalarEvent) and e.value == key:
                    if found >= 0:
                        return None
                    found, want = e.start_mark.index, True
                elif not at_key and want:
                    if not isinstance(e, SequenceStartEvent) or e.flow_style:
                        return None
                    in_seq, want = True, False
                at_key = not at_key
            elif in_seq and depth == 2 and (opens or isinstance(e, ScalarEvent)):
                entries.append(e.start_mark.index)
            if opens:
                depth += 1
            elif isinstance(e, (MappingEndEvent, SequenceEndEvent)):
                depth -= 1
                if in_seq and depth == 1:
                    end, in_seq = e.start_mark.index, False
    except (ParseError, YAMLError) as exc:
        return block_entries(text, key, PureLoader) if goyaml_reads_it(exc, chosen) else None
    finally:
        if loader is not None:
            _dispose(loader)
    return (found, entries, end) if found >= 0 and end >= 0 else None


def well_formed(text: str, parser: type | None = None) -> bool:
    """Whether `text` reads as YAML within the nesting limit, without an alias, building no node: libyaml's
    parser alone (a few milliseconds a megabyte); the events are looked at only when there may be an alias."""
    loader = None
    chosen = parser or _loader
    try:
        _check_depth(text)
        loader = chosen(text)
        if "*" not in text and hasattr(loader, "raw_parse"):
            loader.raw_parse()
            return True
        while loader.check_event():
            if isinstance(loader.get_event(), AliasEvent):
                return False
    except (ParseError, YAMLError) as exc:
        return goyaml_reads_it(exc, chosen) and well_formed(text, PureLoader)
    finally:
        if loader is not None:
            _dispose(loader)
    return True


def _compose(text: str, parser: type | None = None) -> Node | None:
    loader = None
    chosen = parser or _loader
    try:
        loader = chosen(text)
        root = loader.get_single_node()
        if root is not None and not text.isascii() and linebreaks.OTHER_BREAKS.search(text):
            linebreaks.renumber(root, text)
    except MarkedYAMLError as exc:
        if goyaml_reads_it(exc, chosen):
            return _compose(text, PureLoader)  # the first loader is disposed below
        mark = exc.problem_mark or exc.context_mark
        if mark is not None and not text.isascii() and linebreaks.OTHER_BREAKS.search(text):
            mark = linebreaks.renumbered(mark, linebreaks.line_starts(text))
        msg = " ".join(p for p in (exc.context, exc.problem) if p)
        raise ParseError(
            f"invalid YAML: {msg}", (mark.line + 1) if mark else 0, (mark.column + 1) if mark else 0
        ) from None
    except YAMLError as exc:
        raise ParseError(f"invalid YAML: {' '.join(str(exc).split())}") from None
    finally:
        if loader is not None:
            _dispose(loader)
    return root


@contextmanager
def event_loader(text: str) -> Iterator[Any]:
    """The selected parser's loader for `text`, for its events (`get_event`, the ones `compose` builds nodes
    from, positions included) and its `resolve`; released when done. It raises ruamel's YAMLError."""
    loader = _loader(text)
    try:
        yield loader
    finally:
        _dispose(loader)


def _dispose(loader: Any) -> None:
    """Break the loader's reference cycles (ruamel's pure loader refers to itself from each of its
    parts), so that a document's loader is freed when it is done, not by the cyclic collector."""
    loader.dispose()
    vars(loader).clear()


def construct(root: Node) -> Any:
    """The value of a tree that may hold aliases: limits first (alias bombs, recursion, depth)."""
    if values.expanded_size(root) > MAX_EXPANDED_NODES:
        raise ParseError(
            f"aliases expand to more than {MAX_EXPANDED_NODES} nodes (a 'billion laughs' document?)",
            root.start_mark.line + 1,
            root.start_mark.column + 1,
        )
    if values.node_depth(root) > MAX_DEPTH:
        raise ParseError(
            f"nesting deeper than {MAX_DEPTH} levels; refusing to parse",
            root.start_mark.line + 1,
            root.start_mark.column + 1,
        )
    return values.to_value(root)[0]


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) < len(pairs):
        raise _Duplicate
    return out


class _Duplicate(Exception):
    pass


# YAML 1.1's printable set: what the composer accepts (json.loads also takes DEL and C1 controls)
_NOT_PRINTABLE = "[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"  # compiling it: 3 ms
_NOT_PRINTABLE_ASCII = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # the same set within ASCII


def compile_patterns(non_ascii: bool) -> None:
    """Compile now the patterns compiled on first use (into re's cache), for a run about to fork
    workers that would each compile them again; `non_ascii`: some input is not ASCII."""
    re.compile(_BRACKETS)
    if non_ascii:
        re.compile(_NOT_PRINTABLE)


def _unprintable(text: str) -> bool:
    if text.isascii():
        return _NOT_PRINTABLE_ASCII.search(text) is not None
    return re.search(_NOT_PRINTABLE, text) is not None  # compiled on first use (re's cache)


def _json(text: str) -> Document | None:
    """A JSON object document, without composing it; None when it is not plain JSON."""
    stripped = text.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")) or "\t" in text or "\\/" in text:
        return None  # JSON that YAML reads differently (tabs, `\/`) takes the YAML path
    if _unprintable(text):
        return None  # a character YAML refuses (DEL, C0/C1 controls): the YAML path says so, with its position
    nonfinite: list[str] = []

    def constant(name: str) -> float:  # NaN, Infinity, -Infinity
        nonfinite.append(name)
        return float(name)

    def number(text: str) -> float:
        value = float(text)
        if value - value != 0:  # too large for a double (1e400): an infinity
            nonfinite.append(text)
        return value

    try:
        value = json.loads(stripped, object_pairs_hook=_pairs, parse_constant=constant, parse_float=number)
    except _Duplicate:
        return None  # the YAML path reports the duplicate keys with their positions
    except (ValueError, RecursionError):
        return None
    if _json_depth(stripped) > MAX_DEPTH:
        return None
    return Document(None, value, [], text, bool(nonfinite))


# YAML reads NaN and infinity only from these plain scalars (`.inf`, `-.Inf`, `.NaN`, ...; or with an explicit
# `!!float` tag): a document without one has none (a number too large for a double is a string to Kubernetes)
_SPECIAL_FLOAT = re.compile(r"\.(?:inf|Inf|INF|nan|NaN|NAN)(?!\w)")

_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')  # a JSON string; unrolled: 3x faster than (?:[^"\\]|\\.)*
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


json_depth = _json_depth  # public: a decoder of an embedded JSON payload checks it before json.loads


def parse(text: str) -> Document | None:
    """Parse one document: JSON by the json module, YAML composed with positions; None when empty."""
    doc = _json(text)
    if doc is not None:
        return doc
    root = compose(text)
    if root is None:
        return None
    if "&" in text:  # anchors, so maybe aliases: check the limits on the tree before building the value
        value = construct(root)
        dup_maps = [root]  # cheap enough next to the checks above: look for duplicate keys everywhere
    else:
        value, found = values.to_value(root)
        dup_maps = list(found)
    dups: list[tuple[tuple[Any, ...], Node]] = []
    if dup_maps:
        values.duplicates(root, (), dups)
    return Document(root, value, dups, nonfinite=_SPECIAL_FLOAT.search(text) is not None)
