"""Standalone instance types and preferences with integers their Go types cannot hold.

The CRD schemas bound none of these integers, so the API server stores the object; KubeVirt's informers
decode it with encoding/json into KubeVirt's types, which refuses a number outside the field's Go type, and
the object is invisible to KubeVirt. The independent model (tests/oracles/go_json_model.py) says which values
Go refuses; the tool says each as `decoder.go-range` naming the field, the value and the Go type: a carried-over
`input:` warning in `fix`/`check` (an error under --strict), an error in `validate`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.oracles import go_json_model as go
from transform.cli import main as cli

IT = {
    "apiVersion": "instancetype.kubevirt.io/v1alpha2",
    "kind": "VirtualMachineInstancetype",
    "metadata": {"name": "a"},
}
PREF = {
    "apiVersion": "instancetype.kubevirt.io/v1alpha2",
    "kind": "VirtualMachinePreference",
    "metadata": {"name": "p"},
}
CASES = [
    (IT, {"spec": {"cpu": {"guest": 2**32}, "memory": {"guest": "1Gi"}}}, ("spec", "cpu", "guest"), "uint32"),
    (IT, {"spec": {"cpu": {"guest": -1}, "memory": {"guest": "1Gi"}}}, ("spec", "cpu", "guest"), "uint32"),
    (
        {**IT, "apiVersion": "instancetype.kubevirt.io/v1beta1"},
        {"spec": {"cpu": {"guest": 2, "maxSockets": -1}, "memory": {"guest": "1Gi"}}},
        ("spec", "cpu", "maxSockets"),
        "uint32",
    ),
    (
        PREF,
        {"spec": {"features": {"preferredHyperv": {"spinlocks": {"spinlocks": 2**32}}}}},
        ("spec", "features", "preferredHyperv", "spinlocks", "spinlocks"),
        "uint32",
    ),
    (PREF, {"metadata": {"name": "p", "generation": 2**63}, "spec": {}}, ("metadata", "generation"), "int64"),
]


def _oracle_refuses(obj: dict[str, Any]) -> bool:
    version, kind = obj["apiVersion"].rpartition("/")[2], obj["kind"]
    try:
        go.object_meta(obj.get("metadata", {}))
        spec_type = str(go.field_of(go.object_type(version, kind), "spec")["type"])
        go.unmarshal(obj.get("spec"), spec_type, strict=False)
    except go.GoError:
        return True
    return False


def _write(tmp_path: Path, obj: dict[str, Any]) -> Path:
    path = tmp_path / "obj.json"
    path.write_text(json.dumps(obj, indent=2) + "\n")
    return path


def _findings(tmp_path: Path, *args: str) -> tuple[int, list[dict[str, Any]]]:
    out = tmp_path / "report.json"
    code = cli.main([*args, "--format", "json", "--output-file", str(out)])
    return code, json.loads(out.read_text())["findings"]


@pytest.mark.parametrize(("base", "extra", "where", "go_type"), CASES)
def test_said_in_every_command(tmp_path: Path, base: dict, extra: dict, where: tuple, go_type: str) -> None:
    obj = {**base, **extra}
    assert _oracle_refuses(obj)
    path = _write(tmp_path, obj)
    value = obj
    for part in where:
        value = value[part]
    for args, code, severity in (
        (("check", str(path)), None, "warning"),
        (("check", "--strict", str(path)), 3, "error"),
        (("validate", str(path)), 3, "error"),
    ):
        got, found = _findings(tmp_path, *args)
        said = [f for f in found if f["code"] == "decoder.go-range"]
        assert len(said) == 1, (args, found)
        f = said[0]
        assert f["severity"] == severity and f["path"] == ".".join(where)
        assert str(value) in f["message"] and go_type in f["message"]
        if code is not None:
            assert got == code
    assert path.read_text() == json.dumps(obj, indent=2) + "\n"


@pytest.mark.parametrize("guest", [0, 1, 2**32 - 1])
def test_values_in_range_are_not_said(tmp_path: Path, guest: int) -> None:
    obj = {**IT, "spec": {"cpu": {"guest": guest}, "memory": {"guest": "1Gi"}}}
    assert not _oracle_refuses(obj)
    _, found = _findings(tmp_path, "check", str(_write(tmp_path, obj)))
    assert not [f for f in found if f["code"] == "decoder.go-range"]


def test_every_bad_integer_is_said_not_only_the_first(tmp_path: Path) -> None:
    obj = {**IT, "spec": {"cpu": {"guest": -1, "maxSockets": 2**32}, "memory": {"guest": True}}}
    obj["apiVersion"] = "instancetype.kubevirt.io/v1beta1"
    _, found = _findings(tmp_path, "validate", str(_write(tmp_path, obj)))
    paths = sorted(f["path"] for f in found if f["code"] == "decoder.go-range")
    assert paths == ["spec.cpu.guest", "spec.cpu.maxSockets"]
