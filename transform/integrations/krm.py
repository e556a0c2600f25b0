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

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from transform.integrations.krmconfig import options
from transform.model.findings import Finding, Severity, error
from transform.model.plain import as_map
from transform.model.settings import Settings
from transform.report.formats import krm_results
from transform.yamltext import textio

if TYPE_CHECKING:
    from transform.integrations.krmitems import Layout

PATH_KEYS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")
INDEX_KEYS = ("internal.config.kubernetes.io/index", "config.kubernetes.io/index")
RESERVED_PREFIXES = ("internal.config.kubernetes.io/", "config.kubernetes.io/", "config.k8s.io/")
NAME = "<ResourceList>"


class KrmError(Exception):
    """The input is not a ResourceList we can process: nothing is written to stdout."""


@dataclass
class Outcome:
    data: bytes  # the ResourceList to print
    findings: list[Finding] = field(default_factory=list)  # located on the items' files
    results: list[dict[str, Any]] = field(default_factory=list)
    upgraded: int = 0

    @property
    def failed(self) -> bool:
        return any(r.get("severity", "error") == "error" for r in self.results)


# --- the ResourceList -----------------------------------------------------------------------


def _document(source: textio.Source) -> tuple[textio.Chunk, Any]:
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.yamltext import nodes as yamlnodes

    chunks = _chunks(source.text)
    if len(chunks) != 1:
        raise KrmError(f"expected one ResourceList document on stdin, got {len(chunks)} documents")
    chunk = chunks[0]
    try:
        doc = yamlnodes.parse(source.text[chunk.start : chunk.end])
    except yamlnodes.ParseError as exc:
        raise KrmError(f"stdin is not valid YAML or JSON: line {exc.line}: {exc.message}") from None
    value = doc.value if doc else None
    if not isinstance(value, dict) or value.get("kind") != "ResourceList":
        raise KrmError("stdin is not a ResourceList (kind: ResourceList, apiVersion: config.kubernetes.io/v1)")
    if value.get("items") is not None and not isinstance(value.get("items"), list):
        raise KrmError("ResourceList.items must be a list")
    return chunk, doc


def _chunks(text: str) -> list[textio.Chunk]:
    """The documents of a stream that have content (a ResourceList has one)."""
    return [c for c in textio.split_documents(text) if textio.has_content(text[c.start : c.end])]


def _items(value: dict[str, Any]) -> list[Any]:
    items = value.get("items")
    return items if isinstance(items, list) else []


def _annotations(item: Any) -> dict[str, Any]:
    meta = item.get("metadata") if isinstance(item, dict) else None
    ann = meta.get("annotations") if isinstance(meta, dict) else None
    return ann if isinstance(ann, dict) else {}


def _reserved(item: Any) -> dict[str, Any]:
    return {k: v for k, v in _annotations(item).items() if str(k).startswith(RESERVED_PREFIXES)}


def item_file(item: Any) -> tuple[str, int | None]:
    """The file an item came from, by the orchestrator's annotations (new spelling first)."""
    ann = _annotations(item)
    path = next((str(ann[k]) for k in PATH_KEYS if ann.get(k) not in (None, "")), "")
    index: int | None = None
    for k in INDEX_KEYS:
        if k not in ann:  # (most items lack one spelling: no exception for it)
            continue
        try:
            index = int(str(ann[k]))
            break
        except ValueError:
            continue
    return path, index


def _resource(item: Any) -> dict[str, Any]:
    meta = as_map(as_map(item).get("metadata"))
    get = item.get if isinstance(item, dict) else (lambda _k: None)
    return {
        "api_version": get("apiVersion"),
        "kind": get("kind"),
        "name": meta.get("name"),
        "namespace": meta.get("namespace"),
    }


Where = tuple[str, "int | None", dict[str, Any]]  # an item's file, its index there, its resourceRef


def _where(item: Any) -> Where:
    path, index = item_file(item)
    return path, index, _resource(item)


