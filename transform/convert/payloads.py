"""ControllerRevision payloads: recognise ours, and decode every format any release wrote.

KubeVirt v1.6's compatibility.Decode, on plain data: the v1alpha1 SpecRevision wrapper first
(strictly, preference before instancetype), then whole objects (leniently: fields the payload's
version does not have are dropped, and reported).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any

from transform import convert
from transform.kubevirt import fields
from transform.model.findings import Finding, info, warning
from transform.model.plain import PayloadError, as_map, loads_json

LABEL = "instancetype.kubevirt.io/"
NAMESPACED_KIND = {"instancetype": "VirtualMachineInstancetype", "preference": "VirtualMachinePreference"}


class RevisionError(Exception):
    def __init__(self, code: str, message: str, path: tuple[Any, ...] = ("data",)) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path


@dataclass
class Decoded:
    fmt: str  # "F1", "v1alpha1", "v1alpha2", "v1beta1" (or "flavor/v1alpha1")
    family: str
    kind: str
    obj: dict[str, Any]  # the payload as a plain object of its own version
    findings: list[Finding] = field(default_factory=list)


def owner(doc: dict[str, Any]) -> dict[str, Any] | None:
    meta = as_map(doc.get("metadata"))
    refs = meta.get("ownerReferences") or []
    refs = [r for r in refs if isinstance(r, dict)] if isinstance(refs, list) else []
    for r in refs:
        if r.get("controller") and r.get("kind") in ("VirtualMachine", "VirtualMachineSnapshot"):
            return r
    for r in refs:
        if r.get("kind") in ("VirtualMachine", "VirtualMachineSnapshot"):
            return r
    return None


def is_ours(doc: dict[str, Any]) -> bool:
    """Does this ControllerRevision snapshot an instancetype or preference?"""
    meta = as_map(doc.get("metadata"))
    labels = meta.get("labels") or {}
    if isinstance(labels, dict) and any(str(k).startswith(LABEL) for k in labels):
        return True
    data = doc.get("data")
    if isinstance(data, dict):
        api = data.get("apiVersion")
        if isinstance(api, str) and api.split("/")[0] in convert.GROUPS:
            return True
        if "spec" in data and isinstance(data["spec"], str) and set(data) <= {"apiVersion", "spec"}:
            return True
    o = owner(doc)
    return bool(o and str(o.get("apiVersion", "")).split("/")[0] in ("kubevirt.io", "snapshot.kubevirt.io"))


def _strict_spec(spec: dict[str, Any], family: str) -> bool:
    return not fields.unknown_fields(spec, family, "v1alpha1")


def decode(data: Any) -> Decoded:
    """compatibility.Decode of KubeVirt v1.6 (wrapper first, preference before instancetype)."""
    if data is None:
        raise RevisionError(
            "revision.no-data",
            "ControllerRevision has no data (KubeVirt's upgrade crashes on it): restore the revision "
            "from its source, or delete it and clear the VM's revisionName",
            ("data",),
        )
    if not isinstance(data, dict) or not data:
        raise RevisionError(
            "revision.kind-missing",
            "data is empty or not an object; KubeVirt fails with \"Object 'Kind' is missing\": "
            "restore the revision from its source, or delete it and clear the VM's revisionName",
        )
    if "spec" in data and set(data) <= {"apiVersion", "spec"} and isinstance(data["spec"], str):
        return _decode_wrapper(data)
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not kind:
        raise RevisionError(
            "revision.kind-missing",
            "payload is neither a v1alpha1 SpecRevision wrapper nor an object with a kind; KubeVirt "
            "fails with \"Object 'Kind' is missing\"",
        )
    if not isinstance(api_version, str) or "/" not in api_version:
        raise RevisionError("revision.bad-api-version", f"payload apiVersion {api_version!r} is not group/version")
    group, version = api_version.rsplit("/", 1)
    if group == "instancetype.kubevirt.io" and version in fields.VERSIONS:
        family = fields.family_of(str(kind))
        if family is None:
            raise RevisionError(
                "revision.unexpected-kind",
                f"payload kind {kind!r} is not an instancetype or preference (KubeVirt: unexpected type in "
                "ControllerRevision)",
                ("data", "kind"),
            )
        return _decode_object(data, family, version, str(kind))
    upgraded = convert.upgrade_kind(api_version, str(kind))
    if group == "flavor.kubevirt.io" and upgraded:
        family = fields.family_of(upgraded[1])
        if family:
            d = _decode_object(
                {**data, "apiVersion": "instancetype.kubevirt.io/v1alpha1", "kind": upgraded[1]},
                family,
                "v1alpha1",
                upgraded[1],
            )
            d.fmt = "flavor/v1alpha1"
            d.findings.append(
                info(
                    "revision.flavor",
                    "flavor.kubevirt.io payload (KubeVirt v0.55 and older) "
                    "converted to its instancetype.kubevirt.io kind; KubeVirt itself cannot read it",
                )
            )
            return d
    raise RevisionError(
        "revision.unknown-version",
        f"payload {api_version} {kind} is not a registered instancetype.kubevirt.io version or kind "
        "(KubeVirt: unexpected type in ControllerRevision)",
        ("data", "apiVersion"),
    )


def _decode_wrapper(data: dict[str, Any]) -> Decoded:
    raw = data["spec"]
    try:
        payload = base64.b64decode(re.sub(r"[\r\n]", "", raw), validate=True)
        spec = loads_json(payload)
    except PayloadError as exc:
        raise RevisionError(
            "revision.payload-limit",
            f"data.spec decodes to JSON the tool refuses: {exc}; KubeVirt cannot store such an object either",
            ("data", "spec"),
        ) from None
    except (binascii.Error, ValueError):
        raise RevisionError(
            "revision.bad-wrapper",
            "data.spec is not base64 of a JSON object (KubeVirt needs padded standard base64 and fails with "
            "\"Object 'Kind' is missing\"); restore the revision from its source",
            ("data", "spec"),
        ) from None
    if not isinstance(spec, dict):
        raise RevisionError("revision.bad-wrapper", "data.spec does not decode to a JSON object", ("data", "spec"))
    for family in ("preference", "instancetype"):
        if _strict_spec(spec, family):
            return Decoded("F1", family, NAMESPACED_KIND[family], {"spec": spec})
    raise RevisionError(
        "revision.bad-wrapper",
        "the wrapper's spec has fields that neither a v1alpha1 instancetype nor a preference has: "
        f"{', '.join(sorted(map(str, spec)))} (KubeVirt decodes it strictly and fails with "
        "\"Object 'Kind' is missing\")",
        ("data", "spec"),
    )


def _decode_object(data: dict[str, Any], family: str, version: str, kind: str) -> Decoded:
    spec = data.get("spec")
    if not isinstance(spec, dict):
        raise RevisionError("revision.no-spec", f"payload {kind} has no spec object", ("data", "spec"))
    pruned, dropped = fields.prune_unknown(spec, family, version)
    findings = [
        warning(
            "revision.dropped-field",
            f"field not in {version} dropped, as KubeVirt's decoder drops it; keep it by moving the object to "
            "v1beta1 at the source",
            ("data", "spec", *p),
        )
        for p in dropped
    ]
    return Decoded(version, family, kind, {**data, "spec": pruned}, findings)
