"""A wrapper decoded as KubeVirt decodes it whatever its labels say, and an owner without a name.

KubeVirt v1.6 `compatibility.decodeSpecRevision` strictly unmarshals the wrapper's spec into the
v1alpha1 preference spec first, then the instancetype spec, and never reads the revision's labels: a
spec both accept (`{}`, `{"cpu": {}}`) becomes a preference. apimachinery's `ValidateOwnerReferences`
refuses an ownerReference whose name is empty ("name must not be empty")."""

from __future__ import annotations

import base64
import json

import pytest

from transform.convert import revisions

UID = "6709b990-f717-44fe-a8ff-cb441d20b904"
KIND_LABEL = "instancetype.kubevirt.io/object-kind"


def revision(spec: dict, *, labels: dict | None = None, owner: str = "vm-a") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": f"vm-a-csmall-{UID}-1",
            "namespace": "ns",
            "labels": labels or {},
            "ownerReferences": [
                {
                    "apiVersion": "kubevirt.io/v1",
                    "kind": "VirtualMachine",
                    "name": owner,
                    "uid": "u",
                    "controller": True,
                }
            ],
        },
        "data": {"apiVersion": "", "spec": base64.b64encode(json.dumps(spec).encode()).decode()},
        "revision": 0,
    }


@pytest.mark.parametrize("spec", [{}, {"cpu": {}}])
@pytest.mark.parametrize("label", ["VirtualMachineInstancetype", "VirtualMachineClusterInstancetype"])
def test_instancetype_label_on_a_preference_shaped_spec(spec: dict, label: str) -> None:
    # before: the label's kind was taken, and a preference-shaped payload written as an instancetype
    up = revisions.upgrade_revision(revision(spec, labels={KIND_LABEL: label}))
    assert up is not None
    assert up.doc["data"]["kind"] == "VirtualMachinePreference"
    assert "guest" not in json.dumps(up.doc["data"]["spec"])  # no instancetype zero values
    assert up.doc["metadata"]["labels"][KIND_LABEL] == "VirtualMachinePreference"
    said = [f for f in up.findings if f.code == "revision.family-mismatch"]
    assert len(said) == 1 and label in said[0].message and "preference" in said[0].message
    assert not [f for f in up.findings if f.code == "revision.kind-guessed"]


def test_label_of_the_same_family_is_still_used() -> None:
    up = revisions.upgrade_revision(
        revision(
            {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}, labels={KIND_LABEL: "VirtualMachineClusterInstancetype"}
        )
    )
    assert up is not None and up.doc["data"]["kind"] == "VirtualMachineClusterInstancetype"
    assert not [f for f in up.findings if f.code == "revision.family-mismatch"]


def test_owner_with_an_empty_name_keeps_the_name_and_says_so() -> None:
    up = revisions.upgrade_revision(revision({"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}, owner=""), rename=True)
    assert up is not None and up.new_name == up.old_name
    kept = [f for f in up.findings if f.code == "revision.name-kept"]
    assert len(kept) == 1
    assert "empty name" in kept[0].message and "Snapshot" not in kept[0].message
    assert kept[0].severity == "warning"
