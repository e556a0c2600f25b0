"""Go's encoding/json for KubeVirt's types, on plain data: what KubeVirt reads from a JSON value and
what it writes back.

KubeVirt converts a ControllerRevision payload by decoding it into its Go types and encoding the
result with encoding/json, so the stored payload is a function of those types alone. `reencode`
computes it from the generated table (`gojson_v1_6`, derived from KubeVirt's compiled types by
scripts/gen_gojson.py):

* decoding (apimachinery's case-sensitive decoder): `null` is the zero value; a key the Go type
  does not have is dropped (and returned in `Reencoded.unknown`; an error when `strict`, as
  sigs.k8s.io/json.UnmarshalStrict); a value the Go type cannot hold (a float, negative or too large
  number for a uint32, `-0` too: strconv.ParseUint permits no sign; a string for a bool, a bad quantity
  or time) is a `GoJSONError`;
* encoding: `omitempty` drops `false`, `0`, `""`, empty lists and maps and nil pointers; a pointer
  keeps an explicit `false`/`0`/`""`; a non-pointer struct is always written with its zero fields
  (`guest: 0`, a zero Quantity as `"0"`, a zero metav1.Time as `null`); quantities are written in
  Kubernetes' canonical form and times as UTC RFC 3339 seconds.

Keys keep the input's order; fields Go writes although the input lacked them come after, in Go's
declaration order.
"""

from __future__ import annotations

import datetime
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from typing import Any

from transform.kubevirt import gojson_v1_6 as table
from transform.kubevirt.quantity import QuantityError, decode_quantity
from transform.model.plain import NegativeZero

Path = tuple[Any, ...]
RELEASE = table.RELEASE

_INT_RANGE = {
    "uint8": (0, 2**8 - 1),
    "uint32": (0, 2**32 - 1),
    "uint": (0, 2**64 - 1),
    "uint64": (0, 2**64 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int": (-(2**63), 2**63 - 1),
    "int64": (-(2**63), 2**63 - 1),
}
_ZERO: dict[str, Any] = {"string": "", "bool": False, "quantity": "0", "time": None, **dict.fromkeys(_INT_RANGE, 0)}
_EXPECTED = {
    "string": "a string",
    "bool": "true or false",
    "struct": "a mapping",
    "slice": "a list",
    "map": "a mapping of strings",
    "quantity": "a quantity such as 128Mi or 2",
    "time": "an RFC 3339 time such as 2024-01-02T03:04:05Z",
}
_TIME = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.\d+)?(Z|[+-](\d\d):(\d\d))$")


