"""Helpers for plain (JSON-shaped) documents, which may hold anything where a mapping is expected."""

from __future__ import annotations

from typing import Any

from transform.model.limits import MAX_DEPTH


def as_map(value: Any) -> dict[str, Any]:
    """`value` when it is a mapping, else an empty one: malformed input never raises here."""
    return value if isinstance(value, dict) else {}


def get(doc: Any, path: tuple[Any, ...]) -> Any:
    """The value at `path` (keys and list indexes), or None where the path does not exist."""
    for part in path:
        if isinstance(doc, dict):
            doc = doc.get(part)
        elif isinstance(doc, list) and isinstance(part, int) and 0 <= part < len(doc):
            doc = doc[part]
        else:
            return None
    return doc


def first_unrepresentable(value: Any, max_depth: int | None = None) -> tuple[Any, ...] | None:
    """The path of the first value JSON cannot carry (NaN, infinity) or, with `max_depth`, of the first
    container nested deeper than that; None when there is none. Iterative: any depth is safe to ask."""

    limit = MAX_DEPTH if max_depth is None else max_depth
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        v, path = stack.pop()
        if isinstance(v, float):
            if v != v or v in (float("inf"), float("-inf")):
                return path
        elif isinstance(v, (dict, list)):
            if len(path) >= limit:
                return path
            items = v.items() if isinstance(v, dict) else enumerate(v)
            stack.extend((x, (*path, k)) for k, x in items if isinstance(x, (dict, list, float)))
    return None


class PayloadError(ValueError):
    """A decoded payload beyond the limits or with values JSON cannot carry."""


def _no_constant(name: str) -> Any:
    raise PayloadError(f"{name} is not a JSON number (Go's encoding/json refuses it)")


def loads_json(data: str | bytes) -> Any:
    """json.loads for payloads decoded out of a document (base64 wrappers), with the document limits:
    nesting at most MAX_DEPTH, no NaN or infinity. Raises ValueError (PayloadError for a limit)."""
    import json

    try:
        value = json.loads(data, parse_constant=_no_constant)
    except RecursionError:
        raise PayloadError(f"nesting deeper than {MAX_DEPTH} levels") from None
    bad = first_unrepresentable(value)
    if bad is not None:
        deep = f"nesting deeper than {MAX_DEPTH} levels"
        what = "not a finite number" if isinstance(get(value, bad), float) else deep
        raise PayloadError(f"{what} at {'.'.join(map(str, bad)) or 'the top'}")
    return value
