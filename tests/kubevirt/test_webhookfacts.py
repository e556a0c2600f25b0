"""The webhook facts (discontinued interface bindings) are generated from KubeVirt's network admitter, never typed."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "reference" / "kubevirt-webhooks.json"


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("gen_webhook_facts", ROOT / "scripts" / "gen_webhook_facts.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_webhook_facts"] = module
    spec.loader.exec_module(module)
    return module


def test_committed_module_is_the_generated_one() -> None:
    committed = (ROOT / "transform" / "kubevirt" / "webhookfacts.py").read_text()
    assert _generator().render(json.loads(REFERENCE.read_text())) == committed, (
        "stale: python scripts/gen_webhook_facts.py"
    )


def test_reference_names_its_source_per_release() -> None:
    reference = json.loads(REFERENCE.read_text())
    assert sorted(reference["releases"], key=lambda k: int(k.split(".")[1])) == [f"1.{m}" for m in range(10)]
    for release in reference["releases"].values():
        assert len(release["commit"]) == 40 and release["tag"].startswith("v1.")


def test_extraction_reads_a_status_cause_as_go_writes_it() -> None:
    source = """
		if ifaceSpec.DeprecatedSlirp != nil {
			causes = append(causes, metav1.StatusCause{
				Type:    metav1.CauseTypeFieldValueInvalid,
				Message: "Slirp interface support has been discontinued since v1.3",
				Field:   field.Child("domain", "devices", "interfaces").Index(idx).Child("slirp").String(),
			})
		}
		if iface.InterfaceBindingMethod.DeprecatedMacvtap != nil && !config.MacvtapEnabled() {
			causes = append(causes, metav1.StatusCause{
				Message: "Macvtap feature gate is not enabled",
				Field:   fieldPath.Child("domain", "devices", "interfaces").Index(idx).Child("name").String(),
			})
		}
"""
    assert _generator().discontinued([source]) == {"slirp": "Slirp interface support has been discontinued since v1.3"}


def test_extraction_reads_the_deprecated_topologies_as_go_writes_them() -> None:
    admitter = """
const deprecatedPreferredCPUTopologyErrFmt = "PreferredCPUTopology %s is deprecated for removal in a future release, please use %s instead"

var deprecatedTopologies = map[instancetypeapiv1beta1.PreferredCPUTopology]instancetypeapiv1beta1.PreferredCPUTopology{
	instancetypeapiv1beta1.DeprecatedPreferSockets: instancetypeapiv1beta1.Sockets,
	instancetypeapiv1beta1.DeprecatedPreferAny:     instancetypeapiv1beta1.Any,
}
"""
    types = """
	DeprecatedPreferSockets PreferredCPUTopology = "preferSockets"
	DeprecatedPreferAny PreferredCPUTopology = "preferAny"
	Sockets PreferredCPUTopology = "sockets"
	Any PreferredCPUTopology = "any"
"""
    assert _generator().deprecated_topologies(admitter, types) == {
        "message": "PreferredCPUTopology %s is deprecated for removal in a future release, please use %s instead",
        "replacements": {"preferAny": "any", "preferSockets": "sockets"},
    }
    assert _generator().deprecated_topologies("package admitters", types) == {}


def test_the_deprecated_topology_warning_starts_with_v1_4() -> None:
    """v1.4.0 is the first tag whose preference admitter warns (and whose API has `sockets`)."""
    releases = json.loads(REFERENCE.read_text())["releases"]
    warned = sorted((int(k.split(".")[1]) for k, r in releases.items() if r["deprecated_topologies"]))
    assert warned == list(range(4, 10))
