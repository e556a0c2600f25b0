"""The KRM function: a ResourceList in, the same ResourceList with upgraded items and `results` out.

The engine upgrades the items in place as text edits: comments, quoting, key order and every
annotation of the orchestrator (`internal.config.kubernetes.io/*`, legacy
`config.kubernetes.io/path|index`) stay byte-for-byte. A block-style list is cut into its items
(`krmitems`), each upgraded as one document of a stream, as `fix -` upgrades documents; any other
(JSON, flow style, aliases) is one document whose kind ends in "List", upgraded whole. This module
only reads the options from `functionConfig` (`krmconfig`) and has the pipeline plan the list; its
output is a sink of the pipeline (`outputs.Sink`: `ItemsSink`, `WholeSink`) that checks that no
orchestrator annotation moved, re-locates findings on the items' own files (their path/index
annotations) and writes the top-level `results` key (replacing one that is there) with the same
minimal-edit planner. Pure: bytes in, bytes and results out.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from transform.formats.krm import resourcelist as krmlist
from transform.formats.krm.config import options
from transform.formats.krm.resourcelist import KrmError, reshaped
from transform.model.findings import Finding, Severity, error
from transform.model.policy import run_policy
from transform.model.settings import Settings
from transform.report.formats import krm_results
from transform.yamltext import textio

if TYPE_CHECKING:
    from transform.formats.krm.items import Layout
    from transform.pipeline.batch import Item
    from transform.pipeline.parts import FileResult
    from transform.pipeline.upgrade import Plan

NAME = "<ResourceList>"
__all__ = ["NAME", "ItemsSink", "KrmError", "Outcome", "WholeSink", "process", "reshaped"]


@dataclass
class Outcome:
    data: bytes  # the ResourceList to print
    findings: list[Finding] = field(default_factory=list)  # located on the items' files
    results: list[dict[str, Any]] = field(default_factory=list)
    upgraded: int = 0

    @property
    def failed(self) -> bool:
        return any(r.get("severity", "error") == "error" for r in self.results)


# --- the function ------------------------------------------------------------------------------


def process(data: bytes, base: Settings | None = None) -> Outcome:
    """Items are upgraded one at a time, as the documents of a stream (`krmitems`): each is parsed once
    and the list never whole (tests/pipeline/test_scale.py). A list that cannot be cut into its items
    (JSON, flow style, aliases, an item that does not read alone) is read whole (`_whole`)."""
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.formats.krm import items as krmitems

    base = base or Settings()
    try:
        source = textio.decode(data)
    except textio.ReadError as exc:
        raise KrmError(str(exc)) from None
    lay = krmitems.layout(source.text, source.newline)
    out = _by_items(source, data, base, lay) if lay is not None else None
    return out if out is not None else _whole(source, data, base)


# what only reading the list whole can tell (an item that does not parse, or holds NaN, alone)
_UNREAD = ("input.yaml", "input.number", "input.too-large")


def _by_items(source: textio.Source, data: bytes, base: Settings, lay: Layout) -> Outcome | None:
    """The ResourceList upgraded item by item (see `krmitems`), or None: read it whole. The pipeline
    plans it as one input whose documents are its items (`parts.Reading`: the list's text with each
    item's dash a space, `krmitems.Layout.spaced`, the items' span of it)."""
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.formats.krm import items as krmitems
    from transform.pipeline.batch import Item, RunResult
    from transform.pipeline.outputs import write_plan
    from transform.pipeline.parts import MARKER, ParsedDoc, Part, Reading, Span
    from transform.pipeline.upgrade import Plan, upgrade_items
    from transform.yamltext import nodes as yamlnodes

    top = krmitems.skeleton(lay)
    if top is None or not all(map(yamlnodes.well_formed, krmitems.others(lay))):
        return None  # (the engine parses the candidates: `_UNREAD`)
    if not krmitems.proven(lay, source.text):
        return None  # the cut is not the parser's: read the list whole
    settings, found = options(top.value.get("functionConfig"), base)
    sink = ItemsSink(source, settings, found, lay, top)
    plan = Plan([], RunResult())
    if not any(f.severity is Severity.ERROR for f in found):
        settings = replace(settings, max_document_bytes=max(settings.max_document_bytes, len(data)))
        seen, moved, unread = sink.seen, sink.moved, []

        def adjust(pd: ParsedDoc, new: Any) -> Any:
            old = pd.doc.value if pd.doc is not None else None
            where = krmlist.item_where(old)
            seen[pd.index] = (where, where if new is old else krmlist.item_where(new))
            if new is not old and krmlist.reserved(old) != krmlist.reserved(new):
                moved.append(f"items[{pd.index}]")
            elif new is not old and krmlist.has_ids(old) and reshaped(old, new):
                return krmlist.without_ids(new)
            return new

        def after(part: Part) -> Part:
            pieces = [(a, b, krmitems.restore(lay, body)) for a, b, body in part.pieces]
            if any(f.code in _UNREAD for f in part.findings) or any(body is None for _, _, body in pieces):
                unread.append(True)  # what only reading the list whole can tell
            part.pieces = [(a, b, body) for a, b, body in pieces if body is not None]
            krmitems.as_one_document(part)
            if settings.inline_ignores and MARKER in lay.spaced:
                # the items' own directives: each item is a document here (the list's text has one document)
                from transform.yamltext import ignores  # lazy: only a list that holds a directive

                part.findings, _suppressed = ignores.apply(lay.spaced, part.findings, NAME, lay.spans)
            return part

        spaced = textio.Source(lay.spaced, source.bom, source.newline)
        span = Span(lay.spans, 0, len(lay.spans), 0, textio.count_lines(lay.spaced, 0, lay.seq[0]))
        item = Item(NAME, data, reading=Reading(spaced, source, span, adjust, after, own_ignores=True))
        plan = upgrade_items([item], settings, RunResult(), jobs=1)
        if unread:
            return None
        write_plan(plan, sink, note=False)
    try:
        sink.close(plan, plan.run.failed)
    except _ReadWhole:
        return None
    return sink.outcome


class _ReadWhole(Exception):
    """The items' sink cannot write the list as the whole list would be written: read it whole."""


