"""An independent model of Go's encoding/json for KubeVirt v1.6.0's types, read from the reference.

It reads go-json/kubevirt-v<release>-instancetype-types.json of the reference trees (reference/, through
tests/oracles/reference.py) itself and shares no code or tables with transform/. Unlike the engine's one-pass
re-encoder it works in Go's two steps: `unmarshal` builds a Go value (a struct is a dict of *all*
its fields by Go name, zero values included; a nil pointer, slice or map is None; an embedded
struct sits under its Go type name), and `marshal` writes it as json.Marshal does. ObjectMeta,
TypeMeta and Quantity (listed by name only in the reference) are modelled here by hand.
"""

from __future__ import annotations

import datetime
import functools
import json
import re
from typing import Any

from tests.oracles.quantity_model import canonical, go_number_text
from tests.oracles.reference import tree

REFERENCE = tree("go-json")
QUANTITY = "k8s.io/apimachinery/pkg/api/resource.Quantity"
OBJECT_META = "k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta"
TYPE_META = "k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta"
OPAQUE = (QUANTITY, OBJECT_META)
_INTS = {"uint32": (0, 2**32 - 1), "uint": (0, 2**64 - 1), "int": (-(2**63), 2**63 - 1), "int64": (-(2**63), 2**63 - 1)}


class Number:
    """A JSON number that is not an integer, with its literal text (what Go's decoder sees)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


class GoError(Exception):
    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason  # "type", "quantity", "unknown-field"


@functools.cache
def types() -> dict[str, dict[str, Any]]:
    data = json.loads((REFERENCE / "kubevirt-v1.6.0-instancetype-types.json").read_text())
    out = {t["name"]: t for t in data["types"]}
    out[TYPE_META] = {
        "name": TYPE_META,
        "fields": [
            {"goName": n.title(), "json": n, "omitempty": True, "pointer": False, "kind": "string", "type": "string"}
            for n in ("apiVersion", "kind")
        ],
    }
    return out


@functools.cache
def roots() -> dict[str, str]:
    return dict(json.loads((REFERENCE / "kubevirt-v1.6.0-instancetype-types.json").read_text())["roots"])


def object_type(version: str, kind: str) -> str:
    r = roots()
    return r.get(f"{version}.{kind}") or r[f"{version}.{kind.replace('Cluster', '')}"]


def field_of(type_name: str, json_name: str) -> dict[str, Any]:
    return next(f for f in types()[type_name]["fields"] if f["json"] == json_name)


def _err(v: Any, where: str, gotype: str) -> GoError:
    """UnmarshalTypeError: Value is the JSON kind; a number's literal only when it misses an integer type."""
    if isinstance(v, bool):
        what = "bool"
    elif isinstance(v, (int, float, Number)):
        what = f"number {v!r}" if gotype in _INTS else "number"
    else:
        what = "string" if isinstance(v, str) else "array" if isinstance(v, list) else "object"
    return GoError(f"json: cannot unmarshal {what} into Go struct field {where} of type {gotype}", "type")


# ------------------------------------------------------------------------------------ unmarshal


def zero(type_name: str) -> dict[str, Any]:
    """The zero value of a struct type: every field, pointers/slices/maps None."""
    out: dict[str, Any] = {}
    for f in types()[type_name].get("fields", []):
        out[f["goName"]] = _zero_field(f)
    return out


def _zero_field(f: dict[str, Any]) -> Any:
    if f["pointer"] or f["kind"] in ("slice", "map"):
        return None
    if f["type"] == QUANTITY:
        return "0"
    if f["type"] == OBJECT_META:
        return {}
    if f["kind"] == "struct":
        return zero(f["type"])
    return {"string": "", "bool": False}.get(f["kind"], 0)


def unmarshal(data: Any, type_name: str, *, strict: bool, where: str = "", dropped: list[str] | None = None) -> Any:
    """json.Unmarshal(data, &T{}) (case-sensitive, as apimachinery's decoder)."""
    value = zero(type_name)
    if data is None:
        return value
    if not isinstance(data, dict):
        raise _err(data, where, type_name.rsplit("/", 1)[-1])
    fields = types()[type_name].get("fields", [])
    by_json: dict[str, tuple[dict[str, Any], dict[str, Any] | None]] = {}
    for f in fields:
        if f.get("inline"):
            for sub in types()[f["type"]].get("fields", []):
                by_json[sub["json"]] = (sub, f)
        else:
            by_json[f["json"]] = (f, None)
    for key, v in data.items():
        if key not in by_json:
            if strict:
                raise GoError(f'json: unknown field "{key}"', "unknown-field")
            if dropped is not None:
                dropped.append(f"{where}.{key}".lstrip("."))
            continue
        f, embedded = by_json[key]
        target = value
        if embedded is not None:
            if value[embedded["goName"]] is None:
                value[embedded["goName"]] = zero(embedded["type"])  # Go allocates the embedded pointer
            target = value[embedded["goName"]]
        target[f["goName"]] = _field(v, f, target[f["goName"]], strict, f"{where}.{key}".lstrip("."), dropped)
    return value


def _field(v: Any, f: dict[str, Any], current: Any, strict: bool, where: str, dropped: list[str] | None) -> Any:
    if v is None:
        if f["pointer"] or f["kind"] in ("slice", "map"):
            return None
        if f["type"] == QUANTITY:
            return "0"  # Quantity.UnmarshalJSON(null): zero
        return current  # null into a value: no effect
    return _value(v, f["kind"], f["type"], f.get("elem"), strict, where, dropped)


