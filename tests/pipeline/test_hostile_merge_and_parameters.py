"""Issue 32, items 9 and 10: an apiVersion a `<<` merge key brings in (upgraded where go-yaml reads it), and an OpenShift Template
object whose apiVersion is a parameter."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
import yaml

from transform.cli.main import main

MERGED = {
    "flow-mapping": "<<: {apiVersion: instancetype.kubevirt.io/v1alpha1}\nkind: VirtualMachineInstancetype\n",
    "block-mapping": "<<:\n  apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\n",
    "list-of-mappings": "<<: [{apiVersion: instancetype.kubevirt.io/v1alpha1}, {kind: VirtualMachineInstancetype}]\n",
}
REST = "metadata:\n  name: a\nspec:\n  cpu: {guest: 1}\n  memory: {guest: 1Gi}\n"


def report(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main([*args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("case", sorted(MERGED))
@pytest.mark.parametrize("command", ["check", "fix"])
def test_an_apiversion_from_a_merge_key_is_upgraded(
    case: str, command: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: internal.verify ("please report this"), exit 3. The edit lands on the value go-yaml v2 reads
    (the merged mapping's own key): fix moves that version only, and an independent reader agrees."""
    path = tmp_path / "it.yaml"
    text = MERGED[case] + REST
    path.write_text(text)
    code, out = report([command, str(path)], capsys)
    codes = [f["code"] for f in out["findings"]]
    assert code == 1 and "upgraded" in codes and not any(c.startswith("internal.") for c in codes), codes
    if command == "check":
        assert path.read_text() == text
        return
    assert path.read_text() == text.replace("/v1alpha1}", "/v1beta1}").replace("/v1alpha1\n", "/v1beta1\n")
    assert yaml.safe_load(path.read_text())["apiVersion"] == "instancetype.kubevirt.io/v1beta1"


TEMPLATE = """\
apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: vm-template
parameters:
- name: API
{default}- name: NAME
  value: vm
objects:
- apiVersion: {api}
  kind: {kind}
  metadata:
    name: ${{NAME}}
  spec:
    template:
      spec:
        domain:
          devices: {{}}
"""


@pytest.mark.parametrize(
    ("api", "default", "says"),
    [
        ("${API}", "  value: kubevirt.io/v1alpha3\n", "default kubevirt.io/v1alpha3"),
        ("${{API}}", "  value: kubevirt.io/v1alpha3\n", "default kubevirt.io/v1alpha3"),
        ("${API}", "  generate: expression\n", "no default value"),
        ("${OTHER}", "", "not among the Template's parameters"),
    ],
)
def test_a_parameter_apiversion_is_said_naming_it_and_its_default(
    api: str, default: str, says: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: passed over in silence, exit 0."""
    path = tmp_path / "t.yaml"
    text = TEMPLATE.format(api=api, default=default, kind="VirtualMachine")
    path.write_text(text)
    line = text.split("\n").index(f"- apiVersion: {api}") + 1
    code, out = report(["check", str(path)], capsys)
    found = [f for f in out["findings"] if f["code"] == "input.templated-apiversion"]
    assert len(found) == 1, out
    f = found[0]
    assert api in f["message"] and says in f["message"] and "kubevirt.io/v1 for VirtualMachine" in f["message"]
    assert (f["line"], f["path"]) == (line, "objects[0].apiVersion"), f
    assert code == 0  # a warning: the run reads on


def test_a_parameter_apiversion_beside_another_kind_is_not_ours(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE.format(api="${API}", default="  value: v1\n", kind="ConfigMap"))
    code, out = report(["check", str(path)], capsys)
    assert not [f for f in out["findings"] if f["code"] == "input.templated-apiversion"]


def test_scan_says_it_too(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE.format(api="${API}", default="  value: kubevirt.io/v1alpha3\n", kind="VirtualMachine"))
    code = main(["scan", str(path)])
    out = capsys.readouterr().out
    assert code == 1 and "[input.templated-apiversion]" in out and "default kubevirt.io/v1alpha3" in out, out
