"""Where each alias of a document is written: the composed tree puts the anchored node itself at every
alias, so the `*name` token's place is read from the parser's events, walked alongside the tree."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import AliasEvent, DocumentStartEvent, MappingStartEvent, SequenceStartEvent
from ruamel.yaml.nodes import MappingNode, Node, SequenceNode

from transform.yamltext import nodes
from transform.yamltext.values import MAX_DEPTH


@dataclass(frozen=True)
class AliasUse:
    container: Node  # the mapping or sequence holding the alias
    slot: Node | int | None  # a mapping value's key node, a sequence item's index (None: the alias is a key)
    target: Node  # the anchored node it stands for
    start: int  # the `*name` token in the text
    end: int


class _Mismatch(Exception):
    """The events do not follow the tree (another parser's reading): no alias is placed."""


def alias_uses(text: str, root: Node) -> list[AliasUse] | None:
    """Every alias of the one document `text` composes to `root`, in document order (None: not readable so)."""
    out: list[AliasUse] = []
    try:
        with nodes.event_loader(text) as loader:
            nxt: Callable[[], Any] = loader.get_event
            while not isinstance(nxt(), DocumentStartEvent):
                pass
            _walk(nxt, nxt(), root, root, None, out, 1)
    except (YAMLError, _Mismatch, IndexError, AttributeError):
        return None
    return out


def _walk(
    nxt: Callable[[], Any],
    event: Any,
    node: Node,
    container: Node,
    slot: Node | int | None,
    out: list[AliasUse],
    depth: int,
) -> None:
    if depth > MAX_DEPTH:
        raise _Mismatch
    if isinstance(event, AliasEvent):
        out.append(AliasUse(container, slot, node, event.start_mark.index, event.end_mark.index))
        return
    if isinstance(event, MappingStartEvent):
        if not isinstance(node, MappingNode):
            raise _Mismatch
        for k, v in node.value:
            _walk(nxt, nxt(), k, node, None, out, depth + 1)
            _walk(nxt, nxt(), v, node, k, out, depth + 1)
        nxt()  # the mapping's end
    elif isinstance(event, SequenceStartEvent):
        if not isinstance(node, SequenceNode):
            raise _Mismatch
        for i, item in enumerate(node.value):
            _walk(nxt, nxt(), item, node, i, out, depth + 1)
        nxt()


def place(container: Node, i: int) -> tuple[int, int]:
    """The key `alias_ends` gives pair (or item) `i` of `container`."""
    return (id(container), id(container.value[i][0]) if isinstance(container, MappingNode) else i)


def alias_ends(text: str, root: Node | None) -> dict[tuple[int, int], int]:
    """Where each alias value's `*name` ends in `text`, by `place` ({} for a text without aliases)."""
    uses = alias_uses(text, root) if root is not None and "*" in text else None
    return {
        (id(u.container), u.slot if isinstance(u.slot, int) else id(u.slot)): u.end
        for u in uses or ()
        if u.slot is not None
    }
