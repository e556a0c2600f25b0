"""What to do with one parsed document: dispatch on its kind, on plain data only."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from transform import convert
from transform.convert import apiversion, flavor, modernize, objects, wronggroup
from transform.convert.index import Index, own_file
from transform.convert.kinds import KINDS
from transform.convert.outcome import Change, Outcome, object_ref
from transform.convert.visit import OPERATIONS, PINNED, Rules, Visit
from transform.kubevirt import apis, embedding, gojson, releases
from transform.model.findings import Finding, error, info
from transform.model.plain import as_map, leaves
from transform.model.policy import Stage
from transform.validate import typemeta

if TYPE_CHECKING:
    from transform.model.settings import Settings

Path = tuple[Any, ...]
__all__ = ["Change", "Outcome", "preload", "upgrade_document"]


def upgrade_document(
    value: Any, *, settings: Settings, index: Index, file: str = "", rules: Rules | None = None
) -> Outcome:
    """One document's outcome: every object in it visited (`_visit`), by the rules of `rules` (`KINDS`, and
    the container formats' rules when the engine passes them: `formats.registry.RULES`)."""
    rules = KINDS if rules is None else rules
    out = Outcome(value)  # copied on the first change only: most documents need none
    if not isinstance(value, dict):
        if isinstance(value, list) and OPERATIONS in rules and index.said_of(file).partial:  # JSON6902 operations
            rules[OPERATIONS](
                Visit(out, (), {}, None, None, settings, index, file, index.said_of(file), _targets(settings))
            )
        elif (problem := not_an_object(value)) is not None:
            out.findings.append(problem)
        return out
    file = own_file(value, file)  # a ResourceList's item (or, read whole, its items): their own files
    for path, obj in embedding.walk(value):
        if (clash := typemeta.case_clash(obj)) is not None:  # no API server reads its apiVersion/kind as written
            out.findings.append(clash.at(path=path + clash.path, object=object_ref(obj)))
            continue
        _visit(out, path, obj, settings, index, own_file(obj, file) if path[:1] == ("items",) else file, rules)
        objects.parameter_api_version(out, path, obj, value, settings)  # in an OpenShift Template
    return out


def _targets(settings: Settings) -> apis.Targets:
    return apis.Targets(settings.target, settings.target_cdi)


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
    return any(apis.group_of(v) is not None for v in leaves(value))


def preload(settings: Settings) -> None:
    """Load now what upgrading documents loads on first use: the Go types' layouts, the old API names of
    the targets. For a run about to fork workers, which would each load them again; one process loads them
    as its documents need them."""
    gojson.preload()
    apiversion.preload(apis.Targets(settings.target, settings.target_cdi))


def _visit(
    out: Outcome, path: Path, obj: dict[str, Any], settings: Settings, index: Index, file: str, rules: Rules
) -> None:
    """One object (the document, a List item, an embedded object): dispatch by group, then by kind (`rules`)."""
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
    asks_before = len(out.asks)
    targets = apis.Targets(settings.target, settings.target_cdi)
    hints = index.said_of(file)
    visit = Visit(out, path, obj, api, group, settings, index, file, hints, targets)
    misplaced = wronggroup.misplaced(api, kind, targets) if not embedding.is_list(obj) else None
    if misplaced is not None:
        wronggroup.apply(out, path, misplaced, targets, target_patch=hints.target_patch and len(path) <= 2)
    elif group is not None and not path and hints.pinned and PINNED in rules:
        rules[PINNED](visit)
    elif group in convert.GROUPS:
        _object(out, path, obj, str(api), str(kind), settings, index, file)
    elif group is not None and isinstance(kind, str) and not embedding.is_list(obj):
        objects.api_object(out, path, obj, str(api), kind, targets)
    named = kind if kind is not None else hints.kind if api is None and not path else None
    rule = rules.get(named) if isinstance(named, str) else None
    if rule is not None:
        rule(visit)
    objects.references(out, path, settings.drop_server_fields, targets)
    if (
        misplaced is None
        and group not in (None, *convert.GROUPS)
        and (not path or path[0] == "items")
        and len(path) <= 2
    ):
        _whole_object(out, path, obj, settings, hints.partial, out.changes[changes_before:])
    asked = out.asks[asks_before:]
    if embedding.in_template(path):
        kept = embedding.substituted(out.findings[before:], obj)
        ids = {id(f) for f in kept}
        for ask in asked:  # (its findings go where they went among those kept)
            ask.at = before + sum(1 for f in out.findings[before : ask.at] if id(f) in ids)
        out.findings[before:] = kept
    resource = _resource(obj)
    for i in range(before, len(out.findings)):
        f = out.findings[i]
        out.findings[i] = f.at(object=f.object or ref, path=path + f.path, extra={**f.extra, **resource})
    for ask in asked:  # the judge's findings are placed as these are (transform.pipeline.verify.answer)
        ask.ref, ask.resource = ref, resource


def _whole_object(
    out: Outcome, path: Path, obj: dict[str, Any], settings: Settings, partial: bool, changes: list[Change]
) -> None:
    """Any other KubeVirt object against its CRD schema at the target: a changed one must stay valid
    (checked before writing), problems of an unchanged one are warnings (errors under --strict)."""
    mine = [c for c in changes if c.path == path and c.verify is None]
    if not any(c.path == path for c in changes):
        out.ask(path, Stage.CURRENT, partial=partial)
        return
    if not mine:
        return
    for change in mine:
        change.verify, change.partial = Stage.UPGRADED, partial
    out.ask(path, Stage.INPUT, partial=partial)
    out.asks[-1].carry = tuple(n for n, c in enumerate(out.changes) if any(c is m for m in mine))


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
        said = any(f.code == "instancetype.not-served" for f in found)
        out.findings.extend(f for f in found if not (said and f.code == "instancetype.not-served"))
        if said:  # the target judge's fact, under its code (target.api-version), as validate and scan say it
            out.ask(path, None, code="target.api-version")
        return
    if upgraded is None or releases.family_of(upgraded[1]) is None:
        if api == convert.LATEST and kind in releases.FAMILY_OF_KIND:
            partial = index.said_of(file).partial
            new, found = (obj, [])
            if settings.modernize:
                new, found = modernize.modernize_object(copy.deepcopy(obj), settings.target)
            rewritten = new != obj
            if rewritten:
                out.set(path, new)
                out.changes.append(Change(path, verify=Stage.UPGRADED, partial=partial))
            # once: what is said of it, and what a rewrite carries
            out.ask(path, Stage.CURRENT, partial=partial, carry=int(rewritten))
            out.findings.extend(found)
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
    partial = index.said_of(file).partial
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
    out.changes.append(Change(path, verify=Stage.UPGRADED, partial=partial))
    out.ask(path, Stage.INPUT, partial=partial, carry=1)
    note = f"{api} -> {new_api}" + (f" ({kind} -> {new_kind})" if new_kind != kind else "")
    out.findings.append(info("upgraded", f"upgraded {note}", ("apiVersion",)))
