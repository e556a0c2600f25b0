"""The ResourceList document of the KRM function (transform.integrations.krm): its items' orchestrator
annotations (file, index, ids), findings moved onto the items' own files, and the top-level `results`
written into it as minimal edits, then read back. Pure: text in, text out.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

from transform.model.findings import Finding
from transform.model.plain import as_map
from transform.yamltext import textio

PATH_KEYS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")
INDEX_KEYS = ("internal.config.kubernetes.io/index", "config.kubernetes.io/index")
RESERVED_PREFIXES = ("internal.config.kubernetes.io/", "config.kubernetes.io/", "config.k8s.io/")


class KrmError(Exception):
    """The input is not a ResourceList we can process: nothing is written to stdout."""


# --- the ResourceList -----------------------------------------------------------------------


def document(source: textio.Source) -> tuple[textio.Chunk, Any]:
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.yamltext import nodes as yamlnodes

    found = chunks(source.text)
    if len(found) != 1:
        raise KrmError(f"expected one ResourceList document on stdin, got {len(found)} documents")
    chunk = found[0]
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


def chunks(text: str) -> list[textio.Chunk]:
    """The documents of a stream that have content (a ResourceList has one)."""
    return [c for c in textio.split_documents(text) if textio.has_content(text[c.start : c.end])]


def items_of(value: dict[str, Any]) -> list[Any]:
    items = value.get("items")
    return items if isinstance(items, list) else []


def item_annotations(item: Any) -> dict[str, Any]:
    meta = item.get("metadata") if isinstance(item, dict) else None
    ann = meta.get("annotations") if isinstance(meta, dict) else None
    return ann if isinstance(ann, dict) else {}


def reserved(item: Any) -> dict[str, Any]:
    return {k: v for k, v in item_annotations(item).items() if str(k).startswith(RESERVED_PREFIXES)}


def item_file(item: Any) -> tuple[str, int | None]:
    """The file an item came from, by the orchestrator's annotations (new spelling first)."""
    ann = item_annotations(item)
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


def resource(item: Any) -> dict[str, Any]:
    meta = as_map(as_map(item).get("metadata"))
    get = item.get if isinstance(item, dict) else (lambda _k: None)
    return {
        "api_version": get("apiVersion"),
        "kind": get("kind"),
        "name": meta.get("name"),
        "namespace": meta.get("namespace"),
    }


Where = tuple[str, "int | None", dict[str, Any]]  # an item's file, its index there, its resourceRef


def item_where(item: Any) -> Where:
    path, index = item_file(item)
    return path, index, resource(item)


def relocate(f: Finding, items: list[Any]) -> Finding:
    """A finding on `items[i].<path>` of the ResourceList -> on `<path>` of the item's own file."""
    if len(f.path) >= 2 and f.path[0] == "items" and isinstance(f.path[1], int) and f.path[1] < len(items):
        return at_item(f.at(path=f.path[2:]), item_where(items[f.path[1]]))
    return at_item(f, None)


def at_item(f: Finding, where: Where | None) -> Finding:
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


def has_ids(item: Any) -> bool:
    """Does the item carry one of the orchestrator's id annotations?"""
    return any(k in item_annotations(item) for k in ID_KEYS)


def without_ids(item: Any) -> Any:
    ann = item_annotations(item)
    if not any(k in ann for k in ID_KEYS):
        return item
    item = dict(item)
    meta = dict(item["metadata"])
    meta["annotations"] = {k: v for k, v in ann.items() if k not in ID_KEYS}
    item["metadata"] = meta
    return item


def with_results(
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

    chunk = chunks(text)[0]
    body = text[chunk.start : chunk.end]
    doc = parsed if parsed is not None else yamlnodes.parse(body)
    if doc is None or not isinstance(doc.value, dict):
        raise KrmError("the upgraded ResourceList does not parse (please report this)")
    new = dict(doc.value)
    new.pop("results", None)
    if results:
        new["results"] = results
    if drop_ids:
        new["items"] = [without_ids(it) if i in drop_ids else it for i, it in enumerate(items_of(new))]
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


def check_written(text: str, expected: Any) -> None:
    """The written ResourceList reads back as intended (the only whole tree alive: the caller's are gone)."""
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.yamltext import edits
    from transform.yamltext import nodes as yamlnodes

    chunk = chunks(text)[0]
    check = yamlnodes.parse(text[chunk.start : chunk.end])
    if check is None or not edits.same(check.value, expected):
        raise KrmError("could not write results into the ResourceList (please report this)")


def moved_annotations(before: list[Any], after: list[Any]) -> str:
    if len(before) != len(after):
        return f"{len(before)} items became {len(after)}"
    for i, (a, b) in enumerate(zip(before, after, strict=True)):
        if reserved(a) != reserved(b):
            return f"items[{i}]"
    return ""
