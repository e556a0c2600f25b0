"""An independent, deliberately plain model of KubeVirt v1.6.0's ControllerRevision upgrade.

Written from docs/kubevirt-revisions.md (sections 1-3 and 6) and docs/kubevirt-api-versions.md
(field trees, conversions), *not* from the engine in transform/, so the engine's goldens can be
checked against it. It works on plain data, as `yaml.safe_load` (YAML 1.1, like kubectl) gives it:

* `expected_payload(data)`  -> the v1beta1 object KubeVirt v1.6 stores in the new revision's `data`
  (raises ModelError with KubeVirt's error text where KubeVirt rejects the input);
* `expected_name(vm_name, obj)` -> `<vm>-<name>-v1beta1-<uid>-<generation>`;
* `expected_revision(cr)`   -> the whole new ControllerRevision, or None when KubeVirt skips it
  (only the `instancetype.kubevirt.io/object-version` label decides that).

Known simplifications (documented, not guessed):
* embedded core `kubevirt.io/v1` types (numa, realtime, hugepages, gpus, timers, features, ...)
  are opaque: type-checked as mapping/list and copied as given;
* Go's exact error wording is reproduced only where the docs quote it ("Object 'Kind' is missing",
  "unexpected type in ControllerRevision", "failed to decode object in ControllerRevision");
  other texts follow encoding/json's shape and are matched by `ModelError.reason` in tests.
"""

from __future__ import annotations

import base64
import binascii
import copy
import datetime
import json
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

GROUP = "instancetype.kubevirt.io"
LATEST = "v1beta1"
VERSION_LABEL = f"{GROUP}/object-version"

INSTANCETYPE_KINDS = ("VirtualMachineInstancetype", "VirtualMachineClusterInstancetype")
PREFERENCE_KINDS = ("VirtualMachinePreference", "VirtualMachineClusterPreference")
KINDS = INSTANCETYPE_KINDS + PREFERENCE_KINDS

# Kinds the decoding scheme knows that are not ours: decoding succeeds and the type switch fails.
# (`*v1.VirtualMachine` etc. is the Go %T spelling.)
OTHER_REGISTERED = {
    ("kubevirt.io/v1", "VirtualMachine"): "*v1.VirtualMachine",
    ("kubevirt.io/v1", "VirtualMachineInstance"): "*v1.VirtualMachineInstance",
    ("snapshot.kubevirt.io/v1beta1", "VirtualMachineSnapshot"): "*v1beta1.VirtualMachineSnapshot",
    ("snapshot.kubevirt.io/v1alpha1", "VirtualMachineSnapshot"): "*v1alpha1.VirtualMachineSnapshot",
}


DECODE_FAILED = "failed to decode object in ControllerRevision: "


