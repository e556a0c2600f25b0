"""Helm itself as the oracle of chart edits: the `helm-python-sdk` package (the `test` extra) embeds
Helm v4's engine and renders a chart offline, without a binary or a cluster. A chart the tool fixed
must render to the same objects as before, with only apiVersions moved."""

from __future__ import annotations

import pathlib
from types import ModuleType
from typing import Any

import pytest
import yaml

helm_python: ModuleType | None
try:
    import helm_python
except ImportError:  # the extra is not installed: the tests that need Helm skip, saying why
    helm_python = None

needs_helm = pytest.mark.skipif(
    helm_python is None, reason="helm-python-sdk (Helm's engine, in the `test` extra) is not installed"
)


def render(chart: pathlib.Path, values: dict[str, Any] | None = None) -> list[tuple[str, Any]]:
    """(template, object) for every object the chart renders, in template order."""
    assert helm_python is not None
    manifests = helm_python.Chart.load(chart).render(values, name="r", namespace="ns")
    return [(name, obj) for name in sorted(manifests) for obj in yaml.safe_load_all(manifests[name]) if obj is not None]


def _without_api_versions(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_api_versions(v) for k, v in value.items() if k != "apiVersion"}
    if isinstance(value, list):
        return [_without_api_versions(v) for v in value]
    return value


def api_versions(value: Any, path: str = "") -> dict[str, Any]:
    """Every apiVersion in an object, by its path."""
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        for k, v in value.items():
            out.update({f"{path}.{k}": v} if k == "apiVersion" else api_versions(v, f"{path}.{k}"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.update(api_versions(v, f"{path}[{i}]"))
    return out


def only_api_versions_moved(before: list[tuple[str, Any]], after: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    """Assert the same objects, equal but for apiVersion values; the (old, new) apiVersions that moved."""
    assert [name for name, _ in before] == [name for name, _ in after]
    moved = []
    for (name, old), (_, new) in zip(before, after, strict=True):
        assert _without_api_versions(old) == _without_api_versions(new), name
        a, b = api_versions(old), api_versions(new)
        assert a.keys() == b.keys(), name
        moved += [(a[k], b[k]) for k in a if a[k] != b[k]]
    return moved
