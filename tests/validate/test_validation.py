"""validate_document: documents per kind and version, reference-schema verdicts, strict, partial."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

import pytest

from tests.oracles import structural_oracle as oracle
from tests.validate.validation_helpers import (
    G,
    _rows,
    cr,
    it,
    pref,
    vm,
    wrapper,
)
from transform.model.findings import Severity
from transform.validate import documents as validation
from transform.validate.documents import validate_document

VALID = (
    [
        pytest.param(it(version, kind), id=f"{version}-{kind}")
        for version in ("v1alpha1", "v1alpha2", "v1beta1")
        for kind in ("VirtualMachineInstancetype", "VirtualMachineClusterInstancetype")
    ]
    + [
        pytest.param(pref(version, kind, devices={"preferredDiskBus": "virtio"}), id=f"{version}-{kind}")
        for version in ("v1alpha1", "v1alpha2")
        for kind in ("VirtualMachinePreference", "VirtualMachineClusterPreference")
    ]
    + [
        pytest.param(it(memory={"guest": 1073741824}, gpus=[{"name": "g", "deviceName": "nvidia"}]), id="int-quantity"),
        # int64's edges: apimachinery's util/json reads them as int64, kube-openapi takes them as integers
        # (the int64 edges on a field whose Go type is int64 too: maxSockets is a uint32 to KubeVirt's decoder,
        # which refuses -(2**63) and 2**62 although the API server stores them: tests/validate/test_go_range.py)
        pytest.param(it(memory={"guest": 2**63 - 1}, cpu={"guest": 2}), id="int64-edges"),
        pytest.param(
            pref("v1beta1", "VirtualMachinePreference", preferredTerminationGracePeriodSeconds=-(2**63)),
            id="int64-edges-pref",
        ),
        pytest.param(
            pref("v1beta1", "VirtualMachinePreference", preferredTerminationGracePeriodSeconds=2.0**62),
            id="integral-float-within-int64",
        ),
        pytest.param(
            it(
                nodeSelector={"a/b": "c"},
                ioThreads={"supplementalPoolThreadCount": 4},
                memory={"guest": "1.5G", "overcommitPercent": 10, "maxGuest": "4Gi"},
            ),
            id="v1beta1-instancetype-full",
        ),  # fmt: skip
        pytest.param(
            pref(
                "v1beta1",
                "VirtualMachineClusterPreference",
                cpu={
                    "preferredCPUTopology": "spread",
                    "spreadOptions": {"across": "CoresThreads", "ratio": 2},
                },
                firmware={"preferredEfi": {"secureBoot": True}},
                requirements={"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}},
                devices={
                    "preferredDiskBus": "virtio",
                    "preferredDiskBlockSize": {"custom": {"logical": 512}},
                },
            ),
            id="v1beta1-preference-full",
        ),  # fmt: skip
        pytest.param(vm(instancetype={"name": "u1.small", "kind": "VirtualMachineClusterInstancetype"}), id="vm-name"),
        pytest.param(
            vm(
                preference={
                    "inferFromVolume": "root",
                    "inferFromVolumeFailurePolicy": "IgnoreInferFromVolumeFailure",
                }
            ),
            id="vm-infer",
        ),
        pytest.param(
            cr(
                {
                    "apiVersion": f"{G}/v1beta1",
                    "kind": "VirtualMachineInstancetype",
                    "metadata": {"name": "x"},
                    "spec": {"cpu": {"guest": 1}, "memory": {"guest": "128Mi"}},
                }
            ),
            id="cr-v1beta1",
        ),  # fmt: skip
        pytest.param(cr(wrapper({"cpu": {"guest": 1}, "memory": {"guest": "128Mi"}})), id="cr-f1-instancetype"),
        pytest.param(cr(wrapper({"cpu": {"preferredCPUTopology": "sockets"}}, f"{G}/v1alpha1")), id="cr-f1-pref"),
        pytest.param(cr({"foo": "bar"}, metadata={"name": "sts-1"}), id="cr-of-a-statefulset"),
    ]
)


@pytest.mark.parametrize("doc", VALID)
def test_valid_documents(doc: dict[str, Any]) -> None:
    assert validate_document(doc) == []
    assert validate_document(doc, strict=True) == []


# (document, expected findings as (severity, code, path, message))
INVALID = [
    pytest.param(
        it(cpu={"guest": "two"}),
        [("error", "schema.type", ("spec", "cpu", "guest"), 'expected integer, got "two"')],
        id="cpu-guest-type",
    ),
    pytest.param(
        it("v1alpha1", cpu={}),
        [("error", "schema.required", ("spec", "cpu", "guest"), "required field missing: guest")],
        id="cpu-guest-missing",
    ),
    pytest.param(
        {"apiVersion": f"{G}/v1alpha2", "kind": "VirtualMachineClusterInstancetype", "spec": {"gpus": [{}]}},
        [
            ("error", "metadata.name", ("metadata", "name"), "Required value: name or generateName is required"),
            ("error", "schema.required", ("spec", "cpu"), "required field missing: cpu"),
            ("error", "schema.required", ("spec", "gpus", 0, "deviceName"), "required field missing: deviceName"),
            ("error", "schema.required", ("spec", "gpus", 0, "name"), "required field missing: name"),
            ("error", "schema.required", ("spec", "memory"), "required field missing: memory"),
        ],
        id="every-problem-reported",
    ),
    pytest.param(
        {"apiVersion": f"{G}/v1beta1", "kind": "VirtualMachinePreference"},
        [
            ("error", "metadata.name", ("metadata", "name"), "Required value: name or generateName is required"),
            ("error", "schema.required", ("spec",), "required field missing: spec"),
        ],
        id="spec-missing",
    ),
    pytest.param(
        it(memory={"guest": "1 Gi"}),
        [
            (
                "error",
                "schema.quantity",
                ("spec", "memory", "guest"),
                '"1 Gi" is not a valid quantity (e.g. 128Mi, 2Gi, 1.5G, 1000)',
            )
        ],
        id="bad-quantity",
    ),  # fmt: skip
    pytest.param(
        it(memory={"guest": True}),
        [
            (
                "error",
                "schema.type",
                ("spec", "memory", "guest"),
                "expected a quantity (integer or string like 2Gi), got true",
            )
        ],
        id="quantity-type",
    ),  # fmt: skip
    pytest.param(
        pref("v1alpha1", devices="virtio"),
        [("error", "schema.type", ("spec", "devices"), 'expected mapping, got "virtio"')],
        id="mapping-type",
    ),
    pytest.param(
        it(memory={"guest": "1Gi", "overcommitPercent": 150}),
        [
            (
                "error",
                "webhook.overcommit-percent",
                ("spec", "memory", "overcommitPercent"),
                "memory.overcommitPercent must be between 0 and 100, got 150",
            )
        ],
        id="overcommit-range",
    ),  # fmt: skip
    pytest.param(
        it(memory={"guest": "1Gi", "overcommitPercent": 20, "hugepages": {"pageSize": "2Mi"}}),
        [
            (
                "error",
                "webhook.overcommit-hugepages",
                ("spec", "memory", "overcommitPercent"),
                "memory.overcommitPercent and memory.hugepages should not be requested together",
            )
        ],
        id="overcommit-hugepages",
    ),  # fmt: skip
    pytest.param(
        pref(requirements={"cpu": {}, "memory": {"guest": "1Gi"}}),
        [("error", "schema.required", ("spec", "requirements", "cpu", "guest"), "required field missing: guest")],
        id="requirements-guest",
    ),
    pytest.param(
        pref(cpu={"preferredCPUFeatures": [{"policy": "require"}]}),
        [
            (
                "error",
                "schema.required",
                ("spec", "cpu", "preferredCPUFeatures", 0, "name"),
                "required field missing: name",
            )
        ],
        id="cpu-feature-name",
    ),
    pytest.param(
        vm(instancetype={"name": "a", "inferFromVolume": "root"}),
        [
            (
                "error",
                "webhook.matcher",
                ("spec", "instancetype", "name"),
                "instancetype matcher: name must not be set together with inferFromVolume",
            )
        ],
        id="vm-name-and-infer",
    ),  # fmt: skip
    pytest.param(
        vm(preference={"kind": "VirtualMachinePreference"}),
        [
            (
                "error",
                "webhook.matcher",
                ("spec", "preference"),
                "preference matcher needs either name or inferFromVolume",
            )
        ],
        id="vm-neither",
    ),  # fmt: skip
    pytest.param(
        vm(preference={"inferFromVolume": "root", "kind": "x", "inferFromVolumeFailurePolicy": "Fail"}),
        [
            (
                "error",
                "webhook.infer-failure-policy",
                ("spec", "preference", "inferFromVolumeFailurePolicy"),
                'invalid inferFromVolumeFailurePolicy "Fail": expected one of RejectInferFromVolumeFailure, '
                "IgnoreInferFromVolumeFailure",
            ),
            (
                "error",
                "webhook.matcher",
                ("spec", "preference", "kind"),
                "preference matcher: kind must be empty when inferFromVolume is used",
            ),
        ],
        id="vm-infer-kind-policy",
    ),  # fmt: skip
    pytest.param(
        vm(instancetype={"name": 3}),
        [("error", "schema.type", ("spec", "instancetype", "name"), "expected string, got 3")],
        id="vm-matcher-type",
    ),
    pytest.param(
        it(cpu={"guest": 2, "maxSockets": 1e19}),
        [("error", "schema.type", ("spec", "cpu", "maxSockets"), "expected integer, got 1e+19")],
        id="float-beyond-int64",
    ),
    pytest.param(
        cr({"apiVersion": "", "spec": "e30="}, revision="0"),
        [("error", "schema.type", ("revision",), 'expected integer, got "0"')],
        id="cr-revision-type",
    ),
    pytest.param(
        {"apiVersion": "apps/v1", "kind": "ControllerRevision", "data": wrapper({"cpu": {"guest": 1}})},
        [
            ("error", "schema.required", ("revision",), "required field missing: revision"),
            (  # KubeVirt's Go decoder reads it (memory is its zero value); no CRD schema judges `data`
                "warning",
                "revision.zero-value",
                ("data", "spec", "memory"),
                'missing in the payload; written as KubeVirt writes it (memory: {"guest": "0"}): a VM using this '
                'revision gets no memory from its instancetype (guest: "0") and cannot start; check the '
                "revision's source object",
            ),
        ],
        id="cr-f1-decoded-spec",
    ),  # fmt: skip
]


# beyond int64: util/json convertNumber makes a float64 of it, and the type check refuses it at the field
_GRACE = ("spec", "template", "spec", "terminationGracePeriodSeconds")
INVALID += [
    pytest.param(
        doc,
        [("error", "schema.type", path, f"{value} is beyond int64: the API server reads it as a float (apimachinery "
          f"util/json) and refuses it: must be of type integer{or_string}")],
        id=name,
    )
    for doc, path, value, or_string, name in [
        (it(memory={"guest": 2**63}), ("spec", "memory", "guest"), 2**63, " or string", "quantity-beyond-int64"),
        (it(cpu={"guest": -(2**63) - 1}), ("spec", "cpu", "guest"), -(2**63) - 1, "", "integer-below-int64"),
        ({**vm(), "spec": {"template": {"spec": {"domain": {"devices": {}}, "terminationGracePeriodSeconds": 2**63}}}},
         _GRACE, 2**63, "", "vm-grace-period-beyond-int64"),
    ]
]  # fmt: skip


@pytest.mark.parametrize(("doc", "expected"), INVALID)
def test_invalid_documents(doc: dict[str, Any], expected: list[tuple[Any, ...]]) -> None:
    # (what KubeVirt's Go decoder says of an out-of-range integer is tests/validate/test_go_range.py's)
    assert [r for r in _rows(validate_document(doc)) if r[1] != "decoder.go-range"] == sorted(expected)


def _document(values: Sequence[object]) -> dict[str, Any]:
    """The document of a VALID or INVALID case (its first value)."""
    doc = values[0]
    assert isinstance(doc, dict)
    return doc


@pytest.mark.parametrize(
    "doc",  # payload verdicts of ControllerRevisions are tested in test_validation_payloads
    [doc for doc in (_document(p.values) for p in VALID + INVALID) if doc["kind"] != "ControllerRevision"],
)
def test_same_verdict_as_reference_schema(doc: dict[str, Any], engine: str) -> None:
    """Our schema findings (not webhooks, not payload decoding) exist exactly when the oracle refuses."""
    ours = [f for f in validate_document(doc) if f.code.startswith("schema.") or f.code == "webhook.overcommit-percent"]
    ref = oracle.reference_file(doc["apiVersion"], doc["kind"])
    assert (not ours) == oracle.is_valid(validation.normalize(doc), ref, engine), ours


UNKNOWN = pref("v1alpha2", devices={"preferredPanicDeviceModel": "hyperv", "bogus": 1})


def test_unknown_fields_warn_and_strict_errors() -> None:
    loose = validate_document(UNKNOWN)
    assert _rows(loose) == [
        ("warning", "schema.unknown-field", ("spec", "devices", "bogus"), 'unknown field "spec.devices.bogus"'),
        ("warning", "schema.unknown-field", ("spec", "devices", "preferredPanicDeviceModel"),
         'unknown field "spec.devices.preferredPanicDeviceModel" (it exists in v1beta1: upgrade the object)'),
    ]  # fmt: skip
    strict = validate_document(UNKNOWN, strict=True)
    assert [f.severity for f in strict] == [Severity.ERROR, Severity.ERROR]
    assert [f.path for f in strict] == [f.path for f in loose]


def test_partial_checks_types_not_required() -> None:
    patch = {
        "apiVersion": f"{G}/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "spec": {"cpu": {"guest": "x"}},
    }
    assert _rows(validate_document(patch, partial=True)) == [
        ("error", "schema.type", ("spec", "cpu", "guest"), 'expected integer, got "x"')
    ]
    assert {f.code for f in validate_document(patch)} == {"schema.type", "schema.required", "metadata.name"}


def test_unknown_documents_and_api_versions() -> None:
    assert validate_document({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": 1}}) == []
    assert validate_document({"kind": "VirtualMachineInstancetype"}) == []
    found = validate_document({"apiVersion": f"{G}/v1", "kind": "VirtualMachinePreference", "spec": {}})
    assert [(f.code, f.path) for f in found] == [("schema.api-version", ("apiVersion",))]


def test_yaml_timestamps_are_strings() -> None:
    doc = cr(
        wrapper({}),
        metadata={
            "name": "r",
            "creationTimestamp": datetime.datetime(2022, 9, 30, 12, 20, 19, tzinfo=datetime.timezone.utc),
        },
    )
    assert validate_document(doc) == []
