"""One verdict: every command says a fact about a document once, under one code, with the same words.

Rows of issue 20's table: `fix`/`check` and `validate` (and `scan`, where it reports the fact) read the
same. The releases below are read from KubeVirt's CRD schemas by hand (v1.5-v1.7 lack
`tlbflush.direct`, v1.8 has it; v1.5 lacks `preferredTPM.enabled`, v1.6 has it), not from the tool.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import invoke

PREFERENCE = """\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachinePreference
metadata:
  name: p
spec:
  features:
    preferredHyperv:
      tlbflush:
        direct: {}
  devices:
    preferredTPM:
      enabled: true
"""

OLD_INSTANCETYPE = """\
apiVersion: instancetype.kubevirt.io/v1alpha2
kind: VirtualMachineInstancetype
metadata:
  name: i
spec:
  cpu:
    guest: 1
  memory:
    guest: 1Gi
  ioThreads:
    supplementalPoolThreadCount: 2
"""

V1ALPHA2_REVISION = """\
apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: vm-i-1
  labels:
    instancetype.kubevirt.io/object-name: i
data:
  apiVersion: instancetype.kubevirt.io/v1alpha2
  kind: VirtualMachineInstancetype
  metadata:
    name: i
  spec:
    cpu:
      guest: 1
    memory:
      guest: 1Gi
revision: 1
"""

TLBFLUSH = "spec.features.preferredHyperv.tlbflush.direct"
TPM = "spec.devices.preferredTPM.enabled"


def _findings(command: str, path: Path, target: str) -> list[dict[str, Any]]:
    result = invoke(command, "--format", "json", "--target-kubevirt", target, str(path))
    found: list[dict[str, Any]] = json.loads(result.output)["breaking" if command == "scan" else "findings"]
    return found


def _at(found: list[dict[str, Any]], field: str) -> list[tuple[str, str, str]]:
    return [(f["severity"], f["code"], f["message"]) for f in found if f["path"] == field]


@pytest.mark.parametrize(
    ("target", "field", "added"),
    [("1.5", TLBFLUSH, "1.8"), ("1.7", TLBFLUSH, "1.8"), ("1.5", TPM, "1.6")],
)
def test_added_in_names_the_first_release_whose_schema_has_the_field(
    tmp_path: Path, target: str, field: str, added: str
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(PREFERENCE)
    want = [
        (
            "warning",
            "target.unknown-field",
            f"KubeVirt {target} does not know {field} (added in {added}): its API server drops the field silently",
        )
    ]
    assert _at(_findings("validate", path, target), field) == want
    assert _at(_findings("check", path, target), field) == want


@pytest.mark.parametrize("target", ["1.8", "1.9"])
def test_no_hint_once_the_target_has_the_field(tmp_path: Path, target: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(PREFERENCE)
    for command in ("validate", "check"):
        assert _at(_findings(command, path, target), TLBFLUSH) == []


def test_check_says_an_unknown_field_once(tmp_path: Path) -> None:
    """The input's problem and the upgraded object's target check are one fact: one finding, one code."""
    path = tmp_path / "i.yaml"
    path.write_text(OLD_INSTANCETYPE)
    for command in ("check", "validate"):
        found = _at(_findings(command, path, "1.6"), "spec.ioThreads")
        assert [code for _sev, code, _msg in found] == ["target.unknown-field"], command
        assert "(added in 1.7)" in found[0][2]


def test_a_payload_the_target_cannot_read_has_one_code_in_scan_and_validate(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(V1ALPHA2_REVISION)
    scan = _at(_findings("scan", path, "1.9"), "data")
    validate = _at(_findings("validate", path, "1.9"), "data")
    assert [code for _s, code, _m in scan] == [code for _s, code, _m in validate] == ["target.payload-format"]
    assert scan[0][2] == validate[0][2]
    assert "a whole v1alpha2 object" in scan[0][2]
    # scan gates on what breaks (an error), validate on the revision object, which the API server
    # accepts whatever its data holds (a warning)
    assert (scan[0][0], validate[0][0]) == ("error", "warning")


V1BETA1_REVISION = """\
apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: vm-i-v1beta1-1
  labels:
    instancetype.kubevirt.io/object-version: v1beta1
data:
  apiVersion: instancetype.kubevirt.io/v1beta1
  kind: VirtualMachineInstancetype
  metadata:
    name: i
  spec:
    cpu:
      guest: 1
    memory:
      guest: 1Gi
      overcommitPercent: 150
revision: 1
"""


def test_what_the_schema_says_of_a_payload_is_no_error_of_the_revision(tmp_path: Path) -> None:
    """The API server stores `data` unread and KubeVirt's decoder takes 150 (an int32): no error."""
    path = tmp_path / "r.yaml"
    path.write_text(V1BETA1_REVISION)
    result = invoke("validate", "--format", "json", str(path))
    found = [(f["severity"], f["code"], f["path"]) for f in json.loads(result.output)["findings"]]
    assert not [f for f in found if f[0] == "error"], found
    assert result.exit_code == 0


@pytest.mark.parametrize("strict", [False, True])
def test_a_revision_is_validated_once(strict: bool) -> None:
    """validate judges the revision and its payload once: no finding comes twice (nothing hides repeats)."""
    from transform.model.settings import Settings
    from transform.pipeline.validate_files import validate_object

    spec = {"cpu": {"guest": 1}, "memory": {"guest": "1Gi", "overcommitPercent": 150, "bogus": 1}}
    payload = {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineInstancetype", "spec": spec}
    labels = {"instancetype.kubevirt.io/object-version": "v1beta1"}
    doc = {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "r", "labels": labels, "x": 1},
           "data": {**payload, "metadata": {"name": "i"}}, "revision": 1}  # fmt: skip
    found = [(f.code, f.path, f.message) for f in validate_object(doc, Settings(strict=strict), False)]
    assert len(found) == len(set(found)) >= 2, found
