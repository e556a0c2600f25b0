"""One judge (issue 20 §2): every command says a fact the judge finds under one code and in the same
words; only its severity differs by command (transform.model.policy)."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

from tests.support.cli import invoke

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
    result = invoke(command, "--format", "json", "--target-kubevirt", target, str(path))
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


VM_FLAVOR = """\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm
spec:
  runStrategy: Halted
  flavor:
    name: f
  template:
    spec:
      domain:
        devices: {}
"""


def test_a_vm_flavor_matcher_is_one_fact_in_every_command(tmp_path: pathlib.Path) -> None:
    """spec.flavor was renamed spec.instancetype in v0.56: before, check and validate called it a typo
    (schema.unknown-field) while scan said target.vm-flavor."""
    path = tmp_path / "vm.yaml"
    path.write_text(VM_FLAVOR)
    said = {}
    for command in ("check", "validate", "scan"):
        found = [f for f in _found(command, path, "1.9") if f["path"] == "spec.flavor"]
        said[command] = sorted((f["code"], f["message"]) for f in found)
    assert said["check"] == said["validate"] == said["scan"], said
    assert [code for code, _ in said["scan"]] == ["target.vm-flavor"]
    assert not [f for f in _found("scan", path, "0.55") if f["path"] == "spec.flavor"]


FLAVOR_REVISION = """\
apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: vm-f-1
  ownerReferences:
  - apiVersion: kubevirt.io/v1
    kind: VirtualMachine
    name: vm
    uid: 11111111-1111-1111-1111-111111111111
data:
  apiVersion: flavor.kubevirt.io/v1alpha1
  kind: VirtualMachineFlavor
  metadata:
    name: f
  profiles:
  - name: default
    default: true
revision: 1
"""


def test_a_whole_flavor_payload_is_one_fact_in_validate_and_scan(tmp_path: pathlib.Path) -> None:
    """No release decodes a whole flavor.kubevirt.io object in a revision: before, only scan said so."""
    path = tmp_path / "cr.yaml"
    path.write_text(FLAVOR_REVISION)
    validate = [f for f in _found("validate", path, "1.9") if f["code"] == "target.payload-format"]
    scan = [f for f in _found("scan", path, "1.9") if f["code"] == "target.payload-format"]
    assert [(f["path"], f["message"]) for f in validate] == [(f["path"], f["message"]) for f in scan] != []


EXPORT = """\
apiVersion: export.kubevirt.io/v1alpha1
kind: VirtualMachineExport
metadata:
  name: e
spec:
  source:
    apiGroup: kubevirt.io
    kind: VirtualMachine
    name: vm
"""


def test_a_removed_version_is_one_fact_in_validate_and_scan(tmp_path: pathlib.Path) -> None:
    """export.kubevirt.io/v1alpha1 is removed in KubeVirt 1.9: scan said export.not-served and validate
    export.not-latest; now both say export.not-served, in the same words."""
    path = tmp_path / "export.yaml"
    path.write_text(EXPORT)
    validate = [(f["code"], f["message"]) for f in _found("validate", path, "1.9") if f["path"] == "apiVersion"]
    scan = [(f["code"], f["message"]) for f in _found("scan", path, "1.9") if f["path"] == "apiVersion"]
    assert validate == scan and [code for code, _ in scan] == ["export.not-served"]


CURRENT_REVISION = """\
apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: vm-small-v1beta1-1
  labels:
    instancetype.kubevirt.io/object-version: v1beta1
data:
  apiVersion: instancetype.kubevirt.io/v1beta1
  kind: VirtualMachineInstancetype
  metadata:
    name: small
  spec:
    cpu:
      guest: 1
    memory:
      guest: 1Gi
    bogus: 1
revision: 1
"""


def test_check_says_what_the_decoder_says_of_a_current_revision(tmp_path: pathlib.Path) -> None:
    """A current revision is left as it is, and its payload's problems are said as validate says them
    (before: check decoded the payload and said nothing)."""
    path = tmp_path / "cr.yaml"
    path.write_text(CURRENT_REVISION)
    check = [(f["code"], f["path"], f["message"]) for f in _found("check", path, "1.9")]
    validate = [(f["code"], f["path"], f["message"]) for f in _found("validate", path, "1.9")]
    assert check == validate and [code for code, _, _ in check] == ["revision.dropped-field"]


def test_scan_does_not_judge_a_payload_by_a_crd_schema(tmp_path: pathlib.Path) -> None:
    """A field no release has in a payload is what Go's decoder drops (validate: revision.dropped-field);
    scan called it schema.unknown-field, a CRD schema's verdict on data the API server never reads."""
    path = tmp_path / "cr.yaml"
    path.write_text(CURRENT_REVISION)
    assert [f["code"] for f in _found("validate", path, "1.9")] == ["revision.dropped-field"]
    assert [f for f in _found("scan", path, "1.9") if f["path"].startswith("data")] == []


def test_a_chart_template_and_an_object_are_one_fact_in_scan(tmp_path: pathlib.Path) -> None:
    """An instancetype version the target does not serve: scan said instancetype.not-served for a Helm
    chart's template and target.api-version for a manifest's object; one code and message now."""
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    body = "kind: VirtualMachineInstancetype\nmetadata:\n  name: x\nspec:\n  cpu:\n    guest: 1\n"
    (chart / "templates" / "it.yaml").write_text(
        "apiVersion: instancetype.kubevirt.io/v1alpha1\n" + body.replace("x", "{{ .Values.name }}")
    )
    (tmp_path / "it.yaml").write_text("apiVersion: instancetype.kubevirt.io/v1alpha1\n" + body)
    found = [f for f in _found("scan", tmp_path, "1.9") if f["path"] == "apiVersion"]
    assert len(found) == 2
    assert {(f["code"], f["message"]) for f in found} == {(found[0]["code"], found[0]["message"])}
    assert found[0]["code"] == "target.api-version"
