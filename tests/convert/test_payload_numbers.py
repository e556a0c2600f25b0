"""Issue 22 §2 classes F and V: numbers reach KubeVirt's decoder as Kubernetes hands them over.

- F: a revision's `data` written in the document is sent by kubectl as sigs.k8s.io/yaml's JSON, read into
  unstructured and written again: a whole float (`2.0`, `10.0`, `1E1`) arrives as the integer `2`/`10`, which
  Go's uint32 accepts. The v1alpha1 wrapper's base64 JSON is read by Go itself: `2.0` stays refused.
- V: a quantity is an exact decimal (resource.Quantity): the wrapper's `99999999999999999999` is that number,
  not a float64 (`100E`); sub-nano digits round up exactly. A YAML integer beyond uint64 is a float64 to
  Kubernetes (kubernetes-yaml-scalars.md), so there `100E` is right.

Expected values are written from Go's documented behaviour, not computed by transform/.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.oracles import k8s_scalars
from tests.support import samples
from transform.cli.main import main

UID = "4a1c2e37-7d1c-4a0e-9b7a-0e6f3c2d1b55"
OWNER = samples.FLOW_VM_OWNER


def _object_revision(guest: str, memory: str = "1Gi") -> str:
    return (
        "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n"
        f"  name: vm-small-{UID}-1\n{OWNER}"
        "data:\n  apiVersion: instancetype.kubevirt.io/v1alpha2\n  kind: VirtualMachineInstancetype\n"
        f"  metadata: {{name: small, uid: {UID}, generation: 1}}\n"
        f"  spec:\n    cpu:\n      guest: {guest}\n    memory:\n      guest: {memory}\nrevision: 1\n"
    )


def _wrapper_revision(spec_json: str) -> str:
    encoded = base64.b64encode(spec_json.encode()).decode()
    return (
        "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n"
        f"  name: vm-small-{UID}-1\n{OWNER}"
        f'data:\n  apiVersion: ""\n  spec: {encoded}\nrevision: 1\n'
    )


def _fix(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str], name: str = "cr.yaml") -> tuple[int, str, Path]:
    path = tmp_path / name
    path.write_text(text)
    code = main(["fix", str(path)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err, path


@pytest.mark.parametrize(("written", "sent"), [("2.0", 2), ("10.0", 10), ("1E1", 10), ("1.0e+1", 10), ("2.", 2)])
def test_whole_float_in_yaml_data_is_an_integer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], written: str, sent: int
) -> None:
    code, out, path = _fix(tmp_path, _object_revision(written), capsys)
    assert code == 1, out
    assert "cannot unmarshal" not in out
    [doc] = k8s_scalars.load_all(path.read_text())
    guest = doc["data"]["spec"]["cpu"]["guest"]
    assert type(guest) is int and guest == sent


def test_whole_float_in_a_json_document_is_an_integer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {"name": f"vm-small-{UID}-1"},
        "data": {
            "apiVersion": "instancetype.kubevirt.io/v1alpha2",
            "kind": "VirtualMachineInstancetype",
            "metadata": {"name": "small"},
            "spec": {"cpu": {"guest": 4.0}, "memory": {"guest": "1Gi"}},
        },
        "revision": 1,
    }
    code, out, path = _fix(tmp_path, json.dumps(doc, indent=2) + "\n", capsys, "cr.json")
    assert code == 1, out
    assert json.loads(path.read_text())["data"]["spec"]["cpu"]["guest"] == 4


def test_validate_accepts_whole_floats_in_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cr.yaml"
    path.write_text(_object_revision("2.0"))
    main(["validate", str(path)])
    out = capsys.readouterr()
    assert "revision.undecodable" not in out.out + out.err and "cannot unmarshal" not in out.out + out.err


@pytest.mark.parametrize("written", ["2.0", "1E1", "2.5"])
def test_wrapper_json_is_read_by_go_itself(tmp_path: Path, capsys: pytest.CaptureFixture[str], written: str) -> None:
    text = _wrapper_revision(f'{{"cpu":{{"guest":{written}}},"memory":{{"guest":"1Gi"}}}}')
    code, out, path = _fix(tmp_path, text, capsys)
    assert code == 3 and f"got {written}" in out, out
    assert path.read_text() == text


def test_non_integral_float_in_data_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _fix(tmp_path, _object_revision("2.5"), capsys)
    assert code == 3 and "got 2.5" in out


@pytest.mark.parametrize(
    ("number", "quantity"),
    [
        ("99999999999999999999", "99999999999999999999"),
        ("123456789012345678901234", "123456789012345678901234"),
        ("0.1000000000000000000001", "100000001n"),  # finer than nano: rounded up, exactly
        ("18446744073709551617", "18446744073709551617"),
    ],
)
def test_wrapper_quantity_is_an_exact_decimal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], number: str, quantity: str
) -> None:
    text = _wrapper_revision(f'{{"cpu":{{"guest":1}},"memory":{{"guest":{number}}}}}')
    code, out, path = _fix(tmp_path, text, capsys)
    assert code == 1, out
    [doc] = k8s_scalars.load_all(path.read_text())
    assert doc["data"]["spec"]["memory"]["guest"] == quantity


def test_yaml_integer_beyond_uint64_is_a_float_to_kubernetes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """sigs.k8s.io/yaml reads 99999999999999999999 as the float64 1e20: KubeVirt gets `1e20`, i.e. 100E."""
    code, out, path = _fix(tmp_path, _object_revision("1", "99999999999999999999"), capsys)
    assert code == 1, out
    [doc] = k8s_scalars.load_all(path.read_text())
    assert doc["data"]["spec"]["memory"]["guest"] == "100E"
