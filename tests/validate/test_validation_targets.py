"""The release table and target findings."""

from __future__ import annotations

import pytest

from tests.validate.validation_helpers import (
    G,
    cr,
    it,
    pref,
    vm,
    wrapper,
)
from transform.kubevirt import releases


@pytest.mark.parametrize(("text", "expected"), [("1.7", (1, 7)), ("v1.7", (1, 7)), ("1.7.2", (1, 7)),
                                                ("v0.58.1", (0, 58)), ("1.9.0-rc.1", (1, 9)),
                                                # newer than the newest known: judged as it (v1beta1 still newest)
                                                ("1.10", (1, 9)), ("2.0", (1, 9))])  # fmt: skip
def test_parse_release(text: str, expected: tuple[int, int]) -> None:
    assert releases.parse_release(text) == expected


@pytest.mark.parametrize("text", ["", "1", "one.two", "1.7.x", "0.47"])
def test_parse_release_errors(text: str) -> None:
    with pytest.raises(ValueError, match="KubeVirt release"):
        releases.parse_release(text)


def test_latest_and_serves() -> None:
    assert releases.LATEST == (1, 9)
    assert releases.serves((0, 57), f"{G}/v1alpha1") and not releases.serves((0, 57), f"{G}/v1alpha2")
    assert releases.serves((1, 5), f"{G}/v1alpha2") and not releases.serves((1, 6), f"{G}/v1alpha2")
    assert not releases.serves((0, 59), f"{G}/v1beta1") and releases.serves("1.0", f"{G}/v1beta1")
    assert releases.serves((0, 50), "flavor.kubevirt.io/v1alpha1") and not releases.serves((1, 9), f"{G}/v1alpha1")


@pytest.mark.parametrize(
    ("release", "readable"),
    [((0, 57), {"F1", "F1:empty-apiVersion"}), ((0, 58), {"F1", "v1alpha2"}),
     ((1, 0), {"F1", "F1:empty-apiVersion", "v1alpha1", "v1alpha2", "v1beta1"}),
     ((1, 6), {"F1", "F1:empty-apiVersion", "v1alpha1", "v1alpha2", "v1beta1"}),
     ((1, 7), {"v1beta1"}), ((1, 9), {"v1beta1"}), ((0, 55), set())],
)  # fmt: skip
def test_reads_payload(release: tuple[int, int], readable: set[str]) -> None:
    assert {f for f in releases.PAYLOAD_FORMATS if releases.reads_payload(release, f)} == readable


def test_revision_reference_location() -> None:
    assert releases.info((1, 4)).revision_ref == "spec" and releases.info((1, 5)).revision_ref == "status"


def test_target_findings() -> None:
    found = releases.target_findings(it(ioThreads={"supplementalPoolThreadCount": 2}), (1, 6))
    assert [(f.code, f.path) for f in found] == [("target.unknown-field", ("spec", "ioThreads"))]
    assert "added in 1.7" in found[0].message
    assert releases.target_findings(it(ioThreads={}), "1.7") == []

    found = releases.target_findings(pref(cpu={"preferredCPUTopology": "cores"}), "1.3")
    assert [(f.severity.value, f.code) for f in found] == [("error", "target.topology-value")]
    assert "<=1.3 cluster silently gives the VM 1 vCPU socket/core/thread" in found[0].message
    assert releases.target_findings(pref(cpu={"preferredCPUTopology": "cores"}), "1.4") == []
    assert releases.target_findings(pref(cpu={"preferredCPUTopology": "preferCores"}), "1.3") == []

    found = releases.target_findings(it("v1alpha2"), "1.7")
    assert [(f.code, f.path) for f in found] == [("target.api-version", ("apiVersion",))]

    found = releases.target_findings(cr(wrapper({})), (1, 7))
    assert [(f.code, f.path) for f in found] == [("target.payload-format", ("data",))]
    data = it(schedulerName="s")
    found = releases.target_findings(cr(data), (1, 0))
    assert [(f.code, f.path) for f in found] == [("target.unknown-field", ("data", "spec", "schedulerName"))]

    found = releases.target_findings(vm(preference={"name": "p", "inferFromVolumeFailurePolicy": "x"}), "1.0")
    assert [f.path for f in found] == [("spec", "preference", "inferFromVolumeFailurePolicy")]
