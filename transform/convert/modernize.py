"""Opt-in rewriting of deprecated v1beta1 spellings, with exactly KubeVirt's runtime meaning.

Pure functions on plain data: `modernize_object(obj, target)` takes a v1beta1 instancetype or
preference (a standalone object or a revision payload) and returns the rewritten object and
findings. A rule is applied only when the target release knows the replacement; below that,
the object is left alone and an info finding names the release needed.

Runtime meaning (KubeVirt `pkg/instancetype/preference/apply/*.go`, kubevirt-api-versions.md §2.4):

* `preferredCPUTopology: prefer*` and the short values are handled identically (>= 1.4).
* `firmware.go`: `preferredEfi` is copied to a VMI that has neither EFI nor BIOS, and then the
  deprecated booleans are skipped; otherwise `preferredUseEfi: true` creates `efi: {}` when the
  VMI has neither, and `preferredUseSecureBoot` fills `efi.secureBoot` when an EFI exists without
  it. An EFI whose `secureBoot` is unset boots with Secure Boot ON (virt-launcher:
  `secureBoot := EFI.SecureBoot == nil || *EFI.SecureBoot`). Hence:

      preferredUseEfi: true                               -> preferredEfi: {}
      preferredUseEfi: true,  preferredUseSecureBoot: X   -> preferredEfi: {secureBoot: X}
      preferredUseEfi false/absent, no preferredUseSecureBoot -> both were no-ops: dropped
      preferredUseEfi false/absent, preferredUseSecureBoot: X -> kept (it only fills the VM's own
                                                             EFI; preferredEfi cannot say that)
      preferredEfi already set                            -> preferredUseEfi was ignored: dropped;
                                                             preferredUseSecureBoot too (see below)

  One case preferredEfi cannot express: `preferredUseSecureBoot: false` also turned Secure Boot
  off on VMs that set their own `efi` without `secureBoot`. That case gets a warning.
* `GetSpreadOptions`: ratio 2, overridden by a non-zero `preferSpreadSocketToCoreRatio`,
  overridden by `spreadOptions.ratio` -> moved to `cpu.spreadOptions.ratio` (>= 1.3).
* instancetype `launchSecurity` (deprecated in 1.9): a warning only; the preference field
  `preferredLaunchSecurity` applies differently (only when the VM sets none), so it is never moved.
"""

from __future__ import annotations

import copy
from typing import Any

from transform.kubevirt import releasefacts, releases
from transform.model.findings import Finding, info, warning

Release = tuple[int, int]

# The release each rewrite waits for (generated from KubeVirt's sources and CRD schemas: releasefacts).
TOPOLOGY_RENAMES = releases.TOPOLOGY_RENAMES
TOPOLOGY_SINCE: Release = releases.TOPOLOGIES_RENAMED
EFI_SINCE: Release = releasefacts.USE_EFI_DEPRECATED  # (preferredEfi exists from PREFERRED_EFI_ADDED)
SPREAD_SINCE: Release = releasefacts.SPREAD_OPTIONS_ADDED
LAUNCH_SECURITY_SINCE: Release = releasefacts.LAUNCH_SECURITY_DEPRECATED

PREFERENCE_KINDS = ("VirtualMachinePreference", "VirtualMachineClusterPreference")
INSTANCETYPE_KINDS = ("VirtualMachineInstancetype", "VirtualMachineClusterInstancetype")


def _rel(release: Release) -> str:
    return f"{release[0]}.{release[1]}"


def _needs(rule: str, since: Release, target: Release, path: tuple[Any, ...]) -> Finding:
    return info(
        "modernize.needs-release",
        f"{rule} needs KubeVirt {_rel(since)}; the target is {_rel(target)}: "
        "left as it is (raise --target-kubevirt once every cluster runs it)",
        path,
    )


