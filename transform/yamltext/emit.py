"""Write new nodes as YAML or JSON text in a file's own style.

Only new nodes are written here (a base64 wrapper becoming an object, added labels, inserted keys);
everything else is edited in place (`edits.py`). Block YAML of simple data (printable ASCII strings on
one line, numbers, booleans, null: what revision payloads and labels hold) is written directly, exactly
as the library's emitters write it (`_Writer`); anything else by the library's emitters set to
the document's detected style (`detect_style`: mapping indent, sequence dash offset, preferred quote):
libyaml's C emitter (ruamel.yaml.clib) for kubectl's style, ruamel.yaml's Python emitter for any other. A new
scalar is plain only when Kubernetes reads the plain text back as the same string (the Kubernetes
resolver) and no YAML 1.1 reader takes it for a timestamp or a base-60 number; otherwise it is quoted.
JSON documents are written with the json module.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from typing import Any

from ruamel.yaml.emitter import Emitter
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.serializer import Serializer
from ruamel.yaml.tag import Tag

from transform.yamltext.nodeclasses import Mapping, Scalar, Sequence
from transform.yamltext.resolver import BOOL, FLOAT, INT, MAP, NULL, SEQ, STR, TIMESTAMP, KubernetesResolver

try:
    from _ruamel_yaml import CEmitter  # ruamel.yaml.clib: libyaml's emitter
except ImportError:
    CEmitter = None


@dataclass(frozen=True)
class Style:
    """How a document is written, detected once per document."""

    json: bool = False  # the document is JSON (flow everywhere, double quotes)
    unit: int = 2  # indentation step of nested mappings (or JSON indent)
    seq_indent: bool = False  # `key:\n  - a` (True) or `key:\n- a` (kubectl's style)
    compact_json: bool = False  # JSON written on one line (Velero items)
    newline: str = "\n"
    dash_offset: int = -1  # columns from a key to the `-` of its block sequence (-1: `unit` if seq_indent, else 0)
    quote: str = '"'  # the quote of new quoted scalars: the file's most used one (kubectl writes `"`)

    @property
    def offset(self) -> int:
        if self.dash_offset >= 0:
            return self.dash_offset
        return self.unit if self.seq_indent else 0


def detect_style(text: str, root: Node, newline: str) -> Style:
    is_json = text.lstrip().startswith("{") and isinstance(root, MappingNode) and root.flow_style
    if is_json:
        first_nl = text.find("\n", root.start_mark.index)
        compact = first_nl < 0 or first_nl >= root.end_mark.index - 1
        unit = 2
        if not compact:
            m = re.search(r"\{\s*\n([ \t]+)\S", text[root.start_mark.index :])
            if m:
                unit = len(m.group(1).expandtabs()) - root.start_mark.column or 2
        return Style(json=True, unit=unit, compact_json=compact, newline=newline)
    unit, offset = 0, -1
    quotes = {"'": 0, '"': 0}
    seen: set[int] = set()
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            if node.style in quotes:
                quotes[node.style] += 1
        elif isinstance(node, MappingNode):
            for k, v in node.value:
                if not node.flow_style and not getattr(v, "flow_style", True) and v.value:
                    d = v.start_mark.column - k.start_mark.column
                    if isinstance(v, MappingNode) and not unit and d > 0:
                        unit = d
                    elif isinstance(v, SequenceNode) and offset < 0 and d >= 0:
                        offset = d
                stack.extend((k, v))
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
    quote = "'" if quotes["'"] > quotes['"'] else '"'
    return Style(unit=unit or 2, seq_indent=offset > 0, dash_offset=offset, quote=quote, newline=newline)


class WriterResolver(KubernetesResolver):
    """Kubernetes' resolver, plus the plain scalars that YAML 1.1 readers take for something else
    (timestamps, base-60 numbers, `=`, `<<`, `._`): a writer quotes those too, as
    kubernetes-yaml-scalars.md advises, so every reader gets the string."""

    TAGS = {**KubernetesResolver.TAGS, TIMESTAMP: Tag(suffix=TIMESTAMP)}


_OTHER_READERS = re.compile(
    r"""^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}                                # a date
    |[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:.*   # a timestamp
    |[-+]?[0-9][0-9_]*(?::[0-9_]+)+(?:\.[0-9_]*)?                   # base 60
    |=|<<|\._.*)$""",
    re.X,
)
WriterResolver.yaml_implicit_resolvers = {k: list(v) for k, v in KubernetesResolver.yaml_implicit_resolvers.items()}
for _first in [*"0123456789-+=<."]:  # tried first: to Kubernetes these plain texts are strings anyway
    WriterResolver.yaml_implicit_resolvers.setdefault(_first, []).insert(0, (TIMESTAMP, _OTHER_READERS))
_WRITER = WriterResolver()
_INDICATORS = set("-?:,[]{}#&*!|>'\"%@`")


def plain_ok(s: str) -> bool:
    """True when `s` written plain reads back as the same string, to Kubernetes and to YAML 1.1 readers."""
    if not s or s != s.strip() or s[0] in _INDICATORS or s.endswith(":"):
        return False
    if ": " in s or " #" in s or "\t" in s or not s.isprintable():
        return False
    return _WRITER.resolve(ScalarNode, s, (True, False)) is _WRITER.DEFAULT_SCALAR_TAG


class _StyledEmitter(Emitter):
    """ruamel's emitter, using the file's preferred quote where it would pick single quotes."""

    preferred_quote = '"'

    def choose_scalar_style(self) -> Any:
        style = super().choose_scalar_style()
        if style == "'" and self.preferred_quote == '"':
            return '"'
        return style


_TAGS = WriterResolver.TAGS


def _node(value: Any, quote: str) -> Node:
    """The node tree of plain data: keys in their order, no anchors, each string plain only when `plain_ok`."""
    if isinstance(value, str):
        return Scalar(_TAGS[STR], value, style=None if plain_ok(value) else quote)
    if isinstance(value, dict):
        pairs = [(_node(str(k), quote), _node(v, quote)) for k, v in value.items()]
        return Mapping(_TAGS[MAP], pairs, flow_style=not pairs)
    if isinstance(value, list):
        return Sequence(_TAGS[SEQ], [_node(v, quote) for v in value], flow_style=not value)
    if value is None:
        return Scalar(_TAGS[NULL], "null")
    if value is True or value is False:
        return Scalar(_TAGS[BOOL], "true" if value else "false")
    if isinstance(value, int):
        return Scalar(_TAGS[INT], str(value))
    if isinstance(value, float):
        return Scalar(_TAGS[FLOAT], json.dumps(value))
    raise TypeError(f"cannot write a {type(value).__name__} as YAML")


class _PyDumper(_StyledEmitter, Serializer, WriterResolver):
    """ruamel.yaml's Python emitter and serializer: every style (mapping indent, sequence dash offset)."""

    def __init__(self, stream: io.StringIO, style: Style) -> None:
        _StyledEmitter.__init__(
            self,
            stream,
            indent=style.unit,
            width=1 << 30,  # never fold a long string
            allow_unicode=True,
            line_break="\n",
            block_seq_indent=style.offset,
            dumper=self,
        )
        self.best_map_indent = style.unit
        self.best_sequence_indent = style.offset + 2
        self.preferred_quote = style.quote
        Serializer.__init__(self, dumper=self)
        WriterResolver.__init__(self, loadumper=self)