class _ListSink:
    """The output of the KRM function (an `outputs.Sink`): the ResourceList, its items as the plan
    upgraded them (`put`, the one planned file), then its `results` from every finding (`close`)."""

    def __init__(self, source: textio.Source, settings: Settings, found: list[Finding]) -> None:
        self.source, self.settings, self.found = source, settings, found  # found: the functionConfig's
        self.text, self.upgraded = source.text, 0
        self.outcome = Outcome(b"")

    def put(self, result: FileResult, item: Item, data: bytes) -> str:
        assert result.new_text is not None
        moved = self.moved_annotation(result)
        if moved:  # the list is written as it came, and says why
            self.found.append(_moved(moved))
        else:
            self.text, self.upgraded = result.new_text, result.upgraded
        return ""

    def close(self, plan: Plan, failed: bool) -> None:
        found = self.found + [self.relocate(f) for r in plan.run.results for f in r.findings]
        self.outcome = _results(found, self.settings, self.upgraded)
        self.outcome.data = self.source.encode(self.write(self.outcome.results))

    def moved_annotation(self, result: FileResult) -> str:
        raise NotImplementedError

    def relocate(self, f: Finding) -> Finding:
        raise NotImplementedError

    def write(self, results: list[dict[str, Any]]) -> str:
        raise NotImplementedError


class ItemsSink(_ListSink):
    """A block-style list upgraded item by item: `results` written into its skeleton (the items one
    `- ~` line), read back one entry at a time, the items spliced back in (`krmitems`)."""

    def __init__(self, source: textio.Source, settings: Settings, found: list[Finding], lay: Layout, top: Any) -> None:
        super().__init__(source, settings, found)
        self.lay, self.top = lay, top
        self.seen: dict[int, tuple[krmlist.Where, krmlist.Where]] = {}  # by item: where before, after
        self.moved: list[str] = []  # items whose orchestrator annotations the upgrade would change
        self.taken = False

    def moved_annotation(self, result: FileResult) -> str:
        self.taken = not self.moved
        return self.moved[0] if self.moved else ""

    def relocate(self, f: Finding) -> Finding:
        return krmlist.at_item(f, self.seen[f.doc][self.taken] if f.doc in self.seen else None)

    def write(self, results: list[dict[str, Any]]) -> str:
        # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
        from transform.formats.krm import items as krmitems

        lay, text = self.lay, self.text
        style = krmitems.style(lay, self.top, self.source.newline)
        try:
            skeleton, expected = krmlist.with_results(self.source, lay.skeleton, results, parsed=self.top, style=style)
            if expected is None:
                return text
            ok = krmitems.reads_back(skeleton, expected, self.source.newline)
            if ok is None:
                krmlist.check_written(skeleton, expected)
            elif not ok:
                raise _ReadWhole
            spliced = krmitems.splice(lay, skeleton, text)
        except KrmError:
            raise _ReadWhole from None
        if spliced is None:
            raise _ReadWhole
        return spliced


