"""Documents kubectl or the API server cannot read as written, said as they say it.

- `%YAML 1.2` (or any version but 1.1): go-yaml v2, which sigs.k8s.io/yaml and so kubectl read YAML with,
  refuses the document (parserc.go, yaml_parser_process_directives: `token.major != 1 || token.minor != 1`
  -> "found incompatible YAML document"): an error at the directive's line, the file never written.
- `Kind:`/`apiversion:` next to `kind:`/`apiVersion:`: apimachinery's SimpleMetaFactory reads both fields with
  encoding/json, which matches keys case-insensitively; a non-string fails ("couldn't get version/kind"), a
  different string is read instead (the JSON kubectl sends has sorted keys: the last one wins). An error
  naming both keys, in every command.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from transform.cli import main as cli

IT = (
    "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: a\n"
    "spec:\n  cpu:\n    guest: 2\n  memory:\n    guest: 1Gi\n"
)


def _report(tmp_path: Path, command: str, path: Path) -> tuple[int, list[dict[str, Any]]]:
    out = tmp_path / "report.json"
    code = cli.main([command, "--format", "json", "--output-file", str(out), str(path)])
    return code, json.loads(out.read_text())["findings"]


@pytest.mark.parametrize("version", ["1.2", "1.0", "2.0", "1.3"])
@pytest.mark.parametrize("command", ["check", "fix", "validate"])
def test_a_yaml_directive_go_yaml_refuses(tmp_path: Path, version: str, command: str) -> None:
    text = f"kind: ConfigMap\n---\n# a comment\n%YAML {version}\n---\n{IT}"
    path = tmp_path / "it.yaml"
    path.write_text(text)
    code, found = _report(tmp_path, command, path)
    assert code == 3
    [f] = [f for f in found if f["severity"] == "error"]
    assert f["code"] == "input.yaml" and f["line"] == 4 and f"%YAML {version}" in f["message"]
    assert "1.1" in f["message"]
    assert path.read_text() == text


def test_yaml_1_1_directive_is_read(tmp_path: Path) -> None:
    path = tmp_path / "it.yaml"
    path.write_text(f"%YAML 1.1\n---\n{IT}")
    assert cli.main(["fix", "-q", str(path)]) == 1
    assert "instancetype.kubevirt.io/v1beta1" in path.read_text()


@pytest.mark.parametrize(
    ("extra", "bad", "words"),
    [
        ("Kind: 3\n", "Kind", "cannot unmarshal number into Go struct field .kind of type string"),
        ("KIND: [a]\n", "KIND", "cannot unmarshal array"),
        ("apiversion: true\n", "apiversion", "cannot unmarshal bool into Go struct field .apiVersion"),
        ("apiversion: v1\n", "apiversion", "`apiversion: v1`, not `apiVersion: instancetype.kubevirt.io/v1alpha1`"),
        ("Kind: Foo\n", None, None),  # sorted JSON: `kind` comes after `Kind`, and wins
        ("Kind: null\n", None, None),  # null leaves the field as it is
        ("apiversion: instancetype.kubevirt.io/v1alpha1\n", None, None),  # the same value
    ],
)
@pytest.mark.parametrize("command", ["check", "validate"])
def test_case_colliding_type_meta_keys(
    tmp_path: Path, extra: str, bad: str | None, words: str | None, command: str
) -> None:
    path = tmp_path / "it.yaml"
    path.write_text(IT.replace("kind:", extra + "kind:", 1))
    code, found = _report(tmp_path, command, path)
    errors = [f for f in found if f["severity"] == "error"]
    if bad is None:
        assert not [f for f in errors if f["code"] == "input.type"]
        return
    assert code == 3
    [f] = errors
    assert f["code"] == "input.type" and f["line"] == 2
    assert f"`{bad}`" in f["message"] and words is not None and words in f["message"]
    assert "`kind`" in f["message"] or "`apiVersion`" in f["message"]  # both keys named


def test_case_colliding_key_is_never_written(tmp_path: Path) -> None:
    path = tmp_path / "it.yaml"
    text = IT.replace("kind:", "Kind: 3\nkind:", 1)
    path.write_text(text)
    assert cli.main(["fix", "-q", str(path)]) == 3
    assert path.read_text() == text
