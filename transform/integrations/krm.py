"""The KRM function: a ResourceList in, the same ResourceList with upgraded items and `results` out.

The engine upgrades the items in place as text edits: comments, quoting, key order and every
annotation of the orchestrator (`internal.config.kubernetes.io/*`, legacy
`config.kubernetes.io/path|index`) stay byte-for-byte. A block-style list is cut into its items
(`krmitems`), each upgraded as one document of a stream, as `fix -` upgrades documents; any other
(JSON, flow style, aliases) is one document whose kind ends in "List", upgraded whole. This module
only reads the options from `functionConfig` (`krmconfig`), re-locates findings on the items' own
files (their path/index annotations), checks that no orchestrator annotation moved, and writes the
top-level `results` key (replacing one that is there) with the same minimal-edit planner. Pure:
bytes in, bytes and results out.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from transform.integrations import krmlist
from transform.integrations.krmconfig import options
from transform.integrations.krmlist import KrmError, reshaped
from transform.model.findings import Finding, Severity, error
from transform.model.policy import run_policy
from transform.model.settings import Settings
from transform.report.formats import krm_results
from transform.yamltext import textio

if TYPE_CHECKING:
    from transform.integrations.krmitems import Layout

NAME = "<ResourceList>"
__all__ = ["NAME", "KrmError", "Outcome", "process", "reshaped"]


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
    from transform.integrations import krmitems

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
    """The ResourceList upgraded item by item (see `krmitems`), or None: read it whole."""
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.integrations import krmitems
    from transform.pipeline import onefile as engine
    from transform.pipeline.batch import Item, build_index
    from transform.pipeline.parts import MARKER, FileResult, Span, finish
    from transform.yamltext import nodes as yamlnodes

    top = krmitems.skeleton(lay)
    if top is None or not all(map(yamlnodes.well_formed, krmitems.others(lay))):
        return None  # (the engine parses the candidates: `_UNREAD`)
    if not krmitems.proven(lay, source.text):
        return None  # the cut is not the parser's: read the list whole
    settings, found = options(top.value.get("functionConfig"), base)
    text, upgraded = source.text, 0
    if not any(f.severity is Severity.ERROR for f in found):
        settings = replace(settings, max_document_bytes=max(settings.max_document_bytes, len(data)))
        spaced = textio.Source(lay.spaced, source.bom, source.newline)
        span = Span(lay.spans, 0, len(lay.spans), 0, textio.count_lines(lay.spaced, 0, lay.seq[0]))
        item = Item(NAME, data)
        index = build_index([item], settings, reader=lambda _wanted: krmitems.index(item, settings, spaced, span))
        seen: dict[int, tuple[krmlist.Where, krmlist.Where]] = {}
        moved: list[str] = []

        def adjust(pd: engine.ParsedDoc, new: Any) -> Any:
            old = pd.doc.value if pd.doc is not None else None
            where = krmlist.item_where(old)
            seen[pd.index] = (where, where if new is old else krmlist.item_where(new))
            if new is not old and krmlist.reserved(old) != krmlist.reserved(new):
                moved.append(f"items[{pd.index}]")
            elif new is not old and krmlist.has_ids(old) and reshaped(old, new):
                return krmlist.without_ids(new)
            return new

        part = engine.upgrade_documents(NAME, spaced, settings, index, item.parsed, span, adjust)
        del item
        pieces = [(a, b, krmitems.restore(lay, body)) for a, b, body in part.pieces]
        if any(f.code in _UNREAD for f in part.findings) or any(body is None for _, _, body in pieces):
            return None
        part.pieces = [(a, b, body) for a, b, body in pieces if body is not None]
        krmitems.as_one_document(part)
        if settings.inline_ignores and MARKER in lay.spaced:
            # the items' own directives: each item is a document here (the list's text has one document)
            from transform.yamltext import ignores  # lazy: only a list that holds a directive

            part.findings, _suppressed = ignores.apply(lay.spaced, part.findings, NAME, lay.spans)
        result = finish(FileResult(NAME, source), [part], replace(settings, inline_ignores=False))
        after = result.changed and not result.failed
        if after and moved:
            found.append(_moved(moved[0]))
            after = False
        elif after and result.new_text is not None:
            text, upgraded = result.new_text, result.upgraded
        found += [krmlist.at_item(f, seen[f.doc][after] if f.doc in seen else None) for f in result.findings]
    outcome = _results(found, settings, upgraded)
    style = krmitems.style(lay, top, source.newline)
    try:
        skeleton, expected = krmlist.with_results(source, lay.skeleton, outcome.results, parsed=top, style=style)
        if expected is not None:
            ok = krmitems.reads_back(skeleton, expected, source.newline)
            if ok is None:
                krmlist.check_written(skeleton, expected)
            elif not ok:
                return None
            spliced = krmitems.splice(lay, skeleton, text)
            if spliced is None:
                return None
            text = spliced
    except KrmError:
        return None
    outcome.data = source.encode(text)
    return outcome


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
    from transform.pipeline.upgrade import upgrade_items
    from transform.yamltext import nodes as yamlnodes

    chunk, current = krmlist.document(source)  # `current`: the parsed document of `text`, while there is one
    items_before = krmlist.items_of(current.value)
    settings, found = options(current.value.get("functionConfig"), base)
    text = source.text
    upgraded = 0
    drop_ids: set[int] = set()
    if not any(f.severity is Severity.ERROR for f in found):
        settings = replace(settings, max_document_bytes=max(settings.max_document_bytes, len(data)))
        item = Item(NAME, data)
        if engine.nonfinite(current) is None:  # else the engine reports it
            item.parsed = {(chunk.start, chunk.end): current}  # the index and the upgrade read this parse
        result = upgrade_items([item], settings, RunResult(), jobs=1).run.results[0]
        del item
        items_after = items_before
        if result.new_text is not None and result.changed and not result.failed:
            current = None
            new_chunk = krmlist.chunks(result.new_text)[0]
            after = yamlnodes.parse(result.new_text[new_chunk.start : new_chunk.end])
            items_after = krmlist.items_of(after.value) if after and isinstance(after.value, dict) else []
            moved = krmlist.moved_annotations(items_before, items_after)
            if moved:
                items_after = items_before
                found.append(_moved(moved))
            else:
                text, upgraded, current = result.new_text, result.upgraded, after
                drop_ids = {i for i, (a, b) in enumerate(zip(items_before, items_after, strict=True)) if reshaped(a, b)}
            del after
        found += [krmlist.relocate(f, items_after) for f in result.findings]
    outcome = _results(found, settings, upgraded)
    text, expected = krmlist.with_results(source, text, outcome.results, drop_ids, current)
    current = None
    if expected is not None:
        krmlist.check_written(text, expected)
    outcome.data = source.encode(text)
    return outcome
