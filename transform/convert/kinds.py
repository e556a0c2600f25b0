"""The per-object rules of convert, by kind (`KINDS`): a ControllerRevision of ours (its payload upgraded,
renamed with --rename), a VirtualMachine (flavor matchers, references that follow a rename, its extras), a
VirtualMachineSnapshotContent's VM, a VirtualMachinePool's extras. `document` runs the group's rules first."""

from __future__ import annotations

import copy
from typing import Any

from transform.convert import flavor, modernize, objects, payloads, revisions
from transform.convert.index import REF_PATHS, Index, kept_name, namespace_of
from transform.convert.outcome import Change, Outcome
from transform.convert.visit import Rule, Visit
from transform.kubevirt import apis, releases
from transform.model.findings import Finding, error, info, warning
from transform.model.plain import get as _get
from transform.model.policy import Judgement, Stage, verdict
from transform.model.settings import Settings

Path = tuple[Any, ...]


def _controller_revision(v: Visit) -> None:
    if str(v.api).startswith("apps/") and payloads.is_ours(v.obj):
        _revision(v.out, v.path, v.obj, v.settings, v.index)


def _virtual_machine(v: Visit) -> None:
    if v.group == "kubevirt.io":
        _vm(v.out, v.path, v.obj, v.path, v.index)
        objects.vm_extras(v.out, v.path, v.settings.modernize, v.targets)


def _snapshot_content(v: Visit) -> None:
    vm = _get(v.obj, ("spec", "source", "virtualMachine"))
    if isinstance(vm, dict):
        _vm(v.out, v.path + ("spec", "source", "virtualMachine"), vm, v.path, v.index, ns=namespace_of(v.obj))


def _pool(v: Visit) -> None:
    if v.group == "pool.kubevirt.io":
        objects.pool_extras(v.out, v.path, v.targets)


# The per-object rules, by kind (after the group's: an old apiVersion upgraded, any other object's checked).
# The container formats add theirs (a Kustomization's patches, a HelmRelease's values): `formats.registry.RULES`.
KINDS: dict[str, Rule] = {
    "ControllerRevision": _controller_revision,
    "VirtualMachine": _virtual_machine,
    "VirtualMachineSnapshotContent": _snapshot_content,
    "VirtualMachinePool": _pool,
}


def _revision(out: Outcome, path: Path, obj: dict[str, Any], settings: Settings, index: Index) -> None:
    ns = namespace_of(obj)
    name = str(_get(obj, ("metadata", "name")) or "")
    if not releases.reads_payload(settings.target, revisions.latest_version()):
        out.findings.append(_payload_not_served(obj, settings.target))
        return
    current: list[Finding] = []
    # a rename must rewrite every reference in the same run: one in a file outside it (--context) keeps the name
    outside = index.outside_run(name, ns) if settings.rename and name in index.renames else []
    try:
        up = revisions.upgrade_revision(
            obj, rename=settings.rename and not outside, current=current, **index.about(obj, name, ns)
        )
    except revisions.RevisionError as exc:
        out.findings.append(error(exc.code, exc.message, exc.path))
        return
    if up is None:
        # a current revision: what the decoder said of its payload, as of any document left as it is
        out.findings.extend(verdict(Judgement(payload=current), Stage.CURRENT, strict=settings.strict))
        if settings.modernize and settings.modernize_revisions and isinstance(obj.get("data"), dict):
            data, found = modernize.modernize_object(copy.deepcopy(obj["data"]), settings.target)
            if data != obj["data"]:
                out.set(path + ("data",), data)
                out.findings.extend(f.at(path=("data",) + f.path) for f in found)
                out.changes.append(Change(path, upgraded=False, verify=Stage.PAYLOAD))
        return
    if settings.modernize and settings.modernize_revisions and isinstance(up.doc.get("data"), dict):
        up.doc["data"], found = modernize.modernize_object(up.doc["data"], settings.target)
        out.findings.extend(f.at(path=("data",) + f.path) for f in found)
    out.set(path, up.doc)
    out.findings.extend(up.findings)
    out.findings.append(
        info("upgraded", f"upgraded ControllerRevision ({up.fmt} payload) to {revisions.latest_version()}", ("data",))
    )
    if outside:
        out.findings.append(kept_name(name, outside))
    renames = [(ns, up.old_name, up.new_name)] if up.new_name != up.old_name else []
    clash = index.collision(ns, up.new_name) if renames else ""
    if clash:
        out.findings.append(
            error("revision.name-collision", f"{clash}: two objects cannot share a name; refused", ("metadata", "name"))
        )
        return
    if renames and not index.referenced(up.old_name):
        out.findings.append(
            warning(
                "revision.rename-unreferenced",
                f"renamed to {up.new_name}; no VM in the inputs references {up.old_name}: update references "
                "outside these files by hand",
                ("metadata", "name"),
            )
        )
    out.changes.append(
        Change(
            path,
            replace=[path + ("data",)] if up.replace_data else [],
            renames=renames,
            verify=Stage.PAYLOAD,
        )
    )


def _payload_not_served(obj: dict[str, Any], target: apis.Release) -> Finding:
    """A target before the payload version this tool writes: the revision is left as it is, and said why."""
    rel, new = releases.text(target), revisions.latest_version()
    first = next(r for r in sorted(releases.RELEASES) if releases.reads_payload(r, new))
    fmt = releases.payload_format(obj.get("data"))
    why = f"KubeVirt {rel} cannot read {new} payloads (from {releases.text(first)}): left as it is"
    if fmt is None or releases.reads_payload(target, fmt):
        return info("revision.replacement-not-served", why, ("data",))
    this = "this payload" if fmt == new else f"this {fmt} payload either"
    return error(
        "revision.replacement-not-served",
        f"{why}, and it cannot read {this}: raise the target or restore the revision from its source",
        ("data",),
    )


def _vm(out: Outcome, path: Path, vm: dict[str, Any], doc_path: Path, index: Index, ns: str | None = None) -> None:
    ns = namespace_of(vm) if ns is None else (namespace_of(vm) or ns)
    changed = False
    if isinstance(vm.get("spec"), dict) and "flavor" in vm["spec"]:
        new_vm, found = flavor.upgrade_vm(copy.deepcopy(_get(out.value, path)))
        out.findings.extend(found)
        if new_vm is not None:
            out.set(path, new_vm)
            changed = True
    current = _get(out.value, path)  # after a flavor matcher became an instancetype matcher
    for paths in REF_PATHS.values():
        for ref_path in paths:
            old = _get(current, ref_path)
            if not isinstance(old, str):
                continue
            new = index.new_name(old, ns)
            if new and new != old:
                out.set(path + ref_path, new)
                out.findings.append(info("reference.renamed", f"now references {new} (was {old})", ref_path))
                changed = True
    if changed:
        out.changes.append(Change(doc_path, upgraded=False))
