"""Go's encoding/json on KubeVirt's types: before/after tables (the classes of issue 10)."""

from __future__ import annotations

from typing import Any

import pytest

from transform.kubevirt.gojson import GoJSONError, object_type, reencode, spec_type

IT_B = spec_type("v1beta1", "VirtualMachineInstancetype") or ""
IT_A2 = spec_type("v1alpha2", "VirtualMachineInstancetype") or ""
PREF_B = spec_type("v1beta1", "VirtualMachinePreference") or ""
MIN = {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}


@pytest.mark.parametrize(
    ("type_name", "before", "after"),
    [
        # omitempty drops a zero value of a non-pointer field
        (
            PREF_B,
            {"features": {"preferredApic": {"enabled": True, "endOfInterrupt": False}}},
            {"features": {"preferredApic": {"enabled": True}}},
        ),
        (PREF_B, {"features": {"preferredKvm": {"hidden": False}}}, {"features": {"preferredKvm": {}}}),
        (
            PREF_B,
            {"features": {"preferredHyperv": {"vendorid": {"vendorid": ""}}}},
            {"features": {"preferredHyperv": {"vendorid": {}}}},
        ),
        (
            PREF_B,
            {"clock": {"preferredTimer": {"hpet": {"tickPolicy": ""}}}},
            {"clock": {"preferredTimer": {"hpet": {}}}},
        ),
        (
            PREF_B,
            {"devices": {"preferredDiskBus": ""}, "machine": {"preferredMachineType": ""}},
            {"devices": {}, "machine": {}},
        ),
        (PREF_B, {"preferSpreadSocketToCoreRatio": 0, "annotations": {}}, {}),
        (
            IT_B,
            {**MIN, "gpus": [{"name": "g", "deviceName": "d", "tag": ""}]},
            {**MIN, "gpus": [{"name": "g", "deviceName": "d"}]},
        ),
        (IT_B, {**MIN, "gpus": [], "hostDevices": None, "nodeSelector": {}}, MIN),
        (
            IT_B,
            {"cpu": {"guest": 1, "realtime": {"mask": ""}}, "memory": {"guest": "1Gi", "hugepages": {"pageSize": ""}}},
            {"cpu": {"guest": 1, "realtime": {}}, "memory": {"guest": "1Gi", "hugepages": {}}},
        ),
        # a pointer keeps an explicit zero
        (
            IT_B,
            {
                "cpu": {"guest": 1, "model": "", "dedicatedCPUPlacement": False, "maxSockets": 0},
                "memory": {"guest": "1Gi"},
            },
            {
                "cpu": {"guest": 1, "model": "", "dedicatedCPUPlacement": False, "maxSockets": 0},
                "memory": {"guest": "1Gi"},
            },
        ),
        (
            PREF_B,
            {"devices": {"preferredAutoattachGraphicsDevice": False}, "preferredSubdomain": ""},
            {"devices": {"preferredAutoattachGraphicsDevice": False}, "preferredSubdomain": ""},
        ),
        # a non-pointer struct is always written, with its zero fields; a zero Quantity is "0"
        (IT_B, {}, {"cpu": {"guest": 0}, "memory": {"guest": "0"}}),
        (IT_B, {"cpu": {}, "memory": {}}, {"cpu": {"guest": 0}, "memory": {"guest": "0"}}),
        (
            PREF_B,
            {"requirements": {"cpu": {}, "memory": {}}},
            {"requirements": {"cpu": {"guest": 0}, "memory": {"guest": "0"}}},
        ),
        (IT_B, {**MIN, "gpus": [{"deviceName": "d"}]}, {**MIN, "gpus": [{"deviceName": "d", "name": ""}]}),
        # null is the zero value
        (IT_B, {"cpu": None, "memory": {"guest": None}}, {"cpu": {"guest": 0}, "memory": {"guest": "0"}}),
        (
            PREF_B,
            {"clock": None, "cpu": {"preferredCPUTopology": None}, "devices": {"preferredRng": None}},
            {"cpu": {}, "devices": {}},
        ),
        (
            IT_B,
            {**MIN, "gpus": [None], "nodeSelector": {"a": None}},
            {**MIN, "gpus": [{"name": ""}], "nodeSelector": {"a": ""}},
        ),
        # an empty struct behind a pointer stays
        (
            PREF_B,
            {"devices": {"preferredRng": {}, "preferredInterfaceMasquerade": {}}},
            {"devices": {"preferredRng": {}, "preferredInterfaceMasquerade": {}}},
        ),
        # inline embedded pointer (ClaimRequest)
        (
            IT_B,
            {**MIN, "gpus": [{"name": "g", "claimName": "c", "requestName": None}]},
            {**MIN, "gpus": [{"name": "g", "claimName": "c"}]},
        ),
        # quantities canonical
        (
            IT_B,
            {"cpu": {"guest": 1}, "memory": {"guest": "1024Mi", "maxGuest": 1610612736}},
            {"cpu": {"guest": 1}, "memory": {"guest": "1Gi", "maxGuest": "1610612736"}},
        ),
    ],
)
def test_reencode(type_name: str, before: dict[str, Any], after: dict[str, Any]) -> None:
    assert reencode(before, type_name).value == after


