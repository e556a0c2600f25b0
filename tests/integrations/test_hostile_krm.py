"""Hostile KRM function input (issue 32, item 7): `target-kubevirt: 1.10` unquoted in a
functionConfig is the YAML number 1.1. Was: read as KubeVirt 1.1, objects left at old versions,
exit 0. Now refused as the configuration file refuses a TOML number: an error result, exit 1."""

from __future__ import annotations

import pytest
import yaml

from tests.integrations.test_krm import RL_YAML, run_krm


@pytest.mark.parametrize(
    ("config", "key"),
    [
        pytest.param("  data:\n    target-kubevirt: 1.10\n", "target-kubevirt", id="configmap-kubevirt"),
        pytest.param("  data:\n    target-cdi: 1.60\n", "target-cdi", id="configmap-cdi"),
        pytest.param("  spec:\n    target-kubevirt: 1.10\n", "target-kubevirt", id="custom-kind-spec"),
    ],
)
def test_an_unquoted_version_number_is_refused(config: str, key: str) -> None:
    data = RL_YAML.replace('  data:\n    target-kubevirt: "1.7"\n', config)
    if "spec:" in config:
        data = data.replace(
            "  kind: ConfigMap\n  metadata: {name: fn-config}", "  kind: UpgradeConfig\n  metadata: {name: fn}"
        )
    assert config in data
    proc = run_krm(data)
    assert proc.returncode == 1, proc.stderr
    doc = yaml.safe_load(proc.stdout)
    assert doc["items"][0]["apiVersion"] == "instancetype.kubevirt.io/v1alpha1"  # nothing upgraded
    errors = [r for r in doc["results"] if r["severity"] == "error"]
    assert errors and key in errors[0]["message"] and "quote it" in errors[0]["message"], doc["results"]


def test_a_quoted_version_is_read_as_written() -> None:
    proc = run_krm(RL_YAML.replace('target-kubevirt: "1.7"', 'target-kubevirt: "1.10"'))
    assert proc.returncode == 0, proc.stderr
    doc = yaml.safe_load(proc.stdout)
    assert doc["items"][0]["apiVersion"] == "instancetype.kubevirt.io/v1beta1"
    assert any("1.10" in r["message"] for r in doc["results"])
