"""Finding codes at the command line (issue 29 §3): `--select`/`--ignore`, the configuration, a KRM
functionConfig and inline `ignore=` comments refuse a code that does not exist, with the closest ones;
`instancetype-upgrade codes` lists and explains the registry; SARIF rules carry each code's summary."""

from __future__ import annotations

import json
import pathlib

import pytest

from transform.cli.main import main
from transform.model import codes

OLD = """\
apiVersion: instancetype.kubevirt.io/v1alpha2
kind: VirtualMachinePreference
metadata:
  name: p
spec:
  cpu:
    preferredCPUTopology: preferSockets
"""


@pytest.fixture
def manifest(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "pref.yaml"
    path.write_text(OLD)
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("option", "value", "suggestion"),
    [
        ("--select", "shema.requird", "did you mean 'schema.required'"),
        ("--ignore", "nonsense.code", "names no finding code"),
        ("--ignore", "webhook.,webhok.deprecated-topology", "did you mean 'webhook.deprecated-topology'"),
        ("--select", "exprot", "did you mean 'export'"),
    ],
)
def test_an_unknown_code_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], manifest: pathlib.Path, option: str, value: str, suggestion: str
) -> None:
    """Before: `check --select shema.requird` dropped every finding and exited 1 as if all were well."""
    for command in ("check", "fix", "validate", "scan"):
        code, out, err = run(capsys, command, option, value, str(manifest))
        assert code == 2, (command, out, err)
        assert suggestion in err and option in err, err
    assert manifest.read_text() == OLD


@pytest.mark.parametrize("value", ["schema", "schema.", "webhook.", "webhook.deprecated", "export", "upgraded"])
def test_prefixes_families_and_codes_stay_accepted(
    capsys: pytest.CaptureFixture[str], manifest: pathlib.Path, value: str
) -> None:
    code, out, err = run(capsys, "check", "--select", value, str(manifest))
    assert code == 1, err  # (it would change)
    code, out, err = run(capsys, "check", "--ignore", value, str(manifest))
    assert code == 1, err


def test_select_keeps_its_meaning(capsys: pytest.CaptureFixture[str], manifest: pathlib.Path) -> None:
    code, out, _ = run(capsys, "check", "--format", "json", "--select", "webhook.", str(manifest))
    assert {f["code"] for f in json.loads(out)["findings"]} == {"webhook.deprecated-topology"}


@pytest.mark.parametrize("key", ["select", "ignore"])
def test_an_unknown_code_in_the_configuration_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: pathlib.Path,
    manifest: pathlib.Path,
    key: str,
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(f'[tool.instancetype-upgrade]\n{key} = ["webhook.", "schema.requird"]\n')
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "check", str(manifest))
    assert code == 2, err
    assert "pyproject.toml" in err and key in err and "did you mean 'schema.required'" in err, err
    (tmp_path / "pyproject.toml").write_text(f'[tool.instancetype-upgrade]\n{key} = ["webhook.", "schema.required"]\n')
    assert run(capsys, "check", str(manifest))[0] == 1


def test_an_unknown_code_in_a_krm_function_config_is_an_error_result(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from transform.integrations import krm
    from transform.model.settings import Settings

    items = "\n".join("  " + line for line in OLD.splitlines())
    listing = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  apiVersion: v1\n"
        "  kind: ConfigMap\n  metadata: {name: c}\n  data:\n    ignore: {value}\nitems:\n- " + items.lstrip() + "\n"
    )
    out = krm.process(listing.replace("{value}", '"webhook.,shema.requird"').encode(), Settings())
    bad = [f for f in out.findings if f.code == "krm.config"]
    assert len(bad) == 1 and "did you mean 'schema.required'" in bad[0].message and out.failed
    out = krm.process(listing.replace("{value}", '"webhook.deprecated-topology"').encode(), Settings())
    assert not out.failed and [f.code for f in out.findings if f.severity.value != "info"] == []


def test_an_inline_ignore_naming_no_code_is_a_warning_naming_its_line(
    capsys: pytest.CaptureFixture[str], manifest: pathlib.Path
) -> None:
    manifest.write_text(OLD.replace("preferSockets", "preferSockets  # instancetype-upgrade: ignore=webhok.,webhook."))
    code, out, _ = run(capsys, "check", "--format", "json", str(manifest))
    found = json.loads(out)["findings"]
    unknown = [f for f in found if f["code"] == "inline-ignore.unknown-code"]
    assert [(f["line"], f["severity"]) for f in unknown] == [(7, "warning")], found
    assert "webhok." in unknown[0]["message"] and "did you mean 'webhook'" in unknown[0]["message"]
    assert "webhook.deprecated-topology" not in {f["code"] for f in found}  # the known code still silences


def test_an_inline_ignore_in_a_chart_template_naming_no_code(
    capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path
) -> None:
    """A template that is no YAML: its directives are read by line, and their codes checked all the same."""
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "templates" / "kv.yaml").write_text(
        "{{- if .Values.on }}\n# instancetype-upgrade: ignore=helm.templated-apiversoin\n"
        'apiVersion: {{ printf "kubevirt.io/%s" .Chart.AppVersion }}\nkind: KubeVirt\n{{- end }}\n'
    )
    code, out, err = run(capsys, "check", str(chart))
    lines = [line for line in out.splitlines() + err.splitlines() if "[inline-ignore.unknown-code]" in line]
    assert len(lines) == 1 and "kv.yaml:2:" in lines[0] and "did you mean 'helm.templated-apiversion'" in lines[0]


def test_codes_lists_every_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "codes")
    assert code == 0
    listed = [line.split()[0] for line in out.splitlines()]
    assert listed == sorted(codes.KNOWN)
    assert "schema.required" in listed and "export.upgraded" in listed and "inline-ignore.unknown-code" in listed


def test_codes_explains_one_and_lists_a_prefix(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "codes", "schema.required")
    assert code == 0 and out.startswith("schema.required: a required field is missing\n"), out
    assert "docs/codes.md#schema-required" in out and "docs/validation.md" in out
    code, out, _ = run(capsys, "codes", "webhook.")
    assert [line.split()[0] for line in out.splitlines()] == sorted(c for c in codes.KNOWN if c.startswith("webhook."))
    code, out, _ = run(capsys, "codes", "export.upgraded")
    assert "family: export" in out


def test_codes_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "codes", "--format", "json")
    records = json.loads(out)
    assert code == 0 and len(records) == len(codes.KNOWN)
    one = next(r for r in records if r["code"] == "cdi.upgraded")
    assert one == {
        "code": "cdi.upgraded",
        "severity": "info",
        "severities": ["info"],
        "summary": codes.CODES["cdi.upgraded"].summary,
        "doc": "docs/upgrades.md",
        "family": "cdi",
    }


def test_codes_refuses_an_unknown_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "codes", "shema.requird")
    assert code == 2 and "did you mean 'schema.required'" in err


def test_sarif_rules_carry_summaries_and_help(capsys: pytest.CaptureFixture[str], manifest: pathlib.Path) -> None:
    code, out, _ = run(capsys, "check", "--format", "sarif", str(manifest))
    rules = {r["id"]: r for r in json.loads(out)["runs"][0]["tool"]["driver"]["rules"]}
    rule = rules["webhook.deprecated-topology"]
    assert rule["shortDescription"]["text"] == codes.CODES["webhook.deprecated-topology"].summary
    assert rule["helpUri"] == "docs/codes.md#webhook-deprecated-topology"
    assert "docs/validation.md" in rule["help"]["text"]
    assert rules["upgraded"]["helpUri"] == "docs/codes.md#upgraded"
