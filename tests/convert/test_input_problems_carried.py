"""Issue 22 §2 classes C and G: each document is judged by the decoder it goes through, and a problem the input
already had is the input's (a warning that says who refuses the object and why; an error under --strict).

- C: standalone `overcommitPercent: "10"`, `guest: 1 Gi`: the API server refuses the object as it is. The upgrade
  (apiVersion only) carries the problem over; it does not cause it.
- G (standalone, the API server's path): `gpus: [null]`, `"1Gi "` are the input's own problems, not blockers; a
  required field inside a field the old version lacks (`requirements` of a v1alpha2 preference) is read only once
  upgraded: said, not refused.
- G (payloads, Go's non-strict decoder): a null list item is the zero value, a field the old Go type lacks is
  dropped before anything checks it, a quantity's spaces are trimmed by Quantity.UnmarshalJSON.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.oracles import k8s_scalars
from tests.support import samples
from transform.cli.main import main

IT2 = "apiVersion: instancetype.kubevirt.io/v1alpha2\nkind: VirtualMachineInstancetype\nmetadata:\n  name: it\n"
PREF2 = samples.PREFERENCE_V1ALPHA2
IT_B = IT2.replace("v1alpha2", "v1beta1")


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "doc.yaml"
    path.write_text(text)
    code = main([*args, str(path)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err, path.read_text()


UPGRADED = {
    "guest-with-space": (IT2 + "spec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1 Gi\n", "spec.memory.guest", '"1 Gi"'),
    "guest-trailing-space": (IT2 + 'spec:\n  cpu:\n    guest: 1\n  memory:\n    guest: "1Gi "\n', "spec.memory.guest", '"1Gi "'),
    "gpus-null-item": (IT2 + "spec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1Gi\n  gpus: [null]\n", "spec.gpus[0]", "null"),
}  # fmt: skip


@pytest.mark.parametrize("name", UPGRADED)
def test_the_inputs_own_problem_is_a_warning_that_names_the_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    text, where, what = UPGRADED[name]
    code, out, after = _run(tmp_path, capsys, text, "fix")
    assert code == 1, out
    assert after == text.replace("v1alpha2", "v1beta1")  # only apiVersion changes
    line = next(x for x in out.splitlines() if f": {where}: " in x)
    assert "warning" in line and "the API server will refuse this object" in line and what in line, line
    assert "error" not in out.lower().replace("0 errors", "")
    code, out, after = _run(tmp_path, capsys, text, "fix", "--strict")
    assert code == 3 and after == text, out
    assert any(f": {where}: " in x and "error" in x and "the API server will refuse" in x for x in out.splitlines())


def test_a_current_object_says_the_api_server_refuses_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = IT_B + 'spec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1Gi\n    overcommitPercent: "10"\n'
    code, out, after = _run(tmp_path, capsys, text, "check")
    assert code == 0 and after == text, out
    line = next(x for x in out.splitlines() if "spec.memory.overcommitPercent" in x)
    assert "warning" in line and "the API server will refuse this object" in line and '"10"' in line
    code, out, _ = _run(tmp_path, capsys, text, "check", "--strict")
    assert code == 3 and "error" in next(x for x in out.splitlines() if "overcommitPercent" in x)


def test_a_field_the_old_version_lacks_is_said_not_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = PREF2 + "spec:\n  requirements:\n    cpu: {}\n"
    code, out, after = _run(tmp_path, capsys, text, "fix")
    assert code == 1, out
    assert after == text.replace("v1alpha2", "v1beta1")
    line = next(x for x in out.splitlines() if "spec.requirements.cpu.guest" in x)
    assert "warning" in line and "once upgraded" in line and "fix or remove spec.requirements" in line
    code, out, after = _run(tmp_path, capsys, text, "fix", "--strict")
    assert code == 3 and after == text


def test_a_valid_input_upgrades_without_a_word(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Control: the warnings above come from the bad values alone."""
    text = IT2 + "spec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1Gi\n"
    code, out, _ = _run(tmp_path, capsys, text, "fix")
    assert code == 1 and "warning" not in out, out


def _payload_revision(spec: dict[str, object], kind: str = "VirtualMachineInstancetype") -> str:
    payload = {"apiVersion": "instancetype.kubevirt.io/v1alpha2", "kind": kind, "metadata": {"name": "x"}, "spec": spec}
    return (
        "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: vm-x-1\n"
        f"data: {json.dumps(payload)}\nrevision: 1\n"
    )


def test_payload_null_item_is_a_zero_value_and_spaces_are_trimmed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _payload_revision({"cpu": {"guest": 1}, "memory": {"guest": "1Gi "}, "gpus": [None]})
    code, out, after = _run(tmp_path, capsys, text, "fix")
    assert code == 1, out
    [doc] = k8s_scalars.load_all(after)
    assert doc["data"]["spec"]["memory"]["guest"] == "1Gi"
    assert (
        doc["data"]["spec"]["gpus"] == [{"name": "", "deviceName": ""}] or doc["data"]["spec"]["gpus"][0]["name"] == ""
    )


def test_payload_field_the_old_type_lacks_is_dropped_before_it_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _payload_revision({"requirements": {"cpu": {}}}, "VirtualMachinePreference")
    code, out, after = _run(tmp_path, capsys, text, "fix")
    assert code == 1 and "revision.dropped-field" in out and "required" not in out, out
    [doc] = k8s_scalars.load_all(after)
    assert "requirements" not in doc["data"]["spec"]
