"""The CRD facts (scope, status and scale subresources) are generated from KubeVirt's crds.go, never typed."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys
from typing import Any

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "reference" / "kubevirt-crds.json"
CDI_REFERENCE = ROOT / "reference" / "cdi-crds.json"


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("gen_crd_facts", ROOT / "scripts" / "gen_crd_facts.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_crd_facts"] = module
    spec.loader.exec_module(module)
    return module


def test_committed_module_is_the_generated_one() -> None:
    gen = _generator()
    committed = (ROOT / "transform" / "kubevirt" / "crdfacts.py").read_text()
    made = gen.render(json.loads(REFERENCE.read_text()), json.loads(CDI_REFERENCE.read_text()))
    assert made == committed, "stale: python scripts/gen_crd_facts.py"


def test_reference_names_its_source_per_release() -> None:
    for path, minors in ((REFERENCE, range(10)), (CDI_REFERENCE, range(56, 67))):
        reference = json.loads(path.read_text())
        assert sorted(reference["releases"], key=lambda k: int(k.split(".")[1])) == [f"1.{m}" for m in minors]
        for release in reference["releases"].values():
            assert len(release["commit"]) == 40 and release["tag"].startswith("v1.")


def test_cdi_extraction_reads_the_generated_yaml() -> None:
    """CDI's crds_generated.go: YAML in Go raw strings, a backtick spliced in (a made-up CRD)."""
    yaml = (
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  names:\n    kind: DataVolume\n"
        "  scope: Namespaced\n  versions:\n  - name: v1beta1\n    schema:\n      openAPIV3Schema:\n"
        '        description: a ` + "`" + `quoted` + "`" + ` word\n    subresources:\n      status: {}\n'
    )
    source = f'var CDICRDs map[string]string = map[string]string{{\n\t"datavolume": `{yaml}`,\n}}\n'
    assert _generator()._cdi_crds(source) == {
        "DataVolume": {"scope": "Namespaced", "status": True, "specReplicasPath": None}
    }


def test_extraction_reads_the_go_shapes() -> None:
    """The Go shapes crds.go uses for a kind, a scope and the subresources (made-up functions)."""
    source = """
func NewACrd() (*extv1.CustomResourceDefinition, error) {
	crd.Spec = extv1.CustomResourceDefinitionSpec{
		Scope:    "Namespaced",
		Names: extv1.CustomResourceDefinitionNames{
			Kind:       virtv1.VirtualMachineInstanceReplicaSetGroupVersionKind.Kind,
		},
	}
	err := addFieldsToAllVersions(crd, &extv1.CustomResourceSubresources{
		Scale: &extv1.CustomResourceSubresourceScale{
			SpecReplicasPath:   ".spec.replicas",
		},
		Status: &extv1.CustomResourceSubresourceStatus{},
	})
}

func NewBCrd() (*extv1.CustomResourceDefinition, error) {
	crd.Spec = extv1.CustomResourceDefinitionSpec{
		Names: extv1.CustomResourceDefinitionNames{
			Kind:     plugin.Kind,
		},
		Scope: extv1.ClusterScoped,
	}
}
"""
    assert _generator()._crds(source) == {
        "Plugin": {"scope": "Cluster", "status": False, "specReplicasPath": None},
        "VirtualMachineInstanceReplicaSet": {
            "scope": "Namespaced",
            "status": True,
            "specReplicasPath": ".spec.replicas",
        },
    }


def _fake_tag(files: dict[str, str]) -> Any:
    """A made-up tag's files for the generator's Go reader."""
    gen = _generator()
    return gen.GoSource(lambda path: files[path], lambda d: sorted(p for p in files if p.rsplit("/", 1)[0] == d))


