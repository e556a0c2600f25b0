"""A KubeVirt kind under a group that never served it (`kubevirt.io/v1alpha2` with
`kind: VirtualMachineClusterInstancetype`, as 28 patch files of kubevirt/common-instancetypes say).

Such a document is no object the API server would take: the kind belongs to another group. Where
kustomize ignores the document's group/version/kind (a patch applied by `target`), `fix` writes the
kind's current group/version with a warning; anywhere else it is an error naming the group the user
most likely meant. The kinds of every group come from the API table (transform.kubevirt.apis).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transform.convert.outcome import Change, Outcome
from transform.kubevirt import apis
from transform.model.findings import Finding, error, warning


def _homes() -> tuple[dict[str, tuple[str, ...]], dict[str, frozenset[str]]]:
    """kind -> the groups that list it (oldest row first); group -> every kind its rows list (a group
    whose rows list none, such as migrations.kubevirt.io, or only legacy ones, is not judged)."""
    homes: dict[str, dict[str, None]] = {}
    kinds: dict[str, set[str]] = {}
    for row in apis.TABLE:
        if not row.legacy:  # a legacy group's kinds are not listed (cdi.io had DataVolume): not judged
            kinds.setdefault(row.group, set()).update(row.kinds)
            for kind in row.kinds:
                homes.setdefault(kind, {})[row.group] = None
    return {k: tuple(g) for k, g in homes.items()}, {g: frozenset(k) for g, k in kinds.items()}


HOMES, GROUP_KINDS = _homes()


@dataclass(frozen=True)
class Misplaced:
    api: str  # as written
    kind: str
    home: str  # the group the kind belongs to (the one the user most likely meant)
    new_api: str  # the home's newest version the target serves (or its newest)
    new_kind: str

    @property
    def message(self) -> str:
        return f"kind {self.kind} belongs to {self.home}; {self.api} never had it"


def misplaced(api: object, kind: object, targets: apis.Targets) -> Misplaced | None:
    """The kind's home when `api` names a table group that never had `kind` and the table lists the
    kind under another group; else None (an unknown kind stays the caller's to judge)."""
    if not isinstance(api, str) or not isinstance(kind, str):
        return None
    group = apis.group_of(api)
    if group is None or not GROUP_KINDS.get(group) or kind in GROUP_KINDS[group] or kind not in HOMES:
        return None
    homes = HOMES[kind]
    # a kind two groups list (VirtualMachinePreference: flavor, then instancetype): the current one
    home = next((g for g in homes if apis.split(apis.latest(g))[0] == g), homes[-1])
    first = next(r for r in apis.rows(home) if not r.legacy and kind in r.kinds)
    decision = apis.decide(first.api_version, kind, targets)
    to = decision.to if decision is not None and decision.to is not None else None
    if to is None:
        served = [r for r in (first, *apis.later(first)) if r.serves(targets.of(r))]
        to = served[-1] if served else first
    return Misplaced(api, kind, home, to.api_version, apis.renamed_kind(first, kind, to))


def finding(m: Misplaced, *, target_patch: bool) -> Finding:
    """What `fix` says: a warning where it writes the home's version (a patch applied by `target`),
    else an error naming the group to write."""
    if target_patch:
        return warning(
            "kustomize.wrong-group",
            f"{m.message}: a patch applied by `target` (kustomize ignores its group, version and kind): "
            f"upgraded to {m.new_api}" + (f" {m.new_kind}" if m.new_kind != m.kind else ""),
            ("apiVersion",),
        )
    return error(
        "input.wrong-group",
        f"{m.message}: no API server takes this object; did you mean apiVersion: {m.new_api}"
        + (f" with kind: {m.new_kind}" if m.new_kind != m.kind else "")
        + "? (if it is a kustomize patch applied by `target`, `fix` on the tree holding its kustomization "
        "upgrades it)",
        ("apiVersion",),
    )


def apply(out: Outcome, path: tuple[Any, ...], m: Misplaced, *, target_patch: bool) -> None:
    """Report `m`; where kustomize ignores the document's group/version/kind (a patch applied by
    `target`), write the kind's own group and version."""
    out.findings.append(finding(m, target_patch=target_patch))
    if not target_patch:
        return
    out.set(path + ("apiVersion",), m.new_api)
    if m.new_kind != m.kind:
        out.set(path + ("kind",), m.new_kind)
    out.changes.append(Change(path))