def modernize_object(obj: dict[str, Any], target: Release) -> tuple[dict[str, Any], list[Finding]]:
    """The object with deprecated spellings rewritten where `target` supports the replacement."""
    if not isinstance(obj, dict) or not isinstance(obj.get("spec"), dict):
        return obj, []
    kind = obj.get("kind")
    target = (int(target[0]), int(target[1]))
    new = copy.deepcopy(obj)
    spec = new["spec"]
    found: list[Finding] = []
    if kind in PREFERENCE_KINDS:
        found += _topology(spec, target)
        found += _firmware(spec, target)
        found += _spread(spec, target)
    elif kind in INSTANCETYPE_KINDS:
        found += _launch_security(spec, target)
    return new, found


def _topology(spec: dict[str, Any], target: Release) -> list[Finding]:
    cpu = spec.get("cpu")
    if not isinstance(cpu, dict):
        return []
    old = cpu.get("preferredCPUTopology")
    path = ("spec", "cpu", "preferredCPUTopology")
    if not isinstance(old, str) or old not in TOPOLOGY_RENAMES:
        return []
    new = TOPOLOGY_RENAMES[old]
    if target < TOPOLOGY_SINCE:
        return [_needs(f"preferredCPUTopology {new!r} (for {old!r})", TOPOLOGY_SINCE, target, path)]
    cpu["preferredCPUTopology"] = new  # a scalar replaced in place: its comment stays
    return [
        info(
            "modernize.topology",
            f"preferredCPUTopology {old!r} -> {new!r} (same meaning; {old!r} is deprecated since KubeVirt "
            f"{_rel(TOPOLOGY_SINCE)})",
            path,
        )
    ]


def _replace_key(mapping: dict[str, Any], old: str, new: str, value: Any) -> dict[str, Any]:
    """`mapping` with `old` replaced by `new: value` at the same position."""
    return {(new if k == old else k): (value if k == old else v) for k, v in mapping.items()}


def _firmware(spec: dict[str, Any], target: Release) -> list[Finding]:
    fw = spec.get("firmware")
    if not isinstance(fw, dict) or not ({"preferredUseEfi", "preferredUseSecureBoot"} & set(fw)):
        return []
    base = ("spec", "firmware")
    if target < EFI_SINCE:
        return [
            _needs(
                "firmware.preferredEfi (for preferredUseEfi/preferredUseSecureBoot)",
                EFI_SINCE,
                target,
                base + ("preferredUseEfi" if "preferredUseEfi" in fw else "preferredUseSecureBoot",),
            )
        ]
    use_efi = fw.get("preferredUseEfi")
    secure = fw.get("preferredUseSecureBoot")
    has_secure = isinstance(secure, bool)
    out: list[Finding] = []
    caveat = warning(
        "modernize.secureboot-own-efi",
        "preferredUseSecureBoot: false also turned Secure Boot off on VMs that set their own "
        "domain.firmware.bootloader.efi without secureBoot; preferredEfi does not touch such VMs: "
        "set efi.secureBoot: false on them",
        base + ("preferredEfi",),
    )
    if fw.get("preferredEfi") is not None:
        # KubeVirt copies preferredEfi and returns before the deprecated booleans, except for a VM
        # with its own EFI, where preferredUseSecureBoot still fills an unset secureBoot.
        for key in ("preferredUseEfi", "preferredUseSecureBoot"):
            if key in fw:
                del fw[key]
        out.append(
            info(
                "modernize.efi-ignored",
                "preferredUseEfi/preferredUseSecureBoot dropped: preferredEfi is set, so KubeVirt ignored them",
                base + ("preferredEfi",),
            )
        )
        if secure is False:
            out.append(caveat)
        return out
    if use_efi is True:
        efi: dict[str, Any] = {"secureBoot": secure} if has_secure else {}
        new_fw = _replace_key(fw, "preferredUseEfi", "preferredEfi", efi)
        new_fw.pop("preferredUseSecureBoot", None)
        spec["firmware"] = new_fw
        what = (
            f"preferredEfi: {{secureBoot: {str(secure).lower()}}}"
            if has_secure
            else ("preferredEfi: {} (secureBoot unset: Secure Boot on, exactly as an EFI created by preferredUseEfi)")
        )
        out.append(
            info(
                "modernize.efi",
                f"preferredUseEfi: true{' + preferredUseSecureBoot' if has_secure else ''} -> {what}",
                base + ("preferredEfi",),
            )
        )
        if secure is False:
            out.append(caveat)
        return out
    if has_secure:
        return [
            warning(
                "modernize.efi-kept",
                f"preferredUseSecureBoot: {str(secure).lower()} without preferredUseEfi: true only sets secureBoot on "
                "VMs that bring their own EFI; preferredEfi cannot express that, so it is kept (set "
                "efi.secureBoot on those VMs and delete it by hand)",
                base + ("preferredUseSecureBoot",),
            )
        ]
    # preferredUseEfi: false (or null) alone never did anything at runtime.
    fw.pop("preferredUseEfi", None)
    return [
        info(
            "modernize.efi-noop",
            "preferredUseEfi without true was a no-op at runtime: dropped",
            base + ("preferredUseEfi",),
        )
    ]


