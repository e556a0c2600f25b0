"""Validate plain-data documents against KubeVirt's real CRD schemas and its webhook rules.

Every KubeVirt object is judged against the schema its target release's API server applies
(transform.validate.crds; the API server's semantics in transform.validate.structural), plus the
webhook rules a schema cannot express (transform.validate.webhooks). ControllerRevisions are judged
against apps/v1's schema, and their payloads as KubeVirt's Go decoder reads them
(transform.validate.decoding), never against a CRD schema: the API server does not look at `data`.
Nothing heavy is imported or read before the first KubeVirt document.
"""

from __future__ import annotations

import datetime
import functools
from typing import Any

from transform.kubevirt import releases
from transform.model.findings import Finding, Severity, error, format_path
from transform.validate import crds, decoding, gorange, objectmeta, webhooks
from transform.validate.schemas import load_schema
from transform.validate.structural import Validator

Release = tuple[int, int]
LATEST: Release = releases.LATEST


@functools.cache
def _compiled(name: str) -> Validator:
    assert name == "ControllerRevision", name  # apps/v1, from Kubernetes' OpenAPI (scripts/bundle_schemas.py)
    return Validator(load_schema("apps_v1_controllerrevision.json"), objectmeta.node(), objectmeta.root_node())


def preload(target: Release = LATEST) -> int:
    """Compile now the validators that the documents this tool upgrades are judged by at `target`:
    ControllerRevision, VirtualMachine, and every instancetype.kubevirt.io kind at every version. A run
    about to fork workers calls it, so that they inherit them instead of each compiling them again
    (about 8 ms a worker); a run without workers compiles only what its documents use. Returns how
    many schemas were compiled (each once per run: repeated calls cost lookups)."""
    _compiled("ControllerRevision")
    wanted = [("kubevirt.io/v1", "VirtualMachine")]
    wanted += [(f"{releases.GROUP}/{version}", kind) for version in releases.VERSIONS for kind in releases.KINDS]
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
    newest = releases.VERSIONS[-1]
    latest = crds.schema_for(f"{releases.GROUP}/{newest}", kind, LATEST)
    if latest is None or api_version == f"{releases.GROUP}/{newest}":
        return found
    return [
        f.at(message=f"{f.message} (it exists in {newest}: upgrade the object)")
        if f.code == "schema.unknown-field" and crds.node_at(latest[0], f.path) is not None
        else f
        for f in found
    ]


def _kubevirt_document(
    obj: dict[str, Any], partial: bool, strict: bool, target: Release, target_cdi: Release | None = None
) -> list[Finding]:
    api_version, kind = str(obj["apiVersion"]), str(obj["kind"])
    out = crds.dated(
        crds.validate_object(obj, target, partial=partial, strict=strict, target_cdi=target_cdi) or [],
        api_version,
        kind,
        target,
        target_cdi,
    )
    family = releases.family_of(kind)
    if api_version.startswith(f"{releases.GROUP}/") and family is not None:
        out = _unknown_hint(out, api_version, kind)
        rules = webhooks.RULES[family](obj, target)
        ranged = {f.path for f in rules if f.code == "webhook.overcommit-percent"}
        out = [f for f in out if not (f.path in ranged and f.code in ("schema.minimum", "schema.maximum"))]
        out += rules + gorange.go_range(obj)
    elif kind == "VirtualMachine":
        out += webhooks.virtual_machine_rules(obj)
    out += refused_bindings(obj, target)
    return _sorted(out)


def refused_bindings(obj: dict[str, Any], target: Release) -> list[Finding]:
    """The interface bindings KubeVirt `target` refuses on creation (`webhook.discontinued-binding`): part of
    the document's own findings, and the whole of what `scan` asks of the webhooks (transform.validate.target)."""
    if not str(obj.get("apiVersion")).startswith(("kubevirt.io/", "pool.kubevirt.io/")):
        return []
    return webhooks.discontinued_bindings(obj, target)


def _sorted(found: list[Finding]) -> list[Finding]:
    return sorted(found, key=lambda f: (format_path(f.path), f.code, f.message))