_CRDS_GO = """package components

import (
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	virtv1 "kubevirt.io/api/core/v1"
	poolv1beta1 "kubevirt.io/api/pool/v1beta1"
)

func newCRDVersions() []extv1.CustomResourceDefinitionVersion {
	versions := make([]extv1.CustomResourceDefinitionVersion, len(virtv1.ApiSupportedVersions))
	copy(versions, virtv1.ApiSupportedVersions)
	return versions
}

func NewACrd() (*extv1.CustomResourceDefinition, error) {
	crd.Spec = extv1.CustomResourceDefinitionSpec{
		Group:    virtv1.AGroupVersionKind.Group,
		Versions: newCRDVersions(),
		Scope:    "Namespaced",
		Names: extv1.CustomResourceDefinitionNames{
			Kind:       virtv1.AGroupVersionKind.Kind,
		},
	}
}

func NewBCrd() (*extv1.CustomResourceDefinition, error) {
	crd.Spec = extv1.CustomResourceDefinitionSpec{
		Group: poolv1beta1.SchemeGroupVersion.Group,
		Versions: []extv1.CustomResourceDefinitionVersion{{
			Name:               "v1alpha1",
			Served:             false,
			Deprecated:         true,
			DeprecationWarning: pointer.P("a, b {c}"),
		}, {
			Name:    poolv1beta1.SchemeGroupVersion.Version,
			Served:  true,
			Storage: true,
			Subresources: &extv1.CustomResourceSubresources{Status: &extv1.CustomResourceSubresourceStatus{}},
		}},
		Scope: extv1.ClusterScoped,
		Names: extv1.CustomResourceDefinitionNames{
			Kind:     "B",
		},
	}
}
"""
_API_FILES = {
    "staging/src/kubevirt.io/api/core/register.go": 'package core\n\nconst GroupName = "a.example.io"\n',
    "staging/src/kubevirt.io/api/core/v1/register.go": """package v1

import (
	"kubevirt.io/api/core"
)

var (
	ApiSupportedVersions = []extv1.CustomResourceDefinitionVersion{
		{
			Name:    "v2",
			Served:  true,
			Storage: true,
		},
		{
			Name:       "v1",
			Served:     true,
			Deprecated: true,
		},
	}
	AGroupVersionKind = schema.GroupVersionKind{Group: core.GroupName, Version: "v2", Kind: "A"}
)
""",
    "staging/src/kubevirt.io/api/pool/register.go": 'package pool\n\nconst (\n\tGroupName = "b.example.io"\n)\n',
    "staging/src/kubevirt.io/api/pool/v1beta1/register.go": 'package v1beta1\n\nimport "kubevirt.io/api/pool"\n\n'
    'var SchemeGroupVersion = schema.GroupVersion{Group: pool.GroupName, Version: "v1beta1"}\n',
}


def test_extraction_reads_the_crd_versions() -> None:
    """Versions inline (names as literals or API-package constants) and newCRDVersions() (core/v1's list)."""
    go = _fake_tag(_API_FILES)
    crds = _generator()._crds(_CRDS_GO, go)
    assert {kind: (c["group"], c["versions"]) for kind, c in crds.items()} == {
        "A": (
            "a.example.io",
            [
                {"name": "v2", "served": True, "storage": True, "deprecated": False},
                {"name": "v1", "served": True, "storage": False, "deprecated": True},
            ],
        ),
        "B": (
            "b.example.io",
            [
                {"name": "v1alpha1", "served": False, "storage": False, "deprecated": True},
                {"name": "v1beta1", "served": True, "storage": True, "deprecated": False},
            ],
        ),
    }


@pytest.mark.parametrize(
    ("before", "after", "said"),
    [
        ("Served:             false,", "Served: isServed(),", "not a Go bool literal"),
        ('Name:               "v1alpha1",', 'Name: "v1alpha1",\n\t\t\tServedHere: true,', "does not know"),
        ("Versions: newCRDVersions(),", "Versions: someVersions(),", "does not know"),
        ("poolv1beta1.SchemeGroupVersion.Group", "poolv1beta1.SchemeGroupVersion.Group + x", "cannot read"),
    ],
)
def test_extraction_fails_loudly_on_a_shape_it_does_not_know(before: str, after: str, said: str) -> None:
    go = _fake_tag(_API_FILES)
    assert before in _CRDS_GO
    with pytest.raises(SystemExit, match=said):
        _generator()._crds(_CRDS_GO.replace(before, after), go)


def test_reference_records_each_crds_versions() -> None:
    reference = json.loads(REFERENCE.read_text())
    for key, release in reference["releases"].items():
        for kind, crd in {**release["crds"], **release["virtTemplateCrds"]}.items():
            assert crd["group"].endswith("kubevirt.io") and crd["versions"], (key, kind)
            assert sum(v["storage"] for v in crd["versions"]) == 1, (key, kind)  # one storage version per CRD
            for version in crd["versions"]:
                assert set(version) == {"name", "served", "storage", "deprecated"}, (key, kind)
