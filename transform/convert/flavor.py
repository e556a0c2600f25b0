"""The flavor era (KubeVirt v0.48-v0.55, `flavor.kubevirt.io/v1alpha1`): objects and VM matchers.

KubeVirt v0.56 renamed the API group to instancetype.kubevirt.io without a conversion path
(kubevirt-api-versions.md §1): VirtualMachineFlavor -> VirtualMachineInstancetype,
VirtualMachineClusterFlavor -> VirtualMachineClusterInstancetype; the preference kinds (v0.54+)
keep their names. The object rename itself is the registry step `convert/flavor_v1alpha1.py`;
this module adds what only the flavor era needs:

* `object_findings`: flavors did not require `spec.memory.guest`, instancetypes do (v0.56,
  d5483221b7), so a flavor without it cannot become a valid instancetype;
* `upgrade_vm`: a VM's `spec.flavor` matcher becomes `spec.instancetype` (same `name`,
  `revisionName`; the `kind` renamed).

Flavor ControllerRevisions (F0: the SpecRevision wrapper with a flavor spec, or a whole
flavor object) are decoded and upgraded by transform.convert.revisions like v1alpha1 ones.
"""

from __future__ import annotations

import copy
from typing import Any

from transform.kubevirt.apis import FLAVOR_KINDS
from transform.model.findings import Finding, error, info, warning

# VM matcher kinds, compared case-insensitively: singular and plural resource names, short names
# (vmf/vmcf were flavor short names and are still instancetype short names).
MATCHER_KINDS = {
    **{old.lower() + s: new.lower() + s for old, new in FLAVOR_KINDS.items() for s in ("", "s")},
    "vmf": "virtualmachineinstancetype",
    "vmfs": "virtualmachineinstancetypes",
    "vmcf": "virtualmachineclusterinstancetype",
    "vmcfs": "virtualmachineclusterinstancetypes",
}
SHORT_NAMES = ("vmf", "vmfs", "vmcf", "vmcfs")
CAMEL = {new.lower(): new for new in FLAVOR_KINDS.values()}
INSTANCETYPE_KINDS = set(CAMEL) | {"virtualmachineinstancetypes", "virtualmachineclusterinstancetypes"}


def object_findings(old_obj: dict[str, Any], new_obj: dict[str, Any]) -> list[Finding]:
    """What keeps an upgraded flavor.kubevirt.io object from being a valid instancetype."""
    kind = old_obj.get("kind")
    renamed = f"{kind} -> {new_obj.get('kind')}" if new_obj.get("kind") != kind else f"{kind} keeps its name"
    out: list[Finding] = [
        info(
            "flavor.renamed",
            f"flavor.kubevirt.io (KubeVirt v0.48-v0.55) is a different API group: no KubeVirt release converts it; "
            f"moved to instancetype.kubevirt.io as KubeVirt v0.56 renamed it ({renamed})",
            ("apiVersion",),
        )
    ]
    if kind not in FLAVOR_KINDS:
        return out
    spec = old_obj.get("spec")
    if not isinstance(spec, dict):
        out.append(
            error(
                "flavor.no-spec",
                f"{kind} has no spec: an instancetype needs spec.cpu.guest and spec.memory.guest",
                ("spec",),
            )
        )
        return out
    memory = spec.get("memory")
    if not isinstance(memory, dict) or memory.get("guest") in (None, ""):
        path = ("spec", "memory", "guest") if isinstance(memory, dict) else ("spec", "memory")
        out.append(
            error(
                "flavor.memory-guest",
                f"{kind} has no spec.memory.guest: flavors did not require it, instancetypes do (KubeVirt v0.56+ "
                "rejects the object). Add spec.memory.guest with the guest memory its VMs should get (for example "
                "what the VMs set in spec.template.spec.domain.memory.guest or resources.requests.memory), "
                "then run the upgrade again",
                path,
            )
        )
    return out


def _matcher_kind(kind: str) -> tuple[str | None, Finding | None]:
    """The instancetype-era spelling of a flavor matcher kind (None: keep it as it is).

    Lower-case input stays lower-case; any other spelling of a singular becomes the CamelCase kind."""
    low = kind.lower()
    if low in MATCHER_KINDS:
        new = MATCHER_KINDS[low]
        if low in SHORT_NAMES:
            return new, info(
                "flavor.kind-short-name",
                f"short name {kind!r} written as the resource name {new!r} "
                "(KubeVirt matches a matcher kind against resource names)",
                ("spec", "instancetype", "kind"),
            )
        return (new if kind == low else CAMEL.get(new, new)), None
    if low in INSTANCETYPE_KINDS or low == "":
        return None, None
    return None, error(
        "flavor.kind-unknown",
        f"spec.flavor.kind {kind!r} names no flavor kind (expected "
        "VirtualMachineFlavor or VirtualMachineClusterFlavor): fix it by hand",
        ("spec", "flavor", "kind"),
    )


def upgrade_vm(vm: dict[str, Any]) -> tuple[dict[str, Any] | None, list[Finding]]:
    """`spec.flavor` -> `spec.instancetype` (None when there is nothing to change or it cannot be done)."""
    spec = vm.get("spec") if isinstance(vm, dict) else None
    if not isinstance(spec, dict) or "flavor" not in spec:
        return None, []
    matcher = spec["flavor"]
    if spec.get("instancetype") is not None:
        return None, [
            error(
                "flavor.both-matchers",
                "the VM has both spec.flavor and spec.instancetype: delete the one it should not use",
                ("spec", "flavor"),
            )
        ]
    if not isinstance(matcher, dict):
        return None, [error("flavor.bad-matcher", "spec.flavor is not a mapping", ("spec", "flavor"))]
    new_matcher = copy.deepcopy(matcher)
    found: list[Finding] = []
    kind = matcher.get("kind")
    if isinstance(kind, str):
        new_kind, finding = _matcher_kind(kind)
        if finding is not None:
            found.append(finding)
            if finding.severity.value == "error":
                return None, found
        if new_kind is not None:
            new_matcher["kind"] = new_kind
    elif kind is not None:
        return None, [
            error("flavor.kind-unknown", f"spec.flavor.kind {kind!r} is not a string", ("spec", "flavor", "kind"))
        ]
    new_vm = copy.deepcopy(vm)
    new_vm["spec"] = {
        ("instancetype" if k == "flavor" else k): (new_matcher if k == "flavor" else v) for k, v in spec.items()
    }
    renamed = isinstance(kind, str) and new_matcher.get("kind") != kind
    what = f" (kind {kind} -> {new_matcher['kind']})" if renamed else ""
    found.append(
        info(
            "flavor.vm-matcher",
            f"spec.flavor -> spec.instancetype{what}; name and revisionName kept",
            ("spec", "instancetype"),
        )
    )
    if isinstance(matcher.get("revisionName"), str) and matcher["revisionName"]:
        found.append(
            warning(
                "flavor.revision-reference",
                f"revisionName {matcher['revisionName']!r} names a flavor-era ControllerRevision: pass it along so it "
                "is upgraded too (KubeVirt v1.7+ cannot read it)",
                ("spec", "instancetype", "revisionName"),
            )
        )
    return new_vm, found