def relocate(f: Finding, items: list[Any]) -> Finding:
    """A finding on `items[i].<path>` of the ResourceList -> on `<path>` of the item's own file."""
    if len(f.path) >= 2 and f.path[0] == "items" and isinstance(f.path[1], int) and f.path[1] < len(items):
        return _at(f.at(path=f.path[2:]), _where(items[f.path[1]]))
    return _at(f, None)


def _at(f: Finding, where: Where | None) -> Finding:
    """A finding on an item (`where`) -> on the item's own file; on the ResourceList -> on no file."""
    if where is None:
        return f.at(file="", line=0, column=0, doc=None)
    path, index, resource = where
    return f.at(
        file=path,
        doc=index if index is not None else (0 if path else None),
        line=0,
        column=0,
        extra={**f.extra, **resource},
    )


# --- results -----------------------------------------------------------------------------------


# kyaml (kpt, kustomize's KRM runner) copies comments from each input item to the output item
# with the same id, walking both trees together: a scalar that became a mapping (a v1alpha1 base64
# wrapper becoming the v1beta1 object) fails with "wrong node kind: expected ScalarNode but got
# MappingNode" and nothing is written. Without its id the item is taken as a new resource, written
# at its path/index annotations as is (we keep its comments ourselves).
ID_KEYS = (
    "config.k8s.io/id",
    "internal.config.kubernetes.io/id",
    "internal.config.kubernetes.io/annotations-migration-resource-id",
)


def reshaped(before: Any, after: Any) -> bool:
    """Whether a scalar or a list became a mapping (or back) anywhere between two values."""
    if isinstance(before, dict) and isinstance(after, dict):
        return any(reshaped(before[k], after[k]) for k in before.keys() & after.keys())
    if isinstance(before, list) and isinstance(after, list):
        return any(reshaped(a, b) for a, b in zip(before, after, strict=False))
    kinds = (dict, list)
    return (
        any(isinstance(before, k) != isinstance(after, k) for k in kinds) and before is not None and after is not None
    )


def _without_ids(item: Any) -> Any:
    ann = _annotations(item)
    if not any(k in ann for k in ID_KEYS):
        return item
    item = dict(item)
    meta = dict(item["metadata"])
    meta["annotations"] = {k: v for k, v in ann.items() if k not in ID_KEYS}
    item["metadata"] = meta
    return item


def _with_results(
    source: textio.Source,
    text: str,
    results: list[dict[str, Any]],
    drop_ids: AbstractSet[int] = frozenset(),
    parsed: Any = None,
    style: Any = None,
) -> tuple[str, Any]:
    """`text` with the top-level `results` set to `results` (removed when empty), and the id
    annotations of the items `drop_ids` removed, as minimal edits, and the value it must read back as
    (None: `text` unchanged). `parsed`: the ResourceList document of `text`, when the caller has it;
    `style`: the style to write in (by default, the one `text` shows)."""
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.yamltext import edits, emit
    from transform.yamltext import nodes as yamlnodes

    chunk = _chunks(text)[0]
    body = text[chunk.start : chunk.end]
    doc = parsed if parsed is not None else yamlnodes.parse(body)
    if doc is None or not isinstance(doc.value, dict):
        raise KrmError("the upgraded ResourceList does not parse (please report this)")
    new = dict(doc.value)
    new.pop("results", None)
    if results:
        new["results"] = results
    if drop_ids:
        new["items"] = [_without_ids(it) if i in drop_ids else it for i, it in enumerate(_items(new))]
    if edits.same(new, doc.value):
        return text, None
    try:
        root = doc.root  # composed here for a JSON ResourceList read by the json module
    except yamlnodes.ParseError as exc:  # JSON that YAML does not read: `"key"\r:` (JSON whitespace)
        raise KrmError(
            f"stdin is JSON that YAML does not read (line {exc.line}: {exc.message}), so the results cannot"
            " be written into it: remove the line breaks between keys and their ':'"
        ) from None
    style = style or emit.detect_style(body, root, source.newline)
    out = edits.apply(body, edits.plan(body, root, doc.value, new, style))
    return text[: chunk.start] + out + text[chunk.end :], new


