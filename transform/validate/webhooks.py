"""KubeVirt validating-webhook rules a schema cannot express (kubevirt-api-versions.md §4).

Each function takes a whole document as plain data and returns findings with paths from its root.
The webhooks decode every version's JSON into v1beta1 structs, so the rules apply to all versions.
"""

from __future__ import annotations

from typing import Any

from transform.kubevirt.webhookfacts import DEPRECATED_TOPOLOGIES, DEPRECATED_TOPOLOGY_MESSAGE, DISCONTINUED_BINDINGS
from transform.model.findings import Finding, error, warning

Release = tuple[int, int]

# the preference admitter's deprecated topologies and their replacements (transform.kubevirt.webhookfacts)
_SHORT = ("sockets", "cores", "threads", "spread", "any")
TOPOLOGY_REPLACEMENTS: dict[str, str] = {
    old: new for old, (_, new) in sorted(DEPRECATED_TOPOLOGIES.items(), key=lambda item: _SHORT.index(item[1][1]))
}
TOPOLOGIES: tuple[str, ...] = (*_SHORT, *TOPOLOGY_REPLACEMENTS)
SPREAD_ACROSS: tuple[str, ...] = ("SocketsCoresThreads", "SocketsCores", "CoresThreads")
FAILURE_POLICIES: tuple[str, ...] = ("RejectInferFromVolumeFailure", "IgnoreInferFromVolumeFailure")
DEFAULT_SPREAD_RATIO = 2


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def instancetype_rules(obj: dict[str, Any], target: Release) -> list[Finding]:
    spec = _dict(obj.get("spec"))
    memory = _dict(spec.get("memory"))
    out: list[Finding] = []
    overcommit = _int(memory.get("overcommitPercent"))
    path = ("spec", "memory", "overcommitPercent")
    if overcommit is not None and not 0 <= overcommit <= 100:
        out.append(
            error(
                "webhook.overcommit-percent",
                f"memory.overcommitPercent must be between 0 and 100, got {overcommit}",
                path,
            )
        )
    if overcommit and memory.get("hugepages") is not None:
        out.append(
            error(
                "webhook.overcommit-hugepages",
                "memory.overcommitPercent and memory.hugepages should not be requested together",
                path,
            )
        )
    if spec.get("launchSecurity") is not None:
        out.append(
            warning(
                "webhook.deprecated-launch-security",
                "launchSecurity is deprecated and will be removed in a future release. "
                "Use preference instead (spec.preferredLaunchSecurity of a preference)",
                ("spec", "launchSecurity"),
            )
        )
    return out


def preference_rules(obj: dict[str, Any], target: Release) -> list[Finding]:
    """The preference admitter's rules; its deprecated-topology warning only from the release that has it
    (v1.4.0 added the warning and the values it advises: an older target does not know `sockets`)."""
    spec = _dict(obj.get("spec"))
    cpu = _dict(spec.get("cpu"))
    topology = cpu.get("preferredCPUTopology")
    out: list[Finding] = []
    path = ("spec", "cpu", "preferredCPUTopology")
    if not isinstance(topology, str):
        return out
    if topology not in TOPOLOGIES:
        out.append(
            error(
                "webhook.cpu-topology",
                f'unknown preferredCPUTopology "{topology}": expected one of {", ".join(TOPOLOGIES[:5])} '
                f"(or the deprecated {', '.join(TOPOLOGY_REPLACEMENTS)})",
                path,
            )
        )
        return out
    since, new = DEPRECATED_TOPOLOGIES.get(topology, (None, ""))
    if since is not None and target >= since:
        message = DEPRECATED_TOPOLOGY_MESSAGE.replace("%s", topology, 1).replace("%s", new, 1)
        out.append(warning("webhook.deprecated-topology", message, path))
    if topology in ("spread", "preferSpread"):
        out.extend(_spread_rules(spec, cpu))
    return out