if CEmitter is not None:

    class _CDumper(CEmitter, WriterResolver):
        """libyaml's emitter (ruamel.yaml.clib), 2-3x faster: kubectl's style (2 spaces, `- ` at the key's column)."""

        def __init__(self, stream: io.StringIO, style: Style) -> None:
            CEmitter.__init__(self, stream, indent=2, width=1 << 30, allow_unicode=True, line_break="\n")
            WriterResolver.__init__(self)  # no `loadumper=self`: no reference cycle (libyaml calls self.resolve)


def block(value: Any, indent: int, style: Style, *, c_emitter: bool = True, library: bool = False) -> list[str]:
    """Lines (no newlines) of a non-empty mapping or sequence with its keys (or dashes) at column `indent`.

    Data of simple scalars is written here directly (`_Writer`), exactly as the library's emitters write
    it; anything else by the library: kubectl's style through libyaml's C emitter when it is installed
    (`c_emitter=False`: never), any other style through ruamel.yaml's Python emitter. `library`: always
    the library (the tests compare both).
    """
    lines = None if library else _Writer(style).lines(value, indent)
    if lines is not None:
        return lines
    out = io.StringIO()
    kubectl = c_emitter and CEmitter is not None and style.unit == 2 and style.offset == 0
    dumper = _CDumper(out, style) if kubectl else _PyDumper(out, style)
    dumper.open()
    dumper.serialize(_node(value, style.quote))
    dumper.close()
    vars(dumper).clear()  # ruamel's Python dumper refers to itself from each part: free it now, not in a GC pass
    cut = style.offset if isinstance(value, list) else 0  # ruamel indents a top-level sequence by the offset
    pad = " " * indent
    return [pad + line[cut:] for line in out.getvalue().rstrip("\n").split("\n")]


class _Fallback(Exception):
    """A scalar `_Writer` leaves to the library's emitters."""


_MAX_KEY = 100  # a longer key is written `? key` by the emitters (their simple keys are shorter than 128)


