"""Helm charts in a tree: templates and values read as text, end to end through the commands."""

from __future__ import annotations

import json
import pathlib

import pytest
from click.testing import CliRunner

from transform.cli import main as main_module

VM_TEMPLATE = """\
{{- range .Values.vms }}
---
apiVersion: kubevirt.io/v1alpha3
kind: VirtualMachine
metadata:
  name: {{ .name }}
  labels:
    {{- include "vms.labels" $ | nindent 4 }}
spec:
  instancetype:
    kind: VirtualMachineClusterInstancetype
    name: {{ .size | default "u1.small" }}
{{- end }}
"""
HPA_TEMPLATE = """\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: "{{ .Release.Name }}-pool"
spec:
  scaleTargetRef:
    apiVersion: pool.kubevirt.io/v1alpha1
    kind: VirtualMachinePool
    name: "{{ .Release.Name }}-pool"
"""
# parses as YAML, but its name is no Kubernetes name until rendered: never validated as an object
PARSES = """\
apiVersion: instancetype.kubevirt.io/v1alpha2
kind: VirtualMachineInstancetype
metadata:
  name: "{{ .Release.Name }}_small"
spec:
  cpu: {guest: 1}
  memory: {guest: 1Gi}
"""
TEMPLATED = "apiVersion: {{ .Values.apiVersion }}\nkind: VirtualMachinePreference\nmetadata: {name: p}\n"
HELPERS = '{{- define "vms.pool" -}}\napiVersion: pool.kubevirt.io/v1alpha1\nkind: VirtualMachinePool\n{{- end }}\n'
VALUES = "vms: []\nextra:\n  apiVersion: kubevirt.io/v1alpha3\n  kind: VirtualMachine\nnote: kubevirt.io/v1alpha3\n"


def cli(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main_module.cli, list(args))
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def chart(tmp_path: pathlib.Path) -> pathlib.Path:
    c = tmp_path / "vms"
    (c / "templates" / "pool").mkdir(parents=True)
    (c / "Chart.yaml").write_text("apiVersion: v2\nname: vms\nversion: 0.1.0\n")
    (c / "values.yaml").write_text(VALUES)
    (c / "templates" / "vm.yaml").write_text(VM_TEMPLATE)
    (c / "templates" / "pool" / "hpa.yaml").write_text(HPA_TEMPLATE)
    (c / "templates" / "it.yaml").write_text(PARSES)
    (c / "templates" / "pref.yaml").write_text(TEMPLATED)
    (c / "templates" / "_helpers.tpl").write_text(HELPERS)
    return c


def test_check_reports_template_lines_and_fix_edits_one_line_each(chart: pathlib.Path) -> None:
    code, out, _ = cli("check", str(chart))
    assert code == 1
    assert f"{chart}/templates/vm.yaml:3:13: info: would upgrade kubevirt.io/v1alpha3 -> kubevirt.io/v1" in out
    assert f"{chart}/templates/pool/hpa.yaml:7:17: info:" in out
    assert f"{chart}/templates/pref.yaml:1:13: warning:" in out and "[helm.templated-apiversion]" in out
    assert "error" not in out.replace("0 errors", "")
    code, _, _ = cli("fix", str(chart))
    assert code == 1
    t = chart / "templates"
    assert (t / "vm.yaml").read_text() == VM_TEMPLATE.replace("kubevirt.io/v1alpha3", "kubevirt.io/v1")
    assert (t / "pool" / "hpa.yaml").read_text() == HPA_TEMPLATE.replace("v1alpha1", "v1beta1")
    assert (t / "it.yaml").read_text() == PARSES.replace("v1alpha2", "v1beta1")
    assert (t / "_helpers.tpl").read_text() == HELPERS.replace("v1alpha1", "v1beta1")
    assert (t / "pref.yaml").read_text() == TEMPLATED
    assert (chart / "values.yaml").read_text() == VALUES.replace(
        "apiVersion: kubevirt.io/v1alpha3", "apiVersion: kubevirt.io/v1"
    )
    code, out, _ = cli("check", str(chart))
    assert code == 0, out


def test_a_template_named_alone_is_a_template(chart: pathlib.Path) -> None:
    """pre-commit passes file names: the chart is found from the file."""
    code, out, _ = cli("diff", str(chart / "templates" / "vm.yaml"))
    assert code == 1
    assert "-apiVersion: kubevirt.io/v1alpha3\n+apiVersion: kubevirt.io/v1\n" in out


def test_without_chart_yaml_a_template_is_still_read_as_a_template(chart: pathlib.Path) -> None:
    """A template no chart holds (Ansible's Jinja, a chart copied without Chart.yaml) is not refused as YAML:
    read as a chart's template is, said once (it was an input.yaml error, exit 3, that no edit could end)."""
    (chart / "Chart.yaml").unlink()
    vm = chart / "templates" / "vm.yaml"
    code, out, _ = cli("check", str(vm))
    assert code == 1, out
    assert "input.template" in out and "core.upgraded" in out and "input.yaml" not in out
    code, out, _ = cli("fix", str(vm))
    assert code == 1, out
    assert vm.read_text() == VM_TEMPLATE.replace("kubevirt.io/v1alpha3", "kubevirt.io/v1")
    assert cli("check", str(vm))[0] == 0
    assert cli("validate", str(vm))[0] == 0


