"""The CRD facts (scope, status and scale subresources) are generated from KubeVirt's crds.go, never typed."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys
from typing import Any

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
