"""Kustomizations that still name old instancetype API versions in their patches.

kustomize matches a patch to resources by `target` (group/version/kind/name); once the
resources are upgraded to v1beta1, a target that still says `version: v1alpha2` silently
matches nothing, and the patch is dropped without an error. Inline patches (strategic-merge
YAML in a string) that carry `apiVersion: instancetype.kubevirt.io/v1alpha1` stop matching
the same way. This module rewrites both, on plain data; the engine turns the change into
text edits. Patches kept in files (`path:`) are ordinary documents and upgraded as such.

    patches:                                    patches:
    - target:                                   - target:
        group: instancetype.kubevirt.io             group: instancetype.kubevirt.io
        version: v1alpha2               -->         version: v1beta1
        kind: VirtualMachineInstancetype            kind: VirtualMachineInstancetype
"""

from __future__ import annotations

import copy
import re
from typing import Any

from transform.convert import GROUPS, LATEST, upgrade_kind
from transform.model.findings import Finding, error, info, warning

Path = tuple[Any, ...]

NEW_GROUP, _, NEW_VERSION = LATEST.partition("/")
FLAVOR_GROUP = "flavor.kubevirt.io"
FLAVOR_KINDS = {
    "VirtualMachineFlavor": "VirtualMachineInstancetype",
    "VirtualMachineClusterFlavor": "VirtualMachineClusterInstancetype",
}
# Kinds a target may name without a group (kustomize then matches any group).
OUR_KINDS = frozenset(
    {
        "VirtualMachineInstancetype",
        "VirtualMachineClusterInstancetype",
        "VirtualMachinePreference",
        "VirtualMachineClusterPreference",
        *FLAVOR_KINDS,
    }
)

# An old apiVersion inside a string, not followed by more of a version (`v1alpha10`).
_OLD_API = re.compile(r"\b(?:instancetype\.kubevirt\.io/v1alpha[12]|flavor\.kubevirt\.io/v1alpha1)(?![\w.-])")
_FLAVOR_KIND = re.compile(r"\bVirtualMachine(Cluster)?Flavor\b")


KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def is_kustomization_file(name: str) -> bool:
    """kustomize finds kustomizations by file name; they may carry no apiVersion and kind."""
    return name.replace("\\", "/").rsplit("/", 1)[-1] in KUSTOMIZATION_FILES


def upgrade_kustomization(obj: dict[str, Any], *, partial: bool = False) -> tuple[dict[str, Any], list[Finding]] | None:
    """The kustomization with its instancetype patch targets and inline patches upgraded.

    None when nothing names an old version. Every change is reported as an info finding
    located at the changed field. `partial`: some resource of the kustomization is not among the
    inputs (and may stay at the old version for now), so a target must match both versions: its
    `version` is dropped (kustomize then matches any version of the group and kind) rather than
    upgraded; a target that would change group (flavor) is left as it is, with a warning.
    """
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
            if isinstance(entry.get("target"), dict):
                findings += _target(entry["target"], (key, i, "target"), partial)
            if isinstance(entry.get("patch"), str):
                text, found = _inline(entry["patch"], (key, i, "patch"))
                entry["patch"] = text
                findings += found
    entries = new.get("patchesStrategicMerge")
    if isinstance(entries, list):
        for i, entry in enumerate(entries):
            if isinstance(entry, str) and "\n" in entry:  # inline YAML, not a file name
                entries[i], found = _inline(entry, ("patchesStrategicMerge", i))
                findings += found
    if not findings:
        return None
    return new, findings


def _target(target: dict[str, Any], path: Path, partial: bool = False) -> list[Finding]:
    group, version, kind = target.get("group"), target.get("version"), target.get("kind")
    if not isinstance(version, str):
        return []
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


def _inline(text: str, path: Path) -> tuple[str, list[Finding]]:
    """`text` with old instancetype apiVersions replaced; every other character kept."""
    olds = sorted(set(_OLD_API.findall(text)))
    if not olds:
        return text, []
    flavor = any(o.startswith(FLAVOR_GROUP) for o in olds)
    new = _OLD_API.sub(LATEST, text)
    if flavor:
        new = _FLAVOR_KIND.sub(lambda m: f"VirtualMachine{m.group(1) or ''}Instancetype", new)
    note = f"inline patch: {', '.join(olds)} -> {LATEST}" + (" (flavor kinds renamed)" if flavor else "")
    return new, [info("kustomize.inline-patch", note, path)]