JINJA = """\
{% set version = "0.11.3" %}
apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: win10-{{ item.workload }}-v{{ version }}
objects:
- apiVersion: kubevirt.io/v1alpha3
  kind: VirtualMachine
  metadata:
    name: ${NAME}
"""


TEKTON = """\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: {{ task_name }}
spec:
  steps:
  - script: |
      apiVersion: kubevirt.io/v1alpha3
"""
OTHER_TEMPLATE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ name }}\n---\n"
YAML_VM = "apiVersion: kubevirt.io/v1alpha3\nkind: VirtualMachine\nmetadata:\n  name: vm\n"


@pytest.mark.parametrize(
    ("text", "after", "code"),
    [
        # Ansible's Jinja (kubevirt/common-templates): a template, its literal apiVersion line upgraded
        (JINJA, JINJA.replace("kubevirt.io/v1alpha3", "kubevirt.io/v1"), 1),
        # a marker inside a quoted string: YAML, read as YAML (the object's document is upgraded)
        (
            'apiVersion: kubevirt.io/v1alpha3\nkind: VirtualMachine\nmetadata:\n  name: "{{ x }}"\n',
            'apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: "{{ x }}"\n',
            None,
        ),
        # Tekton's task templates: `{{ x }}` unquoted parses as a mapping key, which no object can hold
        # (was an input.yaml error, exit 3); a block scalar's lines are text, never upgraded
        (TEKTON, TEKTON, 0),
        # a template document with no KubeVirt marker beside a YAML one: the engine never parses it
        (OTHER_TEMPLATE + YAML_VM, OTHER_TEMPLATE + YAML_VM.replace("v1alpha3", "v1"), None),
        # broken YAML without a marker: still an error, never a template
        ("apiVersion: kubevirt.io/v1alpha3\nkind: VirtualMachine\nmetadata: [\n", None, 3),
    ],
)
def test_a_file_outside_a_chart_is_a_template_only_when_its_markers_break_yaml(
    tmp_path: pathlib.Path, text: str, after: str | None, code: int | None
) -> None:
    f = tmp_path / "vm.tpl.yaml"
    f.write_text(text)
    got, out, _ = cli("fix", str(f))
    assert ("input.template" in out) == (text in (JINJA, TEKTON)), out
    if code is not None:
        assert got == code, out
    assert f.read_text() == (after if after is not None else text)


def test_stdin_template_is_read_as_a_template() -> None:
    r = CliRunner().invoke(main_module.cli, ["fix", "-"], input=JINJA)
    assert r.exit_code == 0, r.stderr
    assert r.stdout == JINJA.replace("kubevirt.io/v1alpha3", "kubevirt.io/v1")


def test_validate_does_not_judge_templates(chart: pathlib.Path) -> None:
    code, out, _ = cli("validate", str(chart / "templates"))
    assert code == 0, out


def test_scan_names_the_chart(chart: pathlib.Path) -> None:
    code, out, _ = cli("scan", str(chart))
    assert code == 1  # instancetype v1alpha2 is not served by 1.9: applying the chart as it is breaks
    assert "chart vms" in out
    assert f"{chart}/templates/pool/hpa.yaml:7" in out
    code, out, _ = cli("scan", "--format", "json", str(chart))
    kinds = {(g["kind"], g["apiVersion"]) for g in json.loads(out)["apis"]}
    assert ("VirtualMachinePool", "pool.kubevirt.io/v1alpha1") in kinds
    assert ("VirtualMachineInstancetype", "instancetype.kubevirt.io/v1alpha2") in kinds


def test_inline_ignores_in_templates_are_read_by_line(chart: pathlib.Path) -> None:
    """harvester's charts render `apiVersion: {{ printf "kubevirt.io/%s" .Chart.AppVersion }}` on purpose: a
    directive at the end of the line, or on the line before, silences that warning (the YAML reader of
    directives cannot read a template); --no-inline-ignores turns them off."""
    t = chart / "templates"
    (t / "pref.yaml").write_text(
        TEMPLATED.replace("}}\n", "}}  # instancetype-upgrade: ignore=helm.templated-apiversion\n", 1)
    )
    (t / "kv.yaml").write_text(
        "# instancetype-upgrade: ignore=helm.templated\n"
        'apiVersion: {{ printf "kubevirt.io/%s" .Chart.AppVersion }}\nkind: KubeVirt\n---\n'
        'apiVersion: {{ printf "kubevirt.io/%s" .Chart.AppVersion }}  # instancetype-upgrade: ignroe=helm\n'
        "kind: KubeVirt\n"
    )
    code, out, _ = cli("check", str(t / "pref.yaml"), str(t / "kv.yaml"))
    assert code == 0, out
    assert [line.split(": ")[0] for line in out.splitlines() if "[helm." in line] == [f"{t}/kv.yaml:5:13"], out
    assert out.count("[inline-ignore.invalid]") == 1, out  # said once, by the YAML reader (this one parses)
    # the warning quotes the template, not the comment after it
    assert 'apiVersion is templated ({{ printf "kubevirt.io/%s" .Chart.AppVersion }})' in out
    code, out, _ = cli("check", "--no-inline-ignores", str(t / "pref.yaml"), str(t / "kv.yaml"))
    assert out.count("[helm.templated-apiversion]") == 3, out
