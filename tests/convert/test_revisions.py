"""Revision identity, names and references: where the tool does better than KubeVirt."""

from __future__ import annotations

import base64
import json

import pytest

from tests.support import samples
from transform.convert import revisions
from transform.convert.payloads import RevisionError

UID = samples.F1_SOURCE_UID


def wrapper(spec: dict, *, name: str, owner_kind: str = "VirtualMachine", owner: str = "vm-a") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": name,
            "namespace": "ns",
            "ownerReferences": [
                {"apiVersion": "kubevirt.io/v1", "kind": owner_kind, "name": owner, "uid": "u", "controller": True}
            ],
        },
        "data": {"apiVersion": "", "spec": base64.b64encode(json.dumps(spec).encode()).decode()},
        "revision": 0,
    }


IT = {"cpu": {"guest": 1}, "memory": {"guest": "128Mi"}}


@pytest.mark.parametrize(
    ("name", "vm", "expected"),
    [
        (f"vm-a-csmall-{UID}-1", "vm-a", ("csmall", UID, 1)),
        (f"vm-a-u1.large-{UID}-12", "vm-a", ("u1.large", UID, 12)),
        (f"vm-a-my-pref-v1beta1-{UID}-3", "vm-a", ("my-pref", UID, 3)),  # a v1.3+ name
        (f"other-csmall-{UID}-1", "vm-a", None),  # not this VM's
        (f"vm-a-csmall-{UID}", "vm-a", None),  # no generation
        (f"vm-a-csmall-{UID}-1", None, None),  # no VM: the split is ambiguous
    ],
)
def test_identity_from_name(name: str, vm: str | None, expected: tuple | None) -> None:
    got = revisions.identity_from_name(name, vm)
    assert (None if got is None else (got.name, got.uid, got.generation)) == expected


@pytest.mark.parametrize(
    ("hint_kind", "expected"),
    [
        ("VirtualMachineClusterInstancetype", "VirtualMachineClusterInstancetype"),
        ("virtualmachineclusterinstancetypes", "VirtualMachineClusterInstancetype"),
        ("", "VirtualMachineClusterInstancetype"),  # an empty matcher kind means the cluster kind
        ("VirtualMachineInstancetype", "VirtualMachineInstancetype"),
        ("vminstancetype", "VirtualMachineInstancetype"),
    ],
)
def test_kind_recovered_from_the_referencing_vm(hint_kind: str, expected: str) -> None:
    up = revisions.upgrade_revision(
        wrapper(IT, name=f"vm-a-csmall-{UID}-1"), hints=revisions.Hints("instancetype", hint_kind, "vm-a")
    )
    assert up is not None
    assert up.doc["data"]["kind"] == expected
    assert up.doc["metadata"]["labels"]["instancetype.kubevirt.io/object-kind"] == expected
    assert ("namespace" in up.doc["data"]["metadata"]) == (expected == "VirtualMachineInstancetype")


def test_synthetic_identity_only_when_nothing_is_known() -> None:
    up = revisions.upgrade_revision(wrapper(IT, name="legacy-instancetype-cr"))
    assert up is not None
    assert up.doc["data"]["metadata"] == {"creationTimestamp": None, "name": "old-version-of-instancetype-object"}
    assert any(f.code == "revision.synthetic-identity" for f in up.findings)


def test_rename_as_the_vm_controller_creates_it() -> None:
    doc = wrapper(IT, name=f"vm-a-csmall-{UID}-2")
    doc["metadata"].update(uid="x", resourceVersion="9", creationTimestamp="2022-01-01T00:00:00Z", generation=1)
    doc["revision"] = 3
    up = revisions.upgrade_revision(
        doc, rename=True, hints=revisions.Hints("instancetype", "VirtualMachineInstancetype", "vm-a")
    )
    assert up is not None
    assert up.new_name == f"vm-a-csmall-v1beta1-{UID}-2"
    assert up.doc["revision"] == 0
    assert not {"uid", "resourceVersion", "creationTimestamp", "generation"} & set(up.doc["metadata"])


@pytest.mark.parametrize("owner_kind", ["VirtualMachineSnapshot", None])
def test_rename_keeps_names_without_a_vm_owner(owner_kind: str | None) -> None:
    doc = wrapper(IT, name=f"snap-csmall-{UID}-1", owner_kind=owner_kind or "VirtualMachineSnapshot", owner="snap")
    if owner_kind is None:
        del doc["metadata"]["ownerReferences"]
    up = revisions.upgrade_revision(doc, rename=True)
    assert up is not None and up.new_name == up.old_name
    if owner_kind:  # a snapshot's copy is named after the snapshot: identity still recovered
        assert up.doc["data"]["metadata"]["name"] == "csmall"


def test_label_lies_is_upgraded_and_reported() -> None:
    doc = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {"name": "r", "labels": {"instancetype.kubevirt.io/object-version": "v1beta1"}},
        "data": {
            "apiVersion": "instancetype.kubevirt.io/v1alpha1",
            "kind": "VirtualMachinePreference",
            "metadata": {"name": "p"},
            "spec": {},
        },
        "revision": 0,
    }
    up = revisions.upgrade_revision(doc)
    assert up is not None and any(f.code == "revision.label-lies" for f in up.findings)


def test_current_revision_is_left_alone() -> None:
    doc = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {"name": "r", "labels": {"instancetype.kubevirt.io/object-version": "v1beta1"}},
        "data": {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachinePreference",
            "metadata": {"name": "p"},
            "spec": {"cpu": {"preferredCPUTopology": "preferSockets"}},
        },
        "revision": 0,
    }
    assert revisions.upgrade_revision(doc) is None


@pytest.mark.parametrize(
    "data", [None, {}, {"apiVersion": "", "spec": "not base64!"}, {"apiVersion": "x/v1", "kind": "Y"}]
)
def test_undecodable_payloads_raise(data: object) -> None:
    doc = wrapper(IT, name="r")
    doc["data"] = data
    with pytest.raises(RevisionError):
        revisions.upgrade_revision(doc)


@pytest.mark.parametrize(
    ("version", "says", "never"),
    [
        ("v1alpha2", "if v1beta1 has it, keep it by writing the source object as v1beta1", "check its spelling"),
        ("v1beta1", "check its spelling, or remove it at the source", "as v1beta1"),  # not "move it to v1beta1"
    ],
)
def test_dropped_field_advice_fits_the_payload_version(version: str, says: str, never: str) -> None:
    from transform.convert import payloads

    data = {
        "apiVersion": f"instancetype.kubevirt.io/{version}",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": "it"},
        "spec": {"cpu": {"guest": 1, "bogus": 1}, "memory": {"guest": "1Gi"}},
    }
    [found] = [f for f in payloads.decode(data).findings if f.code == "revision.dropped-field"]
    assert found.path == ("data", "spec", "cpu", "bogus")
    assert says in found.message and never not in found.message
