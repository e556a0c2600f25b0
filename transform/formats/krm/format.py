"""The KRM function's ResourceList as a container format (`formats.base.Format`): a block-style list cut
into its items (`items`) is one input whose documents are its items; each upgraded item keeps its
orchestrator annotations (`adjust`), and the upgraded items are put back into the list (`reassemble`):
their dashes restored, findings in the order of the list read as one document, the items' own inline
ignores placed. `Items` is what the function's sink reads back of it (`integrations/krm.ItemsSink`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from transform.formats.base import Format
from transform.formats.krm import items as krmitems
from transform.formats.krm import resourcelist as krmlist
from transform.formats.krm.items import Layout

NAME = "krm"
# what only reading the list whole can tell (an item that does not parse, or holds NaN, alone)
UNREAD = ("input.yaml", "input.number", "input.too-large")
MARKER = "instancetype-upgrade:"  # == yamltext.ignores.MARKER (a test checks): no parser import to look for it


@dataclass
class Items:
    """One ResourceList read item by item: its layout, whether its own inline ignores apply, and what the
    upgrade found (by item: where its annotations said it was before and after; items whose reserved
    annotations changed; whether only reading the list whole can tell)."""

    layout: Layout
    name: str
    inline_ignores: bool
    seen: dict[int, tuple[krmlist.Where, krmlist.Where]] = field(default_factory=dict)
    moved: list[str] = field(default_factory=list)
    unread: bool = False


class Krm(Format):
    name = NAME

    def adjust(self, state: Any, index: int, old: Any, new: Any) -> Any:
        where = krmlist.item_where(old)
        state.seen[index] = (where, where if new is old else krmlist.item_where(new))
        if new is not old and krmlist.reserved(old) != krmlist.reserved(new):
            state.moved.append(f"items[{index}]")
        elif new is not old and krmlist.has_ids(old) and krmlist.reshaped(old, new):
            return krmlist.without_ids(new)
        return new

    def reassemble(self, state: Any, part: Any) -> Any:
        lay = state.layout
        pieces = [(a, b, krmitems.restore(lay, body)) for a, b, body in part.pieces]
        if any(f.code in UNREAD for f in part.findings) or any(body is None for _, _, body in pieces):
            state.unread = True  # what only reading the list whole can tell
        part.pieces = [(a, b, body) for a, b, body in pieces if body is not None]
        krmitems.as_one_document(part)
        if state.inline_ignores and MARKER in lay.spaced:
            # the items' own directives: each item is a document here (the list's text has one document)
            from transform.yamltext import ignores  # lazy: only a list that holds a directive

            part.findings, _suppressed = ignores.apply(lay.spaced, part.findings, state.name, lay.spans)
        return part


FORMAT = Krm()