class ModelError(Exception):
    """KubeVirt would reject this input. `reason` is a stable short code for tests."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


# --------------------------------------------------------------------------------------------
# Field trees. Leaf kinds:
#   "string"  Go string, omitempty ("" is dropped on output)
#   "*string" Go *string (kept even when "")
#   "bool"    Go bool (v1alpha only; converted to *bool)          "*bool"  Go *bool
#   "uint32"  Go uint32                                            "*uint32"
#   "int"     Go int, omitempty                                    "*int64"
#   "quantity" resource.Quantity (re-serialised canonically)       "*quantity"
#   "object"  embedded core type, opaque mapping                   "list"  opaque list, omitempty
#   "map"     map[string]string, omitempty
# A mapping is a struct; a key ending in "!" is a required (non-pointer, no omitempty) field,
# always emitted by Go's encoder even when absent from the input.
# --------------------------------------------------------------------------------------------

_A_INSTANCETYPE: dict[str, Any] = {
    "cpu!": {
        "guest!": "uint32",
        "model": "string",
        "dedicatedCPUPlacement": "bool",
        "numa": "object",
        "isolateEmulatorThread": "bool",
        "realtime": "object",
    },
    "memory!": {"guest!": "quantity", "hugepages": "object"},
    "gpus": "list",
    "hostDevices": "list",
    "ioThreadsPolicy": "*string",
    "launchSecurity": "object",
}

_A_DEVICES: dict[str, Any] = {
    **{
        k: "*bool"
        for k in (
            "preferredAutoattachGraphicsDevice",
            "preferredAutoattachMemBalloon",
            "preferredAutoattachPodInterface",
            "preferredAutoattachSerialConsole",
            "preferredAutoattachInputDevice",
            "preferredDisableHotplug",
            "preferredUseVirtioTransitional",
            "preferredDiskDedicatedIoThread",
            "preferredBlockMultiQueue",
            "preferredNetworkInterfaceMultiQueue",
        )
    },
    "preferredVirtualGPUOptions": "object",
    **{
        k: "string"
        for k in (
            "preferredSoundModel",
            "preferredInterfaceModel",
            "preferredInputBus",
            "preferredInputType",
            "preferredDiskBus",
            "preferredLunBus",
            "preferredCdromBus",
            "preferredDiskCache",
            "preferredDiskIO",
        )
    },
    "preferredDiskBlockSize": "object",
    "preferredRng": "object",
    "preferredTPM": "object",
}

_A1_PREFERENCE: dict[str, Any] = {
    "clock": {"preferredClockOffset": "object", "preferredTimer": "object"},
    "cpu": {"preferredCPUTopology": "string"},
    "devices": _A_DEVICES,
    "features": {
        k: "object"
        for k in (
            "preferredAcpi",
            "preferredApic",
            "preferredHyperv",
            "preferredKvm",
            "preferredPvspinlock",
            "preferredSmm",
        )
    },
    "firmware": {
        k: "*bool" for k in ("preferredUseBios", "preferredUseBiosSerial", "preferredUseEfi", "preferredUseSecureBoot")
    },
    "machine": {"preferredMachineType": "string"},
}

_A2_PREFERENCE: dict[str, Any] = {**_A1_PREFERENCE, "volumes": {"preferredStorageClassName": "string"}}

# v1beta1 as KubeVirt v1.6.0 knows it (fields of v1.7.0+ are unknown to it and dropped).
_B_INSTANCETYPE: dict[str, Any] = {
    "nodeSelector": "map",
    "schedulerName": "string",
    "cpu!": {
        "guest!": "uint32",
        "model": "*string",
        "dedicatedCPUPlacement": "*bool",
        "numa": "object",
        "isolateEmulatorThread": "*bool",
        "realtime": "object",
        "maxSockets": "*uint32",
    },
    "memory!": {
        "guest!": "quantity",
        "hugepages": "object",
        "overcommitPercent": "int",
        "maxGuest": "*quantity",
    },
    "gpus": "list",
    "hostDevices": "list",
    "ioThreadsPolicy": "*string",
    "launchSecurity": "object",
    "annotations": "map",
}

_B_PREFERENCE: dict[str, Any] = {
    "clock": _A1_PREFERENCE["clock"],
    "cpu": {
        "preferredCPUTopology": "*string",
        "spreadOptions": {"across": "*string", "ratio": "*uint32"},
        "preferredCPUFeatures": "list",
    },
    "devices": {
        **_A_DEVICES,
        "preferredInterfaceMasquerade": "object",
        "preferredPanicDeviceModel": "*string",
    },
    "features": _A1_PREFERENCE["features"],
    "firmware": {**_A1_PREFERENCE["firmware"], "preferredEfi": "object"},
    "machine": _A1_PREFERENCE["machine"],
    "volumes": {"preferredStorageClassName": "string"},
    "preferredSubdomain": "*string",
    "preferredTerminationGracePeriodSeconds": "*int64",
    "requirements": {"cpu": {"guest!": "uint32"}, "memory": {"guest!": "quantity"}},
    "annotations": "map",
    "preferSpreadSocketToCoreRatio": "uint32",
}

SPEC_TREES: dict[tuple[str, bool], dict[str, Any]] = {
    # (version, is_instancetype) -> spec tree
    ("v1alpha1", True): _A_INSTANCETYPE,
    ("v1alpha1", False): _A1_PREFERENCE,
    ("v1alpha2", True): _A_INSTANCETYPE,
    ("v1alpha2", False): _A2_PREFERENCE,
    ("v1beta1", True): _B_INSTANCETYPE,
    ("v1beta1", False): _B_PREFERENCE,
}

# ObjectMeta fields the decoder knows; the ones CreateControllerRevision clears are marked False.
_OBJECT_META = {
    "name": True,
    "generateName": True,
    "namespace": True,
    "selfLink": True,
    "uid": True,
    "resourceVersion": True,
    "generation": True,
    "creationTimestamp": True,
    "deletionTimestamp": True,
    "deletionGracePeriodSeconds": True,
    "labels": False,
    "annotations": False,
    "ownerReferences": False,
    "finalizers": False,
    "managedFields": False,
}


# --------------------------------------------------------------------------------------------
# Quantities (k8s.io/apimachinery resource.Quantity). The engine's port (transform.kubevirt.quantity) is
# used when present, as it also reproduces Go's "keep the input string when already canonical"
# quirk ("1.500" stays "1.500"); local_canonical_quantity is the plain fallback and cross-check
# (TODO: it does not reproduce that quirk).
# --------------------------------------------------------------------------------------------

_QTY_RE = re.compile(r"^([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)$")
_DEC_SUFFIX = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN_SUFFIX = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
QUANTITY_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def local_canonical_quantity(text: str) -> str:
    """Parse like resource.ParseQuantity and print like Quantity.String()."""
    m = _QTY_RE.match(text)
    if not m or not (m.group(2) or m.group(3)):
        raise ValueError(QUANTITY_ERROR)
    sign, whole, frac, suffix = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    value = Fraction(int(whole or "0") * 10 ** len(frac) + int(frac or "0"), 10 ** len(frac))
    if sign == "-":
        value = -value
    if suffix in _BIN_SUFFIX:
        fmt, value = "BinarySI", value * 2 ** _BIN_SUFFIX[suffix]
    elif suffix in _DEC_SUFFIX:
        fmt, value = "DecimalSI", value * Fraction(10) ** _DEC_SUFFIX[suffix]
    elif re.fullmatch(r"[eE][-+]?[0-9]+", suffix):
        fmt, value = "DecimalExponent", value * Fraction(10) ** int(suffix[1:])
    else:
        raise ValueError("unable to parse quantity's suffix")
    # Quantities keep nano precision and round away from zero.
    nanos = abs(value * 10**9)
    n = -(-nanos.numerator // nanos.denominator)  # ceiling of the magnitude
    if value < 0:
        n = -n
    if n == 0:
        return "0"
    if fmt == "BinarySI":
        if -1024 * 10**9 < n < 1024 * 10**9 or n % 10**9:
            fmt = "DecimalSI"  # small or fractional binary values print as decimal
        else:
            mant, exp = n // 10**9, 0
            while mant % 1024 == 0 and exp < 60:
                mant //= 1024
                exp += 10
            return f"{mant}{ {v: k for k, v in _BIN_SUFFIX.items()}.get(exp, '') }"
    mant, exp = n, -9
    while mant % 10 == 0:
        mant //= 10
        exp += 1
    while exp % 3:
        mant *= 10
        exp -= 1
    if fmt == "DecimalExponent":
        return f"{mant}e{exp}" if exp else str(mant)
    while exp > 18:  # TODO: beyond "E"; not a documented case
        mant *= 1000
        exp -= 3
    return f"{mant}{ {v: k for k, v in _DEC_SUFFIX.items()}[exp] }"


try:
    from transform.kubevirt.quantity import canonical as _engine_canonical
except ImportError:  # pragma: no cover - engine not there yet
    _engine_canonical = None


def canonical_quantity(text: str) -> str:
    if _engine_canonical is None:
        return local_canonical_quantity(text)
    try:
        return _engine_canonical(text)
    except ValueError as e:  # transform.kubevirt.quantity.QuantityError
        raise ValueError(str(e)) from e


# --------------------------------------------------------------------------------------------
# Decoding a JSON-shaped value into the Go types above
# --------------------------------------------------------------------------------------------


class _Num:
    """A JSON number that is not an integer, keeping its literal (as Go's decoder sees it)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _go_float_text(f: float) -> str:
    # encoding/json prints float64 in 'f' format unless the exponent is < -6 or >= 21.
    if f == int(f) and abs(f) < 1e21:
        return str(int(f))
    if 1e-6 <= abs(f) < 1e21:
        return format(Decimal(repr(f)), "f")
    return repr(f)


def _plain(v: Any) -> Any:
    if isinstance(v, _Num):
        return float(v.text)
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _json_type(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float, _Num, Decimal)):
        return f"number {v.text if isinstance(v, _Num) else v}"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _type_error(v: Any, path: str, gotype: str) -> ModelError:
    return ModelError(f"json: cannot unmarshal {_json_type(v)} into Go struct field {path} of type {gotype}", "type")


