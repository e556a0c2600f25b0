"""Helpers for plain (JSON-shaped) documents, which may hold anything where a mapping is expected."""

from __future__ import annotations

from collections.abc import Iterator
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


def leaves(value: Any) -> Iterator[Any]:
    """Every scalar of a JSON-shaped value (mapping values and list items, depth first, no recursion)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        else:
            yield v


def first_unrepresentable(value: Any, max_depth: int | None = None) -> tuple[Any, ...] | None:
    """The path of the first value JSON cannot carry (NaN, infinity) or, with `max_depth`, of the first
    container nested deeper than that; None when there is none. Iterative: any depth is safe to ask.
    Depth first, last entry first; memory grows with the depth only (a list of 300,000 entries is not
    copied into a stack of paths)."""

    limit = MAX_DEPTH if max_depth is None else max_depth
    if _bad_float(value):
        return ()
    if not isinstance(value, (dict, list)):
        return None
    if limit <= 0:
        return ()
    stack: list[tuple[Any, tuple[Any, ...]]] = [(_backwards(value), ())]
    while stack:
        entries, path = stack[-1]
        for k, x in entries:
            if isinstance(x, float):
                if _bad_float(x):
                    return (*path, k)
            elif isinstance(x, (dict, list)):
                inner = (*path, k)
                if len(inner) >= limit:
                    return inner
                stack.append((_backwards(x), inner))
                break
        else:
            stack.pop()
    return None


def _bad_float(v: Any) -> bool:
    return isinstance(v, float) and (v != v or v in (float("inf"), float("-inf")))


def _backwards(v: dict[Any, Any] | list[Any]) -> Iterator[tuple[Any, Any]]:
    """A container's (key, value) entries, last first."""
    if isinstance(v, dict):
        return reversed(v.items())
    return zip(range(len(v) - 1, -1, -1), reversed(v), strict=True)


def _repeated(keys: Iterator[str]) -> str:
    seen: set[str] = set()
    for k in keys:
        if k in seen:
            return k
        seen.add(k)
    return ""


class PayloadError(ValueError):
    """A decoded payload beyond the limits or with values JSON cannot carry."""


def _no_constant(name: str) -> Any:
    raise PayloadError(f"{name} is not a JSON number (Go's encoding/json refuses it)")


class JSONNumber(float):
    """A JSON number with a fraction or an exponent, with its text: Go's decoders read the text (a Quantity
    parses it exactly, an integer field refuses `2.0`), so no float rounding comes between."""

    text: str

    def __new__(cls, text: str) -> JSONNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __repr__(self) -> str:
        return self.text


class NegativeZero(int):
    """The JSON integer `-0`, read exactly: zero to a signed Go integer (strconv.ParseInt takes the sign), refused
    by an unsigned one (strconv.ParseUint permits no sign prefix, so encoding/json's literalStore fails with
    `cannot unmarshal number -0 into ... of type uint32`). Written as 0 (`json.dumps` writes an int's value)."""

    def __new__(cls) -> NegativeZero:
        return super().__new__(cls, 0)

    def __repr__(self) -> str:
        return "-0"


def _exact_int(text: str) -> int:
    return NegativeZero() if text == "-0" else int(text)


def loads_json(data: str | bytes, unique_keys: bool = False, exact: bool = False) -> Any:
    """json.loads for payloads decoded out of a document (base64 wrappers), with the document limits:
    nesting at most MAX_DEPTH, no NaN or infinity. Raises ValueError (PayloadError for a limit);
    with `unique_keys`, a ValueError for a key written twice in an object, as sigs.k8s.io/json's strict
    decoding refuses it (after the limits), in the same single reading; with `exact`, a number with a
    fraction or exponent is a `JSONNumber` (integers are exact anyway, `-0` a `NegativeZero`)."""
    import json

    duplicates: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(items)
        if len(out) < len(items) and not duplicates:
            duplicates.append(_repeated(k for k, _ in items))
        return out

    try:
        value = json.loads(
            data,
            parse_constant=_no_constant,
            object_pairs_hook=pairs if unique_keys else None,
            parse_float=JSONNumber if exact else None,
            parse_int=_exact_int if exact else None,
        )
    except RecursionError:
        raise PayloadError(f"nesting deeper than {MAX_DEPTH} levels") from None
    bad = first_unrepresentable(value)
    if bad is not None:
        deep = f"nesting deeper than {MAX_DEPTH} levels"
        what = "not a finite number" if isinstance(get(value, bad), float) else deep
        raise PayloadError(f"{what} at {'.'.join(map(str, bad)) or 'the top'}")
    if duplicates:
        raise ValueError(f'duplicate field "{duplicates[0]}"')
    return value


_LEAVES = frozenset((str, int, float, bool, type(None)))


def same(a: Any, b: Any) -> bool:
    """Equality that tells 1, 1.0 and True apart, as JSON does."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and _same_all(a.values(), (b[k] for k in a))
    if isinstance(a, list):
        return len(a) == len(b) and _same_all(a, b)
    return bool(a == b)


def _same_all(xs: Any, ys: Any) -> bool:
    """`same` of each pair, comparing scalars here (most values are: a call each was half the time)."""
    for x, y in zip(xs, ys, strict=False):
        t = type(x)
        if t is not type(y) or not (x == y if t in _LEAVES else same(x, y)):
            return False
    return True
