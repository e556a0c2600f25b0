"""Property tests: payloads over every field of KubeVirt v1.6.0's Go types (core kubevirt.io/v1 types
included), with zero values, explicit nulls, unknown fields and values Go refuses, through the
engine's conversion and held against the independent model (tests/oracles/, which reads the
reflected type table itself). Both must agree on the stored payload and on what is refused."""

from __future__ import annotations

import base64
import functools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.oracles import go_json_model as go
from tests.oracles import kubevirt_model as model
from transform.convert.revisions import RevisionError, upgrade_revision
from transform.kubevirt import gojson

GROUP = "instancetype.kubevirt.io"
KINDS = (
    "VirtualMachineInstancetype",
    "VirtualMachineClusterInstancetype",
    "VirtualMachinePreference",
    "VirtualMachineClusterPreference",
)
CI = settings(max_examples=150, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
LONG = settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))


def mostly(valid: st.SearchStrategy[Any], rare: tuple[Any, ...], bad: tuple[Any, ...] = ()) -> st.SearchStrategy[Any]:
    """`valid` mostly; now and then a `rare` value (zero values, explicit nulls); seldom a `bad` one
    (a value Go's decoder refuses), so that most payloads still decode."""

    def pick(n: int) -> st.SearchStrategy[Any]:
        if n < 86 or not (rare or bad):
            return valid
        if n < 98 or not bad:
            return st.sampled_from(rare)
        return st.sampled_from(bad)

    return st.integers(0, 99).flatmap(pick)


STRINGS = st.sampled_from(["virtio", "a", "preferSockets", "q35", "host-passthrough", "delay", "x" * 3])
QUANTITIES = st.sampled_from(["1Gi", "1024Mi", "0.5Gi", "128Mi", "1.500", "+1Ki", " 2Gi", "2G", 1610612736, 0.5])
BASIC: dict[str, st.SearchStrategy[Any]] = {
    "string": mostly(STRINGS, ("", None), (3, True)),
    "bool": mostly(st.booleans(), (False, None), ("true", 1)),
    "uint32": mostly(st.integers(0, 64), (0, None, 2**32 - 1), (-1, 2**32, 1.5, "2")),
    "uint": mostly(st.integers(0, 4096), (0, None), (-1, 2**64)),
    "int": mostly(st.integers(-5, 100), (0, None), (1.5, "1")),
    "int64": mostly(st.integers(0, 300), (0, None), (2**63, "30")),
}


@functools.cache
def struct(type_name: str) -> st.SearchStrategy[Any]:
    fields = go.types()[type_name].get("fields", [])
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for f in fields:
        if f.get("inline"):
            optional.update({sub["json"]: field(sub) for sub in go.types()[f["type"]].get("fields", [])})
        elif f["json"] not in ("apiVersion", "kind", "metadata"):
            optional[f["json"]] = field(f)
    values = st.tuples(st.fixed_dictionaries({}, optional=optional), st.integers(0, 49)).map(
        lambda drawn: {**drawn[0], "unknownField": 1} if drawn[1] == 0 else drawn[0]  # now and then
    )
    return mostly(values, (None, {}), (1.5, "x", []))


def field(f: dict[str, Any]) -> st.SearchStrategy[Any]:
    if f["type"] == go.QUANTITY:
        return mostly(QUANTITIES, ("0", None, "Gi"), ("1 Gi", True, "0.5.5"))
    if f["kind"] == "struct":
        return st.deferred(lambda: struct(f["type"]))
    if f["kind"] == "slice":
        return mostly(st.lists(st.deferred(lambda: struct(f["elem"])), max_size=2), ([], None), ({},))
    if f["kind"] == "map":
        return mostly(st.dictionaries(st.sampled_from(["a", "b/c"]), mostly(STRINGS, ("", None))), ({}, None), ([],))
    return BASIC[f["kind"]]


TIMES = st.sampled_from(["2022-09-30T12:20:19Z", "2022-09-30T12:20:19.25+02:00", None, "2022-09-30"])


