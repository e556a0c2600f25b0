"""Kustomizations that still name old instancetype API versions in their patches.

kustomize matches a patch to resources by `target` (group/version/kind/name); once the
resources are upgraded to v1beta1, a target that still says `version: v1alpha2` silently
matches nothing, and the patch is dropped without an error. Inline patches are parsed as
YAML and only their own apiVersion/kind change (transform.formats.kustomize.inline). This
module rewrites both, on plain data; the engine turns the change into text edits. Patches
kept in files (`path:`) are documents upgraded as such, read as partial objects (a
`Kustomization` and a `Component` list them alike: transform.convert.index).

    patches:                                    patches:
    - target:                                   - target:
        group: instancetype.kubevirt.io             group: instancetype.kubevirt.io
        version: v1alpha2               -->         version: v1beta1
        kind: VirtualMachineInstancetype            kind: VirtualMachineInstancetype
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from transform.convert import GROUPS, LATEST, apiversion, upgrade_kind
from transform.kubevirt import apis
from transform.model.findings import Finding, error, info, warning

if TYPE_CHECKING:
    from transform.convert.outcome import Outcome

Path = tuple[Any, ...]

NEW_GROUP, _, NEW_VERSION = LATEST.partition("/")
FLAVOR_GROUP = "flavor.kubevirt.io"
FLAVOR_KINDS = apis.FLAVOR_KINDS
# Kinds a target may name without a group (kustomize then matches any group).
OUR_KINDS = frozenset({*apis.INSTANCETYPE_KINDS, *FLAVOR_KINDS})


def _kind_groups() -> dict[str, str]:
    """Kinds of the other table groups that belong to exactly one group (a group-less target)."""
    seen: dict[str, set[str]] = {}
    for row in apis.TABLE:
        if not row.legacy and row.group not in GROUPS:
            for kind in row.kinds:
                seen.setdefault(kind, set()).add(row.group)
    return {k: next(iter(g)) for k, g in seen.items() if len(g) == 1}


KIND_GROUPS = _kind_groups()


KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def is_kustomization_file(name: str) -> bool:
    """kustomize finds kustomizations by file name; they may carry no apiVersion and kind."""
    return name.replace("\\", "/").rsplit("/", 1)[-1] in KUSTOMIZATION_FILES


def upgrade_kustomization(
    obj: dict[str, Any], targets: apis.Targets | None = None, *, partial: bool = False, remote: bool = False
) -> tuple[dict[str, Any], list[Finding]] | None:
    """The kustomization with its instancetype patch targets and inline patches upgraded.

    None when nothing names an old version. Every change is reported as an info finding
    located at the changed field. `partial`: some resource of the kustomization is not among the
    inputs (and may stay at the old version for now), so a target must match both versions: its
    `version` is dropped (kustomize then matches any version of the group and kind) rather than
    upgraded; a target that would change group or kind (flavor) is left as it is, with a warning.
    `remote`: a resource of the kustomization is remote (it stays at its version): a strategic-merge
    patch without target, matched by group/version/kind, keeps its version too.
    """
    # lazy: start-up: the parsing stack (pipeline reads is_kustomization_file from here)
    from transform.formats.kustomize import inline

    targets = targets or apis.Targets(apis.LATEST_KUBEVIRT)
    new = copy.deepcopy(obj)
    findings: list[Finding] = [
        error(
            "kustomize.not-a-list",
            f"{key} is a {type(obj[key]).__name__}, not a list: kustomize refuses this kustomization; "
            "write a list of patches",
            (key,),
        )
        for key in ("patches", "patchesJson6902", "patchesStrategicMerge")
        if obj.get(key) is not None and not isinstance(obj[key], list)
    ]
    for key in ("patches", "patchesJson6902"):
        entries = new.get(key)
        if not isinstance(entries, list):
            continue
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict):
                continue
            targeted = isinstance(entry.get("target"), dict) and bool(entry["target"])
            if targeted:
                findings += _target(entry["target"], (key, i, "target"), targets, partial)
            if isinstance(entry.get("patch"), str):
                where = inline.Patch((key, i, "patch"), targeted, remote)
                entry["patch"], found = inline.upgrade_inline(entry["patch"], where, targets)
                findings += found
    entries = new.get("patchesStrategicMerge")
    if isinstance(entries, list):
        for i, entry in enumerate(entries):
            if isinstance(entry, str) and "\n" in entry:  # inline YAML, not a file name
                where = inline.Patch(("patchesStrategicMerge", i), False, remote)
                entries[i], found = inline.upgrade_inline(entry, where, targets)
                findings += found
    if not findings:
        return None
    return new, findings


def json6902_file(out: Outcome, ops: list[Any], targets: apis.Targets) -> None:
    """A JSON6902 patch file that a kustomization lists: its ops' whole-object values."""
    # lazy: start-up: the parsing stack (pipeline reads is_kustomization_file from here)
    from transform.formats.kustomize import inline

    inline.upgrade_ops(out, ops, targets)


