"""The KRM function: a ResourceList in, the same ResourceList with upgraded items and `results` out.

The ResourceList is one YAML (or JSON) document whose kind ends in "List", so the engine
already upgrades its `items` in place as text edits: comments, quoting, key order and every
annotation of the orchestrator (`internal.config.kubernetes.io/*`, legacy
`config.kubernetes.io/path|index`) stay byte-for-byte. This module only reads the options from
`functionConfig`, re-locates findings on the items' own files (their path/index annotations),
checks that no orchestrator annotation moved, and writes the top-level `results` key (replacing
one that is there) with the same minimal-edit planner. Pure: bytes in, bytes and results out.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import Any

from transform.model.findings import Finding, Severity, error, info, warning
from transform.model.plain import as_map
from transform.model.settings import Settings
from transform.report.formats import krm_results
from transform.yamltext import textio

PATH_KEYS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")
INDEX_KEYS = ("internal.config.kubernetes.io/index", "config.kubernetes.io/index")
RESERVED_PREFIXES = ("internal.config.kubernetes.io/", "config.kubernetes.io/", "config.k8s.io/")
BOOL_OPTIONS = {
    "rename": "rename",
    "strict": "strict",
    "modernize": "modernize",
    "modernize-revisions": "modernize_revisions",
    "drop-server-fields": "drop_server_fields",
}
OPTION_KEYS = (*BOOL_OPTIONS, "target-kubevirt", "target-cdi")
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


# --- options ---------------------------------------------------------------------------------


def _bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    s = str(value).strip().lower()
    if s in ("true", "yes", "on", "1"):
        return True
    if s in ("false", "no", "off", "0", ""):
        return False
    return None


def options(function_config: Any, base: Settings) -> tuple[Settings, list[Finding]]:
    """Settings from a ConfigMap's `data` (kpt `key=value` args) or a custom kind's `spec`."""
    if not isinstance(function_config, dict) or not function_config:
        return base, []
    if function_config.get("kind") == "ConfigMap":
        conf, where = function_config.get("data"), "data"
    else:
        conf, where = function_config.get("spec"), "spec"
    if conf is None:
        return base, []
    if not isinstance(conf, dict):
        return base, [error("krm.config", f"functionConfig.{where} must be a mapping", ("functionConfig", where))]
    found: list[Finding] = []
    values: dict[str, Any] = {}
    for key, value in conf.items():
        path = ("functionConfig", where, key)
        if key in BOOL_OPTIONS:
            b = _bool(value)
            if b is None:
                found.append(error("krm.config", f'{key}: expected "true" or "false", got {value!r}', path))
            else:
                values[BOOL_OPTIONS[key]] = b
        elif key == "target-kubevirt":
            # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
            from transform.kubevirt import releases

            try:
                values["target"], note = releases.parse_target(str(value))
            except ValueError as exc:
                found.append(error("krm.config", f"{key}: {exc}", path))
            else:
                if note:
                    found.append(info("krm.config", note, path))
        elif key == "target-cdi":
            # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
            from transform.kubevirt import apis

            try:
                values["target_cdi"] = apis.parse_cdi(str(value))
            except ValueError as exc:
                found.append(error("krm.config", f"{key}: {exc}", path))
        else:
            found.append(
                warning("krm.config", f"unknown option {key!r} ignored (known: {', '.join(OPTION_KEYS)})", path)
            )
    return replace(base, **values), found


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
        try:
            index = int(str(ann[k]))
            break
        except (KeyError, ValueError):
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


def relocate(f: Finding, items: list[Any]) -> Finding:
    """A finding on `items[i].<path>` of the ResourceList -> on `<path>` of the item's own file."""
    if len(f.path) >= 2 and f.path[0] == "items" and isinstance(f.path[1], int) and f.path[1] < len(items):
        item = items[f.path[1]]
        path, index = item_file(item)
        return f.at(
            file=path,
            doc=index if index is not None else (0 if path else None),
            line=0,
            column=0,
            path=f.path[2:],
            extra={**f.extra, **_resource(item)},
        )
    return f.at(file="", line=0, column=0, doc=None)


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
) -> tuple[str, Any]:
    """`text` with the top-level `results` set to `results` (removed when empty), and the id
    annotations of the items `drop_ids` removed, as minimal edits, and the value it must read back as
    (None: `text` unchanged). `parsed`: the ResourceList document of `text`, when the caller has it."""
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
    style = emit.detect_style(body, doc.root, source.newline)
    out = edits.apply(body, edits.plan(body, doc.root, doc.value, new, style))
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
    """The ResourceList is parsed once for the index and the upgrade, once upgraded (that parse is
    kept for the `results` edit) and once after `results` is written (tests/pipeline/test_scale.py);
    one node tree is alive at a time."""
    # lazy: start-up: the parsing stack only when the ResourceList holds a candidate
    from transform.pipeline import onefile as engine
    from transform.pipeline.batch import Item, build_index
    from transform.yamltext import nodes as yamlnodes

    base = base or Settings()
    try:
        source = textio.decode(data)
    except textio.ReadError as exc:
        raise KrmError(str(exc)) from None
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
                found.append(
                    error(
                        "internal.krm",
                        f"an orchestrator annotation would change ({moved}); "
                        "ResourceList left unchanged (please report this)",
                    )
                )
            else:
                text, upgraded, current = result.new_text, result.upgraded, after
                drop_ids = {i for i, (a, b) in enumerate(zip(items_before, items_after, strict=True)) if reshaped(a, b)}
            del after
        found += [relocate(f, items_after) for f in result.findings]
    if settings.strict:
        found = [f.at(severity=Severity.ERROR) if f.severity is Severity.WARNING else f for f in found]
    outcome = Outcome(b"", found, upgraded=upgraded)
    outcome.results = krm_results(found)  # the report layer builds every KRM result
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
