"""The one judge: what is wrong with a document, for its own version and for the target release.

`judge` returns a `model.policy.Judgement` (the document's own findings, its ControllerRevision payload's,
the target's); every command calls it (fix, check, diff and the verify step through transform.convert.document
and transform.pipeline.verify, validate through transform.pipeline.validate_files, scan through
transform.pipeline.inventory; backup and krm through the same engine) and chooses only the severity
(`model.policy.verdict`). Its facts come from data: what a release serves and reads
(transform.kubevirt.releases) and which fields it knows (the bundled CRD schemas, with the release that
added each field: transform.validate.crds.added_in).

One code per fact: `target.api-version` (not served: an instancetype or flavor object), `target.payload-format`
(a revision payload the release cannot decode), `target.unknown-field` (a field a later release added:
the target's API server drops it), `target.topology-value` (a preferredCPUTopology value the release does
not apply), `target.vm-flavor` (a VM's spec.flavor after v0.56). A field no release has is
`schema.unknown-field` (transform.validate.documents), never both; in a payload it is the decoder's
`revision.dropped-field`.
"""

from __future__ import annotations

from typing import Any

from transform.kubevirt import releases
from transform.model.findings import Finding, Severity, error
from transform.model.policy import Judgement
from transform.validate import crds, documents

Release = tuple[int, int]

FLAVOR_GROUP = "flavor.kubevirt.io"  # the instance types of KubeVirt before v0.56
_FLAVOR_UNTIL = releases.VM_FIELDS[("spec", "flavor")][1] or releases.LATEST


def payload_unreadable(data: Any, target: Release) -> Finding | None:
    """`target.payload-format` when the target's KubeVirt cannot decode this ControllerRevision payload."""
    if isinstance(data, dict) and str(data.get("apiVersion", "")).startswith(f"{FLAVOR_GROUP}/") and data.get("kind"):
        return error(
            "target.payload-format",
            "a whole flavor.kubevirt.io object: no KubeVirt release decodes it (no kind is registered for it)",
            ("data",),
        )
    fmt = releases.payload_format(data)
    if fmt is None or releases.reads_payload(target, fmt):
        return None
    return error(
        "target.payload-format",
        f"KubeVirt {releases.text(target)} cannot decode this ControllerRevision payload "
        f"({releases.FORMAT_TEXT[fmt]}); VMs using it fail with "
        "FailedFindInstancetype/FailedFindPreference: run `instancetype-upgrade fix`",
        ("data",),
    )


def target_findings(obj: dict[str, Any], release: Release | str, *, fields: bool = True) -> list[Finding]:
    """What the target release cannot take from `obj`: its apiVersion, payload, fields, topology values.

    `fields=False`: leave out the unknown fields that the target's schema reports (a caller that judges
    the document at the target already has them, dated by transform.validate.crds.dated); with them, a
    field no release has is `schema.unknown-field`, as `validate` says it."""
    target = releases.info(release).release
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    out: list[Finding] = []
    if kind == "ControllerRevision" and isinstance(obj.get("data"), dict):
        data = obj["data"]
        found = payload_unreadable(data, target)
        if found is not None:
            out.append(found)
        if releases.payload_format(data) in releases.VERSIONS:
            # a payload version the target does not serve is said once, by target.payload-format; a field no
            # release has is the decoder's fact (revision.dropped-field), never a CRD schema's
            skip = ("target.api-version", "schema.unknown-field")
            inner = [f for f in target_findings(data, target, fields=fields) if f.code not in skip]
            out.extend(f.at(path=("data", *f.path)) for f in inner)
        return out
    if kind == "VirtualMachine" and isinstance(api_version, str) and api_version.startswith("kubevirt.io/"):
        out += _vm_fields(obj, target)
        if fields:
            out += _unknown_at(obj, api_version, kind, target)
        return out
    if isinstance(api_version, str) and api_version.startswith(f"{FLAVOR_GROUP}/"):
        if releases.serves(target, api_version):
            return out
        return [
            error(
                "target.api-version",
                f"KubeVirt {releases.text(target)} does not serve {api_version} (renamed "
                "instancetype.kubevirt.io in v0.56): run fix to upgrade it",
                ("apiVersion",),
            )
        ]
    family = releases.family_of(kind) if isinstance(kind, str) else None
    if family is None or not isinstance(api_version, str) or not api_version.startswith(f"{releases.GROUP}/"):
        return out
    info = releases.info(target)
    if api_version not in info.served:
        out.append(
            error(
                "target.api-version",
                f"KubeVirt {releases.text(target)} does not serve {api_version}: the API server rejects {kind} "
                "objects of this version",
                ("apiVersion",),
            )
        )
    spec = obj.get("spec")
    if info.schema_version is None or not isinstance(spec, dict):
        return out
    if fields:
        newest = f"{releases.GROUP}/{info.schema_version}"
        out += _unknown_at({**obj, "apiVersion": newest}, newest, kind, target)
    if family == "preference" and isinstance(spec.get("cpu"), dict):
        found = _topology(spec["cpu"].get("preferredCPUTopology"), info, ("spec", "cpu", "preferredCPUTopology"))
        if found is not None:
            out.append(found)
    return out