class GoJSONError(Exception):
    """A value KubeVirt's Go decoder refuses. `path` is relative to the value given to `reencode`."""

    def __init__(self, path: Path, message: str, go: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message
        self.go = go  # Go's own wording, for the curious and for tests


@dataclass
class Reencoded:
    value: Any
    unknown: list[Path] = field(default_factory=list)  # keys dropped because the Go type lacks them
    filled: list[Path] = field(default_factory=list)  # fields written (as zero) although the input lacked them

    def zero_text(self, path: Path) -> str:
        """`guest: 0`: how a filled field is written."""
        value: Any = self.value
        for part in path:
            value = value[part]
        return f"{path[-1]}: {json.dumps(value, separators=(', ', ': '))}"


def reencode(value: Any, type_name: str, *, strict: bool = False, sent: bool | None = None) -> Reencoded:
    """json.Marshal(json.Unmarshal(value, &T)) for the Go struct type `type_name` (a TYPES key).

    `sent` (default: not `strict`): `value` is a document's data, which reaches KubeVirt as kubectl sends it
    (sigs.k8s.io/yaml's JSON): a whole-number float is an integer (`2.0`, `1E1` -> `2`, `10`); an integer is
    exact, whatever its size. Otherwise `value` is JSON text Go reads itself (the v1alpha1 wrapper's base64):
    numbers as written (`plain.loads_json(exact=True)`)."""
    codec = _Codec(strict, not strict if sent is None else sent)
    out = codec.struct(value, type_name, (), ())
    return Reencoded(out, codec.unknown, codec.filled)


def object_type(version: str, kind: str) -> str | None:
    """The Go type of an instancetype.kubevirt.io object (cluster kinds share the namespaced layout)."""
    return table.ROOTS.get(f"{version}.{kind}") or table.ROOTS.get(f"{version}.{kind.replace('Cluster', '', 1)}")


def spec_type(version: str, kind: str) -> str | None:
    obj = object_type(version, kind)
    if obj is None:
        return None
    return next((ref for name, _, _, ref in table.TYPES[obj] if name == "spec"), None)


@dataclass(frozen=True)
class _Field:
    name: str
    omitempty: bool
    pointer: bool
    kind: str
    ref: str
    group: int  # index of the inline pointer struct holding it (-1: none)


@cache
def _fields(type_name: str) -> tuple[tuple[_Field, ...], tuple[tuple[str, ...], ...]]:
    """The fields read and written at this level (inline structs flattened), and for each inline
    pointer struct the names of its fields (Go allocates it when one of them is present)."""
    out: list[_Field] = []
    groups: list[tuple[str, ...]] = []
    for name, flags, kind, ref in table.TYPES[type_name]:
        if "i" in flags:
            inner, _ = _fields(ref)
            group = -1
            if "p" in flags:
                group = len(groups)
                groups.append(tuple(f.name for f in inner))
            out += [_Field(f.name, f.omitempty, f.pointer, f.kind, f.ref, group) for f in inner]
        else:
            out.append(_Field(name, "o" in flags, "p" in flags, kind, ref, -1))
    return tuple(out), tuple(groups)


@cache
def _layout(type_name: str) -> tuple[tuple[_Field, ...], tuple[tuple[str, ...], ...], dict[str, _Field], str]:
    """`_fields`, the fields by name and the struct's short Go name: once per type, not per value."""
    fields, groups = _fields(type_name)
    return fields, groups, {f.name: f for f in fields}, _go_type("struct", type_name).split(".")[-1]


def preload() -> None:
    """Every type's `_layout` now (under a millisecond), for a run about to fork workers."""
    for type_name in table.TYPES:
        _layout(type_name)


def _go_type(kind: str, ref: str) -> str:
    def short(name: str) -> str:
        return name.rsplit("/", 1)[-1]

    if kind == "struct":
        return short(ref)
    if kind == "slice":
        return "[]" + (short(ref) if ref in table.TYPES else ref)
    if kind == "map":
        return f"map[string]{ref}"
    return {"quantity": "resource.Quantity", "time": "v1.Time"}.get(kind, kind)


def _json_type(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return f'"{v}"' if len(v) <= 40 else f'a string "{v[:37]}..."'
    return "a list" if isinstance(v, list) else "a mapping"


class _Codec:
    def __init__(self, strict: bool, sent: bool) -> None:
        self.strict = strict
        self.sent = sent
        self.unknown: list[Path] = []
        self.filled: list[Path] = []

    def fail(self, v: Any, kind: str, ref: str, path: Path, struct: Path, detail: str = "") -> GoJSONError:
        go_type = _go_type(kind, ref)
        shown = f"number {v!r}" if _json_type(v) == "number" and kind in _INT_RANGE else _json_type(v)
        where = ".".join(str(p) for p in path if not isinstance(p, int))
        go = f"json: cannot unmarshal {shown} into Go struct field {'.'.join(struct[-1:])}.{where} of type {go_type}"
        if kind in _INT_RANGE:
            low, high = _INT_RANGE[kind]
            expected = f"a whole number from {low} to {high}"
        else:
            expected = _EXPECTED.get(kind, go_type)
        message = f"expected {expected} (Go {go_type}), got {_show(v)}{detail}"
        return GoJSONError(path, message, go)

    def struct(self, value: Any, type_name: str, path: Path, struct: Path, record: bool = True) -> dict[str, Any]:
        if value is None:
            value = {}
        if not isinstance(value, dict):
            raise self.fail(value, "struct", type_name, path, struct)
        fields, groups, by_name, short = _layout(type_name)
        here = (*struct, short)
        for key in value:
            if key not in by_name:
                if self.strict:
                    raise GoJSONError((*path, key), f'unknown field "{key}"', f'json: unknown field "{key}"')
                self.unknown.append((*path, key))
        allocated = [any(n in value for n in names) for names in groups] if groups else []
        written: dict[str, Any] = {}
        for f in fields:
            if f.group >= 0 and not allocated[f.group]:
                continue  # a nil embedded pointer: none of its fields are written
            present = f.name in value and value[f.name] is not None
            if not present:
                if f.pointer or f.kind in ("slice", "map", "raw"):
                    if not f.omitempty:
                        written[f.name] = None
                elif f.kind == "struct":
                    written[f.name] = self.struct({}, f.ref, (*path, f.name), here, record=False)
                elif not f.omitempty or f.kind in ("quantity", "time"):
                    written[f.name] = _ZERO[f.kind]
                if record and f.name in written and not f.omitempty:
                    self.filled.append((*path, f.name))
                continue
            out = self.value(value[f.name], f.kind, f.ref, (*path, f.name), here)
            if f.omitempty and not f.pointer and _empty(out, f.kind):
                continue
            written[f.name] = out
        order = [k for k in value if k in written] + [k for k in written if k not in value]
        return {k: written[k] for k in order}

    def value(self, v: Any, kind: str, ref: str, path: Path, struct: Path) -> Any:
        if kind == "struct":
            return self.struct(v, ref, path, struct)
        if kind == "string":
            if not isinstance(v, str):
                raise self.fail(v, kind, ref, path, struct)
            return v
        if kind == "bool":
            if not isinstance(v, bool):
                raise self.fail(v, kind, ref, path, struct)
            return v
        if kind in _INT_RANGE:
            low, high = _INT_RANGE[kind]
            if self.sent:
                v = as_sent(v)
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                raise self.fail(v, kind, ref, path, struct)
            if isinstance(v, NegativeZero):  # `-0` as Go reads the text: strconv.ParseUint permits no sign
                if low == 0:
                    raise self.fail(v, kind, ref, path, struct, " (an unsigned integer takes no sign)")
                return 0
            return v
        if kind == "quantity":
            if isinstance(v, bool) or not isinstance(v, (str, int, float)):
                raise self.fail(v, kind, ref, path, struct)
            try:
                return decode_quantity(v).string()  # UnmarshalJSON trims spaces, then ParseQuantity
            except QuantityError as exc:
                raise self.fail(v, kind, ref, path, struct, f" ({exc})") from None
        if kind == "time":
            return self.time(v, path, struct)
        if kind == "raw":
            return _copy(v)
        if kind == "slice":
            if ref == "uint8":  # []byte: base64 text
                if not isinstance(v, str):
                    raise self.fail(v, "string", "", path, struct)
                return v
            if not isinstance(v, list):
                raise self.fail(v, kind, ref, path, struct)
            return [self.elem(x, ref, (*path, i), struct) for i, x in enumerate(v)]
        if kind == "map":
            if not isinstance(v, dict):
                raise self.fail(v, kind, ref, path, struct)
            return {_key(k): self.elem(x, ref, (*path, k), struct) for k, x in v.items()}
        raise AssertionError(f"unknown Go kind {kind!r}")  # pragma: no cover - the table test guards this

    def elem(self, v: Any, ref: str, path: Path, struct: Path) -> Any:
        if ref in table.TYPES:
            return self.struct(v, ref, path, struct)
        if v is None:
            return _ZERO[ref]  # null into a string element: the zero value
        return self.value(v, ref, "", path, struct)

    def time(self, v: Any, path: Path, struct: Path) -> Any:
        m = _TIME.match(v) if isinstance(v, str) else None
        try:
            if m is None:
                raise ValueError
            y, mo, d, h, mi, s = (int(m.group(i)) for i in range(1, 7))
            if m.group(7) == "Z":
                tz = datetime.timezone.utc
            else:
                oh, om = int(m.group(8)), int(m.group(9))
                if oh > 23 or om > 59:
                    raise ValueError
                sign = -1 if m.group(7)[0] == "-" else 1
                tz = datetime.timezone(sign * datetime.timedelta(hours=oh, minutes=om))
            t = datetime.datetime(y, mo, d, h, mi, s, tzinfo=tz).astimezone(datetime.timezone.utc)
        except (ValueError, OverflowError):
            raise self.fail(v, "time", "", path, struct) from None
        return f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}Z"


def int_range(go_type: str) -> tuple[int, int]:
    """The values a Go integer type holds (`uint32`: 0 to 4294967295)."""
    return _INT_RANGE[go_type]


def as_sent(v: Any) -> Any:
    """A number as it reaches KubeVirt from a document's data (sigs.k8s.io/yaml's JSON, kept as bytes in the
    ControllerRevision's RawExtension): a whole float below 1e21 is the integer encoding/json writes for it
    (`2.0` -> 2, `1E1` -> 10; a YAML integer beyond uint64, which go-yaml has made a float64, the integer its
    float64 is written as); an integer stays exactly what it is, whatever its size (never through a float).
    Anything else is returned as it is."""
    if isinstance(v, bool) or not isinstance(v, float):
        return v
    if v.is_integer() and abs(v) < 1e21:  # encoding/json writes it without a fraction or exponent
        return int(Decimal(repr(v)))  # its shortest digits, as Go writes them
    return v


def _empty(v: Any, kind: str) -> bool:
    if kind in ("slice", "map"):
        return not v
    if kind in ("string", "bool") or kind in _INT_RANGE:
        return v in ("", 0) or v is False
    return False  # structs, quantities, times: never empty to encoding/json


def _key(k: Any) -> str:
    if isinstance(k, bool):
        return "true" if k else "false"
    return str(k)


def _copy(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v