@st.composite
def whole_objects(draw: Any) -> dict[str, Any]:
    version = draw(st.sampled_from(["v1alpha1", "v1alpha2", "v1beta1"]))
    kind = draw(st.sampled_from(KINDS))
    spec_type = go.field_of(go.object_type(version, kind), "spec")["type"]
    meta = draw(
        st.fixed_dictionaries(
            {"name": st.sampled_from(["csmall", "big"])},
            optional={
                "namespace": st.sampled_from(["default", ""]),
                "uid": st.just("72c3a35b-6e18-487d-bebf-f73c7d4f4a40"),
                "generation": st.sampled_from([0, 1, 7]),
                "resourceVersion": st.just("10303"),
                "creationTimestamp": TIMES,
                "labels": st.just({"app": "x"}),
                "unknownMeta": st.just(1),
            },
        )
    )
    obj = {"apiVersion": f"{GROUP}/{version}", "kind": kind, "metadata": meta}
    spec = draw(struct(spec_type))
    if spec is not None or draw(st.booleans()):
        obj["spec"] = spec
    if draw(st.integers(0, 4)) == 0:
        obj["status"] = {"phase": "whatever"}
    return obj


@st.composite
def wrappers(draw: Any) -> dict[str, Any]:
    is_it = draw(st.booleans())
    kind = "VirtualMachineInstancetype" if is_it else "VirtualMachinePreference"
    spec = draw(struct(go.field_of(go.object_type("v1alpha1", kind), "spec")["type"]))
    return {"apiVersion": f"{GROUP}/v1alpha1", "spec": base64.b64encode(json.dumps(spec).encode()).decode()}


def revision(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": "vm-a-csmall-72c3a35b-6e18-487d-bebf-f73c7d4f4a40-1",
            "namespace": "default",
            "ownerReferences": [
                {
                    "apiVersion": "kubevirt.io/v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": "VirtualMachine",
                    "name": "vm-a",
                    "uid": "7ad77f47-ee51-4024-8d5b-4141aec7b04c",
                }
            ],
        },
        "data": data,
        "revision": 0,
    }


def check(data: dict[str, Any]) -> None:
    try:
        want: dict[str, Any] | None = model.expected_payload(json.loads(json.dumps(data)))
    except model.ModelError:
        want = None
    try:
        up = upgrade_revision(revision(data))
    except RevisionError as exc:
        assert want is None, f"engine refuses what KubeVirt accepts: {exc.message}\nKubeVirt writes {want}"
        return
    assert up is not None
    assert want is not None, f"engine accepts what KubeVirt refuses: {up.doc['data']}"
    got = up.doc["data"]
    if "kind" not in data:  # a wrapper: the engine recovers the identity KubeVirt invents
        assert (got["apiVersion"], got["spec"]) == (want["apiVersion"], want["spec"])
    else:
        assert got == want
    again = upgrade_revision({**up.doc, "metadata": {**up.doc["metadata"], "labels": {}}})
    assert again is not None and again.doc["data"]["spec"] == got["spec"]  # KubeVirt's output is a fixed point


# KubeVirt's own types (apimachinery's are covered through the objects; wrappers through `wrappers`)
def structs() -> list[str]:
    return sorted(t for t in go.types() if t.startswith("kubevirt.io/api/") and not t.endswith("SpecRevision"))


@CI
@given(st.one_of(whole_objects(), wrappers()))
def test_payloads_match_kubevirt(data: dict[str, Any]) -> None:
    check(data)


@pytest.mark.slow
@LONG
@given(st.one_of(whole_objects(), wrappers()))
def test_payloads_match_kubevirt_long(data: dict[str, Any]) -> None:
    check(data)


@CI
@given(st.deferred(lambda: st.sampled_from(structs())).flatmap(lambda t: st.tuples(st.just(t), struct(t))))
def test_every_type_reencodes_like_go(case: tuple[str, Any]) -> None:
    """Each Go struct type alone (core types included), the codec against the model's two steps."""
    type_name, value = case
    short = type_name.removeprefix("kubevirt.io/api/")
    try:
        want = go.marshal(go.unmarshal(value, type_name, strict=False), type_name)
    except go.GoError:
        want = None
    try:
        got = gojson.reencode(value, short).value
    except gojson.GoJSONError:
        got = None
    assert got == want
