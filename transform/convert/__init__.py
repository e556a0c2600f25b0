"""The conversion registry: one step per version hop, chained to the latest version.

Each step module has the same contract (see `Step`): the API group and version it reads, the
group/version it produces, how kinds are renamed, and `convert_spec`, the field-level rules
KubeVirt's Go conversion applied to a ControllerRevision payload on that hop. Standalone
objects only get their apiVersion (and kind) rewritten: the CRDs use conversion strategy
None, so that is all the API server ever did to them. A future `v1beta1 -> v1` is one new
module and one line in `STEPS`, plus the version's row in transform.kubevirt.apis.TABLE (from which
the field trees, payload formats, release table and validation read the instancetype versions;
tests/kubevirt/test_future_hop.py shows it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from transform.convert import flavor_v1alpha1, instancetype_v1alpha1, instancetype_v1alpha2
from transform.kubevirt import apis

Spec = dict[str, Any]


@dataclass(frozen=True)
class Step:
    group: str
    version: str
    to_group: str
    to_version: str
    convert_spec: Callable[[Spec, str], Spec]
    kinds: dict[str, str] = field(default_factory=dict)
    doc: str = ""

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}"

    @property
    def to_api_version(self) -> str:
        return f"{self.to_group}/{self.to_version}"


def _step(module: Any) -> Step:
    return Step(
        module.GROUP,
        module.VERSION,
        module.TO_GROUP,
        module.TO_VERSION,
        module.convert_spec,
        dict(getattr(module, "KINDS", {})),
        (module.__doc__ or "").strip(),
    )


# Explicit and ordered: no registration by import side effect.
STEPS: dict[str, Step] = {
    s.api_version: s for s in map(_step, (flavor_v1alpha1, instancetype_v1alpha1, instancetype_v1alpha2))
}
LATEST = apis.latest("instancetype.kubevirt.io")
# The groups whose objects go through the steps above (the other table groups: transform.convert.apiversion).
GROUPS = tuple(dict.fromkeys(r.group for r in apis.TABLE if r.family == "instancetype"))


def chain(api_version: str) -> list[Step] | None:
    """Steps from `api_version` to LATEST; [] when already latest; None when unknown."""
    steps: list[Step] = []
    while api_version != LATEST:
        step = STEPS.get(api_version)
        if step is None or len(steps) > len(STEPS):
            return None
        steps.append(step)
        api_version = step.to_api_version
    return steps


def upgrade_kind(api_version: str, kind: str, release: apis.Release | None = None) -> tuple[str, str] | None:
    """(new apiVersion, new kind) for a standalone object, as the API server would serve it.

    With `release` (a KubeVirt target): the newest version of the chain that the release serves, which is
    `(api_version, kind)` itself when the release serves nothing newer (never a version it does not serve)."""
    steps = chain(api_version)
    if steps is None:
        return None
    out = (api_version, kind)
    for step in steps:
        kind = step.kinds.get(kind, kind)
        row = apis.find(step.to_api_version, kind)
        if release is None or (row is not None and row.serves(release)):
            out = (step.to_api_version, kind)
    return out


def convert_spec(spec: Spec, family: str, api_version: str) -> Spec:
    """A payload spec of `api_version` through KubeVirt's Go conversions up to LATEST."""
    for step in chain(api_version) or ():
        spec = step.convert_spec(spec, family)
    return spec