def _value(
    v: Any, kind: str, gotype: str, elem: str | None, strict: bool, where: str, dropped: list[str] | None
) -> Any:
    if gotype == QUANTITY:
        if isinstance(v, bool) or not isinstance(v, (str, int, float, Number)):
            raise GoError("quantities must match the regular expression", "quantity")
        text = v.text if isinstance(v, Number) else v.strip(" ") if isinstance(v, str) else go_number_text(v)
        try:
            return canonical(text)
        except ValueError as e:
            raise GoError(str(e), "quantity") from e
    if gotype == OBJECT_META:
        return object_meta(v, where)
    if kind == "struct":
        return unmarshal(v, gotype, strict=strict, where=where, dropped=dropped)
    if kind == "string":
        if not isinstance(v, str):
            raise _err(v, where, "string")
        return v
    if kind == "bool":
        if not isinstance(v, bool):
            raise _err(v, where, "bool")
        return v
    if kind in _INTS:
        low, high = _INTS[kind]
        if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
            raise _err(v, where, kind)
        return v
    if kind == "slice":
        if elem == "uint8":
            if not isinstance(v, str):
                raise _err(v, where, "[]uint8")
            return v
        if not isinstance(v, list):
            raise _err(v, where, "slice")
        assert elem is not None
        return [unmarshal(x, elem, strict=strict, where=where, dropped=dropped) for x in v]
    if kind == "map":
        if not isinstance(v, dict):
            raise _err(v, where, "map")
        out = {}
        for k, x in v.items():
            if x is not None and not isinstance(x, str):
                raise _err(x, where, "string")
            out[str(k)] = x if x is not None else ""
        return out
    raise AssertionError(kind)


# ObjectMeta (apimachinery): the string, integer, time and collection fields the upgrade can see.
_META_STRINGS = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion")
_META_INTS = ("generation", "deletionGracePeriodSeconds")
_META_TIMES = ("creationTimestamp", "deletionTimestamp")
_META_OTHER = ("labels", "annotations", "ownerReferences", "finalizers", "managedFields")
_RFC3339 = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)")


def go_time(v: Any, where: str) -> str:
    """metav1.Time round trip: time.Parse(RFC3339), written back in UTC, whole seconds."""
    if isinstance(v, datetime.datetime):  # PyYAML reads unquoted timestamps
        v = (v if v.tzinfo else v.replace(tzinfo=datetime.timezone.utc)).isoformat()
    m = _RFC3339.fullmatch(v) if isinstance(v, str) else None
    if not m:
        raise _err(v, where, "v1.Time")
    try:
        t = datetime.datetime.strptime(m.group(1) + m.group(3).replace("Z", "+00:00"), "%Y-%m-%dT%H:%M:%S%z")
    except ValueError:
        raise _err(v, where, "v1.Time") from None
    return t.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def object_meta(meta: Any, where: str = "metadata") -> dict[str, Any]:
    """A decoded ObjectMeta as {json name: value}, only set (non-zero) fields; unknown keys dropped."""
    if not isinstance(meta, dict):
        raise _err(meta, where, "v1.ObjectMeta")
    out: dict[str, Any] = {}
    for k, v in meta.items():
        if v is None:
            continue
        if k in _META_STRINGS and not isinstance(v, str):
            raise _err(v, f"{where}.{k}", "string")
        if k in _META_INTS and (isinstance(v, bool) or not isinstance(v, int) or not -(2**63) <= v < 2**63):
            raise _err(v, f"{where}.{k}", "int64")  # generation, deletionGracePeriodSeconds: int64 (*int64)
        if k in _META_TIMES:
            v = go_time(v, f"{where}.{k}")
        if k in _META_STRINGS + _META_INTS + _META_TIMES + _META_OTHER:
            out[k] = v
    return out


def marshal_meta(meta: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in meta.items() if v not in ("", 0, [], {}) or isinstance(v, bool)}
    out.setdefault("creationTimestamp", None)  # a struct: never omitted; the zero Time is null
    return out


# -------------------------------------------------------------------------------------- marshal


def _empty(v: Any, f: dict[str, Any]) -> bool:
    if f["pointer"]:
        return v is None
    if f["kind"] in ("slice", "map"):
        return not v
    if f["kind"] == "struct":
        return False  # Quantity, ObjectMeta and every other struct: never empty to encoding/json
    return v in ("", 0) or v is False


def marshal(value: dict[str, Any], type_name: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in types()[type_name].get("fields", []):
        v = value[f["goName"]]
        if f.get("inline"):
            if v is not None:
                out.update(marshal(v, f["type"]))
            continue
        if f["omitempty"] and _empty(v, f):
            continue
        out[f["json"]] = _marshal_value(v, f)
    return out


def _marshal_value(v: Any, f: dict[str, Any]) -> Any:
    if v is None:
        return None
    if f["type"] == OBJECT_META:
        return marshal_meta(v)
    if f["kind"] == "struct" and f["type"] != QUANTITY:
        return marshal(v, f["type"])
    if f["kind"] == "slice" and f.get("elem") in types():
        return [marshal(x, f["elem"]) for x in v]
    return v
