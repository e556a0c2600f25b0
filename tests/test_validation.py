"""validate_document / validate_payload, webhook rules, engines, and the release table."""

from __future__ import annotations

import base64
import copy
import datetime
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transform import fields, releases, validation
from transform.findings import Severity
from transform.validation import validate_document, validate_payload

REFERENCE = Path(__file__).resolve().parents[2] / "shared/reference/crd-schemas"
ENGINES = ["jsonschema"] + (["jsonschema-rs"] if importlib.util.find_spec("jsonschema_rs") else [])
G = "instancetype.kubevirt.io"


@pytest.fixture(params=ENGINES, autouse=True)
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(validation.ENGINE_ENV, request.param)
    return str(request.param)


def it(version: str = "v1beta1", kind: str = "VirtualMachineInstancetype", **spec: Any) -> dict[str, Any]:
    body = {"cpu": {"guest": 2}, "memory": {"guest": "2Gi"}}
    body.update(spec)
    return {"apiVersion": f"{G}/{version}", "kind": kind, "metadata": {"name": "u1.small"}, "spec": body}


def pref(version: str = "v1beta1", kind: str = "VirtualMachinePreference", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": f"{G}/{version}", "kind": kind, "metadata": {"name": "fedora"}, "spec": spec}


def vm(**matchers: Any) -> dict[str, Any]:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm1"},
        "spec": {"template": {"spec": {"domain": {"devices": {}}}}, **matchers},
    }


def wrapper(spec: Any, api_version: str = "") -> dict[str, Any]:
    return {"apiVersion": api_version, "spec": base64.b64encode(json.dumps(spec).encode()).decode()}


def cr(data: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "r"}, "data": data,
            "revision": 0, **extra}  # fmt: skip


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
        pytest.param(
            it(memory={"guest": 1073741824}, gpus=[{"name": "g", "deviceName": "nvidia"}]), id="int-quantity"
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
        pytest.param(
            vm(instancetype={"name": "u1.small", "kind": "VirtualMachineClusterInstancetype"}), id="vm-name"
        ),
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
        pytest.param(
            cr(wrapper({"cpu": {"guest": 1}, "memory": {"guest": "128Mi"}})), id="cr-f1-instancetype"
        ),
        pytest.param(
            cr(wrapper({"cpu": {"preferredCPUTopology": "sockets"}}, f"{G}/v1alpha1")), id="cr-f1-pref"
        ),
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
        [("error", "schema.required", ("spec", "cpu"), "required field missing: guest")],
        id="cpu-guest-missing",
    ),
    pytest.param(
        {"apiVersion": f"{G}/v1alpha2", "kind": "VirtualMachineClusterInstancetype", "spec": {"gpus": [{}]}},
        [
            ("error", "schema.required", ("spec",), "required field missing: cpu"),
            ("error", "schema.required", ("spec",), "required field missing: memory"),
            ("error", "schema.required", ("spec", "gpus", 0), "required field missing: deviceName"),
            ("error", "schema.required", ("spec", "gpus", 0), "required field missing: name"),
        ],
        id="every-problem-reported",
    ),
    pytest.param(
        {"apiVersion": f"{G}/v1beta1", "kind": "VirtualMachinePreference"},
        [("error", "schema.required", (), "required field missing: spec")],
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
        [("error", "schema.required", ("spec", "requirements", "cpu"), "required field missing: guest")],
        id="requirements-guest",
    ),
    pytest.param(
        pref(cpu={"preferredCPUFeatures": [{"policy": "require"}]}),
        [
            (
                "error",
                "schema.required",
                ("spec", "cpu", "preferredCPUFeatures", 0),
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
        cr({"apiVersion": "", "spec": "e30="}, revision="0"),
        [("error", "schema.type", ("revision",), 'expected integer, got "0"')],
        id="cr-revision-type",
    ),
    pytest.param(
        {"apiVersion": "apps/v1", "kind": "ControllerRevision", "data": wrapper({"cpu": {"guest": 1}})},
        [
            ("error", "schema.required", (), "required field missing: revision"),
            (
                "error",
                "schema.required",
                ("data", "spec"),
                "required field missing: memory (in the decoded instancetype spec)",
            ),
        ],
        id="cr-f1-decoded-spec",
    ),  # fmt: skip
]


def _rows(findings: list[Any]) -> list[tuple[str, str, tuple[Any, ...], str]]:
    return sorted((f.severity.value, f.code, f.path, f.message) for f in findings)


@pytest.mark.parametrize(("doc", "expected"), INVALID)
def test_invalid_documents(doc: dict[str, Any], expected: list[tuple[Any, ...]]) -> None:
    assert _rows(validate_document(doc)) == sorted(expected)


def _reference_verdict(doc: dict[str, Any]) -> bool:
    from jsonschema import Draft202012Validator

    kind = doc["kind"]
    name = {"VirtualMachine": "kubevirt.io_v1_virtualmachine.json",
            "ControllerRevision": "apps_v1_controllerrevision.json"}.get(kind)  # fmt: skip
    if name is None:
        name = f"{doc['apiVersion'].replace('/', '_')}_{kind.lower()}.json"
    schema = json.loads((REFERENCE / name).read_text())
    return Draft202012Validator(schema).is_valid(doc)


@pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"reference CRD schemas not found at {REFERENCE}")
@pytest.mark.parametrize("doc", [p.values[0] for p in VALID + INVALID])
def test_same_verdict_as_reference_schema(doc: dict[str, Any]) -> None:
    """Our schema (not webhooks, not payload decoding) accepts exactly what the upstream schema accepts."""
    name = validation.schema_name(doc["apiVersion"], doc["kind"])
    assert name is not None
    ours = validation.schema_findings(validation.normalize(doc), name)
    assert (not ours) == _reference_verdict(doc)


