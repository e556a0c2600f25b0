"""What scanned documents say about each other (`scan`, transform.pipeline.inventory): each revision's
payload era and object identity, each VM's revision references, then dangling references, orphan
revisions, object-name mismatches and the revisions a backup's VMs name but the backup lacks. The eras
themselves are data (transform.kubevirt.releases.ERAS) and a payload's era is the conversion's verdict
(transform.convert.revisions.era).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from transform import convert
from transform.convert import payloads, revisions
from transform.kubevirt import releasefacts, releases
from transform.model.findings import Finding, Severity, warning

MATCHER_MISMATCH_SINCE = releasefacts.OBJECT_NAME_MATCHED
FLAVOR_VM_UNTIL = releases.VM_FIELDS[("spec", "flavor")][1] or releases.LATEST


@dataclass
class Doc:
    file: str
    doc: int
    line: int
    kind: str
    api_version: str
    name: str
    namespace: str


@dataclass
class Ref:
    family: str  # instancetype | preference
    via: str  # spec | status | flavor
    revision: str
    path: str = ""  # the field naming it (spec.instancetype.revisionName, ...: transform.kubevirt.releases)


@dataclass
class VM:
    doc: Doc
    refs: list[Ref]
    matcher_names: dict[str, str]  # family -> spec.*.name


@dataclass
class Revision:
    doc: Doc
    era: str
    fmt: str  # decoded payload format (F1, v1alpha2, v1beta1, flavor/v1alpha1) or ""
    family: str
    object_name: str  # the object-name label, or what KubeVirt's upgrade would put there
    object_name_source: str  # label | payload | synthetic | ""
    owner_kind: str
    owner_name: str
    error: str = ""
    readable: bool = True
    error_code: str = "revision.undecodable"  # the decoder's code for `error`: the same in every command
    error_path: tuple[Any, ...] = ("data",)  # the target can decode the payload


def _get(value: Any, *path: Any) -> Any:
    for p in path:
        if not isinstance(value, dict):
            return None
        value = value.get(p)
    return value


def _ns_match(a: str, b: str) -> bool:
    return a == b or not a or not b


def revision(obj: dict[str, Any], d: Doc) -> Revision:
    labels = _get(obj, "metadata", "labels")
    labels = labels if isinstance(labels, dict) else {}
    own = payloads.owner(obj) or {}
    data = obj.get("data")
    rev = Revision(d, "undecodable", "", "", "", "", str(own.get("kind") or ""), str(own.get("name") or ""))
    try:
        decoded = payloads.decode(data, convert.go_types())
    except revisions.RevisionError as exc:
        rev.error, rev.error_code, rev.error_path = exc.message, exc.code, exc.path or ("data",)
        return rev
    rev.fmt, rev.family = decoded.fmt, decoded.family
    label = labels.get(payloads.LABEL + "object-name")
    if isinstance(label, str):
        rev.object_name, rev.object_name_source = label, "label"
    rev.era = revisions.era(decoded, data, labels, d.name)
    if not rev.object_name and decoded.fmt == releases.WRAPPER:
        rev.object_name, rev.object_name_source = revisions.SYNTHETIC_NAME[decoded.family], "synthetic"
    elif not rev.object_name:
        rev.object_name = str(_get(decoded.obj, "metadata", "name") or "")
        rev.object_name_source = "payload" if rev.object_name else ""
    return rev


def vm_refs(obj: dict[str, Any], d: Doc) -> VM:
    refs: list[Ref] = []
    names: dict[str, str] = {}
    paths = [(family, path) for family, each in releases.REVISION_REFS.items() for path in each]
    for family, path in paths:  # the matchers' revisionName first, then the status references
        if path[0] != "spec":
            continue
        matcher = _get(obj, *path[:2])
        if not isinstance(matcher, dict):
            continue
        if isinstance(matcher.get("name"), str):
            names[family] = matcher["name"]
        rev = matcher.get(path[2])
        if isinstance(rev, str) and rev:
            refs.append(Ref(family, releases.revision_ref_via(path), rev, ".".join(path)))
    for family, path in paths:
        rev = _get(obj, *path) if path[0] == "status" else None
        if isinstance(rev, str) and rev and not any(r.revision == rev and r.family == family for r in refs):
            refs.append(Ref(family, "status", rev, ".".join(path)))
    return VM(d, refs, names)


@dataclass
class Links:
    """What the scanned documents say about each other."""

    dangling: list[tuple[VM, Ref]] = field(default_factory=list)
    orphans: list[Revision] = field(default_factory=list)
    mismatches: list[tuple[VM, Ref, Revision, str]] = field(default_factory=list)  # (.., matcher name)
    breaking: list[Finding] = field(default_factory=list)


def analyse(revisions: list[Revision], vms: list[VM], target: tuple[int, int]) -> Links:
    """VMs against the revisions they name: dangling references, orphan revisions, name mismatches (a
    flavor matcher's F1 wrapper is of the F0 era)."""
    scan = Links()
    by_name: dict[str, list[Revision]] = {}
    for rev in revisions:
        by_name.setdefault(rev.doc.name, []).append(rev)
    referenced: set[int] = set()
    for vm in vms:
        for ref in vm.refs:
            hits = [r for r in by_name.get(ref.revision, []) if _ns_match(r.doc.namespace, vm.doc.namespace)]
            if not hits:
                scan.dangling.append((vm, ref))
                continue
            for rev in hits:
                referenced.add(id(rev))
                if ref.via == "flavor" and rev.era == releases.WRAPPER:
                    rev.era = releases.FLAVOR_WRAPPER_ERA  # an apiVersion "" wrapper a flavor matcher names
                want = vm.matcher_names.get(ref.family)
                if want and rev.object_name and rev.object_name != want:
                    scan.mismatches.append((vm, ref, rev, want))
                    if target >= MATCHER_MISMATCH_SINCE and (rev.object_name_source == "label" or rev.readable):
                        scan.breaking.append(_mismatch_finding(vm, ref, rev, want, target))
    names = {(vm.doc.namespace, vm.doc.name) for vm in vms}
    for rev in revisions:
        if id(rev) in referenced or rev.owner_kind == "VirtualMachineSnapshot":
            continue
        if rev.owner_kind == "VirtualMachine" and any(
            n == rev.owner_name and _ns_match(ns, rev.doc.namespace) for ns, n in names
        ):
            continue
        scan.orphans.append(rev)
    return scan


def _mismatch_finding(vm: VM, ref: Ref, rev: Revision, want: str, target: tuple[int, int]) -> Finding:
    how = {
        "label": "its object-name label is",
        "payload": "KubeVirt's upgrade would label it",
        "synthetic": "KubeVirt's upgrade of a wrapper labels it",
    }.get(rev.object_name_source, "it names")
    return Finding(
        Severity.ERROR,
        "target.object-name-mismatch",
        f"VM {vm.doc.name} references {rev.doc.name} as its {ref.family} {want!r}, but {how} {rev.object_name!r}: "
        f"KubeVirt {releases.text(target)} ignores such a revision (1.6+) and the VM no longer uses its snapshot",
        file=rev.doc.file,
        line=rev.doc.line,
        doc=rev.doc.doc,
        object=f"ControllerRevision/{rev.doc.namespace + '/' if rev.doc.namespace else ''}{rev.doc.name}",
    )


def missing_revision(vm: str, family: str, revision: str, via: str) -> Finding:
    """A VM of a backup names a ControllerRevision the backup does not hold: its restore will fail."""
    return warning(
        "backup.missing-revision",
        f"VM {vm} references ControllerRevision {revision} (its {family}, {via}), which the backup does not "
        f'hold: after a restore KubeVirt reports "Failure to find {family}: controllerrevisions.apps '
        f'\\"{revision}\\" not found"; back up the VM\'s ControllerRevisions with it (a backup that selects '
        "VMs by label misses them: include controllerrevisions.apps)",
    )


def missing_in_backups(dangling: list[tuple[VM, Ref]], archives: Iterable[str]) -> list[Finding]:
    """`missing_revision` for every dangling reference of a VM read from one of the tarballs `archives`."""
    prefixes = tuple(f"{a}:" for a in archives)
    out = []
    for vm, ref in dangling:
        if not prefixes or not vm.doc.file.startswith(prefixes):
            continue
        name = f"{vm.doc.namespace + '/' if vm.doc.namespace else ''}{vm.doc.name}"
        found = missing_revision(name, ref.family, ref.revision, ref.path)
        out.append(found.at(file=vm.doc.file, line=vm.doc.line, doc=vm.doc.doc, object=f"VirtualMachine/{name}"))
    return out
