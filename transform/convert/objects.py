"""Apply the apiVersion-only rules (transform.convert.apiversion) to one object of a document.

Each function takes the document's Outcome and the object's path in it, reads the object as it
stands after earlier rules (an embedded VM inside an upgraded template), changes single fields
only, and records a Change so that the planner edits just those nodes.
"""

from __future__ import annotations

import re
from typing import Any

from transform.convert import apiversion
from transform.convert.outcome import Change, Outcome, object_ref
from transform.kubevirt import apis, embedding, releases
from transform.model.findings import error, info, warning
from transform.model.plain import get as _get
from transform.model.settings import Settings

Path = tuple[Any, ...]

RUN_STRATEGY = {True: "Always", False: "Halted"}


def api_object(out: Outcome, path: Path, obj: dict[str, Any], api: str, kind: str, targets: apis.Targets) -> None:
    """A whole object of a table group other than instancetype: its apiVersion (and kind)."""
    rule = apiversion.object_rule(api, kind, targets)
    if rule is None:
        return
    new_api, new_kind, found = rule
    out.findings.extend(found)
    if new_api is None:
        return
    out.set(path + ("apiVersion",), new_api)
    if new_kind != kind:
        out.set(path + ("kind",), new_kind)
    out.changes.append(Change(path))


def patch_shaped(obj: dict[str, Any], partial: bool = False) -> bool:
    """Could the object be a patch not known as one (not `partial`)? It sets fields of its own (beyond apiVersion,
    kind, metadata and status), as a patch does. A placeholder (a kustomize resource or a values stub with only
    apiVersion, kind and a name, or an empty `spec`) sets none: the hint that it may be a patch would mislead."""
    meta = ("apiVersion", "kind", "metadata", "status")
    return not partial and any(key not in meta and value not in (None, {}, [], "") for key, value in obj.items())


def _apply(out: Outcome, path: Path, edits: list[tuple[Path, str]]) -> bool:
    for rel, value in edits:
        out.set(path + rel, value)
    return bool(edits)


def references(out: Outcome, path: Path, drop: bool, targets: apis.Targets) -> None:
    """Owner references and scale targets of known groups; managedFields and status naming old versions."""
    current = _get(out.value, path)
    if not isinstance(current, dict):
        return
    edits, found = apiversion.owner_references(current, targets)
    scaled, scale_found = apiversion.target_references(current, targets)
    edits, found = edits + scaled, found + scale_found
    deletes, more = apiversion.server_fields(current, targets, drop)
    out.findings.extend(found + more)
    changed = _apply(out, path, edits)
    for rel in dict.fromkeys(deletes):
        out.delete(path + rel)
        changed = True
    if changed:
        out.changes.append(Change(path, upgraded=False))


def vm_extras(out: Outcome, path: Path, modernize: bool, targets: apis.Targets) -> None:
    """A VirtualMachine's dataVolumeTemplates, and its deprecated `spec.running`."""
    vm = _get(out.value, path)
    if not isinstance(vm, dict):
        return
    edits, found = apiversion.data_volume_templates(vm.get("spec"), ("spec",), targets)
    out.findings.extend(found)
    changed = _apply(out, path, edits)
    changed = _running(out, path, vm, modernize, targets) or changed
    if changed:
        out.changes.append(Change(path, upgraded=False))


def pool_extras(out: Outcome, path: Path, targets: apis.Targets) -> None:
    """A VirtualMachinePool's VM template: no TypeMeta of its own, but dataVolumeTemplates."""
    base = ("spec", "virtualMachineTemplate", "spec")
    edits, found = apiversion.data_volume_templates(_get(out.value, path + base), base, targets)
    out.findings.extend(found)
    if _apply(out, path, edits):
        out.changes.append(Change(path, upgraded=False))


def _running(out: Outcome, path: Path, vm: dict[str, Any], modernize: bool, targets: apis.Targets) -> bool:
    """`spec.running` (deprecated in KubeVirt 1.4): reported; with --modernize, `spec.runStrategy`."""
    spec = vm.get("spec")
    if not isinstance(spec, dict) or "running" not in spec:
        return False
    where = ("spec", "running")
    running = spec["running"]
    if "runStrategy" in spec and spec["runStrategy"] is not None and running is not None:
        out.findings.append(
            error(
                "core.running-and-run-strategy",
                "spec.running and spec.runStrategy are both set: KubeVirt refuses the VM; delete spec.running",
                where,
            )
        )
        return False
    deprecated = targets.kubevirt >= apiversion.RUNNING_DEPRECATED
    if not modernize or not isinstance(running, bool) or "runStrategy" in spec:
        if deprecated:
            strategy = RUN_STRATEGY.get(running) if isinstance(running, bool) else None
            todo = f"use spec.runStrategy: {strategy}" if strategy else "use spec.runStrategy"
            out.findings.append(
                warning(
                    "core.running-deprecated",
                    f"spec.running is deprecated since KubeVirt {releases.text(apiversion.RUNNING_DEPRECATED)}: "
                    f"{todo} (fix --modernize rewrites it)",
                    where,
                )
            )
        return False
    strategy = RUN_STRATEGY[running]
    # spec.runStrategy exists in every release this tool knows (>= 0.48): the same key position
    out.set(
        path + ("spec",),
        {("runStrategy" if k == "running" else k): (strategy if k == "running" else v) for k, v in spec.items()},
    )
    out.findings.append(
        info(
            "core.run-strategy",
            f"spec.running: {str(running).lower()} -> spec.runStrategy: {strategy}",
            ("spec", "runStrategy"),
        )
    )
    return True


_PARAMETER_API = re.compile(r"\$\{\{?([A-Za-z0-9_]+)\}?\}")


def parameter_api_version(out: Outcome, path: Path, obj: dict[str, Any], doc: Any, settings: Settings) -> None:
    """An object of an OpenShift Template's `objects[]` whose apiVersion is a parameter (`${API}`) beside
    a KubeVirt or CDI kind: the value `oc process` gives it is not in the file, so it is said, naming the
    parameter and its default, as a templated apiVersion of a Helm chart is (never passed over in silence)."""
    api, kind = obj.get("apiVersion"), obj.get("kind")
    m = _PARAMETER_API.fullmatch(api) if isinstance(api, str) and embedding.in_template(path) else None
    rows = [r for r in apis.TABLE if kind in r.kinds or kind in r.kind_renames] if isinstance(kind, str) else []
    if m is None or not rows:
        return
    template = _get(doc, path[:-2])
    params = template.get("parameters") if isinstance(template, dict) else None
    param = next((p for p in params or [] if isinstance(p, dict) and p.get("name") == m[1]), None)
    default = param.get("value") if param is not None else None
    said = f"default {default}" if isinstance(default, str) and default else "no default value"
    if param is None:
        said = "not among the Template's parameters"
    targets = apis.Targets(settings.target, settings.target_cdi)
    served = [r for r in apis.rows(rows[-1].group) if r.serves(targets.of(r))]
    hint = f" ({served[-1].api_version} for {kind} on {targets.text(rows[-1])})" if served else ""
    out.findings.append(
        warning(
            "input.templated-apiversion",
            f"apiVersion is the Template parameter {api} ({said}): the tool cannot see the value `oc process` "
            f"gives it; make sure it is a version the target serves{hint}, e.g. the parameter's value",
            path + ("apiVersion",),
            object=object_ref(obj),
        )
    )
