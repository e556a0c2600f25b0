"""Helpers for plain (JSON-shaped) documents, which may hold anything where a mapping is expected."""

from __future__ import annotations

from typing import Any


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
