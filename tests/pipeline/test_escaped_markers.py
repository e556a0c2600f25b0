"""Markers behind YAML/JSON escapes (issue 23, item 10): an apiVersion or kind written with `\\x2e`,
`\\u002e`, `\\/` or an escaped line break is read by Kubernetes as the plain value, so the byte
pre-filter must not pass such a document by: check, validate, scan and backup all see the object.
And a tag or anchor on a replaced apiVersion scalar stays (low item)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from transform.cli.main import main
from transform.yamltext import textio

DOC = "apiVersion: {av}\nkind: {kind}\nmetadata:\n  name: a\nspec:\n  cpu: {{guest: 1}}\n  memory: {{guest: 1Gi}}\n"
PLAIN_AV, PLAIN_KIND = "instancetype.kubevirt.io/v1alpha1", "VirtualMachineInstancetype"
ESCAPED = {  # apiVersion and kind both escaped: no marker is left as bytes
    "x-escape": ('"instancetype.kubevirt\\x2eio/v1alpha1"', '"Virtual\\x4dachineInstancetype"'),
    "u-escape": ('"instancetype.kubevirt\\u002eio/v1alpha1"', '"Virtual\\u004dachineInstancetype"'),
    "U-escape": ('"instancetype.kubevirt\\U0000002eio/v1alpha1"', '"Virtual\\U0000004dachineInstancetype"'),
    "slash-escape": ('"instancetype.kubevirt.io\\/v1alpha1"', '"Virtual\\x4dachineInstancetype"'),
    "line-break": ('"instancetype.kube\\\n  virt.io/v1alpha1"', '"Virtual\\\n  MachineInstancetype"'),
}


@pytest.mark.parametrize("case", sorted(ESCAPED))
@pytest.mark.parametrize("command", ["check", "validate", "scan"])
def test_an_escaped_marker_is_still_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, command: str
) -> None:
    """Was: exit 0, "nothing to do", for an object Kubernetes reads as instancetype.kubevirt.io/v1alpha1."""
    av, kind = ESCAPED[case]
    path = tmp_path / "a.yaml"
    path.write_text(DOC.format(av=av, kind=kind))
    assert not any(n in path.read_bytes() for n in textio.NEEDLES)
    code = main([command, str(path)])
    out = capsys.readouterr().out
    assert "v1alpha1" in out, out
    assert code == (0 if command == "validate" else 1), out


def test_json_escapes_in_a_json_file_and_in_a_backup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        '{"apiVersion": "instancetype.kubevirt\\u002eio/v1alpha1", "kind": "Virtual\\u004dachinePreference",'
        ' "metadata": {"name": "p", "namespace": "default"}, "spec": {}}'
    )
    assert not any(n in text.encode() for n in textio.NEEDLES)  # no marker as bytes
    path = tmp_path / "p.json"
    path.write_text(text)
    assert main(["check", str(path)]) == 1
    capsys.readouterr()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        data = text.encode()
        ti = tarfile.TarInfo("resources/virtualmachinepreferences.instancetype.kubevirt.io/namespaces/default/p.json")
        ti.size = len(data)
        tf.addfile(ti, io.BytesIO(data))
    src = tmp_path / "b.tar.gz"
    src.write_bytes(buf.getvalue())
    assert main(["backup", str(src), "--check"]) == 1, capsys.readouterr()


def test_fix_rewrites_an_escaped_api_version_and_a_second_run_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(DOC.format(av=ESCAPED["x-escape"][0], kind=ESCAPED["x-escape"][1]))
    assert main(["fix", str(path)]) == 1
    assert path.read_text().startswith('apiVersion: "instancetype.kubevirt.io/v1beta1"\n')
    assert main(["fix", str(path)]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("!custom instancetype.kubevirt.io/v1alpha1", "!custom instancetype.kubevirt.io/v1beta1"),
        ('!!str "instancetype.kubevirt.io/v1alpha1"', '!!str "instancetype.kubevirt.io/v1beta1"'),
        ("&av instancetype.kubevirt.io/v1alpha1", "&av instancetype.kubevirt.io/v1beta1"),
    ],
)
def test_a_tag_or_anchor_on_a_replaced_api_version_stays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], before: str, after: str
) -> None:
    """Was: `apiVersion: !custom ...` lost its tag (and an anchor its name) when the value was replaced."""
    path = tmp_path / "a.yaml"
    path.write_text(DOC.format(av=before, kind=PLAIN_KIND))
    assert main(["fix", str(path)]) == 1
    assert path.read_text().splitlines()[0] == f"apiVersion: {after}"
    assert main(["fix", str(path)]) == 0
    capsys.readouterr()


def test_the_pre_filter_unescapes_only_what_could_spell_a_marker() -> None:
    assert textio.is_candidate(b'a: "kubevirt\\x2eio/"')
    assert not textio.is_candidate(b'a: "C:\\\\Windows\\\\x"\nb: "\\d+\\n"')
    assert textio.holds('k: "Virtual\\x4dachine"', ("VirtualMachine",))
    assert not textio.holds('k: "Virtual\\x4eachine"', ("VirtualMachine",))
