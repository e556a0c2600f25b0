"""apiVersion-only upgrades: every KubeVirt and CDI group whose versions share one JSON shape.

The table (transform.kubevirt.apis) says where an object goes on the targets; this module turns
that into the new apiVersion and findings, on plain data. Finding codes start with the row's
family (`export.upgraded`, `cdi.no-replacement`, `core.legacy`), so `--select export` picks them.

    apiVersion: export.kubevirt.io/v1alpha1  -->  apiVersion: export.kubevirt.io/v1   (target >= 1.9)
                                                   apiVersion: export.kubevirt.io/v1beta1 (1.3-1.8)

References that carry a version are rewritten with the same rule: `metadata.ownerReferences[]`
(by the owner's kind), an autoscaler's scale target (`spec.scaleTargetRef`, `spec.targetRef`) and a
VM's `spec.dataVolumeTemplates[]` (a documented no-op, for consistency). `managedFields` entries
and `status` strings naming an old version are reported and, with `drop_server_fields`, removed:
the API server owns them and writes them anew.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from transform.kubevirt import apis, releasefacts
from transform.model.findings import Finding, error, info, warning

Path = tuple[Any, ...]

ACTION_VERBS = {
    "VirtualMachineRestore": "restore",
    "VirtualMachineClone": "clone",
    "VirtualMachineExport": "export",
}
PRESET_KIND = "VirtualMachineInstancePreset"


def _preset_deprecated() -> apis.Release:
    """The table's kubevirt.io/v1 VirtualMachineInstancePreset row (crds.go NewPresetCrd: Deprecated: true)."""
    row = apis.find("kubevirt.io/v1", PRESET_KIND)
    if row is None or row.deprecated is None:
        raise RuntimeError("the API table has no deprecated kubevirt.io/v1 VirtualMachineInstancePreset row")
    return row.deprecated


PRESET_DEPRECATED: apis.Release = _preset_deprecated()
RUNNING_DEPRECATED: apis.Release = releasefacts.RUNNING_DEPRECATED  # VirtualMachine spec.running


def since(api: apis.Api, release: apis.Release | None) -> str:
    return f"{api.product} {release[0]}.{release[1]}" if release else "?"


def state_text(api: apis.Api, state: str) -> str:
    return {
        "deprecated": f"deprecated since {since(api, api.deprecated)}",
        "removed": f"removed in {since(api, api.removed)}",
        "unserved": f"not served since {since(api, api.unserved)}",
        "not-yet": f"served from {since(api, api.served)}",
    }.get(state, "served")


def object_rule(api_version: str, kind: str, targets: apis.Targets) -> tuple[str | None, str, list[Finding]] | None:
    """(new apiVersion or None to keep, new kind, findings) for a whole object; None: not a table group."""
    d = apis.decide(api_version, kind, targets)
    if d is None:
        return None
    fam, api = d.api.family, d.api
    where = ("apiVersion",)
    found: list[Finding] = []
    if d.status == "legacy":
        return None, kind, [error(f"{fam}.legacy", f"{api_version} cannot be upgraded: {api.legacy}", where)]
    if kind == PRESET_KIND and targets.kubevirt >= PRESET_DEPRECATED:
        found.append(
            warning(
                f"{fam}.preset-deprecated",
                f"VirtualMachineInstancePreset is deprecated (since KubeVirt {'.'.join(map(str, PRESET_DEPRECATED))}, "
                "for removal in kubevirt.io/v2) "
                "and has no mechanical replacement: move its settings to an instancetype and a preference",
                ("kind",),
            )
        )
    if d.status == "kept" or d.to is None:
        on = targets.text(api)
        state = apis.status(api, targets.of(api))
        newer = next(apis.later(api), None)
        if d.blocked_by is not None or (state in ("removed", "unserved") and newer is None):
            repl = d.blocked_by
            how = (
                f"its replacement {repl.api_version} is {state_text(repl, 'not-yet')}: raise the target "
                f"or upgrade the cluster first"
                if repl is not None
                else "and nothing replaces it"
            )
            code = f"{fam}.no-replacement" if repl is not None else f"{fam}.removed"
            found.append(error(code, f"{on}: {api_version} is {state_text(api, state)}; {how}", where))
        elif state == "not-yet":
            found.append(
                warning(
                    f"{fam}.not-served", f"{on} does not serve {api_version} yet (from {since(api, api.served)})", where
                )
            )
        elif state == "deprecated" and kind != PRESET_KIND:  # a preset: said by preset-deprecated above
            found.append(warning(f"{fam}.deprecated", f"{api_version} is {state_text(api, state)}", where))
        elif newer is not None and d.status != "kept":
            found.append(
                info(
                    f"{fam}.replacement-not-served",
                    f"left at {api_version}: its replacement {newer.api_version} is served from "
                    f"{since(newer, newer.served)} and the target is {on}",
                    where,
                )
            )
        return None, kind, found
    new_kind = apis.renamed_kind(api, kind, d.to)
    state = apis.status(api, targets.of(api))
    note = f" ({state_text(api, state)})" if state != "served" else ""
    found.append(info(f"{fam}.upgraded", f"upgraded {api_version} -> {d.to.api_version}{note}", where))
    if kind in api.actions:
        verb = ACTION_VERBS.get(kind, "action")
        found.append(
            warning(
                f"{fam}.action",
                f"a {kind} is an action: creating it again (kubectl apply, a Velero restore) runs the {verb} again; "
                "keep it out of what you apply unless that is what you want",
                ("kind",),
            )
        )
    return d.to.api_version, new_kind, found