UNKNOWN = pref("v1alpha2", devices={"preferredPanicDeviceModel": "hyperv", "bogus": 1})


def test_unknown_fields_warn_and_strict_errors() -> None:
    loose = validate_document(UNKNOWN)
    assert _rows(loose) == [
        ("warning", "schema.unknown-field", ("spec", "devices", "bogus"),
         f"unknown field 'bogus': {G}/v1alpha2 VirtualMachinePreference has no such field"),
        ("warning", "schema.unknown-field", ("spec", "devices", "preferredPanicDeviceModel"),
         f"unknown field 'preferredPanicDeviceModel': {G}/v1alpha2 VirtualMachinePreference "
         "has no such field (it exists in v1beta1: upgrade the object)"),
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
    assert {f.code for f in validate_document(patch)} == {"schema.type", "schema.required"}


TOPOLOGY = [
    pytest.param("sockets", [], id="sockets"),
    pytest.param("any", [], id="any"),
    pytest.param(
        "preferSockets",
        [
            (
                "warning",
                "webhook.deprecated-topology",
                "PreferredCPUTopology preferSockets is deprecated for removal "
                "in a future release, please use sockets instead",
            )
        ],
        id="preferSockets",
    ),  # fmt: skip
    pytest.param(
        "Sockets",
        [
            (
                "error",
                "webhook.cpu-topology",
                'unknown preferredCPUTopology "Sockets": expected one of sockets, cores, '
                "threads, spread, any (or the deprecated preferSockets, preferCores, preferThreads, "
                "preferSpread, preferAny)",
            )
        ],
        id="unknown",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("value", "expected"), TOPOLOGY)
@pytest.mark.parametrize("version", ["v1alpha1", "v1beta1"])
def test_topology_values(value: str, expected: list[tuple[str, str, str]], version: str) -> None:
    found = validate_document(pref(version, cpu={"preferredCPUTopology": value}))
    assert [(f.severity.value, f.code, f.message) for f in found] == expected
    assert all(f.path == ("spec", "cpu", "preferredCPUTopology") for f in found)


SPREAD = [
    pytest.param({"across": "SocketsCores"}, {}, [], id="default-ok"),
    pytest.param({"across": "CoresThreads"}, {}, [], id="coresthreads-default-ratio"),
    pytest.param(
        {"across": "CoresThreads", "ratio": 4},
        {},
        [
            (
                "webhook.spread-ratio",
                ("spec", "cpu", "spreadOptions", "ratio"),
                "spreadOptions.across CoresThreads only supports a ratio of 2, got 4",
            )
        ],
        id="coresthreads-ratio",
    ),  # fmt: skip
    pytest.param(
        {"across": "CoresThreads"},
        {"preferSpreadSocketToCoreRatio": 3},
        [
            (
                "webhook.spread-ratio",
                ("spec", "preferSpreadSocketToCoreRatio"),
                "spreadOptions.across CoresThreads only supports a ratio of 2, got 3",
            )
        ],
        id="legacy-ratio",
    ),  # fmt: skip
    pytest.param(
        {"across": "Sockets"},
        {},
        [
            (
                "webhook.spread-across",
                ("spec", "cpu", "spreadOptions", "across"),
                'unsupported spreadOptions.across "Sockets": expected one of SocketsCoresThreads, '
                "SocketsCores, CoresThreads",
            )
        ],
        id="bad-across",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("options", "extra", "expected"), SPREAD)
def test_spread_options(
    options: dict[str, Any], extra: dict[str, Any], expected: list[tuple[Any, ...]]
) -> None:
    doc = pref(cpu={"preferredCPUTopology": "spread", "spreadOptions": options}, **extra)
    assert [(f.code, f.path, f.message) for f in validate_document(doc)] == expected
    doc["spec"]["cpu"]["preferredCPUTopology"] = "cores"  # rules only apply to spread
    assert validate_document(doc) == []


def test_launch_security_deprecation_warning() -> None:
    found = validate_document(it(launchSecurity={"sev": {}}))
    assert [(f.severity.value, f.code, f.path) for f in found] == [
        ("warning", "webhook.deprecated-launch-security", ("spec", "launchSecurity"))
    ]
    assert found[0].message.startswith(
        "launchSecurity is deprecated and will be removed in a future release."
    )


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


PAYLOADS = [
    pytest.param(wrapper({"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}), [], id="f1-instancetype"),
    pytest.param(wrapper({}), [], id="f1-empty-spec-is-a-preference"),
    pytest.param(
        {"apiVersion": "", "spec": "not base64!"},
        [("error", "schema.pattern", ("spec",))],
        id="f1-not-base64",
    ),  # fmt: skip
    pytest.param(
        {"apiVersion": "", "spec": base64.b64encode(b"{nope").decode()},
        [("error", "payload.spec-encoding", ("spec",))],
        id="f1-not-json",
    ),  # fmt: skip
    pytest.param(
        wrapper({"cpu": {"guest": 1, "bogus": 1}}),
        [("error", "payload.undecodable", ("spec",))],
        id="f1-neither-family",
    ),  # fmt: skip
    pytest.param(
        {**wrapper({}), "extra": 1}, [("error", "schema.unknown-field", ("extra",))], id="f1-closed"
    ),
    pytest.param({"spec": "e30="}, [("error", "schema.required", ())], id="f1-apiversion-required"),
    pytest.param(
        {"apiVersion": "apps/v1", "kind": "Deployment"}, [("error", "payload.unknown", ())], id="foreign"
    ),
    pytest.param(
        pref("v1alpha2", cpu={"preferredCPUTopology": 1}),
        [("error", "schema.type", ("spec", "cpu", "preferredCPUTopology"))],
        id="whole-object",
    ),  # fmt: skip
    pytest.param(
        cr(wrapper({"cpu": {"guest": "1"}, "memory": {"guest": "1Gi"}})),
        [("error", "schema.type", ("data", "spec", "cpu", "guest"))],
        id="whole-cr",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("data", "expected"), PAYLOADS)
def test_validate_payload(data: dict[str, Any], expected: list[tuple[Any, ...]]) -> None:
    assert [(f.severity.value, f.code, f.path) for f in validate_payload(data)] == expected


def test_engines_give_identical_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    if len(ENGINES) < 2:
        pytest.skip("jsonschema-rs is not installed (optional extra 'fast')")
    docs = [p.values[0] for p in VALID + INVALID] + [UNKNOWN] + [p.values[0] for p in PAYLOADS]
    results = {}
    for name in ENGINES:
        monkeypatch.setenv(validation.ENGINE_ENV, name)
        results[name] = [validate_document(d) for d in docs]
    assert results["jsonschema"] == results["jsonschema-rs"]


def test_bad_engine_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(validation.ENGINE_ENV, "fastjsonschema")
    with pytest.raises(ValueError, match="jsonschema-rs"):
        validate_document(it())


def test_validator_compiled_once_per_schema(engine: str) -> None:
    validation.compiled.cache_clear()
    for n in range(25):
        doc = it(cpu={"guest": n + 1})
        assert validate_document(copy.deepcopy(doc)) == []
    validate_document(pref())
    info = validation.compiled.cache_info()
    assert info.misses == 2 and info.hits == 24


def test_import_does_not_load_jsonschema() -> None:
    code = (
        "import sys, transform.validation, transform.releases, transform.fields; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('jsonschema', 'jsonschema_rs')]; "
        "assert not bad, bad"
    )
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)


# ------------------------------------------------------------------ releases


@pytest.mark.parametrize(("text", "expected"), [("1.7", (1, 7)), ("v1.7", (1, 7)), ("1.7.2", (1, 7)),
                                                ("v0.58.1", (0, 58)), ("1.9.0-rc.1", (1, 9))])  # fmt: skip
def test_parse_release(text: str, expected: tuple[int, int]) -> None:
    assert releases.parse_release(text) == expected


@pytest.mark.parametrize("text", ["", "1", "one.two", "1.7.x", "2.0", "0.47"])
def test_parse_release_errors(text: str) -> None:
    with pytest.raises(ValueError, match="KubeVirt release"):
        releases.parse_release(text)


def test_latest_and_serves() -> None:
    assert releases.LATEST == (1, 9)
    assert releases.serves((0, 57), f"{G}/v1alpha1") and not releases.serves((0, 57), f"{G}/v1alpha2")
    assert releases.serves((1, 5), f"{G}/v1alpha2") and not releases.serves((1, 6), f"{G}/v1alpha2")
    assert not releases.serves((0, 59), f"{G}/v1beta1") and releases.serves("1.0", f"{G}/v1beta1")
    assert releases.serves((0, 50), "flavor.kubevirt.io/v1alpha1") and not releases.serves(
        (1, 9), f"{G}/v1alpha1"
    )


@pytest.mark.parametrize(
    ("release", "readable"),
    [((0, 57), {"F1", "F1:empty-apiVersion"}), ((0, 58), {"F1", "v1alpha2"}),
     ((1, 0), {"F1", "F1:empty-apiVersion", "v1alpha1", "v1alpha2", "v1beta1"}),
     ((1, 6), {"F1", "F1:empty-apiVersion", "v1alpha1", "v1alpha2", "v1beta1"}),
     ((1, 7), {"v1beta1"}), ((1, 9), {"v1beta1"}), ((0, 55), set())],
)  # fmt: skip
def test_reads_payload(release: tuple[int, int], readable: set[str]) -> None:
    assert {f for f in releases.PAYLOAD_FORMATS if releases.reads_payload(release, f)} == readable


def test_revision_reference_location() -> None:
    assert releases.info((1, 4)).revision_ref == "spec" and releases.info((1, 5)).revision_ref == "status"


def test_known_fields_follow_annotations() -> None:
    assert ("ioThreads",) not in releases.known_fields((1, 6), "instancetype")
    assert ("ioThreads",) in releases.known_fields((1, 7), "instancetype")
    assert ("firmware", "preferredEfi") in releases.known_fields((1, 4), "preference")
    assert ("devices", "preferredVideoType") not in releases.known_fields((1, 8), "preference")


def test_target_findings() -> None:
    found = releases.target_findings(it(ioThreads={"supplementalPoolThreadCount": 2}), (1, 6))
    assert [(f.code, f.path) for f in found] == [("target.unknown-field", ("spec", "ioThreads"))]
    assert "added in 1.7" in found[0].message
    assert releases.target_findings(it(ioThreads={}), "1.7") == []

    found = releases.target_findings(pref(cpu={"preferredCPUTopology": "cores"}), "1.3")
    assert [(f.severity.value, f.code) for f in found] == [("error", "target.topology-value")]
    assert "<=1.3 cluster silently gives the VM 1 vCPU socket/core/thread" in found[0].message
    assert releases.target_findings(pref(cpu={"preferredCPUTopology": "cores"}), "1.4") == []
    assert releases.target_findings(pref(cpu={"preferredCPUTopology": "preferCores"}), "1.3") == []

    found = releases.target_findings(it("v1alpha2"), "1.7")
    assert [(f.code, f.path) for f in found] == [("target.api-version", ("apiVersion",))]

    found = releases.target_findings(cr(wrapper({})), (1, 7))
    assert [(f.code, f.path) for f in found] == [("target.payload-format", ("data",))]
    data = it(schedulerName="s")
    found = releases.target_findings(cr(data), (1, 0))
    assert [(f.code, f.path) for f in found] == [("target.unknown-field", ("data", "spec", "schedulerName"))]

    found = releases.target_findings(vm(preference={"name": "p", "inferFromVolumeFailurePolicy": "x"}), "1.0")
    assert [f.path for f in found] == [("spec", "preference", "inferFromVolumeFailurePolicy")]


_KEYS = ["cpu", "memory", "guest", "gpus", "name", "devices", "overcommitPercent", "hugepages",
         "preferredCPUTopology", "spreadOptions", "across", "ratio", "requirements", "spec", "x"]  # fmt: skip
_leaf = st.none() | st.booleans() | st.integers(-5, 200) | st.sampled_from(["", "1Gi", "x", "spread", "e30="])
_json = st.recursive(
    _leaf,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(
        st.sampled_from(_KEYS),
        inner,
        max_size=4,
    ),
    max_leaves=15,
)  # fmt: skip
_docs = st.builds(
    lambda api, kind, spec: {"apiVersion": api, "kind": kind, "spec": spec},
    st.sampled_from([f"{G}/v1alpha1", f"{G}/v1alpha2", f"{G}/v1beta1", "kubevirt.io/v1"]),
    st.sampled_from([*fields.KINDS, "VirtualMachine"]),
    _json,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=_docs)
def test_never_crashes_and_engines_agree(doc: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    results = []
    for name in ENGINES:
        monkeypatch.setenv(validation.ENGINE_ENV, name)
        results.append(validate_document(doc))
        results.append(validate_document(doc, partial=True, strict=True))
        results.append(validate_payload(doc))
    assert all(r == results[i % 3] for i, r in enumerate(results))
    assert all(isinstance(f.path, tuple) and f.code and f.message for r in results for f in r)
