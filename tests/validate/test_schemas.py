"""The field tables of transform.kubevirt.fields (public constants, pruning of unknown fields).

The bundled CRD schemas themselves are tested in test_bundle.py.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transform.kubevirt import fields


def test_public_constants() -> None:
    assert fields.VERSIONS == ("v1alpha1", "v1alpha2", "v1beta1")
    assert set(fields.KINDS) == set(fields.FAMILY_OF_KIND)
    assert fields.CLUSTER_KINDS == {"VirtualMachineClusterInstancetype", "VirtualMachineClusterPreference"}
    assert set(fields.FAMILY_OF_KIND.values()) == {"instancetype", "preference"}


PRUNE_CASES = [
    pytest.param(
        {"devices": {"preferredPanicDeviceModel": "hyperv", "preferredDiskBus": "virtio"}},
        "preference",
        "v1alpha2",
        {"devices": {"preferredDiskBus": "virtio"}},
        [("devices", "preferredPanicDeviceModel")],
        id="v1beta1-only-device-field",
    ),
    pytest.param(
        {"firmware": {"preferredEfi": {"secureBoot": True}}},
        "preference",
        "v1alpha1",
        {"firmware": {}},
        [("firmware", "preferredEfi")],
        id="emptied-parent-stays",
    ),
    pytest.param(
        {"volumes": {"preferredStorageClassName": "x"}},
        "preference",
        "v1alpha1",
        {},
        [("volumes",)],
        id="volumes-not-in-v1alpha1",
    ),
    pytest.param(
        {
            "cpu": {"guest": 2, "maxSockets": 4},
            "memory": {"guest": "1Gi"},
            "gpus": [{"name": "a", "deviceName": "d", "bogus": 1}, {"name": "b", "deviceName": "e"}],
            "nodeSelector": {"any/key": "v"},
        },
        "instancetype",
        "v1alpha2",
        {
            "cpu": {"guest": 2},
            "memory": {"guest": "1Gi"},
            "gpus": [{"name": "a", "deviceName": "d"}, {"name": "b", "deviceName": "e"}],
        },
        [("cpu", "maxSockets"), ("gpus", 0, "bogus"), ("nodeSelector",)],
        id="into-lists",
    ),
    pytest.param(
        {
            "cpu": {"guest": 2},
            "memory": {"guest": "1Gi"},
            "nodeSelector": {"a.b/c": "d", "e": "f"},
            "annotations": {"x": "y"},
        },
        "instancetype",
        "v1beta1",
        {
            "cpu": {"guest": 2},
            "memory": {"guest": "1Gi"},
            "nodeSelector": {"a.b/c": "d", "e": "f"},
            "annotations": {"x": "y"},
        },
        [],
        id="maps-keep-keys",
    ),
]


@pytest.mark.parametrize(("spec", "family", "version", "expected", "removed"), PRUNE_CASES)
def test_prune_unknown(spec: dict, family: str, version: str, expected: dict, removed: list) -> None:
    before = json.dumps(spec, sort_keys=True)
    out, paths = fields.prune_unknown(spec, family, version)
    assert out == expected
    assert paths == removed
    assert fields.unknown_fields(spec, family, version) == removed
    assert json.dumps(spec, sort_keys=True) == before  # input untouched


def test_prune_copies_deeply() -> None:
    spec = {"nodeSelector": {"a": "b"}, "cpu": {"guest": 1}, "memory": {"guest": 1}}
    out, _ = fields.prune_unknown(spec, "instancetype", "v1beta1")
    out["nodeSelector"]["c"] = "d"
    assert spec["nodeSelector"] == {"a": "b"}


def test_bad_family_or_version() -> None:
    with pytest.raises(ValueError, match="unknown family"):
        fields.unknown_fields({}, "flavor", "v1beta1")
    with pytest.raises(ValueError, match="unknown version"):
        fields.unknown_fields({}, "preference", "v1")


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
_known_keys = st.sampled_from(["cpu", "memory", "devices", "firmware", "gpus", "guest", "preferredEfi", "volumes"])
_specs = st.dictionaries(_known_keys | st.text(max_size=5), _json, max_size=5)


@settings(max_examples=200, deadline=None)
@given(spec=_specs, family=st.sampled_from(fields.FAMILIES), version=st.sampled_from(fields.VERSIONS))
def test_prune_is_complete_and_idempotent(spec: dict, family: str, version: str) -> None:
    out, removed = fields.prune_unknown(spec, family, version)
    assert fields.unknown_fields(out, family, version) == []
    assert fields.prune_unknown(out, family, version) == (out, [])
    assert len(removed) == len(set(removed))
