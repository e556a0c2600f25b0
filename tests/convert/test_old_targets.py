"""Targets before KubeVirt 1.0: never write a version the target does not serve (issue 21 §4).

The expected versions are written out from kubevirt-api-versions.md §1 (flavor.kubevirt.io v1alpha1 served
v0.47-v0.55; instancetype.kubevirt.io v1alpha1 from v0.56, v1alpha2 from v0.58, v1beta1 from v1.0) and
kubevirt-revisions.md §1 (v1beta1 payloads are read from v1.0), not computed from the API table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from transform.convert.index import Index
from transform.model.settings import Settings
from transform.pipeline.onefile import upgrade_file

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

# (apiVersion, kind, target, expected apiVersion/kind or None = unchanged, code expected)
CASES = [
    (
        "instancetype.kubevirt.io/v1alpha1",
        "VirtualMachineInstancetype",
        (0, 59),
        "instancetype.kubevirt.io/v1alpha2",
        "upgraded",
    ),
    (
        "instancetype.kubevirt.io/v1alpha1",
        "VirtualMachinePreference",
        (0, 58),
        "instancetype.kubevirt.io/v1alpha2",
        "upgraded",
    ),
    (
        "instancetype.kubevirt.io/v1alpha1",
        "VirtualMachineInstancetype",
        (0, 57),
        None,
        "instancetype.replacement-not-served",
    ),
    ("instancetype.kubevirt.io/v1alpha2", "VirtualMachineClusterPreference", (0, 59), None, None),
    # one code per fact (issue 20 §2): the target judge's target.api-version, as validate and scan say it
    # (it was instancetype.not-served here only)
    ("instancetype.kubevirt.io/v1alpha1", "VirtualMachineInstancetype", (0, 55), None, "target.api-version"),
    (
        "instancetype.kubevirt.io/v1alpha1",
        "VirtualMachineInstancetype",
        (1, 0),
        "instancetype.kubevirt.io/v1beta1",
        "upgraded",
    ),
    (
        "flavor.kubevirt.io/v1alpha1",
        "VirtualMachineClusterFlavor",
        (0, 55),
        None,
        "instancetype.replacement-not-served",
    ),
]


def run(text: str, target: tuple[int, int]) -> tuple[str | None, list[str], set[str]]:
    r = upgrade_file("t.yaml", text.encode(), Settings(target=target), Index())
    errors = [str(f) for f in r.findings if f.severity.value == "error"]
    return (r.new_text if r.changed else None), errors, {f.code for f in r.findings}


@pytest.mark.parametrize(("api", "kind", "target", "expected", "code"), CASES)
def test_objects_get_the_newest_version_the_target_serves(
    api: str, kind: str, target: tuple[int, int], expected: str | None, code: str | None
) -> None:
    before = f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: x\nspec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1Gi\n"
    if kind.endswith("Preference"):
        before = f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: x\nspec: {{}}\n"
    after, errors, found = run(before, target)
    assert not errors
    assert after == (before.replace(api, expected) if expected else None)
    if code is not None:
        assert code in found


@pytest.mark.parametrize(
    ("fixture", "target", "severity"),
    [
        ("revisions/whole-v1alpha2-instancetype.yaml", (0, 59), "info"),  # 0.59 reads v1alpha2: keep it
        ("revisions/whole-v1alpha2-instancetype.yaml", (0, 57), "error"),  # 0.57 reads neither
        ("revisions/f1-instancetype-wrapper.yaml", (0, 57), "info"),
    ],
)
def test_revisions_are_not_written_as_payloads_the_target_cannot_read(
    fixture: str, target: tuple[int, int], severity: str
) -> None:
    text = (FIXTURES / fixture).read_text()
    after, _errors, _found = run(text, target)
    assert after is None
    r = upgrade_file("t.yaml", text.encode(), Settings(target=target), Index())
    said = [f for f in r.findings if f.code == "revision.replacement-not-served"]
    assert [f.severity.value for f in said] == [severity]
    assert "cannot read v1beta1 payloads (from 1.0)" in said[0].message


def test_revisions_are_upgraded_from_1_0() -> None:
    text = (FIXTURES / "revisions" / "whole-v1alpha2-instancetype.yaml").read_text()
    after, errors, _found = run(text, (1, 0))
    assert after is not None and "instancetype.kubevirt.io/v1beta1" in after and not errors
