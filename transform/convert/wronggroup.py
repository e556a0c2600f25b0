"""A KubeVirt kind under a group that never served it (`kubevirt.io/v1alpha2` with
`kind: VirtualMachineClusterInstancetype`, as 28 patch files of kubevirt/common-instancetypes say).

Such a document is no object the API server would take: the kind belongs to another group. Where
kustomize ignores the document's group/version/kind (a patch applied by `target`), `fix` writes the
kind's current group/version with a warning; anywhere else it is an error naming the group the user
most likely meant. The kinds of every group come from the API table (transform.kubevirt.apis).

A kind no group of the table has, under a group the table owns (`kubevirt.io/v1` with `kind: Kubevirt`,
as 7 snippets of the KubeVirt user guide say) is no object either (`no matches for kind "Kubevirt" in
version "kubevirt.io/v1"`): named with the kind the user most likely meant (`input.unknown-kind`). A
group's kinds are those of its CRDs in the bundled schemas (KubeVirt's and CDI's, every release) and of
its table rows; a group whose kinds are not all known that way (template.kubevirt.io) and any group
the table does not own (hco.kubevirt.io, ssp.kubevirt.io, ...) are not judged.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from transform.convert.outcome import Change, Outcome
from transform.kubevirt import apis
from transform.model.findings import Finding, Severity, error, warning
from transform.model.policy import Judgement, Stage, verdict

Homes = tuple[dict[str, tuple[str, ...]], dict[str, frozenset[str]]]
_MEMO: list[tuple[object, Homes]] = []
_KNOWN: list[tuple[object, dict[str, frozenset[str]]]] = []


def _homes() -> Homes:
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


def tables() -> Homes:
    """`_homes()` of the current API table (built again when the table is another one: a test's row)."""
    if not _MEMO or _MEMO[0][0] is not apis.TABLE:
        _MEMO[:] = [(apis.TABLE, _homes())]
    return _MEMO[0][1]


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


@dataclass(frozen=True)
class Unknown:
    """A kind that no group of the table has, under a group the table owns."""

    api: str  # as written
    kind: str
    hint: str  # the kind meant ("KubeVirt", or "DataVolume (a kind of cdi.kubevirt.io)"), or ""
    kinds: tuple[str, ...] = ()  # the group's kinds (said when there is no hint)

    @property
    def new_api(self) -> str:
        return self.api

    @property
    def new_kind(self) -> str:
        return self.kind

    @property
    def message(self) -> str:
        return f"{self.api} has no kind {self.kind}"

    @property
    def advice(self) -> str:
        if self.hint:
            return f"did you mean kind: {self.hint}?"
        return f"correct its kind ({apis.split(self.api)[0]} has {', '.join(self.kinds)})"


Wrong = Misplaced | Unknown


def misplaced(api: object, kind: object, targets: apis.Targets) -> Wrong | None:
    """The kind's home when `api` names a table group that never had `kind` and the table lists the
    kind under another group; `Unknown` when no group has the kind (see `unknown`); else None."""
    if not isinstance(api, str) or not isinstance(kind, str):
        return None
    group = apis.group_of(api)
    homes_of, group_kinds = tables()
    if group is None or kind in group_kinds.get(group, ()):
        return None
    if kind not in homes_of:
        return unknown(api, kind)
    if not group_kinds.get(group):  # a group whose rows list no kinds: judged by its bundled CRDs, if any
        if group not in _known_kinds() or kind in _known_kinds()[group]:
            return None
    homes = homes_of[kind]
    # a kind two groups list (VirtualMachinePreference: flavor, then instancetype): the current one
    home = next((g for g in homes if apis.split(apis.latest(g))[0] == g), homes[-1])
    first = next(r for r in apis.rows(home) if not r.legacy and kind in r.kinds)
    decision = apis.decide(first.api_version, kind, targets)
    to = decision.to if decision is not None and decision.to is not None else None
    if to is None:
        served = [r for r in (first, *apis.later(first)) if r.serves(targets.of(r))]
        to = served[-1] if served else first
    return Misplaced(api, kind, home, to.api_version, apis.renamed_kind(first, kind, to))


def _known_kinds() -> dict[str, frozenset[str]]:
    """group -> every kind it has, for the table's groups whose kinds are all known: the kinds of its
    CRDs in the bundled schemas and of its rows (a group with a row that lists no kinds and no bundled
    CRD, such as template.kubevirt.io, is left out; so is a legacy row's group: its own reason)."""
    from transform.validate import crds  # lazy: the bundled index is read only for an unlisted kind

    if _KNOWN and _KNOWN[0][0] is apis.TABLE:
        return _KNOWN[0][1]
    bundled = crds.kinds_by_group()
    out: dict[str, frozenset[str]] = {}
    for group in sorted(apis.GROUPS):
        live = [r for r in apis.rows(group) if not r.legacy]
        if live and (group in bundled or all(r.kinds for r in live)):
            out[group] = bundled.get(group, frozenset()).union(*(r.kinds for r in live))
    _KNOWN[:] = [(apis.TABLE, out)]
    return out


def unknown(api: str, kind: str) -> Unknown | None:
    """`Unknown` when `api`'s group has all its kinds known and none of them is `kind` (nor its List);
    None otherwise (a templated kind such as `${KIND}` or `{{ .Values.kind }}` is not judged)."""
    known = _known_kinds()
    group = apis.group_of(api)
    row = apis.find(api, kind)
    if group not in known or row is None or row.legacy or not kind.isidentifier():
        return None
    own = known[group]
    if kind in own or (kind.endswith("List") and kind.removesuffix("List") in own):
        return None
    return Unknown(api, kind, _hint(kind, own, known), tuple(sorted(own)))


def _hint(kind: str, own: frozenset[str], known: dict[str, frozenset[str]]) -> str:
    """The kind most likely meant: of the same group (a case slip, then a close spelling), else another
    group's kind that differs only in case (named with its group); "" when none is that close."""
    same = [k for k in sorted(own) if k.lower() == kind.lower()]
    close = same or difflib.get_close_matches(kind, sorted(own), n=1, cutoff=0.8)
    if close:
        return close[0]
    for group, kinds in sorted(known.items()):
        other = next((k for k in sorted(kinds) if k.lower() == kind.lower()), None)
        if other is not None:
            return f"{other} (a kind of {group})"
    return ""


def finding(m: Wrong, *, target_patch: bool) -> Finding:
    """What `fix` says: a warning where it writes the home's version (a patch applied by `target`),
    else an error naming the group to write."""
    if isinstance(m, Unknown):
        return _unknown_finding(m, target_patch=target_patch)
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


def _unknown_finding(m: Unknown, *, target_patch: bool) -> Finding:
    """An error: the API server has no such kind (kinds are case-sensitive); a warning in a patch applied by
    `target` (kustomize gives it the target's kind), which `fix` leaves as it is."""
    if target_patch:
        return warning(
            "input.unknown-kind",
            f"{m.message} (kinds are case-sensitive): a patch applied by `target` takes the kind of what it "
            f"patches, so kustomize still applies it; {m.advice}",
            ("kind",),
        )
    return error(
        "input.unknown-kind",
        f'{m.message}: no API server takes this object (`no matches for kind "{m.kind}" in version '
        f'"{m.api}"`, kinds are case-sensitive); {m.advice}',
        ("kind",),
    )


def fix_finding(m: Wrong, *, target_patch: bool, targets: apis.Targets | None = None) -> Finding:
    """What `fix`, `check` and `diff` say of `m`: `finding`, except for an unknown kind under a version that
    needs no upgrade on `targets`: left as it is, it is a problem the input already had, carried over as an
    `input:` warning (an error under --strict), the severity transform.model.policy gives it, so that the
    file's other objects are still upgraded. Under a version the target would have upgraded it stays an
    error: the object could not be upgraded (exit 3)."""
    found = finding(m, target_patch=target_patch)
    if not isinstance(m, Unknown) or found.severity is not Severity.ERROR:
        return found
    decision = apis.decide(m.api, m.kind, targets) if targets is not None else None
    if decision is not None and (decision.to is not None or decision.blocked_by is not None):
        return found.at(message=f"{found.message}; not upgraded: the version's rules depend on its kind")
    return verdict(Judgement(own=[found]), Stage.INPUT)[0]


def apply(out: Outcome, path: tuple[Any, ...], m: Wrong, targets: apis.Targets, *, target_patch: bool) -> None:
    """Report `m`; where kustomize ignores the document's group/version/kind (a patch applied by
    `target`), write the kind's own group and version (an unknown kind stays as it is)."""
    out.findings.append(fix_finding(m, target_patch=target_patch, targets=targets))
    if not target_patch or isinstance(m, Unknown):
        return
    out.set(path + ("apiVersion",), m.new_api)
    if m.new_kind != m.kind:
        out.set(path + ("kind",), m.new_kind)
    out.changes.append(Change(path))
