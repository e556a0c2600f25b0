"""`validate`: judge every recognised document against its own version, report every problem."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transform.convert import apiversion, payloads, wronggroup
from transform.convert.document import not_an_object
from transform.kubevirt import apis, embedding
from transform.model.findings import Finding, Severity, error, warning
from transform.model.plain import as_map
from transform.model.policy import Stage, verdict
from transform.model.settings import Settings
from transform.pipeline.api_inventory import judge as api_judge
from transform.pipeline.inputs import Item, RunResult, build_index
from transform.pipeline.onefile import FileResult, duplicate_keys, iter_documents, locator
from transform.pipeline.results import suppress_inline
from transform.validate import target as judge
from transform.validate import typemeta
from transform.yamltext import textio


def validate_object(obj: dict[str, Any], settings: Settings, partial: bool) -> list[Finding]:
    """The judge's findings on one document, with `validate`'s severities (transform.model.policy)."""
    if (clash := typemeta.case_clash(obj)) is not None:
        return [clash]
    kind, api = obj.get("kind"), str(obj.get("apiVersion") or "")
    if kind == "ControllerRevision" and not payloads.is_ours(obj):
        return []
    if not embedding.is_list(obj):
        # a kind under a group that never had it: no API server takes it (`no matches for kind`), an error of
        # the object itself, as `check` says it (a kustomize patch, whose group kustomize may ignore, only warns)
        misplaced = wronggroup.misplaced(api, kind, apis.Targets(settings.target, settings.target_cdi))
        if misplaced is not None:
            f = wronggroup.finding(misplaced, target_patch=False)
            return [f.at(severity=Severity.WARNING) if partial else f]
    judged = judge.judge(obj, settings.target, strict=settings.strict, partial=partial, target_cdi=settings.target_cdi)
    group = apis.group_of(api)
    if group is not None and group not in ("instancetype.kubevirt.io", "flavor.kubevirt.io") and isinstance(kind, str):
        # the object's version on the targets: judged as its own version, the target's verdict a warning
        targets = apis.Targets(settings.target, settings.target_cdi)
        rule = apiversion.object_rule(api, kind, targets)
        judged.target += [
            f for f in (rule[2] if rule is not None else []) if not f.code.endswith((".upgraded", ".action"))
        ]
        # a version the target does not serve: said as scan says it (api_inventory.judge), one code per fact
        api_judge(obj, ("", 0, 0, "", ""), targets, judged.target.extend)
        judged.target += _not_latest(api, kind, targets, rule, ("served", "deprecated"))
    if group == "instancetype.kubevirt.io" and isinstance(kind, str):
        # said as for every other group while the target serves it (unserved: target.api-version says it)
        targets = apis.Targets(settings.target, settings.target_cdi)
        judged.target += _not_latest(
            api, kind, targets, apiversion.object_rule(api, kind, targets), ("served", "deprecated")
        )
    return verdict(judged, Stage.VALIDATE)


def _not_latest(
    api: str,
    kind: str,
    targets: apis.Targets,
    rule: tuple[str | None, str, list[Finding]] | None,
    states: tuple[str, ...] | None,
) -> list[Finding]:
    """`<family>.not-latest`: the object's version is not the newest the target serves (in one of `states`)."""
    row = apis.find(api, kind)
    if rule is None or rule[0] is None or row is None:
        return []
    state = apis.status(row, targets.of(row))
    if states is not None and state not in states:
        return []
    return [
        warning(
            f"{row.family}.not-latest",
            f"{api} is {apiversion.state_text(row, state)} and not the newest version {targets.text(row)} serves: "
            f"`instancetype-upgrade fix` writes {rule[0]}",
            ("apiVersion",),
        )
    ]


def validate_items(items: list[Item], settings: Settings, run: RunResult, context: Sequence[Item] = ()) -> None:
    index = build_index(items, settings, context=context)
    for item in items:
        result = FileResult(item.name)
        run.results.append(result)
        try:
            source = textio.decode(item.data)
        except textio.ReadError as exc:
            result.findings.append(error("input.encoding", str(exc), file=item.name))
            continue
        result.source = source
        if item.held is not None:  # an input a format reads as text: never validated as objects
            continue
        for pd in iter_documents(item.name, source, settings, result.findings):
            if pd.doc is None:
                continue
            locate = locator(item.name, pd, pd.line0)
            result.findings += duplicate_keys(pd, settings, locate)
            if not isinstance(pd.doc.value, dict):
                if (problem := not_an_object(pd.doc.value)) is not None:
                    result.findings.append(locate(problem))
                continue
            for path, obj in embedding.walk(pd.doc.value):
                ref = "/".join(
                    str(x)
                    for x in (
                        obj.get("kind"),
                        as_map(obj.get("metadata")).get("namespace"),
                        as_map(obj.get("metadata")).get("name"),
                    )
                    if x
                )
                partial = index.said_of(item.name).partial
                row = apis.find(str(obj.get("apiVersion")), str(obj.get("kind")))
                family = {"family": row.family} if row is not None and apis.group_of(obj.get("apiVersion")) else {}
                found = validate_object(obj, settings, partial)
                for f in embedding.substituted(found, obj) if embedding.in_template(path) else found:
                    result.findings.append(locate(f.at(path=path + f.path, object=ref, extra={**f.extra, **family})))
        suppress_inline(result, settings)