class WholeSink(_ListSink):
    """A list read as one document: the upgraded list parsed once (its annotations checked, and that
    parse kept for the `results` edit), and once more after `results` is written."""

    def __init__(self, source: textio.Source, settings: Settings, found: list[Finding], current: Any) -> None:
        super().__init__(source, settings, found)
        self.current = current  # the parsed document of `text`, while there is one
        self.items_before = self.items_after = krmlist.items_of(current.value)
        self.drop_ids: set[int] = set()

    def moved_annotation(self, result: FileResult) -> str:
        # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
        from transform.yamltext import nodes as yamlnodes

        assert result.new_text is not None
        self.current = None
        new_chunk = krmlist.chunks(result.new_text)[0]
        after = yamlnodes.parse(result.new_text[new_chunk.start : new_chunk.end])
        items_after = krmlist.items_of(after.value) if after and isinstance(after.value, dict) else []
        moved = krmlist.moved_annotations(self.items_before, items_after)
        if not moved:
            self.current, self.items_after = after, items_after
            pairs = zip(self.items_before, items_after, strict=True)
            self.drop_ids = {i for i, (a, b) in enumerate(pairs) if reshaped(a, b)}
        return moved

    def relocate(self, f: Finding) -> Finding:
        return krmlist.relocate(f, self.items_after)

    def write(self, results: list[dict[str, Any]]) -> str:
        text, expected = krmlist.with_results(self.source, self.text, results, self.drop_ids, self.current)
        self.current = None
        if expected is not None:
            krmlist.check_written(text, expected)
        return text


def _moved(where: str) -> Finding:
    msg = f"an orchestrator annotation would change ({where}); ResourceList left unchanged (please report this)"
    return error("internal.krm", msg)


def _results(found: list[Finding], settings: Settings, upgraded: int) -> Outcome:
    found = run_policy(found, strict=settings.strict, select=settings.select, ignore=settings.ignore)
    outcome = Outcome(b"", found, upgraded=upgraded)
    outcome.results = krm_results(found)  # the report layer builds every KRM result
    return outcome


def _whole(source: textio.Source, data: bytes, base: Settings) -> Outcome:
    """The ResourceList read as one document: parsed once for the index and the upgrade, once upgraded
    (that parse is kept for the `results` edit) and once after `results` is written."""
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.pipeline import onefile as engine
    from transform.pipeline.batch import Item, RunResult
    from transform.pipeline.outputs import write_plan
    from transform.pipeline.upgrade import Plan, upgrade_items

    chunk, current = krmlist.document(source)
    settings, found = options(current.value.get("functionConfig"), base)
    sink = WholeSink(source, settings, found, current)
    plan = Plan([], RunResult())
    if not any(f.severity is Severity.ERROR for f in found):
        settings = replace(settings, max_document_bytes=max(settings.max_document_bytes, len(data)))
        item = Item(NAME, data)
        if engine.nonfinite(current) is None:  # else the engine reports it
            item.parsed = {(chunk.start, chunk.end): current}  # the index and the upgrade read this parse
        del current  # the sink holds the parse (until it parses the upgraded list)
        plan = upgrade_items([item], settings, RunResult(), jobs=1)
        write_plan(plan, sink, note=False)
    sink.close(plan, plan.run.failed)
    return sink.outcome


if TYPE_CHECKING:  # the sink interface, checked by mypy
    from transform.pipeline.outputs import Sink

    _SINKS: tuple[type[Sink], ...] = (ItemsSink, WholeSink)
