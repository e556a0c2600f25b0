"""Validate plain-data documents against KubeVirt's real CRD schemas and its webhook rules.

Every KubeVirt object is judged against the schema its target release's API server applies
(transform.validate.crds; the API server's semantics in transform.validate.structural), plus the
webhook rules a schema cannot express (transform.validate.webhooks). ControllerRevisions are judged
against apps/v1's schema and their payloads as the objects they hold. Nothing heavy is imported or
read before the first KubeVirt document.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import functools
import re
from typing import Any

from transform.kubevirt import fields, releases
from transform.model.findings import Finding, Severity, error, format_path
from transform.model.plain import PayloadError, loads_json
from transform.validate import crds, objectmeta, webhooks
from transform.validate.schemas import load_schema
from transform.validate.structural import Node, Validator
from transform.validate.structural import show as _show

Release = tuple[int, int]
LATEST: Release = releases.LATEST
_BASE64 = re.compile(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$")
# The v0.56-v0.57 payload wrapper {apiVersion, spec: base64 of the JSON spec}: a Go struct, no CRD.
SPEC_REVISION: dict[str, Any] = {
    "type": "object",
    "properties": {"apiVersion": {"type": "string"}, "spec": {"type": "string", "pattern": _BASE64.pattern}},
    "required": ["apiVersion", "spec"],
}


@functools.cache
def _compiled(name: str) -> Validator:
    if name == "ControllerRevision":  # apps/v1, from Kubernetes' OpenAPI (scripts/bundle_schemas.py)
        return Validator(load_schema("apps_v1_controllerrevision.json"), objectmeta.node(), objectmeta.root_node())
    return Validator(SPEC_REVISION)


def preload(target: Release = LATEST) -> int:
    """Compile now the validators that the documents this tool upgrades are judged by at `target`:
    ControllerRevision, VirtualMachine, and every instancetype.kubevirt.io kind at every version. A run
    about to fork workers calls it, so that they inherit them instead of each compiling them again
    (about 8 ms a worker); a run without workers compiles only what its documents use. Returns how
    many schemas were compiled (each once per run: repeated calls cost lookups)."""
    _compiled("ControllerRevision")
    _compiled("SpecRevision")
    wanted = [("kubevirt.io/v1", "VirtualMachine")]
    wanted += [(f"{fields.GROUP}/{version}", kind) for version in fields.VERSIONS for kind in fields.KINDS]
    digests = {found[0] for api_version, kind in wanted if (found := crds.schema_for(api_version, kind, target))}
    for digest in sorted(digests):
        crds.compiled(digest)
    return len(digests)


def normalize(value: Any) -> Any:
    """YAML 1.1 safe-load data as JSON would carry it: timestamps -> strings, keys -> strings."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(k): normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def _unknown_hint(found: list[Finding], api_version: str, kind: str) -> list[Finding]:
    """An unknown field of an old instancetype.kubevirt.io object that the newest version has: say so."""
    newest = fields.VERSIONS[-1]
    latest = crds.schema_for(f"{fields.GROUP}/{newest}", kind, LATEST)
    if latest is None or api_version == f"{fields.GROUP}/{newest}":
        return found
    return [
        f.at(message=f"{f.message} (it exists in {newest}: upgrade the object)")
        if f.code == "schema.unknown-field" and crds.node_at(latest[0], f.path) is not None
        else f
        for f in found
    ]


def _kubevirt_document(obj: dict[str, Any], partial: bool, strict: bool, target: Release) -> list[Finding]:
    api_version, kind = str(obj["apiVersion"]), str(obj["kind"])
    out = crds.validate_object(obj, target, partial=partial, strict=strict) or []
    family = fields.family_of(kind)
    if api_version.startswith(f"{fields.GROUP}/") and family is not None:
        out = _unknown_hint(out, api_version, kind)
        rules = webhooks.RULES[family](obj)
        ranged = {f.path for f in rules if f.code == "webhook.overcommit-percent"}
        out = [f for f in out if not (f.path in ranged and f.code in ("schema.minimum", "schema.maximum"))]
        out += rules
    elif kind == "VirtualMachine":
        out += webhooks.virtual_machine_rules(obj)
    return _sorted(out)


def _sorted(found: list[Finding]) -> list[Finding]:
    return sorted(found, key=lambda f: (format_path(f.path), f.code, f.message))


def _looks_like_ours(obj: dict[str, Any]) -> bool:
    data = obj.get("data")
    if releases.payload_format(data) is not None:
        return True
    if isinstance(data, dict) and str(data.get("apiVersion", "")).startswith(f"{fields.GROUP}/"):
        return True
    metadata = obj.get("metadata")
    owners = metadata.get("ownerReferences") if isinstance(metadata, dict) else None
    return isinstance(owners, list) and any(
        isinstance(o, dict)
        and o.get("kind") == "VirtualMachine"
        and str(o.get("apiVersion", "")).startswith("kubevirt.io/")
        for o in owners
    )