# Where a VirtualMachine's unknown fields concern instance types (scan says them; the rest of a VM is
# `validate`'s business unless a later release has the field).
_VM_PARTS = (
    ("spec", "instancetype"),
    ("spec", "preference"),
    ("status", "instancetypeRef"),
    ("status", "preferenceRef"),
)


def _unknown_at(obj: dict[str, Any], api_version: str, kind: Any, target: Release) -> list[Finding]:
    """The fields of `obj` the target's API server drops: `target.unknown-field` when a later release has
    the field, `schema.unknown-field` when none does (for a VM, only in its instance type references)."""
    found = crds.dated(crds.validate_object(obj, target, partial=True) or [], api_version, kind, target)
    return [
        f
        for f in found
        if f.code == "target.unknown-field"
        or (f.code == "schema.unknown-field" and (kind != "VirtualMachine" or f.path[:2] in _VM_PARTS))
    ]


def _vm_fields(obj: dict[str, Any], target: Release) -> list[Finding]:
    """VirtualMachine fields older than the bundled schemas (transform.kubevirt.releases.VM_FIELDS)."""
    out = []
    for path, (since, until) in releases.VM_FIELDS.items():
        value: Any = obj
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        if value is None:
            continue
        if until is not None and target >= until and path == ("spec", "flavor"):
            out.append(vm_flavor(target, until))
        elif until is None and target < since:
            out.append(crds.unknown_field(path, target, since, Severity.WARNING))
    return out


def vm_flavor(target: Release, until: Release, severity: Severity = Severity.ERROR) -> Finding:
    """`target.vm-flavor`: a VM's spec.flavor on a release after the flavor era (renamed, not a typo)."""
    return Finding(
        severity,
        "target.vm-flavor",
        f"spec.flavor is unknown to KubeVirt {releases.text(target)} (renamed spec.instancetype in "
        f"v{releases.text(until)}): run fix to rename it",
        path=("spec", "flavor"),
    )


def _topology(value: Any, target: releases.ReleaseInfo, path: tuple[Any, ...]) -> Finding | None:
    """A preferredCPUTopology value a later release added (a release before preferences judges none; a
    value no release knows is the webhook's fact, webhook.cpu-topology)."""
    since = releases.topology_since(value) if isinstance(value, str) else None
    if since is None or value in target.topologies or not target.topologies:
        return None
    rel, added = releases.text(target.release), releases.text(since)
    old = next((old for old, new in releases.TOPOLOGY_RENAMES.items() if new == value), None)
    if old is not None:  # the current spelling of a value the target knows by its deprecated one
        hint = f"; use {old!r} for this target" if old in target.topologies else ""
        before = releases.text(max(r for r in releases.RELEASES if r < since))
        return error(
            "target.topology-value",
            f"preferredCPUTopology {value!r} is unknown to KubeVirt {rel} (added in {added}): a KubeVirt "
            f"<={before} cluster silently gives the VM 1 vCPU socket/core/thread{hint}",
            path,
        )
    return error(
        "target.topology-value",
        f"preferredCPUTopology {value!r} is unknown to KubeVirt {rel} (added in {added}): "
        "the VM silently gets 1 vCPU socket/core/thread",
        path,
    )


def judge(
    obj: dict[str, Any],
    release: Release,
    *,
    strict: bool = False,
    partial: bool = False,
    target_cdi: Release | None = None,
    own: bool = True,
) -> Judgement:
    """Everything wrong with one document, for its own version and for the target, one finding per fact
    (transform.model.policy.Judgement): the schema and webhook findings (transform.validate.documents), a
    ControllerRevision's payload as KubeVirt's decoder reads it (transform.validate.decoding) and the
    target's. Commands choose only the severity (transform.model.policy.verdict). `own=False`: the
    target's findings only (`scan`), with the fields the target drops judged here, and the interface
    bindings the target refuses on creation (otherwise among the document's own findings)."""
    if not own:
        return Judgement(target=target_findings(obj, release) + documents.refused_bindings(obj, release))
    cdi = {} if target_cdi is None else {"target_cdi": target_cdi}
    found = documents.validate_document(obj, partial=partial, strict=strict, target=release, **cdi)
    on_target = target_findings(obj, release, fields=False)
    if obj.get("kind") != "ControllerRevision" or not str(obj.get("apiVersion", "")).startswith("apps/"):
        renamed = {f.path for f in on_target if f.code == "target.vm-flavor"}
        if renamed:  # a field an earlier release had under another name: the target's fact, not a typo
            found = [
                vm_flavor(release, _FLAVOR_UNTIL, f.severity)
                if f.code == "schema.unknown-field" and f.path in renamed
                else f
                for f in found
            ]
        return Judgement(own=found, target=on_target)
    judged = Judgement(
        own=[f for f in found if f.path[:1] != ("data",)],
        payload=[f for f in found if f.path[:1] == ("data",)],
        target=on_target,
    )
    if not documents.judges_payload(obj):  # (no data, or none that looks like ours: the decoder says why)
        judged.payload += [f.at(path=("data", *f.path)) for f in documents.validate_payload(obj.get("data"))]
    if any(f.severity is Severity.ERROR and f.code.startswith("revision.") for f in judged.payload):
        # KubeVirt's decoder cannot read it at all: "this release cannot decode the format, run fix" would be a
        # second word for it, and a wrong one (fix cannot upgrade it either)
        judged.target = [f for f in judged.target if f.code != "target.payload-format"]
    return judged
