"""The pre-upgrade part of `scan`: every object of a KubeVirt or CDI group, judged by the table.

For each object of a group in transform.kubevirt.apis: its group, version and kind, what the
targets make of that version (served, deprecated, not served, removed, legacy), the version `fix`
would write, and whether applying it as it is would break. An object breaks when the target does
not serve its version (removed, unserved, not yet served, legacy). Instancetype objects are judged
by the release table's own checks (transform.kubevirt.releases) and only listed here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from transform.convert import wronggroup
from transform.kubevirt import apis
from transform.model.findings import Finding, error

BREAKING = ("removed", "unserved", "not-yet", "legacy")


@dataclass
class ApiUse:
    file: str
    doc: int
    line: int
    name: str
    namespace: str
    group: str
    version: str
    kind: str
    family: str
    status: str  # served | deprecated | unserved | removed | not-yet | legacy | kept
    replacement: str  # the apiVersion fix writes ("" when it keeps the object)
    deprecated_in: str  # "KubeVirt 1.0" / ""
    removed_in: str  # "KubeVirt 1.9" / "CDI 1.56" / ""
    breaks: bool
    chart: str = ""  # "chart NAME": a literal apiVersion line of a Helm chart's template or values file

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}"


def _when(api: apis.Api, release: apis.Release | None) -> str:
    return f"{api.product} {release[0]}.{release[1]}" if release else ""


def judge(
    obj: dict[str, Any],
    where: tuple[str, int, int, str, str],
    targets: apis.Targets,
    breaking: Callable[[Iterable[Finding]], None],
) -> ApiUse | None:
    """The object's use of its API version; reports what would break through `breaking`."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or apis.group_of(api_version) is None:
        return None
    misplaced = wronggroup.misplaced(api_version, kind, targets)
    if misplaced is not None:  # a kustomize patch applied by `target`? fix upgrades those
        breaking([wronggroup.finding(misplaced, target_patch=False)])
        return None
    decision = apis.decide(api_version, kind, targets)
    if decision is None:
        return None
    row = decision.api
    state = apis.status(row, targets.of(row)) if decision.status != "kept" else "kept"
    group, version = apis.split(api_version)
    file, doc, line, name, namespace = where
    use = ApiUse(
        file,
        doc,
        line,
        name,
        namespace,
        group,
        version,
        kind,
        row.family,
        state,
        decision.new_api_version or "",
        _when(row, row.deprecated),
        _when(row, row.removed or row.unserved),
        state in BREAKING and row.family != "instancetype",
    )
    if use.breaks:
        on = targets.text(row)
        if state == "legacy":
            message = f"{api_version} cannot be upgraded: {row.legacy}"
        elif state == "not-yet":
            message = f"{on} does not serve {api_version} yet (served from {_when(row, row.served)})"
        else:
            verb = "removed" if state == "removed" else "stopped serving"
            message = f"{on} {verb} {api_version} ({use.removed_in})"
        if use.replacement:
            message += f": run fix to upgrade it to {use.replacement}"
        elif state != "legacy":
            message += ": no version the target serves replaces it"
        breaking([error(f"{row.family}.{'legacy' if state == 'legacy' else 'not-served'}", message, ("apiVersion",))])
    return use


def group_uses(uses: list[ApiUse]) -> list[dict[str, Any]]:
    """Per group, version and kind: count, status, replacement, releases, files (JSON shape)."""
    groups: dict[tuple[str, str, str], list[ApiUse]] = {}
    for u in uses:
        groups.setdefault((u.group, u.version, u.kind), []).append(u)
    out = []
    for (group, version, kind), members in sorted(groups.items()):
        first = members[0]
        out.append(
            {
                "group": group,
                "version": version,
                "apiVersion": f"{group}/{version}",
                "kind": kind,
                "family": first.family,
                "count": len(members),
                "status": first.status,
                "replacement": first.replacement,
                "deprecated_in": first.deprecated_in,
                "removed_in": first.removed_in,
                "breaks": first.breaks,
                "files": sorted({u.file for u in members}),
            }
        )
    return out