def _looks_like_ours(obj: dict[str, Any]) -> bool:
    data = obj.get("data")
    if releases.payload_format(data) is not None:
        return True
    if isinstance(data, dict) and str(data.get("apiVersion", "")).startswith(f"{releases.GROUP}/"):
        return True
    metadata = obj.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    if isinstance(labels, dict) and any(str(k).startswith(f"{releases.GROUP}/") for k in labels):
        return True
    owners = metadata.get("ownerReferences") if isinstance(metadata, dict) else None
    return isinstance(owners, list) and any(
        isinstance(o, dict)
        and o.get("kind") == "VirtualMachine"
        and str(o.get("apiVersion", "")).startswith("kubevirt.io/")
        for o in owners
    )


def judges_payload(obj: dict[str, Any]) -> bool:
    """Does `validate_document` judge this ControllerRevision's payload too?"""
    return isinstance(obj.get("data"), dict) and _looks_like_ours(obj)


def validate_document(
    obj: dict[str, Any],
    *,
    partial: bool = False,
    strict: bool = False,
    target: Release = LATEST,
    target_cdi: Release | None = None,
) -> list[Finding]:
    """Every problem of one document at the target releases (CDI's: default the newest bundled); [] for
    documents that are none of ours."""
    if not isinstance(obj, dict):
        return []
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return []
    group, _, version = api_version.rpartition("/")
    if group == releases.GROUP and releases.family_of(kind) is not None and version not in releases.VERSIONS:
        return [
            error(
                "schema.api-version",
                f"unknown apiVersion {api_version}: {releases.GROUP} has {', '.join(releases.VERSIONS)}",
                ("apiVersion",),
            )
        ]
    if api_version == "apps/v1" and kind == "ControllerRevision":
        obj = normalize(obj)
        unknown = Severity.ERROR if strict else Severity.WARNING
        out = _compiled("ControllerRevision").validate(obj, partial=partial, unknown=unknown)
        if judges_payload(obj):
            labels = obj.get("metadata", {}).get("labels") if isinstance(obj.get("metadata"), dict) else None
            label = labels.get(decoding.VERSION_LABEL) if isinstance(labels, dict) else None
            found = validate_payload(obj["data"], partial=partial, strict=strict, target=target, label=label)
            out += [f.at(path=("data", *f.path)) for f in found]
        return _sorted(out)
    if crds.crd_of(api_version, kind) is None and crds.cdi_schema_for(api_version, kind) is None:
        return []
    return _kubevirt_document(obj, partial, strict, target, target_cdi)


def validate_payload(
    data: Any, *, partial: bool = False, strict: bool = False, target: Release = LATEST, label: Any = None
) -> list[Finding]:
    """A ControllerRevision payload, judged as KubeVirt's decoder reads it (transform.validate.decoding):
    the API server stores `data` without looking at it, so no CRD schema applies; what decides is whether
    KubeVirt v1.6's Go decoder reads it (an error when it does not) and what it drops or leaves at zero.
    Paths are relative to `data`.

    `data` may also be a whole ControllerRevision (then its `data` is checked, paths from the CR root);
    `label`: the revision's object-version label (KubeVirt skips a revision labelled with the version it writes).
    """
    data = normalize(data)
    if isinstance(data, dict) and data.get("kind") == "ControllerRevision" and isinstance(data.get("data"), dict):
        return validate_document(data, partial=partial, strict=strict, target=target)
    try:
        decoded = decoding.decode(data)
    except decoding.RevisionError as exc:
        if label is not None and label == decoding.written_version():
            exc = decoding.skipped_by_label(exc, label)
        return [error(exc.code, exc.message, exc.path[1:])]
    return [f.at(path=f.path[1:]) for f in decoded.findings]


def validate_object(
    doc: dict[str, Any], target_release: Release = LATEST, *, partial: bool = False, strict: bool = False
) -> list[Finding]:
    """One KubeVirt object (any group and kind the bundled CRDs hold) at a target release.

    Schema findings (types, required fields, unknown fields as warnings or errors with `strict`,
    metadata rules) and KubeVirt's webhook rules; [] for an object of no KubeVirt CRD kind.
    """
    return validate_document(doc, partial=partial, strict=strict, target=target_release)