class _Writer:
    """Block YAML of plain data, as the library's emitters write it (the same layout, styles and quoting:
    tests/yamltext/test_block_writer.py compares them on generated data in every style), for data whose
    scalars are simple: printable ASCII strings on one line, ints, floats, booleans, null, empty
    collections. Anything else raises `_Fallback` (the library writes it); ten times faster than
    ruamel's Python emitter, which new revision payloads and labels go through."""

    def __init__(self, style: Style) -> None:
        self.unit = style.unit
        self.offset = style.offset
        self.quote = style.quote
        self.written: dict[tuple[str, bool], str] = {}  # keys and values repeat (a KRM function's results)

    def lines(self, value: Any, indent: int = 0) -> list[str] | None:
        """The lines, each starting with `indent` spaces (written so: not padded after, a second list of
        every line of a 300,000-entry payload)."""
        out: list[str] = []
        try:
            if isinstance(value, dict):
                self.mapping(value, indent, out)
            else:
                self.sequence(value, indent, out)
        except _Fallback:
            return None
        return out

    def mapping(self, value: dict[str, Any], col: int, out: list[str]) -> None:
        pad = " " * col
        for k, v in value.items():
            head = pad + self.scalar(str(k), key=True) + ":"
            if isinstance(v, (dict, list)):
                if not v:
                    out.append(head + (" {}" if isinstance(v, dict) else " []"))
                    continue
                out.append(head)
                if isinstance(v, dict):
                    self.mapping(v, col + self.unit, out)
                else:
                    self.sequence(v, col + self.offset, out)
            else:
                out.append(head + " " + self.scalar(v))

    def sequence(self, value: list[Any], col: int, out: list[str]) -> None:
        dash = " " * col + "- "
        for v in value:
            if isinstance(v, dict) and v:
                first = len(out)
                self.mapping(v, col + 2, out)
                out[first] = dash + out[first][col + 2 :]
            elif isinstance(v, list) and v:  # `- - x`: the inner dashes one offset further in
                first = len(out)
                inner = col + 2 + self.offset
                self.sequence(v, inner, out)
                out[first] = dash + " " * self.offset + out[first][inner:]
            elif isinstance(v, (dict, list)):
                out.append(dash + ("{}" if isinstance(v, dict) else "[]"))
            else:
                out.append(dash + self.scalar(v))

    def scalar(self, value: Any, key: bool = False) -> str:
        if isinstance(value, str):
            text = self.written.get((value, key))
            if text is None:
                text = self.written[value, key] = self._string(value, key)
            return text
        return self._other(value)

    def _string(self, value: str, key: bool) -> str:
        if not value.isascii() or not value.isprintable() or (key and len(value) > _MAX_KEY):
            raise _Fallback
        if plain_ok(value):
            if value.startswith("..."):  # a document marker to the emitters: they quote it
                raise _Fallback
            return value
        if self.quote == "'":
            return "'" + value.replace("'", "''") + "'"
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def _other(self, value: Any) -> str:
        if value is None:
            return "null"
        if value is True or value is False:
            return "true" if value else "false"
        if isinstance(value, int):
            text = str(value)
            if _WRITER.resolve(ScalarNode, text, (True, False)) is _TAGS[INT]:
                return text
        elif isinstance(value, float):
            text = json.dumps(value)
            if _WRITER.resolve(ScalarNode, text, (True, False)) is _TAGS[FLOAT]:
                return text
        raise _Fallback


def scalar(value: Any, style: Style, quote: str | None = None) -> str:
    """One scalar written in place: plain when that reads back the same, else in `quote` (the replaced
    node's quote) or the file's preferred one."""
    if style.json:
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    s = str(value)
    if quote is None and plain_ok(s):
        return s
    if (quote or style.quote) == "'" and "\n" not in s and s.isprintable():
        return "'" + s.replace("'", "''") + "'"
    return json.dumps(s, ensure_ascii=False)


def empty(value: Any) -> str | None:
    if value == {} and isinstance(value, dict):
        return "{}"
    if value == [] and isinstance(value, list):
        return "[]"
    return None


def flow(value: Any, style: Style, indent: int = 0) -> str:
    """JSON text for a flow context; multi-line in the document's own indent when not compact."""
    if style.json and not style.compact_json and isinstance(value, (dict, list)) and value:
        text = _indented_json(value, " " * style.unit, "\n")
        return text.replace("\n", style.newline + " " * indent)
    if style.json:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(value, ensure_ascii=False)


def _indented_json(value: Any, unit: str, pad: str) -> str:
    """`json.dumps(value, ensure_ascii=False, indent=len(unit))`, without the encoder's closures: with
    an indent, json's Python encoder builds functions that refer to each other (a reference cycle
    each call, left to the cyclic collector). Nesting is bounded by the document limits."""
    inner = pad + unit
    if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        items = (json.dumps(k, ensure_ascii=False) + ": " + _indented_json(v, unit, inner) for k, v in value.items())
        return "{" + inner + ("," + inner).join(items) + pad + "}"
    if isinstance(value, list) and value:
        return "[" + inner + ("," + inner).join(_indented_json(v, unit, inner) for v in value) + pad + "]"
    if isinstance(value, (dict, list)) and value:  # keys json converts (numbers, booleans): json's own way
        return json.dumps(value, ensure_ascii=False, indent=len(unit)).replace("\n", pad)
    return json.dumps(value, ensure_ascii=False)


def is_block(node: Node) -> bool:
    return isinstance(node, (MappingNode, SequenceNode)) and not node.flow_style


def quote_of(node: Node) -> str | None:
    return node.style if isinstance(node, ScalarNode) and node.style in ("'", '"') else None
