"""Line breaks YAML 1.2 does not count (issue 32, item 6): NEL, U+2028 and U+2029 inside a quoted
string. ruamel and libyaml end a line at them (YAML 1.1); editors, diffs and the inline ignores do not.
Findings and directives now use one numbering (LF, CRLF, CR): a finding names the line an editor
shows, and a directive covers only its own field."""

from __future__ import annotations

import json
import pathlib

import pytest

from transform.cli.main import main

VM = """\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm
  annotations:
    note: "a{brk}b{brk}c{brk}d"
spec:
  runStrategy: Halted
  template:
    spec:
      domain:
        devices:
          interfaces:
          - name: default{here}
            slirp: {{}}
{before}      networks:
      - name: default
        pod: {{}}
"""
SLIRP_LINE = 15  # as an editor numbers it
BREAKS = {"NEL": "\x85", "U+2028": "\u2028", "U+2029": "\u2029", "none": ""}
IGNORE = "# instancetype-upgrade: ignore=webhook"


def findings(path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    main(["check", "--format", "json", str(path)])
    return [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "webhook.discontinued-binding"]


@pytest.mark.parametrize("brk", sorted(BREAKS))
def test_a_finding_names_the_line_an_editor_shows(
    brk: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "vm.yaml"
    path.write_text(VM.format(brk=BREAKS[brk], here="", before=""), encoding="utf-8")
    found = findings(path, capsys)
    assert [f["line"] for f in found] == [SLIRP_LINE]
    assert path.read_text(encoding="utf-8").split("\n")[SLIRP_LINE - 1].strip() == "slirp: {}"


@pytest.mark.parametrize("brk", sorted(BREAKS))
def test_a_directive_covers_only_its_own_field(
    brk: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: a directive on `networks:` silenced the slirp warning of interfaces[0] (three lines up)."""
    path = tmp_path / "vm.yaml"
    path.write_text(VM.format(brk=BREAKS[brk] * 3, here="", before=f"      {IGNORE}\n"), encoding="utf-8")
    assert [f["line"] for f in findings(path, capsys)] == [SLIRP_LINE]
    path.write_text(VM.format(brk=BREAKS[brk] * 3, here=f"  {IGNORE}", before=""), encoding="utf-8")
    assert findings(path, capsys) == []


@pytest.mark.parametrize("brk", sorted(BREAKS))
def test_a_parse_error_names_the_line_an_editor_shows(
    brk: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "vm.yaml"
    path.write_text(VM.format(brk=BREAKS[brk], here="", before="").replace("pod: {}", "pod: {]"), encoding="utf-8")
    main(["check", "--format", "json", str(path)])
    errors = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "input.yaml"]
    assert [f["line"] for f in errors] == [18]
