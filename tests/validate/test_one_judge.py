"""One judge (issue 20 §2): every command says a fact the judge finds under one code and in the same
words; only its severity differs by command (transform.model.policy)."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
from click.testing import CliRunner

from transform.cli.main import cli

FLAVOR = """\
apiVersion: flavor.kubevirt.io/v1alpha1
kind: VirtualMachineFlavor
metadata:
  name: f
profiles:
- name: default
  default: true
  cpu:
    sockets: 1
"""


def _found(command: str, path: pathlib.Path, target: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(cli, [command, "--format", "json", "--target-kubevirt", target, str(path)])
    out = json.loads(result.output)
    found: list[dict[str, Any]] = out["breaking"] if command == "scan" else out["findings"]
    return found


@pytest.mark.parametrize(("target", "said"), [("1.9", True), ("0.55", False)])
def test_an_unserved_flavor_object_is_one_fact_in_validate_and_scan(
    tmp_path: pathlib.Path, target: str, said: bool
) -> None:
    """Before, `scan` said the target does not serve flavor.kubevirt.io and `validate` said nothing."""
    path = tmp_path / "flavor.yaml"
    path.write_text(FLAVOR)
    validate = [f for f in _found("validate", path, target) if f["code"] == "target.api-version"]
    scan = [f for f in _found("scan", path, target) if f["code"] == "target.api-version"]
    assert bool(validate) == bool(scan) == said
    if said:
        assert [f["message"] for f in validate] == [f["message"] for f in scan]
        assert validate[0]["severity"] == "warning" and scan[0]["severity"] == "error"
