"""An independent oracle for structural-schema validation: KubeVirt's reference schema -> JSON Schema.

Shares no code or tables with transform/: it reads the reference tree crd-schemas (reference/, upstream
KubeVirt's schemas) through tests/oracles/reference.py and turns a
structural schema into a Draft 2020-12 schema that python-jsonschema and jsonschema-rs understand:
`nullable` adds "null" to the type, int-or-string is integer|string, a closed object (no
preserve-unknown-fields, no additionalProperties) gets `additionalProperties: false` (strict unknown-field
validation), list-type set is uniqueItems, an embedded resource requires apiVersion and kind, and the
root's `metadata` is Kubernetes' ObjectMeta (from the reference ControllerRevision's OpenAPI data).
Nulls in non-nullable fields are pruned from the instance first, as the API server prunes them, and
numbers are what its JSON reader makes of them (apimachinery util/json convertNumber: an integer that
Int64 cannot hold is a float64) judged as kube-openapi's type check judges them (a float64 is an integer
only when integral and within 2^53, go-openapi swag.IsFloat64AJSONInteger): where an integer belongs
(type integer, int-or-string), a number that is not one becomes a value of no accepted JSON type, since
the JSON Schema engines take any integral float for an integer.
Not modelled here (tested by tables instead): list-type map key uniqueness, ObjectMeta's name and label
syntax, date-time formats.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

from tests.oracles.reference import Entry, tree

REFERENCE = tree("crd-schemas")
RELEASES = REFERENCE / "kubevirt-releases"
GROUP_KINDS = {  # group, kind -> CRD singular name (KubeVirt crds.go)
    ("kubevirt.io", "VirtualMachine"): "virtualmachine",
    ("kubevirt.io", "VirtualMachineInstance"): "virtualmachineinstance",
    ("snapshot.kubevirt.io", "VirtualMachineSnapshot"): "virtualmachinesnapshot",
    ("snapshot.kubevirt.io", "VirtualMachineSnapshotContent"): "virtualmachinesnapshotcontent",
    ("instancetype.kubevirt.io", "VirtualMachineInstancetype"): "virtualmachineinstancetype",
    ("instancetype.kubevirt.io", "VirtualMachineClusterInstancetype"): "virtualmachineclusterinstancetype",
    ("instancetype.kubevirt.io", "VirtualMachinePreference"): "virtualmachinepreference",
    ("instancetype.kubevirt.io", "VirtualMachineClusterPreference"): "virtualmachineclusterpreference",
}


def reference_file(api_version: str, kind: str, release: str = "v1.9.0") -> Entry:
    """The reference schema judging a document at `release` (own-version files for old instancetype APIs)."""
    group, _, version = api_version.rpartition("/")
    if group == "instancetype.kubevirt.io" and version in ("v1alpha1", "v1alpha2"):
        minor = int(release.split(".")[1])
        if not (release.startswith("v1.") and minor < 6):
            return REFERENCE / f"{group}_{version}_{kind.lower()}.json"
    return RELEASES / release / f"{GROUP_KINDS[(group, kind)]}.json"


@cache
def _object_meta() -> dict[str, Any]:
    fragment = json.loads((REFERENCE / "apps_v1_controllerrevision.json").read_text())
    components = fragment["components"]["schemas"]

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "allOf" in node and len(node["allOf"]) == 1:
                node = {**{k: v for k, v in node.items() if k != "allOf"}, **node["allOf"][0]}
            if "$ref" in node:
                name = node["$ref"].rsplit("/", 1)[-1]
                rest = {k: v for k, v in node.items() if k != "$ref"}
                if name.endswith(("FieldsV1", "RawExtension")):
                    return {"type": "object", "x-kubernetes-preserve-unknown-fields": True, **rest}
                return inline({**components[name], **rest})
            return {k: inline(v) for k, v in node.items()}
        return node

    return inline(components["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"])


def translate(node: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    types: list[str] = []
    if node.get("x-kubernetes-int-or-string"):
        types = ["integer", "string"]
    elif "type" in node:
        types = [node["type"]]
    if types and node.get("nullable"):
        types.append("null")
    if types:
        out["type"] = types if len(types) > 1 else types[0]
    for key in ("pattern", "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"):
        if key in node:
            out[key] = node[key]
    if "enum" in node:
        out["enum"] = node["enum"] + ([None] if node.get("nullable") else [])
    required = list(node.get("required", []))
    if node.get("x-kubernetes-embedded-resource"):
        required += ["apiVersion", "kind"]
    if required:
        out["required"] = required
    if "properties" in node:
        out["properties"] = {k: translate(v) for k, v in node["properties"].items()}
    if isinstance(node.get("items"), dict):
        out["items"] = translate(node["items"])
    additional = node.get("additionalProperties")
    if isinstance(additional, dict):
        out["additionalProperties"] = translate(additional)
    elif node.get("type") == "object" and not node.get("x-kubernetes-preserve-unknown-fields") and additional is None:
        out["additionalProperties"] = False
    if node.get("x-kubernetes-list-type") == "set":
        out["uniqueItems"] = True
    return out


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
JSON_INTEGER_MAX = 2.0**53  # go-openapi swag: maxJSONFloat


def _not_an_integer(value: Any) -> bool:
    """Does kube-openapi's type check refuse `value` where an integer belongs?"""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, int):  # convertNumber: Int64 fails, Float64 wins, and it is beyond 2^53
        return not INT64_MIN <= value <= INT64_MAX
    if value.is_integer() and INT64_MIN <= value <= INT64_MAX:
        return False  # sigs.k8s.io/yaml writes it as digits: Int64 reads it
    return not (value.is_integer() and -JSON_INTEGER_MAX <= value <= JSON_INTEGER_MAX)


def prune_nulls(value: Any, node: dict[str, Any]) -> Any:
    """The instance as the API server validates it: nulls in non-nullable object fields removed, numbers
    an integer field cannot take made of no JSON type (see above)."""
    wants_integer = node.get("type") == "integer" or node.get("x-kubernetes-int-or-string")
    if wants_integer and _not_an_integer(value):
        return [value]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            child = node.get("properties", {}).get(key)
            if child is None and isinstance(node.get("additionalProperties"), dict):
                child = node["additionalProperties"]
            if child is not None and item is None and not child.get("nullable"):
                continue
            out[key] = prune_nulls(item, child) if child is not None else item
        return out
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        return [prune_nulls(v, node["items"]) for v in value]
    return value


@cache
def _reference(path: Entry) -> tuple[dict[str, Any], dict[str, Any]]:
    structural = json.loads(path.read_text())
    structural = copy.deepcopy(structural)
    structural.setdefault("properties", {})["metadata"] = _object_meta()
    return structural, {"$schema": "https://json-schema.org/draft/2020-12/schema", **translate(structural)}


def is_valid(doc: dict[str, Any], path: Entry, engine: str) -> bool:
    """The oracle's verdict (schema problems and unknown fields) for `doc` against reference file `path`."""
    structural, schema = _reference(path)
    instance = prune_nulls(doc, structural)
    return bool(_engine(path, engine).is_valid(instance))


@cache
def _engine(path: Entry, engine: str) -> Any:
    schema = _reference(path)[1]
    if engine == "jsonschema-rs":
        import jsonschema_rs

        return jsonschema_rs.Draft202012Validator(schema, validate_formats=False)
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema)