def _check(text: str, expected: Any) -> None:
    """The written ResourceList reads back as intended (the only whole tree alive: the caller's are gone)."""
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.yamltext import edits
    from transform.yamltext import nodes as yamlnodes

    chunk = _chunks(text)[0]
    check = yamlnodes.parse(text[chunk.start : chunk.end])
    if check is None or not edits.same(check.value, expected):
        raise KrmError("could not write results into the ResourceList (please report this)")


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
        seen: dict[int, tuple[Where, Where]] = {}
        moved: list[str] = []

        def adjust(pd: engine.ParsedDoc, new: Any) -> Any:
            old = pd.doc.value if pd.doc is not None else None
            where = _where(old)
            seen[pd.index] = (where, where if new is old else _where(new))
            if new is not old and _reserved(old) != _reserved(new):
                moved.append(f"items[{pd.index}]")
            elif new is not old and any(k in _annotations(old) for k in ID_KEYS) and reshaped(old, new):
                return _without_ids(new)
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
        found += [_at(f, seen[f.doc][after] if f.doc in seen else None) for f in result.findings]
    outcome = _results(found, settings, upgraded)
    style = krmitems.style(lay, top, source.newline)
    try:
        skeleton, expected = _with_results(source, lay.skeleton, outcome.results, parsed=top, style=style)
        if expected is not None:
            ok = krmitems.reads_back(skeleton, expected, source.newline)
            if ok is None:
                _check(skeleton, expected)
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
    if settings.strict:
        found = [f.at(severity=Severity.ERROR) if f.severity is Severity.WARNING else f for f in found]
    outcome = Outcome(b"", found, upgraded=upgraded)
    outcome.results = krm_results(found)  # the report layer builds every KRM result
    return outcome


def _whole(source: textio.Source, data: bytes, base: Settings) -> Outcome:
    """The ResourceList read as one document: parsed once for the index and the upgrade, once upgraded
    (that parse is kept for the `results` edit) and once after `results` is written."""
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.pipeline import onefile as engine
    from transform.pipeline.batch import Item, build_index
    from transform.yamltext import nodes as yamlnodes

    chunk, current = _document(source)  # `current`: the parsed document of `text`, while there is one
    items_before = _items(current.value)
    settings, found = options(current.value.get("functionConfig"), base)
    text = source.text
    upgraded = 0
    drop_ids: set[int] = set()
    if not any(f.severity is Severity.ERROR for f in found):
        settings = replace(settings, max_document_bytes=max(settings.max_document_bytes, len(data)))
        item = Item(NAME, data)
        if engine.nonfinite(current) is None:  # else the engine reports it
            item.parsed = {(chunk.start, chunk.end): current}  # the index and the upgrade read this parse
        index = build_index([item], settings)
        result = engine.upgrade_file(NAME, data, settings, index, item.parsed)
        del item
        items_after = items_before
        if result.new_text is not None and result.changed and not result.failed:
            current = None
            new_chunk = _chunks(result.new_text)[0]
            after = yamlnodes.parse(result.new_text[new_chunk.start : new_chunk.end])
            items_after = _items(after.value) if after and isinstance(after.value, dict) else []
            moved = _moved_annotations(items_before, items_after)
            if moved:
                items_after = items_before
                found.append(_moved(moved))
            else:
                text, upgraded, current = result.new_text, result.upgraded, after
                drop_ids = {i for i, (a, b) in enumerate(zip(items_before, items_after, strict=True)) if reshaped(a, b)}
            del after
        found += [relocate(f, items_after) for f in result.findings]
    outcome = _results(found, settings, upgraded)
    text, expected = _with_results(source, text, outcome.results, drop_ids, current)
    current = None
    if expected is not None:
        _check(text, expected)
    outcome.data = source.encode(text)
    return outcome


def _moved_annotations(before: list[Any], after: list[Any]) -> str:
    if len(before) != len(after):
        return f"{len(before)} items became {len(after)}"
    for i, (a, b) in enumerate(zip(before, after, strict=True)):
        if _reserved(a) != _reserved(b):
            return f"items[{i}]"
    return ""