def _spread(spec: dict[str, Any], target: Release) -> list[Finding]:
    if "preferSpreadSocketToCoreRatio" not in spec:
        return []
    path = ("spec", "preferSpreadSocketToCoreRatio")
    ratio = spec["preferSpreadSocketToCoreRatio"]
    if target < SPREAD_SINCE:
        return [_needs("cpu.spreadOptions.ratio (for preferSpreadSocketToCoreRatio)", SPREAD_SINCE, target, path)]
    if not isinstance(ratio, int) or isinstance(ratio, bool) or ratio < 0:
        return [
            warning(
                "modernize.spread-invalid",
                f"preferSpreadSocketToCoreRatio {ratio!r} is not a ratio: left as it is",
                path,
            )
        ]
    cpu = spec.get("cpu")
    if cpu is not None and not isinstance(cpu, dict):
        return []
    options = cpu.get("spreadOptions") if isinstance(cpu, dict) else None
    if options is not None and not isinstance(options, dict):
        return []
    if isinstance(options, dict) and options.get("ratio") is not None:
        del spec["preferSpreadSocketToCoreRatio"]
        return [
            info(
                "modernize.spread-ignored",
                "preferSpreadSocketToCoreRatio dropped: cpu.spreadOptions.ratio is set, so KubeVirt ignored it",
                path,
            )
        ]
    if ratio == 0:
        del spec["preferSpreadSocketToCoreRatio"]
        return [
            info("modernize.spread-noop", "preferSpreadSocketToCoreRatio: 0 meant the default ratio 2: dropped", path)
        ]
    if cpu is None:
        spec["cpu"] = {"spreadOptions": {"ratio": ratio}}
    elif options is None:
        cpu["spreadOptions"] = {"ratio": ratio}
    else:
        options["ratio"] = ratio
    del spec["preferSpreadSocketToCoreRatio"]
    return [
        info(
            "modernize.spread",
            f"preferSpreadSocketToCoreRatio: {ratio} -> cpu.spreadOptions.ratio: {ratio}",
            ("spec", "cpu", "spreadOptions", "ratio"),
        )
    ]


def _launch_security(spec: dict[str, Any], target: Release) -> list[Finding]:
    if spec.get("launchSecurity") is None:
        return []
    path = ("spec", "launchSecurity")
    if target < LAUNCH_SECURITY_SINCE:
        return [
            _needs(
                "preference preferredLaunchSecurity (replacing instancetype launchSecurity)",
                LAUNCH_SECURITY_SINCE,
                target,
                path,
            )
        ]
    return [
        warning(
            "modernize.launch-security",
            f"instancetype launchSecurity is deprecated since KubeVirt {_rel(LAUNCH_SECURITY_SINCE)}: use "
            "preferredLaunchSecurity in a "
            "preference instead. Not moved: the preference value only applies when the VM sets none, while the "
            "instancetype value conflicts with one the VM sets",
            path,
        )
    ]
