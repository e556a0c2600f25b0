"""The model in kubevirt_model.py checked against the documented KubeVirt behaviour.

Every expectation here is quoted from docs/kubevirt-revisions.md (F6 example, compatibility_test.go
and upgrade_test.go tables, section 6) or docs/kubevirt-api-versions.md, so the model can be trusted
as an oracle for the engine's goldens.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import samples

try:
    from tests.oracles.kubevirt_model import (
        ModelError,
        canonical_quantity,
        expected_name,
        expected_payload,
        expected_revision,
        local_canonical_quantity,
    )
except ImportError:  # tests/ is not a package: pytest put tests/ itself on sys.path
    from kubevirt_model import (  # type: ignore[no-redef]
        ModelError,
        canonical_quantity,
        expected_name,
        expected_payload,
        expected_revision,
        local_canonical_quantity,
    )

IT_SPEC = {"cpu": {"guest": 4}, "memory": {"guest": "128Mi"}}
PREF_SPEC = {"cpu": {"preferredCPUTopology": "preferCores"}}
# compatibility_test.go@v1.6.0: what a converted v1alpha1/v1alpha2 object or F1 wrapper yields
IT_CONVERTED = {
    "cpu": {"guest": 4, "model": "", "dedicatedCPUPlacement": False, "isolateEmulatorThread": False},
    "memory": {"guest": "128Mi"},
}
VM_UID = samples.F2_VM_UID
OBJ_UID = samples.F2_SOURCE_UID


def b64(spec: Any) -> str:
    return base64.b64encode(json.dumps(spec, separators=(",", ":")).encode()).decode()


def whole(version: str, kind: str, spec: dict[str, Any], **meta: Any) -> dict[str, Any]:
    return {
        "apiVersion": f"instancetype.kubevirt.io/{version}",
        "kind": kind,
        "metadata": {"name": "obj", **meta},
        "spec": spec,
    }


def cr(data: Any, labels: dict[str, str] | None = None, vm: str = "vm-cirros-csmall") -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": "old",
        "namespace": "default",
        "ownerReferences": [
            {
                "apiVersion": "kubevirt.io/v1",
                "blockOwnerDeletion": True,
                "controller": True,
                "kind": "VirtualMachine",
                "name": vm,
                "uid": VM_UID,
            }
        ],
    }
    if labels is not None:
        meta["labels"] = labels
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": meta,
        "data": data,
        "revision": 0,
    }


# --- compatibility_test.go@v1.6.0 -----------------------------------------------------------

COMPAT_INSTANCETYPE = [
    pytest.param({"apiVersion": "instancetype.kubevirt.io/v1alpha1", "spec": b64(IT_SPEC)}, id="F1-apiVersion"),
    pytest.param({"apiVersion": "", "spec": b64(IT_SPEC)}, id="F1-empty-apiVersion"),
    *(
        pytest.param(whole(v, k, IT_SPEC), id=f"whole-{v}-{k}")
        for v in ("v1alpha1", "v1alpha2")
        for k in ("VirtualMachineInstancetype", "VirtualMachineClusterInstancetype")
    ),
]


@pytest.mark.parametrize("data", COMPAT_INSTANCETYPE)
def test_compat_instancetype_gets_pointer_zero_values(data: dict[str, Any]) -> None:
    assert expected_payload(data)["spec"] == IT_CONVERTED


COMPAT_PREFERENCE = [
    pytest.param({"apiVersion": "instancetype.kubevirt.io/v1alpha1", "spec": b64(PREF_SPEC)}, id="F1-apiVersion"),
    pytest.param({"apiVersion": "", "spec": b64(PREF_SPEC)}, id="F1-empty-apiVersion"),
    *(
        pytest.param(whole(v, k, PREF_SPEC), id=f"whole-{v}-{k}")
        for v in ("v1alpha1", "v1alpha2", "v1beta1")
        for k in ("VirtualMachinePreference", "VirtualMachineClusterPreference")
    ),
]


@pytest.mark.parametrize("data", COMPAT_PREFERENCE)
def test_compat_preference(data: dict[str, Any]) -> None:
    assert expected_payload(data)["spec"] == PREF_SPEC


@pytest.mark.parametrize("kind", ["VirtualMachineInstancetype", "VirtualMachineClusterInstancetype"])
def test_compat_v1beta1_instancetype_has_no_pointer_defaults(kind: str) -> None:
    out = expected_payload(whole("v1beta1", kind, IT_SPEC))
    assert out["spec"] == IT_SPEC
    assert out["kind"] == kind


def test_compat_snapshot_is_unexpected_type() -> None:
    data = {"apiVersion": "snapshot.kubevirt.io/v1beta1", "kind": "VirtualMachineSnapshot", "metadata": {}}
    with pytest.raises(ModelError, match="unexpected type in ControllerRevision"):
        expected_payload(data)


def test_compat_kind_taken_from_payload() -> None:
    # the "VirtualMachinePreference" table entry whose TypeMeta says VirtualMachineClusterPreference
    out = expected_payload(whole("v1beta1", "VirtualMachineClusterPreference", PREF_SPEC))
    assert out["kind"] == "VirtualMachineClusterPreference"


# --- F1 user-guide example -> F6 -------------------------------------------------------------

F1_USER_GUIDE = yaml.safe_load(samples.F1_USER_GUIDE)

F6_EXPECTED = yaml.safe_load(samples.F6_FROM_F1_USER_GUIDE)


def test_f1_user_guide_becomes_f6() -> None:
    assert expected_revision(F1_USER_GUIDE) == F6_EXPECTED


def test_f1_preference_wrapper() -> None:
    data = {"apiVersion": "", "spec": "eyJjcHUiOnsicHJlZmVycmVkQ1BVVG9wb2xvZ3kiOiJwcmVmZXJTb2NrZXRzIn19"}
    assert expected_payload(data) == {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachinePreference",
        "metadata": {"name": "old-version-of-preference-object", "creationTimestamp": None},
        "spec": {"cpu": {"preferredCPUTopology": "preferSockets"}},
    }


F2_USER_GUIDE_DATA = yaml.safe_load(samples.F2_USER_GUIDE_DATA)


def test_f2_keeps_metadata_and_gets_versioned_name() -> None:
    new = expected_revision(cr(F2_USER_GUIDE_DATA))
    assert new is not None
    assert new["metadata"]["name"] == f"vm-cirros-csmall-csmall-v1beta1-{OBJ_UID}-1"
    assert new["data"]["metadata"] == F2_USER_GUIDE_DATA["metadata"]
    assert new["data"]["apiVersion"] == "instancetype.kubevirt.io/v1beta1"
    assert new["data"]["spec"]["cpu"] == {
        "guest": 1,
        "model": "",
        "dedicatedCPUPlacement": False,
        "isolateEmulatorThread": False,
    }
    assert new["metadata"]["labels"] == {
        "instancetype.kubevirt.io/object-generation": "1",
        "instancetype.kubevirt.io/object-kind": "VirtualMachineInstancetype",
        "instancetype.kubevirt.io/object-name": "csmall",
        "instancetype.kubevirt.io/object-uid": OBJ_UID,
        "instancetype.kubevirt.io/object-version": "v1beta1",
    }
    assert new["metadata"]["ownerReferences"][0]["uid"] == VM_UID


def test_expected_name() -> None:
    obj = {"metadata": {"name": "csmall", "uid": OBJ_UID, "generation": 3}}
    assert expected_name("vm", obj) == f"vm-csmall-v1beta1-{OBJ_UID}-3"
    assert expected_name("vm", {"metadata": {"name": "x"}}) == "vm-x-v1beta1--0"


# --- upgrade_test.go@v1.6.0 -----------------------------------------------------------------


def test_preference_spec_in_instancetype_wrapper_decodes_as_preference() -> None:
    data = {
        "apiVersion": "instancetype.kubevirt.io/v1alpha1",
        "spec": b64({"cpu": {"preferredCPUTopology": "preferSockets"}}),
    }
    assert expected_payload(data)["kind"] == "VirtualMachinePreference"


@pytest.mark.parametrize("kind", ["VirtualMachineClusterInstancetype", "VirtualMachineClusterPreference"])
def test_object_kind_label_preserved(kind: str) -> None:
    spec = IT_SPEC if "Instancetype" in kind else PREF_SPEC
    new = expected_revision(cr(whole("v1alpha1", kind, spec, uid="u", generation=2)))
    assert new is not None
    assert new["metadata"]["labels"]["instancetype.kubevirt.io/object-kind"] == kind
    assert new["metadata"]["name"] == "vm-cirros-csmall-obj-v1beta1-u-2"


def test_unlabelled_v1beta1_is_recreated_without_pointer_defaults() -> None:
    new = expected_revision(
        cr(
            whole(
                "v1beta1",
                "VirtualMachineClusterInstancetype",
                {"cpu": {"guest": 2}, "memory": {"guest": "256Mi"}},
            )
        )
    )
    assert new is not None
    assert new["data"]["spec"] == {"cpu": {"guest": 2}, "memory": {"guest": "256Mi"}}


def test_labelled_current_is_left_alone() -> None:
    assert (
        expected_revision(
            cr(
                whole("v1beta1", "VirtualMachinePreference", PREF_SPEC),
                {"instancetype.kubevirt.io/object-version": "v1beta1"},
            )
        )
        is None
    )


# --- section 6: observed behaviour of v1.6.0 -------------------------------------------------


def test_pointer_zero_values_only_from_alpha() -> None:
    out = expected_payload(
        whole(
            "v1alpha2",
            "VirtualMachineInstancetype",
            {"cpu": {"guest": 1, "model": "host-passthrough"}, "memory": {"guest": "1Gi"}},
        )
    )
    assert out["spec"]["cpu"] == {
        "guest": 1,
        "model": "host-passthrough",
        "dedicatedCPUPlacement": False,
        "isolateEmulatorThread": False,
    }


@pytest.mark.parametrize("value", ["preferSockets", "preferCores", "preferThreads", "sockets", "bogus"])
def test_preferred_cpu_topology_copied_as_is(value: str) -> None:
    out = expected_payload(whole("v1alpha1", "VirtualMachinePreference", {"cpu": {"preferredCPUTopology": value}}))
    assert out["spec"] == {"cpu": {"preferredCPUTopology": value}}


def test_preferred_cpu_topology_empty_becomes_absent() -> None:
    out = expected_payload(whole("v1alpha2", "VirtualMachinePreference", {"cpu": {"preferredCPUTopology": ""}}))
    assert out["spec"] == {"cpu": {}}


def test_deprecated_efi_keeps_json_names() -> None:
    fw = {"preferredUseEfi": True, "preferredUseSecureBoot": False}
    out = expected_payload(whole("v1alpha1", "VirtualMachinePreference", {"firmware": fw}))
    assert out["spec"] == {"firmware": fw}


def test_lenient_whole_object_drops_unknown_and_keeps_empty_parents() -> None:
    spec = {
        "devices": {"preferredInterfaceMasquerade": {}},
        "firmware": {"preferredEfi": {"secureBoot": True}},
        "requirements": {"cpu": {"guest": 2}},
        "preferredSubdomain": "x",
    }
    out = expected_payload(whole("v1alpha2", "VirtualMachinePreference", spec))
    assert out["spec"] == {"devices": {}, "firmware": {}}


def test_v1_7_fields_unknown_to_v1_6_are_dropped_from_v1beta1() -> None:
    spec = {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}, "ioThreads": {"supplementalPoolThreadCount": 2}}
    out = expected_payload(whole("v1beta1", "VirtualMachineInstancetype", spec))
    assert out["spec"] == {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}


STRICT_FAILURES = [
    pytest.param(
        {"apiVersion": "", "spec": b64({"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}, "gpuz": []})},
        id="unknown-field",
    ),
    pytest.param(
        {"apiVersion": "", "spec": b64({"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}).rstrip("=")},
        id="no-padding",
    ),
    pytest.param({"apiVersion": "", "spec": {"cpu": {"guest": 1}}}, id="raw-object-spec"),
    pytest.param(
        {"apiVersion": "", "spec": base64.b64encode(b'{"cpu":{"guest":1},"mem').decode()}, id="truncated-json"
    ),
    pytest.param({"apiVersion": "", "spec": b64(IT_SPEC), "extra": 1}, id="unknown-wrapper-field"),
    pytest.param(
        {"apiVersion": "", "spec": b64({"volumes": {"preferredStorageClassName": "x"}})},
        id="v1alpha2-field-in-F1",
    ),
    pytest.param({}, id="empty-data"),
]


@pytest.mark.parametrize("data", STRICT_FAILURES)
def test_spec_revision_strict_failures_say_kind_missing(data: dict[str, Any]) -> None:
    with pytest.raises(ModelError, match="Object 'Kind' is missing") as e:
        expected_payload(data)
    assert e.value.reason == "kind-missing"


def test_spec_revision_newlines_in_base64_accepted() -> None:
    text = b64(IT_SPEC)
    wrapped = "\n".join(text[i : i + 20] for i in range(0, len(text), 20)) + "\n"
    assert expected_payload({"apiVersion": "", "spec": wrapped})["spec"]["memory"] == {"guest": "128Mi"}


@pytest.mark.parametrize("api_version", [None, "", "nonsense/v9", "instancetype.kubevirt.io/v1alpha1"])
def test_spec_revision_api_version_not_checked(api_version: str | None) -> None:
    data: dict[str, Any] = {"spec": b64(IT_SPEC)}
    if api_version is not None:
        data["apiVersion"] = api_version
    assert expected_payload(data)["kind"] == "VirtualMachineInstancetype"


def test_empty_spec_decodes_as_preference() -> None:
    out = expected_payload({"apiVersion": "", "spec": b64({})})
    assert out["kind"] == "VirtualMachinePreference"
    assert out["spec"] == {}


def test_cluster_kind_lost_through_spec_revision() -> None:
    new = expected_revision(cr({"apiVersion": "", "spec": b64(PREF_SPEC)}, vm="myvm"))
    assert new is not None
    assert new["metadata"]["name"] == "myvm-old-version-of-preference-object-v1beta1--0"
    assert new["data"]["kind"] == "VirtualMachinePreference"


def test_no_vm_owner() -> None:
    old = cr(whole("v1alpha2", "VirtualMachinePreference", {}, uid="u", generation=1))
    del old["metadata"]["ownerReferences"]
    new = expected_revision(old)
    assert new is not None
    assert new["metadata"]["name"] == "-obj-v1beta1-u-1"
    assert new["metadata"]["ownerReferences"][0]["name"] == ""
    assert new["metadata"]["ownerReferences"][0]["uid"] == ""


def test_metadata_stripping() -> None:
    meta = {
        "uid": "u",
        "resourceVersion": "7",
        "generation": 2,
        "creationTimestamp": "2023-01-01T00:00:00Z",
        "labels": {"a": "b"},
        "annotations": {"c": "d"},
        "finalizers": ["f"],
        "ownerReferences": [{"kind": "X"}],
        "managedFields": [{"manager": "m"}],
    }
    out = expected_payload(whole("v1alpha2", "VirtualMachinePreference", {}, **meta))
    assert out["metadata"] == {
        "name": "obj",
        "uid": "u",
        "resourceVersion": "7",
        "generation": 2,
        "creationTimestamp": "2023-01-01T00:00:00Z",
    }


def test_only_version_label_decides() -> None:
    alpha = whole("v1alpha1", "VirtualMachinePreference", PREF_SPEC)
    assert expected_revision(cr(alpha, {"instancetype.kubevirt.io/object-version": "v1beta1"})) is None
    assert expected_revision(cr(alpha, {"instancetype.kubevirt.io/object-version": "v1alpha2"})) is not None


ERRORS = [
    pytest.param(None, "nil-data", id="data-null"),
    pytest.param({}, "kind-missing", id="data-empty"),
    pytest.param(whole("v1alpha3", "VirtualMachineInstancetype", IT_SPEC), "not-registered", id="v1alpha3"),
    pytest.param(whole("v1alpha1", "VirtualMachineFlavor", IT_SPEC), "not-registered", id="flavor-kind"),
    pytest.param(
        {"apiVersion": "flavor.kubevirt.io/v1alpha1", "kind": "VirtualMachineFlavor", "spec": {}},
        "not-registered",
        id="flavor-group",
    ),
    pytest.param({"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "spec": {}}, "unexpected-type", id="vm"),
    pytest.param(
        whole("v1alpha2", "VirtualMachineInstancetype", {"cpu": {"guest": 1.5}, "memory": {"guest": "1Gi"}}),
        "type",
        id="cpu-guest-float",
    ),
    pytest.param(
        whole("v1alpha2", "VirtualMachineInstancetype", {"cpu": {"guest": "2"}, "memory": {"guest": "1Gi"}}),
        "type",
        id="cpu-guest-string",
    ),
    pytest.param(
        whole("v1alpha2", "VirtualMachineInstancetype", {"cpu": {"guest": 1}, "memory": {"guest": "1 Gi"}}),
        "quantity",
        id="bad-quantity",
    ),
    pytest.param(
        yaml.safe_load(
            "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachinePreference\n"
            "spec:\n  machine:\n    preferredMachineType: on\n"
        ),
        "type",
        id="yaml11-on",
    ),
]


@pytest.mark.parametrize(("data", "reason"), ERRORS)
def test_errors(data: Any, reason: str) -> None:
    with pytest.raises(ModelError) as e:
        expected_payload(data)
    assert e.value.reason == reason


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("1024Mi", "1Gi"),
        ("0.5Gi", "512Mi"),
        (1610612736, "1610612736"),
        ("128Mi", "128Mi"),
        ("1536Mi", "1536Mi"),
        ("2000000000", "2G"),
        ("0.5", "500m"),
        ("1000m", "1"),
        ("0.5Ki", "512"),
    ],
)
def test_quantities_canonical(given: Any, canonical: str) -> None:
    assert canonical_quantity(str(given)) == canonical
    assert local_canonical_quantity(str(given)) == canonical
    out = expected_payload(
        whole("v1alpha2", "VirtualMachineInstancetype", {"cpu": {"guest": 1}, "memory": {"guest": given}})
    )
    assert out["spec"]["memory"]["guest"] == canonical


def test_missing_required_instancetype_fields_get_go_zero_values() -> None:
    out = expected_payload(whole("v1beta1", "VirtualMachineInstancetype", {}))
    assert out["spec"] == {"cpu": {"guest": 0}, "memory": {"guest": "0"}}


def test_empty_slices_and_value_strings_are_omitted() -> None:
    spec = {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}, "gpus": []}
    assert "gpus" not in expected_payload(whole("v1alpha1", "VirtualMachineInstancetype", spec))["spec"]
    pref = {"devices": {"preferredDiskBus": "", "preferredAutoattachGraphicsDevice": False}}
    out = expected_payload(whole("v1alpha1", "VirtualMachinePreference", pref))
    assert out["spec"] == {"devices": {"preferredAutoattachGraphicsDevice": False}}


# --- the fixtures' own "# expect:" headers agree with the model ----------------------------------

FIXTURES = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "revisions").glob("*.yaml"))


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture_expectation_matches_model(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    expect = re.search(r"^# expect: (\S+) ?(.*)$", text, re.M)
    assert expect, "missing '# expect:' header"
    outcome, detail = expect.groups()
    name = re.search(r"^# expect-name: (\S+)$", text, re.M)
    try:
        new = expected_revision(yaml.safe_load(text))
    except ModelError as e:
        assert outcome == "error"
        if "nil pointer" not in detail:
            assert detail in str(e)
        return
    assert outcome == ("unchanged" if new is None else "upgraded")
    if new is not None:
        assert name and name.group(1) == new["metadata"]["name"]
