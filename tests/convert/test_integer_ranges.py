"""Integers exact to the last digit, at every integer field of KubeVirt v1.6's payload types.

Go's encoding/json reads a JSON integer into a `uint32`, `uint` (64 bits here), `int` or `int64` field
exactly (strconv.ParseUint/ParseInt), refusing one outside the type's range; a revision's `data` reaches it
as the bytes kubectl sent (ControllerRevision.data is a RawExtension), so 2^63 and 2^64-1 in a `uint`
field are kept exactly, never through a float64 (`9223372036854776000`). The engine (transform.kubevirt.gojson)
and the independent model (tests/oracles/go_json_model.py, which reads the reference types itself) must
agree at each field's bounds, and a `fix` must write the integers back digit for digit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.oracles import go_json_model as go
from tests.oracles import kubevirt_model
from transform.cli import main as cli
from transform.kubevirt import gojson

RANGES = {
    "uint32": (0, 2**32 - 1),
    "uint": (0, 2**64 - 1),
    "int": (-(2**63), 2**63 - 1),
    "int64": (-(2**63), 2**63 - 1),
}


def _integer_fields(
    type_name: str, path: tuple[str, ...] = (), seen: frozenset[str] = frozenset()
) -> Iterator[tuple[tuple[str, ...], str]]:
    """(JSON path, Go kind) of every integer field reachable through structs (the oracle's reading of the reference)."""
    for f in go.types()[type_name].get("fields", []):
        if f.get("inline"):
            yield from _integer_fields(f["type"], path, seen)
        elif f["kind"] in RANGES:
            yield (*path, f["json"]), f["kind"]
        elif f["kind"] == "struct" and f["type"] in go.types() and f["type"] not in seen and f["type"] != go.QUANTITY:
            yield from _integer_fields(f["type"], (*path, f["json"]), seen | {f["type"]})


def _spec_types() -> list[tuple[str, str]]:
    out = []
    for version in ("v1alpha1", "v1alpha2", "v1beta1"):
        for kind in ("VirtualMachineInstancetype", "VirtualMachinePreference"):
            out.append((f"{version}.{kind}", str(go.field_of(go.object_type(version, kind), "spec")["type"])))
    return out


CASES = [
    (name, spec_type, path, kind, value)
    for name, spec_type in _spec_types()
    for path, kind in _integer_fields(spec_type)
    for value in (RANGES[kind][0] - 1, RANGES[kind][0], RANGES[kind][1], RANGES[kind][1] + 1)
]


def _nest(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    out: Any = value
    for part in reversed(path):
        out = {part: out}
    return out


def test_every_integer_kind_is_reached() -> None:
    assert {kind for *_, kind, _ in CASES} == set(RANGES)
    assert any(path[-1] == "physical" for _, _, path, _, _ in CASES)  # preferredDiskBlockSize.custom


@pytest.mark.parametrize(
    ("name", "spec_type", "path", "kind", "value"), CASES, ids=[f"{c[0]}-{'.'.join(c[2])}-{c[4]}" for c in CASES]
)
def test_engine_and_model_agree_at_the_bounds(
    name: str, spec_type: str, path: tuple[str, ...], kind: str, value: int
) -> None:
    spec = _nest(path, value)
    version, obj_kind = name.split(".")
    engine_type = gojson.spec_type(version, obj_kind)
    assert engine_type is not None
    low, high = RANGES[kind]
    try:
        want = go.marshal(go.unmarshal(spec, spec_type, strict=False), spec_type)
    except go.GoError:
        want = None
    assert (want is not None) == (low <= value <= high)
    try:
        got: Any = gojson.reencode(spec, engine_type).value
    except gojson.GoJSONError as exc:
        got = None
        assert f"number {value}" in exc.go and exc.path == path
    assert (got is not None) == (want is not None), (path, value)
    if got is not None:
        assert got == want
        leaf: Any = got
        for part in path:
            leaf = leaf.get(part) if isinstance(leaf, dict) else None
        assert leaf is None or (type(leaf) is int and leaf == value)  # (a zero is dropped by omitempty)


UID = "6709b990-f717-44fe-a8ff-cb441d20b904"


def _revision(custom: str) -> str:
    return f"""apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: vm-a-pref-{UID}-1
  namespace: default
  ownerReferences:
  - apiVersion: kubevirt.io/v1
    blockOwnerDeletion: true
    controller: true
    kind: VirtualMachine
    name: vm-a
    uid: 3f2a9c41-8d7e-4b05-a6c1-2e9f0d4b7a18
data:
  apiVersion: instancetype.kubevirt.io/v1alpha2
  kind: VirtualMachinePreference
  metadata:
    name: pref
    uid: {UID}
    generation: 1
  spec:
    devices:
      preferredDiskBlockSize:
        custom:
{custom}revision: 0
"""


def test_fix_keeps_uint64_integers_exactly(tmp_path: Path) -> None:
    """Before: 2^63 was written back as 9223372036854776000 and 2^64-1 refused as 18446744073709552000."""
    path = tmp_path / "cr.yaml"
    path.write_text(_revision(f"          logical: {2**64 - 1}\n          physical: {2**63}\n"))
    assert cli.main(["fix", "-q", str(path)]) == 1
    text = path.read_text()
    assert f"logical: {2**64 - 1}\n" in text and f"physical: {2**63}\n" in text
    want = kubevirt_model.expected_payload(
        {
            "apiVersion": "instancetype.kubevirt.io/v1alpha2",
            "kind": "VirtualMachinePreference",
            "metadata": {"name": "pref", "uid": UID, "generation": 1},
            "spec": {"devices": {"preferredDiskBlockSize": {"custom": {"logical": 2**64 - 1, "physical": 2**63}}}},
        }
    )
    assert want["spec"]["devices"]["preferredDiskBlockSize"]["custom"] == {"logical": 2**64 - 1, "physical": 2**63}


@pytest.mark.parametrize(
    ("custom", "words"),
    [
        (
            f"          logical: {2**64}\n          physical: 1\n",
            "18446744073709552000",
        ),  # YAML beyond uint64: a float64
        ("          logical: -1\n          physical: 1\n", "number -1"),
    ],
)
def test_fix_refuses_what_go_refuses(tmp_path: Path, custom: str, words: str) -> None:
    path = tmp_path / "cr.yaml"
    path.write_text(_revision(custom))
    out = tmp_path / "report.json"
    assert cli.main(["fix", "--format", "json", "--output-file", str(out), str(path)]) == 3
    found = [f for f in json.loads(out.read_text())["findings"] if f["severity"] == "error"]
    assert [f["code"] for f in found] == ["revision.undecodable"]
    assert words in found[0]["message"]