def test_unknown_fields_dropped_and_reported() -> None:
    got = reencode({**MIN, "ioThreads": {"supplementalPoolThreadCount": 2}, "cpu": {"guest": 1, "x": 1}}, IT_B)
    assert got.value == MIN
    assert got.unknown == [("ioThreads",), ("cpu", "x")]
    with pytest.raises(GoJSONError) as exc:
        reencode({**MIN, "bogus": 1}, IT_A2, strict=True)
    assert exc.value.path == ("bogus",)


def test_filled_fields_reported_outermost_only() -> None:
    assert reencode({"cpu": {}}, IT_B).filled == [("cpu", "guest"), ("memory",)]


def test_object_metadata_and_status() -> None:
    obj = object_type("v1alpha1", "VirtualMachineClusterInstancetype") or ""
    got = reencode(
        {
            "apiVersion": "instancetype.kubevirt.io/v1alpha1",
            "kind": "VirtualMachineClusterInstancetype",
            "metadata": {
                "name": "a",
                "namespace": "",
                "generation": 0,
                "creationTimestamp": "2022-09-30T12:20:19.5+02:00",
            },
            "spec": MIN,
            "status": {"x": 1},
        },
        obj,
    )
    assert got.value["metadata"] == {"name": "a", "creationTimestamp": "2022-09-30T10:20:19Z"}
    assert got.unknown == [("status",)]
    assert reencode({"kind": "K", "spec": MIN}, obj).value["metadata"] == {"creationTimestamp": None}


@pytest.mark.parametrize(
    ("type_name", "value", "path", "go"),
    [
        (
            IT_B,
            {"cpu": {"guest": -1}},
            ("cpu", "guest"),
            "json: cannot unmarshal number -1 into Go struct field CPUInstancetype.cpu.guest of type uint32",
        ),
        (IT_B, {"cpu": {"guest": 4294967296}}, ("cpu", "guest"), "number 4294967296"),
        (IT_B, {"cpu": {"guest": 1.5}}, ("cpu", "guest"), "number 1.5"),
        (IT_B, {"cpu": {"guest": "2"}}, ("cpu", "guest"), "cannot unmarshal string"),
        (IT_B, {"cpu": {"guest": True}}, ("cpu", "guest"), "cannot unmarshal bool"),
        (
            IT_B,
            {"cpu": {"guest": 1, "dedicatedCPUPlacement": "true"}},
            ("cpu", "dedicatedCPUPlacement"),
            "of type bool",
        ),
        (IT_B, {"cpu": 3}, ("cpu",), "of type v1beta1.CPUInstancetype"),
        (IT_B, {"memory": {"guest": "1 Gi"}}, ("memory", "guest"), "resource.Quantity"),
        (IT_B, {"memory": {"guest": True}}, ("memory", "guest"), "resource.Quantity"),
        (IT_B, {"gpus": {"name": "g"}}, ("gpus",), "of type []v1.GPU"),
        (IT_B, {"nodeSelector": {"a": 1}}, ("nodeSelector", "a"), "of type string"),
        (
            PREF_B,
            {"preferredTerminationGracePeriodSeconds": 2**63},
            ("preferredTerminationGracePeriodSeconds",),
            "int64",
        ),
        (
            PREF_B,
            {"clock": {"preferredClockOffset": {"utc": {"offsetSeconds": 1.0}}}},
            ("clock", "preferredClockOffset", "utc", "offsetSeconds"),
            "of type int",
        ),
    ],
)
def test_values_go_refuses(type_name: str, value: dict[str, Any], path: tuple[Any, ...], go: str) -> None:
    """Go reading this JSON text itself (`sent=False`: a wrapper's base64); as kubectl sends a document's data,
    a whole float such as 1.0 is an integer (tests/convert/test_payload_numbers.py)."""
    with pytest.raises(GoJSONError) as exc:
        reencode(value, type_name, sent=False)
    assert exc.value.path == path
    assert go in exc.value.go
    assert exc.value.message.startswith("expected ")


def test_bad_time_refused() -> None:
    obj = object_type("v1beta1", "VirtualMachineInstancetype") or ""
    for bad in ("", "2022-09-30", "2022-13-30T00:00:00Z", "2022-09-30T12:20:19", 5):
        with pytest.raises(GoJSONError):
            reencode({"metadata": {"creationTimestamp": bad}}, obj)
