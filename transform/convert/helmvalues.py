"""KubeVirt objects in the Helm values of a GitOps release object.

Flux's `HelmRelease` (helm.toolkit.fluxcd.io; helm.fluxcd.io of Flux v1's helm-operator) carries the
values of its chart inline in `spec.values`, Argo CD's `Application` (argoproj.io) in
`spec.source.helm.valuesObject` (and, with several sources, in
`spec.sources[].helm.valuesObject`). Values are data handed to the chart, read as a chart's own
`values*.yaml` is (transform.convert.helmtemplate, `values=True`): a mapping whose `apiVersion` is a
literal old version of a KubeVirt/CDI group and whose `kind` beside it is a KubeVirt/CDI kind is an
object, upgraded by the object rule (`apiVersion` only, a flavor kind renamed); nothing else in the values
changes or is reported. Values kept elsewhere (Argo CD's `helm.values` string, Flux's `valuesFrom`
ConfigMaps and Secrets, a chart's own values file) are not read here.

    spec:                                        spec:
      values:                                      values:
        vm:                                          vm:
          apiVersion: kubevirt.io/v1alpha3   -->       apiVersion: kubevirt.io/v1
          kind: VirtualMachine                         kind: VirtualMachine
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from transform.convert import apiversion
from transform.convert.outcome import Change, Outcome
from transform.kubevirt import apis
from transform.model.findings import Finding, info

Path = tuple[Any, ...]
KINDS: frozenset[str] = frozenset(k for r in apis.TABLE for k in (*r.kinds, *r.kind_renames))
FLUX_GROUPS = ("helm.toolkit.fluxcd.io", "helm.fluxcd.io")  # Flux v2, and Flux v1's (helm-operator) HelmRelease
ARGO_GROUP = "argoproj.io"
_MAX_DEPTH = 64  # values nest freely; a deeper mapping is no object a chart template reads


def values_at(obj: dict[str, Any]) -> list[Path]:
    """The paths of the inline Helm values `obj` carries (none for anything but a HelmRelease/Application)."""
    api, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api, str) or "/" not in api:
        return []
    group = api.rpartition("/")[0]
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return []
    if group in FLUX_GROUPS and kind == "HelmRelease":
        return [("spec", "values")] if isinstance(spec.get("values"), dict) else []
    if group != ARGO_GROUP or kind != "Application":
        return []
    out: list[Path] = []
    sources: list[tuple[Path, Any]] = [(("spec", "source"), spec.get("source"))]
    if isinstance(spec.get("sources"), list):
        sources += [(("spec", "sources", i), s) for i, s in enumerate(spec["sources"])]
    for where, source in sources:
        helm = source.get("helm") if isinstance(source, dict) else None
        if isinstance(helm, dict) and isinstance(helm.get("valuesObject"), dict):
            out.append((*where, "helm", "valuesObject"))
    return out


def objects(value: Any, path: Path = (), depth: int = 0) -> Iterator[tuple[Path, str, str]]:
    """(path, apiVersion, kind) of every mapping in `value` with a literal KubeVirt/CDI apiVersion and kind."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, dict):
        api, kind = value.get("apiVersion"), value.get("kind")
        if isinstance(api, str) and isinstance(kind, str) and kind in KINDS and apis.group_of(api) is not None:
            yield path, api, kind
        for key, inner in value.items():
            yield from objects(inner, (*path, key), depth + 1)
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from objects(inner, (*path, i), depth + 1)


def upgrade(out: Outcome, path: Path, obj: dict[str, Any], targets: apis.Targets) -> None:
    """Upgrade the KubeVirt objects of `obj`'s inline Helm values (`path`: `obj`'s place in the document)."""
    for rel, api, kind in values_objects(obj):
        rule = apiversion.object_rule(api, kind, targets)
        if rule is None:
            continue
        new, new_kind, found = rule
        if new is None or new == api:
            continue
        said: list[Finding] = [f.at(path=rel + f.path) for f in found if f.code.endswith(".upgraded")]
        if not said:
            said = [info("helm.upgraded", f"{kind} in Helm values: upgraded {api} -> {new}", (*rel, "apiVersion"))]
        out.findings.extend(said)
        out.set(path + rel + ("apiVersion",), new)
        if new_kind != kind:
            out.set(path + rel + ("kind",), new_kind)
        out.changes.append(Change(path + rel))


def values_objects(obj: dict[str, Any]) -> Iterator[tuple[Path, str, str]]:
    """(path from `obj`, apiVersion, kind) of every KubeVirt/CDI object in `obj`'s inline Helm values."""
    for at in values_at(obj):
        value: Any = obj
        for part in at:
            value = value[part]
        for rel, api, kind in objects(value):
            yield (*at, *rel), api, kind