def pinned_patch(api: str, kind: str, targets: apis.Targets) -> list[Finding]:
    """A patch file without `target` of a kustomization with a remote resource: kept at its version (the
    resource it patches stays at its own), said when the rules would move it."""
    # lazy: start-up: the parsing stack (pipeline reads is_kustomization_file from here)
    from transform.formats.kustomize import inline

    rule = inline.object_gvk(api, kind, targets, targeted=False)
    if rule is None or rule[:2] == (api, kind):
        return rule[2] if rule is not None else []
    message = (
        f"patch {api} {kind} left as it is: a patch without `target` matches its resource by group, version "
        "and kind, and a resource of its kustomization is remote (it stays at its version); give the patch a "
        "target to have it upgraded"
    )
    return [warning("kustomize.partial-tree", message, ("apiVersion",))]


def _target(target: dict[str, Any], path: Path, targets: apis.Targets, partial: bool = False) -> list[Finding]:
    group, version, kind = target.get("group"), target.get("version"), target.get("kind")
    if not isinstance(version, str):
        return _flavor_kind(target, group, kind, path, partial)
    if group is None and isinstance(kind, str) and kind in KIND_GROUPS:
        return _other_target(target, KIND_GROUPS[kind], version, kind, path, targets, partial)
    if isinstance(group, str) and group in apis.GROUPS and group not in GROUPS:
        return _other_target(target, group, version, kind, path, targets, partial)
    if group is None and isinstance(kind, str) and kind in OUR_KINDS:
        group = FLAVOR_GROUP if kind in FLAVOR_KINDS else NEW_GROUP
        explicit = False
    elif isinstance(group, str) and group in GROUPS:
        explicit = True
    else:
        return []
    up = upgrade_kind(f"{group}/{version}", kind if isinstance(kind, str) else "")
    if up is None or up[0] == f"{group}/{version}":
        return []  # already v1beta1, or a version this tool does not know (not ours to guess)
    found: list[Finding] = []
    new_group, _, new_version = up[0].partition("/")
    if partial:
        if new_group != group or (isinstance(kind, str) and up[1] != kind):
            return [
                warning(
                    "kustomize.partial-tree",
                    f"patch target {group}/{version} {kind} left as it is: the resources of this kustomization "
                    "are not all among the inputs, and no target matches both the old and the upgraded "
                    "resource; upgrade the whole tree at once",
                    path,
                )
            ]
        return _match_any_version(target, version, new_version, path)
    if explicit and group != new_group:
        target["group"] = new_group
        found.append(info("kustomize.target", f"patch target group {group} -> {new_group}", path + ("group",)))
    target["version"] = new_version
    found.append(
        info(
            "kustomize.target",
            f"patch target version {version} -> {new_version}: the upgraded "
            "resources are served as v1beta1 and an old target would match nothing",
            path + ("version",),
        )
    )
    if isinstance(kind, str) and up[1] != kind:
        target["kind"] = up[1]
        found.append(info("kustomize.target", f"patch target kind {kind} -> {up[1]}", path + ("kind",)))
    return found


def _flavor_kind(target: dict[str, Any], group: Any, kind: Any, path: Path, partial: bool) -> list[Finding]:
    """A target naming a flavor kind without a version: the upgraded resources are instancetypes."""
    if kind not in FLAVOR_KINDS or group not in (None, FLAVOR_GROUP):
        return []
    if partial:
        message = (
            f"patch target {kind} left as it is: the resources of this kustomization are not all among the "
            "inputs, and no target matches both the flavor and the instancetype; upgrade the whole tree at once"
        )
        return [warning("kustomize.partial-tree", message, path)]
    found = []
    if group is not None:
        target["group"] = NEW_GROUP
        found.append(info("kustomize.target", f"patch target group {group} -> {NEW_GROUP}", path + ("group",)))
    target["kind"] = FLAVOR_KINDS[kind]
    found.append(info("kustomize.target", f"patch target kind {kind} -> {FLAVOR_KINDS[kind]}", path + ("kind",)))
    return found


def _match_any_version(target: dict[str, Any], version: str, new_version: str, path: Path) -> list[Finding]:
    del target["version"]
    return [
        info(
            "kustomize.target",
            f"patch target version {version} removed (it now matches {version} and {new_version}): the "
            "resources of this kustomization are not all among the inputs, so they may still be "
            f"{version}; run on the whole tree to pin {new_version}",
            path + ("version",),
        )
    ]


def _other_target(
    target: dict[str, Any],
    group: str,
    version: str,
    kind: Any,
    path: Path,
    targets: apis.Targets,
    partial: bool = False,
) -> list[Finding]:
    new, d = apiversion.reference_rule(f"{group}/{version}", kind if isinstance(kind, str) else "", targets)
    if new is None or d is None:
        return []
    new_version = apis.split(new)[1]
    if partial and apis.split(new)[0] == group:
        return _match_any_version(target, version, new_version, path)
    target["version"] = new_version
    return [
        info(
            f"{d.api.family}.kustomize-target",
            f"patch target version {version} -> {new_version}: the upgraded resources are {new} and an old "
            "target would match nothing",
            path + ("version",),
        )
    ]
