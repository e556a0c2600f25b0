"""`scan` says what `check` and `validate` say of the same fact (one verdict per fact in every command):
the interface bindings the target refuses on creation (`webhook.discontinued-binding`), and the inline
ignores of a Helm chart's templates, read by line (`# instancetype-upgrade: ignore=CODE`)."""

from __future__ import annotations

import json
import pathlib

import pytest
from click.testing import CliRunner

from transform.cli.main import cli

# KubeVirt's network admitter refuses these bindings on creation: slirp from v1.3, macvtap and passt from
# v1.8 (its message says "since v1.3" for all three); written here, not read from transform/.
VMI_SLIRP = """\
apiVersion: kubevirt.io/v1
kind: VirtualMachineInstance
metadata:
  name: vmi-slirp
spec:
  domain:
    devices:
      interfaces:
      - name: testSlirp
        slirp: {}
  networks:
  - name: testSlirp
    pod: {}
"""


def _run(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout


def test_scan_says_the_binding_check_and_validate_say(tmp_path: pathlib.Path) -> None:
    (tmp_path / "vmi.yaml").write_text(VMI_SLIRP)
    said = "spec.domain.devices.interfaces[0].slirp: Slirp interface support has been discontinued since v1.3"
    code, out = _run("scan", str(tmp_path))
    assert code == 1, out
    assert "Would break on KubeVirt 1.9 (1):" in out and said in out and "[webhook.discontinued-binding]" in out
    assert f"{tmp_path}/vmi.yaml:10:" in out
    for command in ("validate", "check"):
        assert said in _run(command, str(tmp_path))[1], command
    code, out = _run("scan", "--target-kubevirt", "1.2", str(tmp_path))  # accepted before 1.3
    assert code == 0 and "discontinued" not in out, out
    code, out = _run("scan", "--format", "json", str(tmp_path))
    assert [f["code"] for f in json.loads(out)["breaking"]] == ["webhook.discontinued-binding"], out


@pytest.mark.parametrize(
    ("doc", "path"),
    [
        (
            "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {name: v}\nspec:\n  runStrategy: Halted\n"
            "  template:\n    spec:\n      domain:\n        devices:\n          interfaces:\n"
            "          - {name: a, macvtap: {}}\n      networks:\n      - {name: a, multus: {networkName: x}}\n",
            "spec.template.spec.domain.devices.interfaces[0].macvtap",
        ),
        (
            "apiVersion: kubevirt.io/v1\nkind: VirtualMachineInstanceReplicaSet\nmetadata: {name: r}\nspec:\n"
            "  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n"
            "      domain:\n        devices:\n          interfaces:\n          - {name: a, passt: {}}\n"
            "      networks:\n      - {name: a, pod: {}}\n",
            "spec.template.spec.domain.devices.interfaces[0].passt",
        ),
        (
            "apiVersion: pool.kubevirt.io/v1beta1\nkind: VirtualMachinePool\nmetadata: {name: p}\nspec:\n"
            "  selector: {}\n  virtualMachineTemplate:\n    spec:\n      template:\n        spec:\n"
            "          domain:\n            devices:\n              interfaces:\n              - {name: a, passt: {}}\n"
            "          networks:\n          - {name: a, pod: {}}\n",
            "spec.virtualMachineTemplate.spec.template.spec.domain.devices.interfaces[0].passt",
        ),
    ],
)
def test_scan_says_it_for_every_kind_holding_a_vmi_spec(tmp_path: pathlib.Path, doc: str, path: str) -> None:
    (tmp_path / "o.yaml").write_text(doc)
    code, out = _run("scan", "--format", "json", str(tmp_path))
    found = json.loads(out)["breaking"]
    assert [(f["code"], f["path"]) for f in found] == [("webhook.discontinued-binding", path)], out
    assert code == 1
    assert _run("scan", "--target-kubevirt", "1.7", str(tmp_path))[0] == 0  # macvtap and passt: from 1.8


def test_scan_reads_a_chart_templates_inline_ignores_by_line(tmp_path: pathlib.Path) -> None:
    """harvester's KubeVirt chart renders its apiVersion from .Chart.AppVersion on purpose; the directive that
    silences `helm.templated-apiversion` in check silences it in scan too (and --no-inline-ignores does not)."""
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    template = chart / "templates" / "kubevirt.yaml"
    line = 'apiVersion: {{ printf "kubevirt.io/%s" .Chart.AppVersion }}'
    template.write_text(f"{line}  # instancetype-upgrade: ignore=helm.templated-apiversion\nkind: KubeVirt\n")
    assert _run("check", str(chart))[0] == 0
    code, out = _run("scan", str(chart))
    assert code == 0 and "helm.templated-apiversion" not in out, out
    code, out = _run("scan", "--no-inline-ignores", str(chart))  # Chart.yaml sets no appVersion: cannot tell
    assert code == 0 and f"{template}:1: chart c: apiVersion is templated" in out, out
    assert "Cannot tell (1)" in out, out
    # on the line before, a prefix of the code, as check reads it
    template.write_text(f"# instancetype-upgrade: ignore=helm.templated\n{line}\nkind: KubeVirt\n")
    assert _run("scan", str(chart))[0] == 0
    # a directive naming another code silences nothing
    template.write_text(f"{line}  # instancetype-upgrade: ignore=core.not-served\nkind: KubeVirt\n")
    code, out = _run("scan", str(chart))
    assert code == 0 and "[helm.templated-apiversion]" in out, out


HARVESTER_KUBEVIRT = (
    'apiVersion: {{ printf "kubevirt.io/%s" .Chart.AppVersion }}\nkind: KubeVirt\nmetadata:\n  name: kubevirt\n'
)


@pytest.mark.parametrize(
    ("app_version", "code", "breaks", "cannot_tell"),
    [
        ("v1", 0, [], 0),  # Harvester v1.0.3's kubevirt chart: renders to kubevirt.io/v1, served
        ("v1alpha2", 1, ["core.legacy"], 0),  # renders to the 2018 API: that breaks
        (None, 0, [], 1),  # no appVersion: the value is not the chart's to say
    ],
)
def test_scan_renders_a_templated_apiversion_from_what_the_chart_sets(
    tmp_path: pathlib.Path, app_version: str | None, code: int, breaks: list[str], cannot_tell: int
) -> None:
    """Helm renders `.Chart.AppVersion` from Chart.yaml's appVersion (text/template field access, fmt's %s
    in printf): where the template names only what the chart sets, the value is known and judged as a
    literal apiVersion; otherwise scan cannot tell (not a break)."""
    chart = tmp_path / "kubevirt"
    (chart / "templates").mkdir(parents=True)
    app = f"appVersion: {app_version}\n" if app_version else ""
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: kubevirt\nversion: 0.3.0\n{app}")
    (chart / "templates" / "kubevirt.yaml").write_text(HARVESTER_KUBEVIRT)
    got, out = _run("scan", "--format", "json", str(chart))
    report = json.loads(out)
    assert (got, [f["code"] for f in report["breaking"]], len(report["cannot_tell"])) == (code, breaks, cannot_tell)
    got, out = _run("check", str(chart))
    assert got == 0 and ("helm.templated-apiversion" in out) is (app_version != "v1"), out


def test_a_directive_never_silences_what_breaks(tmp_path: pathlib.Path) -> None:
    """An error is never suppressed (as in check): an instancetype version KubeVirt 1.9 no longer serves."""
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "templates" / "it.yaml").write_text(
        "{{- if .Values.it }}\napiVersion: instancetype.kubevirt.io/v1alpha2  # instancetype-upgrade: "
        "ignore=instancetype,target\nkind: VirtualMachineInstancetype\nmetadata:\n  name: {{ .Release.Name }}\n"
        "{{- end }}\n"
    )
    code, out = _run("scan", str(chart))
    assert code == 1 and "it.yaml:2: chart c:" in out and "does not serve instancetype.kubevirt.io/v1alpha2" in out, out


def test_scan_says_a_payload_no_decoder_reads_once(tmp_path: pathlib.Path) -> None:
    """A v1alpha1 wrapper whose spec KubeVirt's strict decoder refuses: the decoder's fact, once (as validate and
    the judge say it), not also "KubeVirt 1.9 cannot decode this payload format: run fix" (fix cannot either)."""
    import base64

    spec = base64.b64encode(b'{"cpu":{"guest":"two"},"memory":{"guest":"1Gi"}}').decode()
    (tmp_path / "cr.yaml").write_text(
        "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: vm-small-1\n"
        f'data:\n  apiVersion: ""\n  spec: {spec}\nrevision: 1\n'
    )
    code, out = _run("scan", "--format", "json", str(tmp_path))
    assert code == 1
    assert [f["code"] for f in json.loads(out)["breaking"]] == ["revision.bad-wrapper"], out
    validated = _run("validate", str(tmp_path))[1]
    assert "[revision.bad-wrapper]" in validated and "target.payload-format" not in validated
