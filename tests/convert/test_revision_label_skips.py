"""Issue 22 §2 class D: a revision labelled `object-version: v1beta1` (the version KubeVirt writes) whose payload
KubeVirt cannot read. KubeVirt trusts the label and never upgrades it, and a VM using it fails on every
release: the revision is left as it is, with an error that says both (fix, check and validate alike)."""

from __future__ import annotations

from pathlib import Path

import pytest

from transform.cli.main import main

LABELS = "  labels:\n    instancetype.kubevirt.io/object-version: v1beta1\n"


def _revision(data: str) -> str:
    return (
        "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: vm-small-v1beta1-u1-2\n"
        f"{LABELS}data: {data}\nrevision: 2\n"
    )


def _object(version: str, cpu: str) -> str:
    return (
        f'{{"apiVersion":"instancetype.kubevirt.io/{version}","kind":"VirtualMachineInstancetype",'
        f'"metadata":{{"name":"small"}},"spec":{{"cpu":{cpu},"memory":{{"guest":"1Gi"}}}}}}'
    )


CASES = {
    # a v1beta1 payload Go cannot read: main was silent (label and apiVersion current: skipped)
    "v1beta1-negative-guest": (_revision(_object("v1beta1", '{"guest":-1}')), "data.spec.cpu.guest", "got -1"),
    "v1beta1-string-guest": (_revision(_object("v1beta1", '{"guest":"2"}')), "data.spec.cpu.guest", 'got "2"'),
    # an older payload under the label: main gave the generic undecodable error
    "v1alpha2-negative-guest": (_revision(_object("v1alpha2", '{"guest":-1}')), "data.spec.cpu.guest", "got -1"),
    "wrapper-not-base64": (_revision('{"apiVersion":"","spec":"not base64!"}'), "data.spec", "not base64"),
    "no-kind": (_revision('{"apiVersion":"instancetype.kubevirt.io/v1beta1","spec":{}}'), "data", "Kind"),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("command", ["fix", "check", "validate"])
def test_labelled_unreadable_is_an_error_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, command: str
) -> None:
    text, path_text, why = CASES[name]
    path = tmp_path / "cr.yaml"
    path.write_text(text)
    code = main([command, str(path)])
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert code == 3, out
    line = next(x for x in out.splitlines() if "revision.labelled-unreadable" in x)
    assert f": {path_text}: " in line and "error" in line
    assert "labelled object-version v1beta1" in line and "trusts the label and skips" in line
    assert "will not start on any release" in line and why in line
    assert "run `instancetype-upgrade fix`" not in out  # fix cannot upgrade it: one word for the fact
    assert path.read_text() == text


def test_readable_payload_under_the_label_is_still_upgraded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cr.yaml"
    path.write_text(_revision(_object("v1alpha2", '{"guest":2}')))
    assert main(["fix", str(path)]) == 1
    out = capsys.readouterr()
    assert "revision.label-lies" in out.out + out.err
    assert "instancetype.kubevirt.io/v1beta1" in path.read_text()


def test_readable_v1beta1_under_the_label_is_left_silently(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _revision(_object("v1beta1", '{"guest":2}'))
    path = tmp_path / "cr.yaml"
    path.write_text(text)
    assert main(["fix", str(path)]) == 0
    assert "labelled-unreadable" not in capsys.readouterr().err
    assert path.read_text() == text