def _decode_leaf(kind: str, v: Any, path: str) -> Any:
    base = kind.lstrip("*")
    if base == "string":
        if not isinstance(v, str):
            raise _type_error(v, path, "string")
        return v
    if base == "bool":
        if not isinstance(v, bool):
            raise _type_error(v, path, "bool")
        return v
    if base in ("uint32", "int", "int64"):
        if isinstance(v, bool) or not isinstance(v, int):
            raise _type_error(v, path, base)
        if base == "uint32" and not 0 <= v < 2**32:
            raise _type_error(v, path, base)
        return v
    if base == "quantity":
        if isinstance(v, bool) or not isinstance(v, (str, int, float, _Num)):
            raise ModelError(QUANTITY_ERROR, "quantity")
        text = v.text if isinstance(v, _Num) else _go_float_text(v) if isinstance(v, float) else str(v)
        try:
            return canonical_quantity(text)
        except ValueError as e:
            raise ModelError(str(e), "quantity") from e
    if base in ("object", "map"):
        if not isinstance(v, dict):
            raise _type_error(v, path, base)
        return _plain(v)
    if base == "list":
        if not isinstance(v, list):
            raise _type_error(v, path, "slice")
        return _plain(v)
    raise AssertionError(kind)


def decode_struct(tree: dict[str, Any], value: Any, path: str, *, strict: bool) -> dict[str, Any]:
    """JSON mapping -> Go struct (as a dict holding only set fields). Nulls count as absent."""
    if not isinstance(value, dict):
        raise _type_error(value, path, "struct")
    fields = {k.rstrip("!"): sub for k, sub in tree.items()}
    out: dict[str, Any] = {}
    for key, v in value.items():
        if key not in fields:
            if strict:
                raise ModelError(f'json: unknown field "{key}"', "unknown-field")
            continue  # lenient decode drops it
        if v is None:
            continue
        sub = fields[key]
        out[key] = (
            decode_struct(sub, v, f"{path}.{key}", strict=strict)
            if isinstance(sub, dict)
            else _decode_leaf(sub, v, f"{path}.{key}")
        )
    return out


