"""A future version is one table row: a fake `pool.kubevirt.io/v1` (served from 1.9, None conversion)
added to transform.kubevirt.apis.TABLE is used by conversion, validation, scan, the target checks
and kustomize targets, with no other change."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import invoke
from transform.kubevirt import apis

POOL = "apiVersion: pool.kubevirt.io/v1alpha1\nkind: VirtualMachinePool\nmetadata: {name: p}\nspec: {}\n"


@pytest.fixture
def future_row(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    row = apis.Api("pool.kubevirt.io", "v1", "pool", served=(1, 9))  # the one line a future release adds
    monkeypatch.setattr(apis, "TABLE", (*apis.TABLE, row))
    yield


def test_the_row_is_used_everywhere(future_row: None, tmp_path: Path) -> None:
    (tmp_path / "pool.yaml").write_text(POOL)
    (tmp_path / "kustomization.yaml").write_text(
        "resources: [pool.yaml]\npatches:\n- target: {group: pool.kubevirt.io, version: v1beta1}\n  path: x.yaml\n"
    )
    diff = invoke("diff", str(tmp_path))
    assert (
        "+apiVersion: pool.kubevirt.io/v1\n" in diff.output
        and "+- target: {group: pool.kubevirt.io, version: v1}" in diff.output
    )
    older = invoke("diff", "--target-kubevirt", "1.8", str(tmp_path / "pool.yaml"))
    assert "+apiVersion: pool.kubevirt.io/v1beta1\n" in older.output  # 1.8 does not serve the new row
    scan = json.loads(invoke("scan", "--format", "json", str(tmp_path)).output)
    assert scan["apis"][0]["replacement"] == "pool.kubevirt.io/v1"
    found = json.loads(invoke("validate", "--format", "json", str(tmp_path / "pool.yaml")).output)["findings"]
    assert any(f["code"] == "pool.not-latest" and "pool.kubevirt.io/v1" in f["message"] for f in found)
    assert apis.latest("pool.kubevirt.io") == "pool.kubevirt.io/v1"
    decision = apis.decide("pool.kubevirt.io/v1beta1", "VirtualMachinePool", apis.Targets((1, 9)))
    assert decision is not None and decision.new_api_version == "pool.kubevirt.io/v1"