def reference_rule(api_version: Any, kind: Any, targets: apis.Targets) -> tuple[str | None, apis.Decision | None]:
    """The apiVersion a reference (`ownerReferences[]`, a TypeMeta) should name, or None to keep it."""
    if not isinstance(api_version, str) or apis.group_of(api_version) is None:
        return None, None
    d = apis.decide(api_version, kind if isinstance(kind, str) else "", targets)
    if d is None or d.to is None or d.to.group != d.api.group:
        return None, d
    return d.to.api_version, d


def owner_references(obj: dict[str, Any], targets: apis.Targets) -> tuple[list[tuple[Path, str]], list[Finding]]:
    """(path, new apiVersion) for every owner reference of a known group naming an old version."""
    meta = obj.get("metadata")
    refs = meta.get("ownerReferences") if isinstance(meta, dict) else None
    if not isinstance(refs, list):
        return [], []
    edits: list[tuple[Path, str]] = []
    found: list[Finding] = []
    for i, ref in enumerate(refs):
        if isinstance(ref, dict):
            _reference(
                ref, ("metadata", "ownerReferences", i), "owner-reference", "owner reference", targets, edits, found
            )
    return edits, found


# Where an object other than an owner names another by apiVersion and kind (a CrossVersionObjectReference):
# the workload an autoscaler scales (HPA and KEDA ScaledObject `spec.scaleTargetRef`, VPA `spec.targetRef`).
# An HPA on a VirtualMachinePool or a VirtualMachineInstanceReplicaSet names the version like an owner does.
TARGET_REFS: tuple[Path, ...] = (("spec", "scaleTargetRef"), ("spec", "targetRef"))


