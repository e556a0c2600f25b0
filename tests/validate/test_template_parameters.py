"""OpenShift Template parameters in `objects[]`: judged as `oc process` would substitute them (issue 21 §4).

`${NAME}` is replaced by the parameter's string, `${{NAME}}` by its value as JSON: a value that is a whole
reference satisfies any type and pattern; a string holding one satisfies any pattern but stays a string.
`validate` and `check` say the same about the same template.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import invoke

TEMPLATE = """\
apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: vm-template
objects:
- apiVersion: kubevirt.io/v1
  kind: VirtualMachine
  metadata:
    name: ${NAME}
    labels:
      app: vm-${NAME}
  spec:
    runStrategy: Halted
    template:
      spec:
        domain:
          cpu:
            cores: ${{CPU_CORES}}
          devices: {}
          resources:
            requests:
              memory: ${MEMORY}
- apiVersion: instancetype.kubevirt.io/v1alpha2
  kind: VirtualMachineInstancetype
  metadata:
    name: ${NAME}
  spec:
    cpu:
      guest: ${{CPU_CORES}}
    memory:
      guest: ${MEMORY}
parameters:
- name: NAME
- name: CPU_CORES
  value: "4"
- name: MEMORY
  value: 4096Mi
"""


def run(*args: str) -> tuple[int, list[dict[str, object]]]:
    result = invoke(*args, "--format", "json")
    findings: list[dict[str, object]] = json.loads(result.stdout)["findings"]
    return result.exit_code, findings


def codes(findings: list[dict[str, object]], severity: str) -> list[tuple[object, object]]:
    return sorted((f["path"], f["code"]) for f in findings if f["severity"] == severity)


def test_whole_references_satisfy_any_type_and_pattern(tmp_path: Path) -> None:
    path = tmp_path / "template.yaml"
    path.write_text(TEMPLATE)
    code, found = run("validate", str(path))
    assert codes(found, "error") == [] and code == 0
    code, found = run("check", str(path))
    assert codes(found, "error") == [] and code == 1  # the instancetype is upgraded
    assert "instancetype.kubevirt.io/v1beta1" not in path.read_text()  # check writes nothing


def test_what_substitution_cannot_fix_is_still_said(tmp_path: Path) -> None:
    text = (
        TEMPLATE.replace("cores: ${{CPU_CORES}}", "cores: ${A}${B}")  # two references: a string, never an integer
        .replace("memory: ${MEMORY}", "memory: lots")  # no reference at all
        .replace("runStrategy: Halted", "runStrategy: Halted\n    runStrategyy: ${X}")  # unknown field
    )
    path = tmp_path / "template.yaml"
    path.write_text(text)
    _code, found = run("validate", str(path))
    said = codes(found, "error") + codes(found, "warning")
    assert ("objects[0].spec.template.spec.domain.cpu.cores", "schema.type") in said
    assert ("objects[0].spec.template.spec.domain.resources.requests.memory", "schema.quantity") in said
    assert ("objects[0].spec.runStrategyy", "schema.unknown-field") in said


def test_outside_a_template_a_reference_is_just_a_string(tmp_path: Path) -> None:
    path = tmp_path / "vm.yaml"
    path.write_text(
        "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: ${NAME}\nspec:\n  template: {}\n"
    )
    code, found = run("validate", str(path))
    assert ("metadata.name", "metadata.name") in codes(found, "error") and code == 3
