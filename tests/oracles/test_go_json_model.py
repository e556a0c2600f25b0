"""The encoding/json and Quantity models checked against what the reference README and issue 10 state
(KubeVirt v1.6.0 observed), so they can be trusted as oracles."""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracles.kubevirt_model import ModelError, expected_payload
from tests.oracles.quantity_model import canonical


def payload(version: str, kind: str, spec: Any, **extra: Any) -> dict[str, Any]:
    data = {"apiVersion": f"instancetype.kubevirt.io/{version}", "kind": kind, "metadata": {"name": "o"}, **extra}
    if spec is not None:
        data["spec"] = spec
    return data


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        (
            {"features": {"preferredApic": {"enabled": True, "endOfInterrupt": False}}},
            {"features": {"preferredApic": {"enabled": True}}},
        ),
        ({"features": {"preferredKvm": {"hidden": False}}}, {"features": {"preferredKvm": {}}}),
        (
            {"features": {"preferredHyperv": {"vendorid": {"vendorid": ""}}}},
            {"features": {"preferredHyperv": {"vendorid": {}}}},
        ),
        ({"clock": {"preferredTimer": {"hpet": {"tickPolicy": ""}}}}, {"clock": {"preferredTimer": {"hpet": {}}}}),
        (
            {"devices": {"preferredAutoattachGraphicsDevice": False}},
            {"devices": {"preferredAutoattachGraphicsDevice": False}},
        ),
        ({"clock": None, "devices": {"preferredTPM": {}}}, {"devices": {"preferredTPM": {}}}),
    ],
)
def test_preference_zero_values(spec: dict[str, Any], want: dict[str, Any]) -> None:
    assert expected_payload(payload("v1alpha2", "VirtualMachinePreference", spec))["spec"] == want


def test_instancetype_zero_values_and_missing_structs() -> None:
    spec = {"cpu": {"guest": 1, "realtime": {"mask": ""}}, "memory": {"guest": "1Gi", "hugepages": {"pageSize": ""}}}
    spec["gpus"] = [{"name": "g", "deviceName": "d", "tag": ""}]
    out = expected_payload(payload("v1beta1", "VirtualMachineInstancetype", spec))["spec"]
    assert out == {
        "cpu": {"guest": 1, "realtime": {}},
        "memory": {"guest": "1Gi", "hugepages": {}},
        "gpus": [{"name": "g", "deviceName": "d"}],
    }
    assert expected_payload(payload("v1beta1", "VirtualMachineInstancetype", None))["spec"] == {
        "cpu": {"guest": 0},
        "memory": {"guest": "0"},
    }
    converted = expected_payload(payload("v1alpha2", "VirtualMachineInstancetype", {"cpu": {"guest": 2}}))["spec"]
    assert converted["memory"] == {"guest": "0"}


def test_status_and_unknown_fields_dropped() -> None:
    out = expected_payload(payload("v1alpha2", "VirtualMachinePreference", {"cpu": {"bogus": 1}}, status={"a": 1}))
    assert set(out) == {"apiVersion", "kind", "metadata", "spec"} and out["spec"] == {"cpu": {}}


@pytest.mark.parametrize("guest", [-1, 4294967296, 1.5, "2", True])
def test_uint32_refusals(guest: Any) -> None:
    with pytest.raises(ModelError) as e:
        expected_payload(
            payload("v1alpha2", "VirtualMachineInstancetype", {"cpu": {"guest": guest}, "memory": {"guest": "1Gi"}})
        )
    assert e.value.reason == "type"


def test_metadata_time_in_utc_seconds() -> None:
    data = payload("v1alpha2", "VirtualMachinePreference", {})
    data["metadata"].update({"creationTimestamp": "2022-09-30T12:20:19.5+02:00", "namespace": "", "generation": 0})
    assert expected_payload(data)["metadata"] == {"name": "o", "creationTimestamp": "2022-09-30T10:20:19Z"}


@pytest.mark.parametrize(
    ("given", "want"),
    [
        ("1024Mi", "1Gi"),
        ("+1Ki", "+1Ki"),
        ("1.500", "1.500"),
        ("1E3", "1E3"),
        ("1e4", "10e3"),
        ("Gi", "0"),
        ("0.9n", "1n"),
        ("1.1Ki", "1126400m"),
    ],
)
def test_quantity_model(given: str, want: str) -> None:
    assert canonical(given) == want
