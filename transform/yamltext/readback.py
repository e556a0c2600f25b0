"""Read an edited document back against the value it must have, from the parser's events, keeping no tree.

Composing a node tree to check an edit costs about 370 bytes a node with its positions: a payload of
300,000 list entries written anew as YAML is 1.5 million nodes, 550 MB, for a 12 MB text. The events of
the same parser (libyaml's, or the pure-Python one) carry the same scalars, tags and positions; each is
resolved as `values.Builder` resolves a node and compared with the intended value as it arrives (with
`edits.same`'s strictness: 1, 1.0 and True differ), and only the spans of scalars holding a `#` are
kept (the comment check needs them). Whatever this reading does not cover exactly as `values` does
(anchors, aliases, tags, merge keys `<<`, keys that are not strings, duplicate keys, nesting past
MAX_DEPTH, a second document, a parse error) and any difference give no answer: the caller composes
the document as before, which reports it. An answer here is a proof; nothing is refused here.
"""

from __future__ import annotations

from typing import Any

from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import (
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)

from transform.yamltext import nodes, values
from transform.yamltext.nodeclasses import Scalar
from transform.yamltext.resolver import STR, KubernetesResolver

_STR_TAG = KubernetesResolver.TAGS[STR]


class _Unsure(Exception):
    """Not proven here: a difference, or something the events alone do not settle."""


def spans_if_same(text: str, intended: Any) -> list[tuple[int, int]] | None:
    """When `text` reads as one document whose value is `intended`: the (start, end) offsets of its
    scalars that hold a `#` (so no comment), in text order. None: not proven (compose and compare)."""
    try:
        with nodes.event_loader(text) as loader:
            return _Reader(loader, text).document(intended)
    except (_Unsure, YAMLError, ValueError, KeyError):
        return None


class _Reader:
    def __init__(self, loader: Any, text: str) -> None:
        self.next = loader.get_event
        self.resolve = loader.resolve
        self.text = text
        self.spans: list[tuple[int, int]] = []

    def expect(self, cls: type) -> None:
        if self.next().__class__ is not cls:
            raise _Unsure

    def document(self, intended: Any) -> list[tuple[int, int]]:
        self.expect(StreamStartEvent)
        self.expect(DocumentStartEvent)
        self.node(self.next(), intended, 1)
        self.expect(DocumentEndEvent)
        self.expect(StreamEndEvent)
        return self.spans

    def scalar(self, event: Any) -> Any:
        """The scalar's tag object, as the composers resolve an untagged one; `#` spans noted."""
        if event.anchor is not None or event.tag is not None:
            raise _Unsure
        start, end = event.start_mark.index, event.end_mark.index
        if self.text.find("#", start, end) >= 0:
            self.spans.append((start, end))
        return self.resolve(Scalar, event.value, event.implicit)

    def node(self, event: Any, want: Any, depth: int) -> None:
        if depth > values.MAX_DEPTH:
            raise _Unsure
        cls = event.__class__
        if cls is ScalarEvent:
            value = values.tagged_value(self.scalar(event), event.value)
            if type(value) is not type(want) or value != want:
                raise _Unsure
            return
        if event.anchor is not None or event.tag is not None:
            raise _Unsure
        if cls is MappingStartEvent:
            self.mapping(want, depth)
        elif cls is SequenceStartEvent:
            self.sequence(want, depth)
        else:  # an alias
            raise _Unsure

    def mapping(self, want: Any, depth: int) -> None:
        if type(want) is not dict:
            raise _Unsure
        seen: set[str] = set()
        while (event := self.next()).__class__ is not MappingEndEvent:
            if event.__class__ is not ScalarEvent or self.scalar(event) is not _STR_TAG:
                raise _Unsure  # a merge key, a key read as a number or boolean, a collection as a key
            key = event.value
            if key in seen or key not in want:
                raise _Unsure
            seen.add(key)
            self.node(self.next(), want[key], depth + 1)
        if len(seen) != len(want):
            raise _Unsure

    def sequence(self, want: Any, depth: int) -> None:
        if type(want) is not list:
            raise _Unsure
        count = 0
        while (event := self.next()).__class__ is not SequenceEndEvent:
            if count >= len(want):
                raise _Unsure
            self.node(event, want[count], depth + 1)
            count += 1
        if count != len(want):
            raise _Unsure
