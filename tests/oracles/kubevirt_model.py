"""An independent, deliberately plain model of KubeVirt v1.6.0's ControllerRevision upgrade.

Written from docs/kubevirt-revisions.md (sections 1-3 and 6) and docs/kubevirt-api-versions.md,
*not* from the engine in transform/, so the engine's goldens can be checked against it. Go's
encoding/json is modelled by go_json_model.py from KubeVirt's reflected type table
(go-json in reference/), core kubevirt.io/v1 types included; quantities by
quantity_model.py. It works on plain data, as `yaml.safe_load` (YAML 1.1, like kubectl) gives it:

* `expected_payload(data)`  -> the v1beta1 object KubeVirt v1.6 stores in the new revision's `data`
  (raises ModelError with KubeVirt's error text where KubeVirt rejects the input);
* `expected_name(vm_name, obj)` -> `<vm>-<name>-v1beta1-<uid>-<generation>`;
* `expected_revision(cr)`   -> the whole new ControllerRevision, or None when KubeVirt skips it
  (only the `instancetype.kubevirt.io/object-version` label decides that).

Go's exact error wording is reproduced only where the docs quote it ("Object 'Kind' is missing",
"unexpected type in ControllerRevision", "failed to decode object in ControllerRevision"); other
texts follow encoding/json's shape and are matched by `ModelError.reason` in tests.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import re
from typing import Any

from tests.oracles import go_json_model as go
from tests.oracles.quantity_model import canonical

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


# ObjectMeta fields CreateControllerRevision clears.
_CLEARED_META = ("labels", "annotations", "ownerReferences", "finalizers", "managedFields")


def local_canonical_quantity(text: str) -> str:
    return canonical(text)


canonical_quantity = local_canonical_quantity


def _spec_type(version: str, is_instancetype: bool) -> str:
    kind = "VirtualMachineInstancetype" if is_instancetype else "VirtualMachinePreference"
    return str(go.field_of(go.object_type(version, kind), "spec")["type"])


def _go_error(e: go.GoError) -> ModelError:
    return ModelError(f"{DECODE_FAILED}{e}", e.reason)


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
        raw.decode("utf-8", "replace"), object_pairs_hook=pairs, parse_float=go.Number, parse_constant=no_constants
    )


def _decode_spec_revision(data: dict[str, Any], is_instancetype: bool) -> dict[str, Any] | None:
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
    try:
        return go.unmarshal(parsed, _spec_type("v1alpha1", is_instancetype), strict=True)
    except go.GoError:
        return None


def _convert(value: dict[str, Any], old_type: str, new_type: str) -> dict[str, Any]:
    """Convert_v1alphaN_*_To_v1beta1_* on Go values. Fields are copied by JSON name (v1beta1's
    deprecated fields keep the old names); a value that became a pointer is always set
    (Convert_string_To_Pointer_string, Convert_bool_To_Pointer_bool), except in the hand-written
    PreferredCPUTopology conversion, which turns "" into nil."""
    types = go.types()
    old_fields = {f["json"] or f["goName"]: f for f in types[old_type].get("fields", [])}
    new = go.zero(new_type)
    for f in types[new_type].get("fields", []):
        old = old_fields.get(f["json"] or f["goName"])
        if old is None:
            continue
        v = copy.deepcopy(value[old["goName"]])
        if v is not None and f["kind"] == "struct" and f["type"] in types and f["type"] not in go.OPAQUE:
            v = _convert(v, old["type"], f["type"])
        elif v is not None and f["kind"] == "slice" and f.get("elem") in types:
            v = [_convert(x, old["elem"], f["elem"]) for x in v]
        elif f["pointer"] and not old["pointer"] and f["goName"] == "PreferredCPUTopology" and v == "":
            v = None
        new[f["goName"]] = v
    return new


def _decode_object(data: dict[str, Any]) -> tuple[str, str, dict[str, Any], dict[str, Any]]:
    """runtime.Decode with the universal deserializer (lenient), then the type switch."""
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
        type_name = go.object_type(version, kind)
        try:
            obj = go.unmarshal(data, type_name, strict=False)
        except go.GoError as e:
            raise _go_error(e) from e
        spec_field = go.field_of(type_name, "spec")["goName"]
        meta_field = go.field_of(type_name, "metadata")["goName"]
        meta = {k: v for k, v in obj[meta_field].items() if k not in _CLEARED_META}
        return version, kind, meta, obj[spec_field]
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
        spec = _decode_spec_revision(data, is_instancetype)
        if spec is not None:
            kind = "VirtualMachineInstancetype" if is_instancetype else "VirtualMachinePreference"
            meta: dict[str, Any] = {
                "name": f"old-version-of-{'instancetype' if is_instancetype else 'preference'}-object"
            }
            version = "v1alpha1"
            break
    else:
        version, kind, meta, spec = _decode_object(data)
        is_instancetype = kind in INSTANCETYPE_KINDS
    new_type = _spec_type(LATEST, is_instancetype)
    if version != LATEST:
        spec = _convert(spec, _spec_type(version, is_instancetype), new_type)
    return {
        "apiVersion": f"{GROUP}/{LATEST}",
        "kind": kind,
        "metadata": go.marshal_meta(meta),
        "spec": go.marshal(spec, new_type),
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
