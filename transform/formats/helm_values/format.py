"""Inline Helm values as a container format (`formats.base.Format`): the rule for a HelmRelease's or an
Application's values (`kinds`). Both are objects of plain YAML streams: nothing is read as text."""

from __future__ import annotations

from typing import Any, ClassVar

from transform.convert.visit import Rules, Visit
from transform.formats.base import Format
from transform.formats.helm_values import values


def _values(v: Visit) -> None:
    if v.group is None:  # not a KubeVirt group: Flux's and Argo CD's own
        values.upgrade(v.out, v.path, v.obj, v.targets)


class HelmValues(Format):
    name = "helm-values"
    kinds: ClassVar[Rules] = {"HelmRelease": _values, "Application": _values}

    def literals(self, obj: dict[str, Any]) -> tuple[str, list[tuple[tuple[Any, ...], str, str]]] | None:
        if obj.get("kind") not in self.kinds:
            return None
        meta = obj.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        return f"{obj.get('kind')} {name or ''} values", list(values.values_objects(obj))


FORMAT = HelmValues()
