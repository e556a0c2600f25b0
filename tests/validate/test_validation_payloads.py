"""validate_payload, engines (identical verdicts, compiled once, lazy import), property test."""

from __future__ import annotations

import base64
import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.oracles import structural_oracle as oracle
from tests.validate.validation_helpers import (
    G,
    cr,
    it,
    pref,
    wrapper,
)
from transform.kubevirt import fields
from transform.validate import crds
from transform.validate import documents as validation
from transform.validate.documents import validate_document, validate_payload

# What KubeVirt v1.6's Go decoder does with each payload (the API server never looks at `data`).
PAYLOADS = [
    pytest.param(wrapper({"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}), [], id="f1-instancetype"),
    pytest.param(wrapper({}), [], id="f1-empty-spec-is-a-preference"),
    pytest.param(
        {"apiVersion": "", "spec": "not base64!"},
        [("error", "revision.bad-wrapper", ("spec",))],
        id="f1-not-base64",
    ),  # fmt: skip
    pytest.param(
        {"apiVersion": "", "spec": base64.b64encode(b"{nope").decode()},
        [("error", "revision.bad-wrapper", ("spec",))],
        id="f1-not-json",
    ),  # fmt: skip
    pytest.param(
        wrapper({"cpu": {"guest": 1, "bogus": 1}}),
        [("error", "revision.bad-wrapper", ("spec",))],
        id="f1-neither-family",
    ),  # fmt: skip
    # UnmarshalStrict of the wrapper fails on "extra", then runtime.Decode finds no kind
    pytest.param({**wrapper({}), "extra": 1}, [("error", "revision.kind-missing", ())], id="f1-closed"),
    # the Go struct has no required fields: a wrapper without apiVersion decodes (an empty preference)
    pytest.param({"spec": "e30="}, [], id="f1-apiversion-optional"),
    pytest.param(
        {"apiVersion": "apps/v1", "kind": "Deployment"},
        [("error", "revision.unknown-version", ("apiVersion",))],
        id="foreign",
    ),  # fmt: skip
    pytest.param(
        pref("v1alpha2", cpu={"preferredCPUTopology": 1}),
        [("error", "revision.undecodable", ("spec", "cpu", "preferredCPUTopology"))],
        id="whole-object",
    ),  # fmt: skip
    pytest.param(
        cr(wrapper({"cpu": {"guest": "1"}, "memory": {"guest": "1Gi"}})),
        [("error", "revision.bad-wrapper", ("data", "spec"))],
        id="whole-cr",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("data", "expected"), PAYLOADS)
def test_validate_payload(data: dict[str, Any], expected: list[tuple[Any, ...]]) -> None:
    assert [(f.severity.value, f.code, f.path) for f in validate_payload(data)] == expected


def test_validator_compiled_once_per_schema() -> None:
    crds.compiled.cache_clear()
    for n in range(25):
        doc = it(cpu={"guest": n + 1})
        assert validate_document(copy.deepcopy(doc)) == []
    validate_document(pref())
    validate_document(pref(), target=(1, 1))  # v1.1 and v1.2 share one preference schema: compiled once
    validate_document(pref(), target=(1, 2))
    info = crds.compiled.cache_info()
    assert info.misses == 3 and info.hits == 25


def test_import_does_not_load_jsonschema() -> None:
    code = (
        "import sys, transform.validate.documents, transform.kubevirt.releases, transform.kubevirt.fields; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('jsonschema', 'jsonschema_rs')]; "
        "assert not bad, bad"
    )
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)


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
def test_never_crashes_and_agrees_with_the_oracle(doc: dict[str, Any], engine: str) -> None:
    results = [validate_document(doc), validate_document(doc, partial=True, strict=True), validate_payload(doc)]
    assert all(isinstance(f.path, tuple) and f.code and f.message for r in results for f in r)
    if doc["kind"] == "VirtualMachine" and doc["apiVersion"] != "kubevirt.io/v1":
        return
    if doc["kind"] != "VirtualMachine" and not doc["apiVersion"].startswith(G):
        return
    ours = [f for f in results[0] if f.code.startswith("schema.") or f.code == "webhook.overcommit-percent"]
    ref = oracle.reference_file(doc["apiVersion"], doc["kind"])
    assert (not ours) == oracle.is_valid(validation.normalize(doc), ref, engine), ours
