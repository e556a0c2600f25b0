"""The API history (the 2018 kubevirt.io kinds, CDI's upload.cdi.kubevirt.io versions) is generated from the
sources that served it, never typed; the API table takes its rows from it."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys
from typing import Any

import pytest

from transform.kubevirt import apis

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "reference" / "api-history.json"


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("gen_api_history", ROOT / "scripts" / "gen_api_history.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_api_history"] = module
    spec.loader.exec_module(module)
    return module


def test_committed_module_is_the_generated_one() -> None:
    committed = (ROOT / "transform" / "kubevirt" / "apihistory.py").read_text()
    assert _generator().render(json.loads(REFERENCE.read_text())) == committed, (
        "stale: python scripts/gen_api_history.py"
    )


def test_reference_names_its_source_per_tag() -> None:
    reference = json.loads(REFERENCE.read_text())
    assert sorted(reference["kubevirt"], key=lambda t: int(t.split(".")[1])) == [f"v0.{m}.0" for m in range(1, 13)]
    assert sorted(reference["cdi"], key=lambda t: int(t.split(".")[1])) == [f"v1.{m}.0" for m in range(1, 67)]
    for release in (*reference["kubevirt"].values(), *reference["cdi"].values()):
        assert len(release["commit"]) == 40


def test_upload_token_request_is_the_same_in_both_versions() -> None:
    """CDI pkg/apis/upload/v1alpha1/types.go at v1.10.0 and staging/.../upload/v1beta1/types.go at v1.66.0:
    UploadTokenRequestSpec{PvcName `json:"pvcName"`}, UploadTokenRequestStatus{Token `json:"token,omitempty"`};
    v1.66's cdi-apiserver serves only v1beta1 (`uploadTokenVersions`), v1.55 both, v1.19 only v1alpha1."""
    cdi = json.loads(REFERENCE.read_text())["cdi"]
    shape = {"spec": {"pvcName": "string"}, "status": {"token": "string"}}
    assert cdi["v1.10.0"]["types"] == {"v1alpha1": shape}
    assert cdi["v1.66.0"]["types"] == {"v1beta1": shape}
    assert (cdi["v1.19.0"]["served"], cdi["v1.55.0"]["served"], cdi["v1.66.0"]["served"]) == (
        ["v1alpha1"],
        ["v1beta1", "v1alpha1"],
        ["v1beta1"],
    )


def test_the_generator_refuses_versions_that_differ() -> None:
    reference = {"cdi": {
        "v1.20.0": {"served": ["v1beta1", "v1alpha1"], "types": {
            "v1alpha1": {"spec": {"pvcName": "string"}, "status": {}},
            "v1beta1": {"spec": {"pvcName": "string", "size": "int64"}, "status": {}}}},
    }}  # fmt: skip
    with pytest.raises(SystemExit):
        _generator().upload_versions(reference)


def test_extraction_reads_types_go_as_go_writes_it() -> None:
    types_go = """
var GroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}
func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&VirtualMachine{},
		&VirtualMachineList{},
		&metav1.ListOptions{},
		&Spice{},
	)
"""
    assert _generator().resource_kinds(types_go) == ("v1alpha1", ("VirtualMachine",))


@pytest.mark.parametrize(
    ("api_version", "kind", "ours"),
    [
        ("kubevirt.io/v1alpha1", "OfflineVirtualMachine", True),
        ("kubevirt.io/v1alpha1", "VirtualMachineList", True),
        ("kubevirt.io/v1alpha1", "KWebUI", False),  # kubevirt-ansible v0.13.0's own CRD
        ("kubevirt.io/v1alpha2", "VirtualMachineInstance", True),
        ("kubevirt.io/v1alpha2", "OfflineVirtualMachine", True),  # v1alpha1's kind: a slip, said as legacy
    ],
)
def test_a_kind_the_2018_versions_never_had_is_someone_elses(api_version: str, kind: str, ours: bool) -> None:
    decision = apis.decide(api_version, kind, apis.Targets((1, 9)))
    assert (decision is not None and decision.status == "legacy") is ours
    assert (decision is None) is not ours


@pytest.mark.parametrize(
    ("target", "to"),
    [((1, 19), None), ((1, 55), "upload.cdi.kubevirt.io/v1beta1"), ((1, 66), "upload.cdi.kubevirt.io/v1beta1")],
)
def test_upload_token_request_v1alpha1_is_upgraded_like_any_hop(target: tuple[int, int], to: str | None) -> None:
    decision = apis.decide("upload.cdi.kubevirt.io/v1alpha1", "UploadTokenRequest", apis.Targets((1, 9), target))
    assert decision is not None and decision.new_api_version == to