def encode_struct(tree: dict[str, Any], value: dict[str, Any]) -> dict[str, Any]:
    """Go struct -> JSON as encoding/json prints it (omitempty, required fields, zero values)."""
    out: dict[str, Any] = {}
    for raw_key, sub in tree.items():
        key, required = raw_key.rstrip("!"), raw_key.endswith("!")
        if key not in value:
            if not required:
                continue
            out[key] = encode_struct(sub, {}) if isinstance(sub, dict) else {"uint32": 0, "quantity": "0"}[sub]
            continue
        v = value[key]
        if isinstance(sub, dict):
            out[key] = encode_struct(sub, v)
        elif sub in ("string", "int", "uint32", "list", "map") and not required and not v:
            continue  # omitempty on a value type
        else:
            out[key] = v
    return out


# --------------------------------------------------------------------------------------------
# compatibility.Decode + conversion + CreateControllerRevision
# --------------------------------------------------------------------------------------------


def _raw(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), default=str)


def _kind_missing(data: Any) -> ModelError:
    return ModelError(
        f"failed to decode object in ControllerRevision: Object 'Kind' is missing in '{_raw(data)}'",
        "kind-missing",
    )


_B64_RE = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def _strict_json(raw: bytes) -> Any:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in items:
            if k in out:
                raise ValueError(f'duplicate field "{k}"')
            out[k] = v
        return out

    def no_constants(name: str) -> Any:
        raise ValueError(name)

    return json.loads(
        raw.decode("utf-8", "replace"), object_pairs_hook=pairs, parse_float=_Num, parse_constant=no_constants
    )


