"""What to do with one parsed document: dispatch on its kind, on plain data only."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from transform import convert
from transform.convert import apiversion, flavor, kustomize, modernize, objects, payloads, revisions, wronggroup
from transform.convert.helmvalues import upgrade as helm_values
from transform.convert.index import REF_PATHS, Index, is_kustomization_kind, kept_name, namespace_of, own_file
from transform.convert.kustomize import is_kustomization_file
from transform.convert.outcome import Change, Outcome, object_ref
from transform.kubevirt import apis, embedding, gojson, releases
from transform.model.findings import Finding, Severity, error, info, warning
from transform.model.plain import as_map
from transform.model.plain import get as _get
from transform.model.policy import Judgement, Stage, verdict
from transform.validate import typemeta

if TYPE_CHECKING:
    from transform.model.settings import Settings

Path = tuple[Any, ...]
__all__ = ["Change", "Outcome", "preload", "upgrade_document"]


def upgrade_document(value: Any, *, settings: Settings, index: Index, file: str = "") -> Outcome:
    out = Outcome(value)  # copied on the first change only: most documents need none
    if not isinstance(value, dict):
        if isinstance(value, list) and file in index.patch_files:  # a JSON6902 patch file
            kustomize.json6902_file(out, value, apis.Targets(settings.target, settings.target_cdi))
        elif (problem := not_an_object(value)) is not None:
            out.findings.append(problem)
        return out
    file = own_file(value, file)  # a ResourceList's item (or, read whole, its items): their own files
    for path, obj in embedding.walk(value):
        if (clash := typemeta.case_clash(obj)) is not None:  # no API server reads its apiVersion/kind as written
            out.findings.append(clash.at(path=path + clash.path, object=object_ref(obj)))
            continue
        _visit(out, path, obj, settings, index, own_file(obj, file) if path[:1] == ("items",) else file)
    return out


def not_an_object(value: Any) -> Finding | None:
    """The error of a document that is a list or a scalar, when it names a KubeVirt or CDI apiVersion (a
    bare list of objects, which no tool applies, or an old version where no object holds it); None for any
    other (a list of settings such as HCO's dataImportCronTemplates, whose annotation keys hold a needle:
    no manifest, passed over as a mapping without `kind` is)."""
    if value is None or not _names_an_api(value):
        return None
    return error(
        "input.not-an-object",
        f"document is a {type(value).__name__}, not a Kubernetes object (if this file is not a manifest, e.g. "
        "an Ansible playbook, leave it out with --exclude)",
    )


def _names_an_api(value: Any) -> bool:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif apis.group_of(v) is not None:
            return True
    return False


def preload(settings: Settings) -> None:
    """Load now what upgrading and checking documents loads on first use: the validators with the
    schemas of the kinds this tool upgrades, the Go types' layouts, the old API names of the targets.
    For a run about to fork workers, which would each load them again; one process loads them as its
    documents need them."""
    # lazy: the validators and their schemas load only when a document is validated (here: workers follow)
    from transform.validate import documents as validation
    from transform.validate import target as _judge  # noqa: F401  (imported for the workers to inherit)

    validation.preload(settings.target)
    gojson.preload()
    apiversion.preload(apis.Targets(settings.target, settings.target_cdi))


def _visit(out: Outcome, path: Path, obj: dict[str, Any], settings: Settings, index: Index, file: str) -> None:
    """One object (the document, a List item, an embedded object): dispatch by group and kind."""
    kind = obj.get("kind")
    api = obj.get("apiVersion")
    group = apis.group_of(api)
    ref = object_ref(obj)
    meta = obj.get("metadata")
    if (
        meta is not None
        and not isinstance(meta, dict)
        and (kind in ("ControllerRevision", "VirtualMachine", "VirtualMachineSnapshotContent") or group is not None)
    ):
        out.findings.append(
            error("input.type", f"metadata is a {type(meta).__name__}, not a mapping", path + ("metadata",), object=ref)
        )
        return
    before = len(out.findings)
    changes_before = len(out.changes)
    targets = apis.Targets(settings.target, settings.target_cdi)
    misplaced = wronggroup.misplaced(api, kind, targets) if not embedding.is_list(obj) else None
    if misplaced is not None:
        wronggroup.apply(out, path, misplaced, targets, target_patch=index.is_target_patch(file) and len(path) <= 2)
    elif group is not None and not path and index.pinned_patch(file):
        out.findings.extend(kustomize.pinned_patch(str(api), str(kind), targets))
    elif group in convert.GROUPS:
        _object(out, path, obj, str(api), str(kind), settings, index, file)
    elif group is not None and isinstance(kind, str) and not embedding.is_list(obj):
        objects.api_object(out, path, obj, str(api), kind, targets)
    if kind == "ControllerRevision" and str(api).startswith("apps/") and payloads.is_ours(obj):
        _revision(out, path, obj, settings, index)
    elif kind == "VirtualMachine" and group == "kubevirt.io":
        _vm(out, path, obj, path, index)
        objects.vm_extras(out, path, settings.modernize, targets)
    elif (is_kustomization_kind(obj) and api is not None) or (
        kind is None and api is None and not path and is_kustomization_file(file)
    ):
        _kustomization(
            out, path, obj, targets, file in index.partial_kustomizations, file in index.remote_kustomizations
        )
    elif kind == "VirtualMachineSnapshotContent":
        vm = _get(obj, ("spec", "source", "virtualMachine"))
        if isinstance(vm, dict):
            _vm(out, path + ("spec", "source", "virtualMachine"), vm, path, index, ns=namespace_of(obj))
    elif kind == "VirtualMachinePool" and group == "pool.kubevirt.io":
        objects.pool_extras(out, path, targets)
    elif kind in ("HelmRelease", "Application") and group is None:  # Flux's and Argo CD's inline Helm values
        helm_values(out, path, obj, targets)
    objects.references(out, path, settings.drop_server_fields, targets)
    if (
        misplaced is None
        and group not in (None, *convert.GROUPS)
        and (not path or path[0] == "items")
        and len(path) <= 2
    ):
        _whole_object(out, path, obj, settings, file in index.patch_files, out.changes[changes_before:])
    if embedding.in_template(path):
        out.findings[before:] = embedding.substituted(out.findings[before:], obj)
    for i in range(before, len(out.findings)):
        f = out.findings[i]
        out.findings[i] = f.at(object=f.object or ref, path=path + f.path, extra={**f.extra, **_resource(obj)})


def _whole_object(
    out: Outcome, path: Path, obj: dict[str, Any], settings: Settings, partial: bool, changes: list[Change]
) -> None:
    """Any other KubeVirt object against its CRD schema at the target: a changed one must stay valid
    (checked before writing), problems of an unchanged one are warnings (errors under --strict)."""
    mine = [c for c in changes if c.path == path and c.verify is None]
    if not any(c.path == path for c in changes):
        out.findings.extend(_check_current(obj, settings, partial))
        return
    if not mine:
        return
    found, carried = _input_findings(obj, settings, partial)
    out.findings.extend(found)
    for change in mine:
        change.verify, change.partial, change.carried = Stage.UPGRADED, partial, frozenset(carried)


def _resource(obj: dict[str, Any]) -> dict[str, Any]:
    meta = as_map(obj.get("metadata"))
    row = apis.find(str(obj.get("apiVersion")), str(obj.get("kind"))) if apis.group_of(obj.get("apiVersion")) else None
    return {
        "family": row.family if row is not None else None,
        "api_version": obj.get("apiVersion"),
        "kind": obj.get("kind"),
        "name": meta.get("name"),
        "namespace": meta.get("namespace"),
    }


def _object(
    out: Outcome,
    path: Path,
    obj: dict[str, Any],
    api: str,
    kind: str,
    settings: Settings,
    index: Index,
    file: str,
) -> None:
    upgraded = convert.upgrade_kind(api, kind, settings.target) if api != convert.LATEST else None
    if upgraded == (api, kind):
        # the target serves nothing newer (a release before 1.0): never write a version it does not serve
        rule = apiversion.object_rule(api, kind, apis.Targets(settings.target, settings.target_cdi))
        found = rule[2] if rule is not None else []
        if any(f.code == "instancetype.not-served" for f in found):
            # the target judge's fact, under its code (target.api-version), as validate and scan say it
            # lazy: the validators and their schemas load only when a document is validated
            from transform.validate.target import target_findings

            said = [f for f in target_findings(obj, settings.target, fields=False) if f.code == "target.api-version"]
            found = [f for f in found if f.code != "instancetype.not-served"]
            found += [f.at(severity=Severity.WARNING) for f in said]
        out.findings.extend(found)
        return
    if upgraded is None or releases.family_of(upgraded[1]) is None:
        if api == convert.LATEST and kind in releases.FAMILY_OF_KIND:
            partial = file in index.patch_files
            judged = _judge(obj, settings, partial)  # once: what is said of it, and what a rewrite carries
            out.findings.extend(verdict(judged, Stage.CURRENT, strict=settings.strict))
            if settings.modernize:
                new, found = modernize.modernize_object(copy.deepcopy(obj), settings.target)
                out.findings.extend(found)
                if new != obj:
                    out.set(path, new)
                    out.changes.append(Change(path, verify=Stage.UPGRADED, partial=partial, carried=_carried(judged)))
            return
        group, _, version = api.partition("/")
        if kind.endswith("List"):
            return
        what = (
            f"unknown kind {kind!r} in {group}"
            if upgraded is None
            or version in releases.VERSIONS
            or (upgraded and upgraded[1] == kind and kind not in releases.FAMILY_OF_KIND)
            else f"unknown {api}"
        )
        out.findings.append(
            error(
                "input.unknown-kind",
                f"{what}: this tool knows {', '.join(releases.KINDS)} at {', '.join(releases.VERSIONS)}",
                ("kind",),
            )
        )
        return
    new_api, new_kind = upgraded
    partial = file in index.patch_files
    new = copy.deepcopy(obj)
    new["apiVersion"] = new_api
    if new_kind != kind:
        new["kind"] = new_kind
    if api.startswith("flavor.kubevirt.io/"):
        out.findings.extend(flavor.object_findings(obj, new))
    if settings.modernize:
        new, found = modernize.modernize_object(new, settings.target)
        out.findings.extend(found)
    out.set(path, new)
    found, carried = _input_findings(obj, settings, partial)
    out.findings.extend(found)
    note = f"{api} -> {new_api}" + (f" ({kind} -> {new_kind})" if new_kind != kind else "")
    out.findings.append(info("upgraded", f"upgraded {note}", ("apiVersion",)))
    out.changes.append(Change(path, verify=Stage.UPGRADED, partial=partial, carried=frozenset(carried)))


def _input_findings(
    obj: dict[str, Any], settings: Settings, partial: bool
) -> tuple[list[Finding], set[tuple[str, Path]]]:
    """The input's problems (as warnings) and the (code, path) of each: the upgrade carries a problem
    the input already had over without blame (a kustomize base's placeholder name, a patch's missing
    fields); it is refused only for a problem it introduces."""
    judged = _judge(obj, settings, partial)
    carried = set(_carried(judged))
    for part in (judged.own, judged.payload):
        for i, f in enumerate(part):
            if f.severity is Severity.ERROR and f.code == "schema.required" and objects.patch_shaped(obj, partial):
                part[i] = f.at(
                    message=f"{f.message} (a partial object such as a kustomize patch? pass the "
                    "kustomization that lists it, as an input or under --context, to have it judged as one)"
                )
    return verdict(judged, Stage.INPUT), carried


def _carried(judged: Judgement) -> frozenset[tuple[str, Path]]:
    """What an upgrade carries over without blame: (code, path) of each of the input's own errors, and
    `("", path)` of each field the input's version does not have (its API server drops the field before it
    checks the object; once upgraded it is read: transform.pipeline.verify says so)."""
    found = judged.own + judged.payload
    return frozenset((f.code, f.path) for f in found if f.severity is Severity.ERROR) | frozenset(
        ("", f.path) for f in judged.own if f.code == "schema.unknown-field"
    )


def _judge(obj: dict[str, Any], settings: Settings, partial: bool) -> Judgement:
    # lazy: the validators and their schemas load only when a document is validated
    from transform.validate.target import judge

    return judge(obj, settings.target, strict=settings.strict, partial=partial, target_cdi=settings.target_cdi)


def _check_current(obj: dict[str, Any], settings: Settings, partial: bool) -> list[Finding]:
    """A document that needs no change: its problems are warnings (errors only with --strict)."""
    return verdict(_judge(obj, settings, partial), Stage.CURRENT, strict=settings.strict)


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


def _kustomization(
    out: Outcome, path: Path, obj: dict[str, Any], targets: apis.Targets, partial: bool, remote: bool
) -> None:
    result = kustomize.upgrade_kustomization(obj, targets, partial=partial, remote=remote)
    if result is None:
        return
    new, found = result
    out.findings.extend(found)
    if new != obj:
        out.set(path, new)
        out.changes.append(Change(path))


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