def _spread_rules(spec: dict[str, Any], cpu: dict[str, Any]) -> list[Finding]:
    """GetSpreadOptions: ratio 2, else preferSpreadSocketToCoreRatio if set, else spreadOptions.ratio."""
    options = _dict(cpu.get("spreadOptions"))
    base = ("spec", "cpu", "spreadOptions")
    across = options.get("across", "SocketsCores")
    ratio = DEFAULT_SPREAD_RATIO
    ratio_path: tuple[str, ...] = (*base, "ratio")
    legacy = _int(spec.get("preferSpreadSocketToCoreRatio"))
    if legacy:
        ratio, ratio_path = legacy, ("spec", "preferSpreadSocketToCoreRatio")
    if _int(options.get("ratio")) is not None:
        ratio, ratio_path = options["ratio"], (*base, "ratio")
    if across not in SPREAD_ACROSS:
        return [
            error(
                "webhook.spread-across",
                f'unsupported spreadOptions.across "{across}": expected one of {", ".join(SPREAD_ACROSS)}',
                (*base, "across"),
            )
        ]
    if across == "CoresThreads" and ratio != 2:
        return [
            error(
                "webhook.spread-ratio",
                f"spreadOptions.across CoresThreads only supports a ratio of 2, got {ratio}",
                ratio_path,
            )
        ]
    return []


def virtual_machine_rules(obj: dict[str, Any]) -> list[Finding]:
    spec = _dict(obj.get("spec"))
    out: list[Finding] = []
    for field in ("instancetype", "preference"):
        matcher = spec.get(field)
        if not isinstance(matcher, dict):
            continue
        base = ("spec", field)
        name, infer, kind = matcher.get("name"), matcher.get("inferFromVolume"), matcher.get("kind")
        policy = matcher.get("inferFromVolumeFailurePolicy")
        if not name and not infer:
            out.append(error("webhook.matcher", f"{field} matcher needs either name or inferFromVolume", base))
        if name and infer:
            out.append(
                error(
                    "webhook.matcher",
                    f"{field} matcher: name must not be set together with inferFromVolume",
                    (*base, "name"),
                )
            )
        if kind and infer:
            out.append(
                error(
                    "webhook.matcher",
                    f"{field} matcher: kind must be empty when inferFromVolume is used",
                    (*base, "kind"),
                )
            )
        if policy is not None and policy not in FAILURE_POLICIES:
            out.append(
                error(
                    "webhook.infer-failure-policy",
                    f'invalid inferFromVolumeFailurePolicy "{policy}": expected one of {", ".join(FAILURE_POLICIES)}',
                    (*base, "inferFromVolumeFailurePolicy"),
                )
            )
    return out


# Where each kind holds a VMI spec; refused on creation: VM and VMI (their admitters call the network
# validator's ValidateCreation), the others create VMIs that are refused.
VMI_SPEC_AT: dict[str, tuple[tuple[str, ...], bool]] = {
    "VirtualMachineInstance": (("spec",), True),
    "VirtualMachine": (("spec", "template", "spec"), True),
    "VirtualMachineInstanceReplicaSet": (("spec", "template", "spec"), False),
    "VirtualMachinePool": (("spec", "virtualMachineTemplate", "spec", "template", "spec"), False),
}


def discontinued_bindings(obj: dict[str, Any], target: tuple[int, int]) -> list[Finding]:
    """Interfaces with a binding KubeVirt `target` refuses on creation (transform.kubevirt.webhookfacts,
    generated from its network admitter): an error for a VM or VMI, a warning for what creates VMIs."""
    at = VMI_SPEC_AT.get(str(obj.get("kind")))
    if at is None:
        return []
    base, refused = at
    spec: Any = obj
    for part in base:
        spec = _dict(spec).get(part)
    interfaces = _dict(_dict(_dict(spec).get("domain")).get("devices")).get("interfaces")
    out: list[Finding] = []
    for i, iface in enumerate(interfaces if isinstance(interfaces, list) else []):
        for binding in _dict(iface):
            since, message = DISCONTINUED_BINDINGS.get(binding, ((99, 0), ""))
            if target < since:
                continue
            rel = f"{target[0]}.{target[1]}"
            what = "refuses it on creation" if refused else "refuses the VMIs it creates"
            text = f"{message}: KubeVirt {rel} {what}; use another binding (masquerade, bridge) or a binding plugin"
            path = (*base, "domain", "devices", "interfaces", i, binding)
            out.append((error if refused else warning)("webhook.discontinued-binding", text, path))
    return out


RULES = {"instancetype": instancetype_rules, "preference": preference_rules}