def validate_document(
    obj: dict[str, Any], *, partial: bool = False, strict: bool = False, target: Release = LATEST
) -> list[Finding]:
    """Every problem of one document at the target release; [] for documents that are none of ours."""
    if not isinstance(obj, dict):
        return []
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return []
    group, _, version = api_version.rpartition("/")
    if group == fields.GROUP and fields.family_of(kind) is not None and version not in fields.VERSIONS:
        return [
            error(
                "schema.api-version",
                f"unknown apiVersion {api_version}: {fields.GROUP} has {', '.join(fields.VERSIONS)}",
                ("apiVersion",),
            )
        ]
    if api_version == "apps/v1" and kind == "ControllerRevision":
        obj = normalize(obj)
        unknown = Severity.ERROR if strict else Severity.WARNING
        out = _compiled("ControllerRevision").validate(obj, partial=partial, unknown=unknown)
        if isinstance(obj.get("data"), dict) and _looks_like_ours(obj):
            found = validate_payload(obj["data"], partial=partial, strict=strict, target=target)
            out += [f.at(path=("data", *f.path)) for f in found]
        return _sorted(out)
    if crds.crd_of(api_version, kind) is None:
        return []
    return _kubevirt_document(obj, partial, strict, target)


def validate_payload(
    data: dict[str, Any], *, partial: bool = False, strict: bool = False, target: Release = LATEST
) -> list[Finding]:
    """A ControllerRevision payload: a v1alpha1 SpecRevision wrapper or a whole instancetype object.

    `data` may also be a whole ControllerRevision (then its `data` is checked, paths from the CR root).
    """
    data = normalize(data)
    if not isinstance(data, dict):
        return [error("payload.unknown", f"ControllerRevision data is {_show(data)}, not a mapping")]
    if data.get("kind") == "ControllerRevision" and isinstance(data.get("data"), dict):
        return validate_document(data, partial=partial, strict=strict, target=target)
    if isinstance(data.get("spec"), str) or ("kind" not in data and set(data) <= {"apiVersion", "spec"}):
        return _wrapper(data, partial)
    kind = data.get("kind")
    api_version = data.get("apiVersion")
    if fields.family_of(str(kind)) is None or not str(api_version).startswith(f"{fields.GROUP}/"):
        return [
            error(
                "payload.unknown",
                "ControllerRevision data is neither a v1alpha1 SpecRevision wrapper ({apiVersion, spec}) "
                "nor an "
                f"{fields.GROUP} object (apiVersion {api_version!r}, kind {kind!r})",
            )
        ]
    return validate_document(data, partial=partial, strict=strict, target=target)


def _v1alpha1_spec(family: str) -> Node:
    kind = "VirtualMachinePreference" if family == "preference" else "VirtualMachineInstancetype"
    found = crds.schema_for(f"{fields.GROUP}/v1alpha1", kind, LATEST)
    assert found is not None and (node := crds.node_at(found[0], ("spec",))) is not None
    return node


def _wrapper(data: dict[str, Any], partial: bool) -> list[Finding]:
    out = _compiled("SpecRevision").validate(data, partial=partial, unknown=Severity.ERROR)
    if any(f.severity is Severity.ERROR and f.path[:1] == ("spec",) for f in out) or not isinstance(
        data.get("spec"), str
    ):
        return out
    try:
        spec = loads_json(base64.b64decode(data["spec"], validate=True))
    except PayloadError as exc:
        return [*out, error("payload.limit", f"decoded spec refused: {exc}", ("spec",))]
    except (binascii.Error, ValueError):
        return [*out, error("payload.spec-encoding", "spec is not base64-encoded JSON", ("spec",))]
    if not isinstance(spec, dict):
        return [
            *out,
            error("payload.spec-encoding", f"decoded spec is {_show(spec)}, not a mapping", ("spec",)),
        ]
    spec = normalize(spec)
    # KubeVirt tries the preference spec first, then the instancetype spec (strict decode, v1.3-v1.6).
    unknown: list[Finding] = []
    for family in ("preference", "instancetype"):
        validator = Validator.of(_v1alpha1_spec(family))
        found = validator.validate(spec, partial=partial, base=("spec",))
        unknown = [f for f in found if f.code == "schema.unknown-field"]
        if unknown:
            continue
        found += webhooks.RULES[family]({"spec": spec})  # paths already start with "spec"
        return out + [f.at(message=f"{f.message} (in the decoded {family} spec)") for f in _sorted(found)]
    return [
        *out,
        error(
            "payload.undecodable",
            "decoded spec is neither a v1alpha1 preference nor instancetype spec (unknown to instancetype: "
            + ", ".join(format_path(f.path[1:]) for f in unknown)
            + ")",
            ("spec",),
        ),
    ]


def validate_object(
    doc: dict[str, Any], target_release: Release = LATEST, *, partial: bool = False, strict: bool = False
) -> list[Finding]:
    """One KubeVirt object (any group and kind the bundled CRDs hold) at a target release.

    Schema findings (types, required fields, unknown fields as warnings or errors with `strict`,
    metadata rules) and KubeVirt's webhook rules; [] for an object of no KubeVirt CRD kind.
    """
    return validate_document(doc, partial=partial, strict=strict, target=target_release)


def with_target(found: list[Finding], target_found: list[Finding]) -> list[Finding]:
    """Schema findings plus the target's (transform.kubevirt.releases): one finding per unknown field.

    The target's schema already reports a field it does not know; the release table's finding at the
    same path only adds when the field was added, which goes into the schema finding's message.
    """
    unknown = {f.path: i for i, f in enumerate(found) if f.code == "schema.unknown-field"}
    out = list(found)
    for f in target_found:
        i = unknown.get(f.path)
        if f.code != "target.unknown-field" or i is None:
            out.append(f)
            continue
        added = re.search(r"\(added in [0-9.]+\)", f.message)
        if added:
            out[i] = out[i].at(message=f"{out[i].message} {added.group(0)}")
    return out
