"""JSON `-0` in a v1alpha1 wrapper payload, as Go reads it (KubeVirt v1.6 decodes the wrapper's base64 JSON itself,
strictly, with sigs.k8s.io/json, whose literalStore is encoding/json's).

The documented facts (Go's source, not transform/): encoding/json's literalStore parses a number for an unsigned
field with `strconv.ParseUint(s, 10, 64)` and, on an error, saves `&UnmarshalTypeError{Value: "number " + s, ...}`;
strconv.ParseUint: "A sign prefix is not permitted" (its digit loop returns a syntax error for `-`). A signed field
uses strconv.ParseInt, which takes the sign: `-0` is 0. A resource.Quantity parses the number's text: `-0` is 0.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tests.support import samples
from transform.cli.main import main
from transform.kubevirt import gojson
from transform.model.plain import loads_json

OWNER = samples.FLOW_VM_OWNER


def _wrapper_revision(spec_json: str) -> str:
    encoded = base64.b64encode(spec_json.encode()).decode()
    return (
        "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n"
        f"  name: vm-small-4a1c2e37-7d1c-4a0e-9b7a-0e6f3c2d1b55-1\n{OWNER}"
        f'data:\n  apiVersion: ""\n  spec: {encoded}\nrevision: 1\n'
    )


def test_go_refuses_minus_zero_for_a_uint32() -> None:
    spec = loads_json('{"cpu":{"guest":-0},"memory":{"guest":"1Gi"}}', exact=True)
    type_name = gojson.spec_type("v1alpha1", "VirtualMachineInstancetype")
    assert type_name is not None
    with pytest.raises(gojson.GoJSONError) as caught:
        gojson.reencode(spec, type_name, strict=True)
    assert caught.value.go.startswith("json: cannot unmarshal number -0 into Go struct field ")
    assert caught.value.go.endswith("cpu.guest of type uint32")
    assert caught.value.path == ("cpu", "guest")
    assert "got -0" in caught.value.message


def test_go_takes_minus_zero_for_a_signed_integer_and_a_quantity() -> None:
    spec = loads_json(
        '{"clock":{"preferredClockOffset":{"utc":{"offsetSeconds":-0}}},"cpu":{"preferredCPUTopology":"preferCores"}}',
        exact=True,
    )
    type_name = gojson.spec_type("v1alpha1", "VirtualMachinePreference")
    assert type_name is not None
    out = gojson.reencode(spec, type_name, strict=True).value
    offset = out["clock"]["preferredClockOffset"]["utc"]["offsetSeconds"]
    assert offset == 0 and type(offset) is int  # a pointer keeps its explicit 0; written `0`, never `-0`
    it = gojson.spec_type("v1alpha1", "VirtualMachineInstancetype")
    assert it is not None
    spec = loads_json('{"cpu":{"guest":1},"memory":{"guest":-0}}', exact=True)
    assert gojson.reencode(spec, it, strict=True).value["memory"]["guest"] == "0"


def test_fix_and_validate_refuse_the_wrapper_as_kubevirt_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _wrapper_revision('{"cpu":{"guest":-0},"memory":{"guest":"1Gi"}}')
    path = tmp_path / "cr.yaml"
    path.write_text(text)
    assert main(["fix", str(path)]) == 3
    out = capsys.readouterr().out
    assert "cpu.guest: expected a whole number from 0 to 4294967295 (Go uint32), got -0" in out, out
    assert path.read_text() == text  # never written
    # validate: nothing under a ControllerRevision's data is an error of the revision object (the API server
    # stores it unread); what KubeVirt's decoder says of it is a warning
    assert main(["validate", str(path)]) == 0
    assert "got -0" in capsys.readouterr().out
    assert main(["scan", str(path)]) == 1
    assert "got -0" in capsys.readouterr().out


def test_plus_zero_and_a_yaml_minus_zero_are_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`0` in the wrapper is Go's 0; `-0` written in YAML data reaches KubeVirt as kubectl sends it: the integer 0."""
    path = tmp_path / "cr.yaml"
    path.write_text(_wrapper_revision('{"cpu":{"guest":0},"memory":{"guest":"1Gi"}}'))
    main(["fix", str(path)])
    assert "cannot unmarshal" not in capsys.readouterr().out
    obj = (
        "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n"
        f"  name: vm-small-4a1c2e37-7d1c-4a0e-9b7a-0e6f3c2d1b55-1\n{OWNER}"
        "data:\n  apiVersion: instancetype.kubevirt.io/v1alpha2\n  kind: VirtualMachineInstancetype\n"
        "  metadata: {name: small, uid: 4a1c2e37-7d1c-4a0e-9b7a-0e6f3c2d1b55, generation: 1}\n"
        "  spec:\n    cpu:\n      guest: -0\n    memory:\n      guest: 1Gi\nrevision: 1\n"
    )
    path.write_text(obj)
    main(["fix", str(path)])
    assert "got -0" not in capsys.readouterr().out