def _decode_spec_revision(data: dict[str, Any], tree: dict[str, Any]) -> dict[str, Any] | None:
    """sigs.k8s.io/json.UnmarshalStrict of the wrapper, then of its spec. None = not this shape."""
    if set(data) - {"apiVersion", "spec"}:
        return None
    if data.get("apiVersion") is not None and not isinstance(data["apiVersion"], str):
        return None
    spec = data.get("spec")
    if not isinstance(spec, str):
        return None  # absent/null spec -> empty bytes -> "unexpected end of JSON input"; object -> type error
    text = spec.replace("\r", "").replace("\n", "")  # Go's StdEncoding skips newlines only
    if not _B64_RE.fullmatch(text):
        return None
    try:
        parsed = _strict_json(base64.b64decode(text, validate=True))
    except (ValueError, binascii.Error):
        return None
    if parsed is None:
        parsed = {}  # JSON null into a struct is a no-op
    try:
        return decode_struct(tree, parsed, "spec", strict=True)
    except ModelError:
        return None


def _convert_spec(spec: dict[str, Any], version: str, is_instancetype: bool) -> dict[str, Any]:
    """Convert_v1alphaN_*_To_v1beta1_*: the only value changes visible in JSON."""
    if version == LATEST:
        return spec
    spec = copy.deepcopy(spec)
    if is_instancetype:
        cpu = spec.setdefault("cpu", {})
        cpu.setdefault("model", "")  # Convert_string_To_Pointer_string: always non-nil
        cpu.setdefault("dedicatedCPUPlacement", False)  # Convert_bool_To_Pointer_bool
        cpu.setdefault("isolateEmulatorThread", False)
    elif "cpu" in spec and spec["cpu"].get("preferredCPUTopology", "") == "":
        spec["cpu"].pop("preferredCPUTopology", None)  # "" -> nil, the parent stays {}
    return spec


def _time(v: Any) -> Any:
    if isinstance(v, datetime.datetime):  # PyYAML reads unquoted timestamps
        if v.tzinfo is not None:
            v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return v.strftime("%Y-%m-%dT%H:%M:%SZ")
    return v


def _decode_meta(meta: Any) -> dict[str, Any]:
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise _type_error(meta, "metadata", "v1.ObjectMeta")
    out = {k: _time(v) for k, v in meta.items() if _OBJECT_META.get(k) and v is not None}
    for k in ("generation", "deletionGracePeriodSeconds"):
        if k in out and (isinstance(out[k], bool) or not isinstance(out[k], int)):
            raise _type_error(out[k], f"ObjectMeta.metadata.{k}", "int64")
    for k in ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion"):
        if k in out and not isinstance(out[k], str):
            raise _type_error(out[k], f"ObjectMeta.metadata.{k}", "string")
    # omitempty: empty strings and generation 0 are not printed; creationTimestamp always is.
    out = {k: v for k, v in out.items() if v not in ("", 0) or isinstance(v, bool)}
    out.setdefault("creationTimestamp", None)
    return out