def target_references(obj: dict[str, Any], targets: apis.Targets) -> tuple[list[tuple[Path, str]], list[Finding]]:
    """(path, new apiVersion) for a scale target (`TARGET_REFS`) of a known group naming an old version."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return [], []
    edits: list[tuple[Path, str]] = []
    found: list[Finding] = []
    for path in TARGET_REFS:
        ref = spec.get(path[1])
        if isinstance(ref, dict) and "apiVersion" in ref:
            _reference(ref, path, "reference", "scale target", targets, edits, found)
    return edits, found


def _reference(
    ref: dict[str, Any],
    base: Path,
    code: str,
    what: str,
    targets: apis.Targets,
    edits: list[tuple[Path, str]],
    found: list[Finding],
) -> None:
    path = (*base, "apiVersion")
    new, d = reference_rule(ref.get("apiVersion"), ref.get("kind"), targets)
    if new is not None and d is not None:
        edits.append((path, new))
        found.append(
            info(
                f"{d.api.family}.{code}",
                f"{what} {ref.get('kind')}/{ref.get('name')}: {ref['apiVersion']} -> {new}",
                path,
            )
        )
    elif d is not None and d.status == "legacy":
        found.append(
            warning(
                f"{d.api.family}.legacy",
                f"{what} names {ref.get('apiVersion')}, which cannot be upgraded: {d.api.legacy}",
                path,
            )
        )


def data_volume_templates(spec: Any, base: Path, targets: apis.Targets) -> tuple[list[tuple[Path, str]], list[Finding]]:
    """VM (or pool template) `spec.dataVolumeTemplates[].apiVersion`: KubeVirt ignores it (a no-op
    TypeMeta kept for compatibility); rewritten for consistency with standalone DataVolumes."""
    dvts = spec.get("dataVolumeTemplates") if isinstance(spec, dict) else None
    if not isinstance(dvts, list):
        return [], []
    edits: list[tuple[Path, str]] = []
    found: list[Finding] = []
    for i, dvt in enumerate(dvts):
        if not isinstance(dvt, dict):
            continue
        path = (*base, "dataVolumeTemplates", i, "apiVersion")
        new, d = reference_rule(dvt.get("apiVersion"), dvt.get("kind") or "DataVolume", targets)
        if new is not None and d is not None:
            edits.append((path, new))
            found.append(
                info(
                    f"{d.api.family}.upgraded",
                    f"dataVolumeTemplate {dvt['apiVersion']} -> {new} (KubeVirt ignores this field; "
                    "rewritten for consistency)",
                    path,
                )
            )
    return edits, found


@functools.cache  # once per run, not once per object (it was a fifth of a tree's check)
def _old_names(targets: apis.Targets) -> tuple[tuple[str, apis.Api], ...]:
    out = []
    for api in apis.TABLE:
        d = apis.decide(api.api_version, api.kinds[0] if api.kinds else "", targets)
        if d is not None and (d.to is not None or d.status in ("removed", "unserved", "legacy")):
            out.append((api.api_version, api))
    return tuple(out)


def preload(targets: apis.Targets) -> None:
    """The old API names of `targets` now, for a run about to fork workers."""
    _old_names(targets)


def _strings(value: Any, path: Path) -> Iterator[tuple[Path, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, (*path, i))


def _names(text: str, old: tuple[tuple[str, apis.Api], ...]) -> apis.Api | None:
    for name, api in old:
        at = text.find(name)
        while at >= 0:
            end = at + len(name)
            if (at == 0 or not (text[at - 1].isalnum() or text[at - 1] in ".-")) and (
                end == len(text) or not (text[end].isalnum())
            ):
                return api
            at = text.find(name, end)
    return None


def server_fields(obj: dict[str, Any], targets: apis.Targets, drop: bool) -> tuple[list[Path], list[Finding]]:
    """`metadata.managedFields` and `status` naming an old version: reported; the paths to delete
    when `drop` (both are written by the API server, which writes them anew)."""
    old = _old_names(targets)
    deletes: list[Path] = []
    found: list[Finding] = []
    meta = obj.get("metadata")
    managed = meta.get("managedFields") if isinstance(meta, dict) else None
    if isinstance(managed, list):
        hits = [
            (i, api)
            for i, e in enumerate(managed)
            if isinstance(e, dict) and isinstance(e.get("apiVersion"), str) and (api := _names(e["apiVersion"], old))
        ]
        if hits:
            path = ("metadata", "managedFields")
            names = ", ".join(sorted({str(managed[i]["apiVersion"]) for i, _ in hits}))
            fam = hits[0][1].family
            if drop:
                deletes.append(path)
                found.append(
                    info(f"{fam}.managed-fields", f"managedFields naming {names} removed (server-owned)", path)
                )
            else:
                found.append(
                    info(
                        f"{fam}.managed-fields",
                        f"managedFields entries name {names}; the API server owns them (--drop-server-fields "
                        "removes them; kubectl apply ignores them otherwise)",
                        path,
                    )
                )
    status = obj.get("status")
    if isinstance(status, dict):
        for path, text in _strings(status, ("status",)):
            api = _names(text, old)
            if api is None:
                continue
            if drop:
                deletes.append(("status",))
                found.append(
                    info(f"{api.family}.status", f"status naming {api.api_version} removed (server-owned)", ("status",))
                )
            else:
                found.append(
                    info(
                        f"{api.family}.status",
                        f"status names {api.api_version} (stale after the upgrade; the controller writes it anew; "
                        "--drop-server-fields removes it)",
                        path,
                    )
                )
            break
    return deletes, found
