"""Integers an instancetype.kubevirt.io object's Go type cannot hold: stored by the API server, unseen by KubeVirt.

The CRD schemas of instance types and preferences set no bounds on their integers (`cpu.guest`, `maxSockets`,
`spinlocks`, ...), so the API server stores `cpu.guest: 4294967296` or `-1`; KubeVirt's informers decode the
object into its Go types with encoding/json, which refuses a number outside the field's type
(`json: cannot unmarshal number 4294967296 into Go struct field CPUInstancetype.spec.cpu.guest of type
uint32`): the object is invisible to KubeVirt, and a VM naming it cannot start. Each such value is a finding
naming the field, the value and the Go type, taken from the generated table of KubeVirt's types
(transform.kubevirt.gojson), whatever else the object has wrong.
"""

from __future__ import annotations

import re
from typing import Any

from transform.kubevirt import gojson
from transform.model import plain
from transform.model.findings import Finding, error

CODE = "decoder.go-range"  # (registered in model/codes.py)
_INTEGER = re.compile(r"cannot unmarshal number (-?[0-9]+) into Go struct field \S+ of type (u?int(?:8|16|32|64)?)$")
_MAX_PROBLEMS = 16  # one decode per problem found: a bound on the work a hostile object can ask for


def go_range(obj: dict[str, Any]) -> list[Finding]:
    """Every integer of `obj` that its version's Go type cannot hold ([] for a kind without a Go type here)."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return []
    type_name = gojson.object_type(api_version.rpartition("/")[2], kind)
    if type_name is None or not api_version.startswith("instancetype.kubevirt.io/") or _small(obj):
        return []
    out: list[Finding] = []
    value: Any = obj
    for _ in range(_MAX_PROBLEMS):
        try:
            gojson.reencode(value, type_name, sent=True)
            break
        except gojson.GoJSONError as exc:
            m = _INTEGER.search(exc.go)
            if m is not None:
                out.append(_finding(exc, m.group(1), m.group(2)))
            value = _cleared(value, exc.path)  # Go's decoder goes on after a type error: so do we
            if value is None:
                break
    return out


_SMALL = 1 << 8  # every integer in [0, 256) fits every Go integer type (the narrowest: uint8)


def _small(value: Any) -> bool:
    """Does every number of `value` fit every Go integer type (no float: a whole one is sent as an integer)?
    Then no field can be out of its type's range and the Go decode is not needed."""
    return not any(
        isinstance(v, float) or (isinstance(v, int) and not isinstance(v, bool) and not 0 <= v < _SMALL)
        for v in plain.leaves(value)
    )


def _finding(exc: gojson.GoJSONError, number: str, go_type: str) -> Finding:
    low, high = gojson.int_range(go_type)
    return error(
        CODE,
        f"{number} does not fit this field's Go type, {go_type}: the API server stores the object (its schema sets "
        f"no bound), but KubeVirt's decoder refuses it ({exc.go}), so KubeVirt cannot see the object and a VM "
        f"using it cannot start; write a whole number from {low} to {high}",
        exc.path,
    )


def _cleared(value: Any, path: tuple[Any, ...]) -> Any:
    """`value` with the field at `path` removed (copied along the path only); None when there is no such field."""
    if not path:
        return None
    head, rest = path[0], path[1:]
    if isinstance(value, dict) and head in value:
        copy = dict(value)
        if rest:
            inner = _cleared(value[head], rest)
            if inner is None:
                return None
            copy[head] = inner
        else:
            del copy[head]
        return copy
    if isinstance(value, list) and isinstance(head, int) and 0 <= head < len(value):
        items = list(value)
        if rest:
            inner = _cleared(value[head], rest)
            if inner is None:
                return None
            items[head] = inner
        else:
            items[head] = None
        return items
    return None