def _decode_object(data: dict[str, Any]) -> tuple[str, str, dict[str, Any], dict[str, Any]]:
    """runtime.Decode with the universal deserializer, then the type switch."""
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not kind:
        raise _kind_missing(data)
    if not api_version:
        raise ModelError(
            f"{DECODE_FAILED}Object 'apiVersion' is missing in '{_raw(data)}'",
            "apiversion-missing",
        )
    if not isinstance(api_version, str) or not isinstance(kind, str):
        raise ModelError("failed to decode object in ControllerRevision: json: cannot unmarshal", "type")
    group, _, version = api_version.rpartition("/")
    if group == GROUP and version in ("v1alpha1", "v1alpha2", "v1beta1") and kind in KINDS:
        tree = SPEC_TREES[(version, kind in INSTANCETYPE_KINDS)]
        try:
            spec = decode_struct(tree, data.get("spec") or {}, "spec", strict=False)
            meta = _decode_meta(data.get("metadata"))
        except ModelError as e:
            raise ModelError(f"failed to decode object in ControllerRevision: {e}", e.reason) from e
        return version, kind, meta, spec
    if group == GROUP and version in ("v1alpha1", "v1alpha2", "v1beta1") and kind.removesuffix("List") in KINDS:
        raise ModelError(f"unexpected type in ControllerRevision: *{version}.{kind}", "unexpected-type")
    if (api_version, kind) in OTHER_REGISTERED:
        raise ModelError(
            f"unexpected type in ControllerRevision: {OTHER_REGISTERED[(api_version, kind)]}",
            "unexpected-type",
        )
    raise ModelError(
        f"{DECODE_FAILED}no kind {json.dumps(kind)} is registered for version {json.dumps(api_version)} in scheme",
        "not-registered",
    )


def expected_payload(data: Any) -> dict[str, Any]:
    """The v1beta1 object KubeVirt v1.6.0's upgrade stores for a revision whose `data` is `data`."""
    if data is None:
        raise ModelError("runtime error: invalid memory address or nil pointer dereference", "nil-data")
    if not isinstance(data, dict):
        raise ModelError(f"failed to decode object in ControllerRevision: {_raw(data)}", "not-an-object")
    for is_instancetype in (False, True):  # preference is tried first
        spec = _decode_spec_revision(data, SPEC_TREES[("v1alpha1", is_instancetype)])
        if spec is not None:
            kind = "VirtualMachineInstancetype" if is_instancetype else "VirtualMachinePreference"
            name = f"old-version-of-{'instancetype' if is_instancetype else 'preference'}-object"
            meta: dict[str, Any] = {"name": name, "creationTimestamp": None}
            version = "v1alpha1"
            break
    else:
        version, kind, meta, spec = _decode_object(data)
        is_instancetype = kind in INSTANCETYPE_KINDS
    spec = _convert_spec(spec, version, is_instancetype)
    return {
        "apiVersion": f"{GROUP}/{LATEST}",
        "kind": kind,
        "metadata": meta,
        "spec": encode_struct(SPEC_TREES[(LATEST, is_instancetype)], spec),
    }


def expected_name(vm_name: str, obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{vm_name}-{meta.get('name', '')}-{LATEST}-{meta.get('uid', '')}-{meta.get('generation', 0)}"


def _vm_owner(cr: dict[str, Any]) -> dict[str, Any]:
    for ref in (cr.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("kind") == "VirtualMachine" and str(ref.get("apiVersion", "")).startswith("kubevirt.io/"):
            return ref
    return {}


def expected_revision(cr: dict[str, Any]) -> dict[str, Any] | None:
    """The ControllerRevision the v1.6.0 upgrade creates from `cr`, or None if it leaves `cr` alone."""
    labels = (cr.get("metadata") or {}).get("labels") or {}
    if labels.get(VERSION_LABEL) == LATEST:
        return None
    payload = expected_payload(cr.get("data"))
    owner = _vm_owner(cr)
    vm_name, vm_uid = owner.get("name", ""), owner.get("uid", "")
    meta = payload["metadata"]
    new_meta: dict[str, Any] = {"name": expected_name(vm_name, payload)}
    if (cr.get("metadata") or {}).get("namespace"):
        new_meta["namespace"] = cr["metadata"]["namespace"]
    new_meta["labels"] = {
        f"{GROUP}/object-generation": str(meta.get("generation", 0)),
        f"{GROUP}/object-kind": payload["kind"],
        f"{GROUP}/object-name": meta.get("name", ""),
        f"{GROUP}/object-uid": meta.get("uid", ""),
        VERSION_LABEL: LATEST,
    }
    new_meta["ownerReferences"] = [
        {
            "apiVersion": "kubevirt.io/v1",
            "blockOwnerDeletion": True,
            "controller": True,
            "kind": "VirtualMachine",
            "name": vm_name,
            "uid": vm_uid,
        }
    ]
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": new_meta,
        "data": payload,
        "revision": 0,
    }
