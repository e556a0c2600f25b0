"""Bundled schemas against the upstream reference schemas; index, regeneration, loader; field trees."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transform.kubevirt import fields, schemagen
from transform.kubevirt.releases import parse_release
from transform.validate.schemas import SOURCE_DIR, load_schema, schema_name

REFERENCE = Path(__file__).resolve().parents[3] / "shared/reference/crd-schemas"
needs_reference = pytest.mark.skipif(
    not REFERENCE.is_dir(), reason=f"reference CRD schemas not found at {REFERENCE} (shared checkout absent)"
)

KIND_FILES = [f"{fields.GROUP}_{v}_{k.lower()}.json" for v in fields.VERSIONS for k in fields.KINDS]


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """Follow `$ref` and single-element `allOf: [{$ref}]` (the OpenAPI v3 spelling in kubectl's data)."""
    while True:
        if "$ref" in node:
            target: Any = root
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part]
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        elif len(node.get("allOf", [])) == 1 and "$ref" in node["allOf"][0]:
            node = {**{k: v for k, v in node.items() if k != "allOf"}, **node["allOf"][0]}
        else:
            return node


def _type(node: dict[str, Any]) -> str | None:
    if node.get("x-kubernetes-int-or-string"):
        return "int-or-string"
    return node.get("type")


def shape(node: dict[str, Any], root: dict[str, Any], path: str = "") -> dict[str, tuple[Any, ...]]:
    """path -> (type, sorted required, sorted property names) for every node of a schema."""
    node = _resolve(node, root)
    props = node.get("properties", {})
    out = {path or "<root>": (_type(node), tuple(sorted(node.get("required", []))), tuple(sorted(props)))}
    for name, child in props.items():
        out.update(shape(child, root, f"{path}.{name}" if path else name))
    if isinstance(node.get("items"), dict):
        out.update(shape(node["items"], root, f"{path}[]"))
    if isinstance(node.get("additionalProperties"), dict):
        out.update(shape(node["additionalProperties"], root, f"{path}{{}}"))
    return out


def _compare(ours: dict[str, Any], ref: dict[str, Any], only: tuple[str, ...] = ()) -> None:
    a, b = shape(ours, ours), shape(ref, ref)
    if only:
        a = {p: v for p, v in a.items() if p.startswith(only)}
        b = {p: v for p, v in b.items() if p.startswith(only)}
    missing = sorted(set(b) - set(a))
    extra = sorted(set(a) - set(b))
    assert not missing and not extra, f"paths only in reference: {missing}; only in ours: {extra}"
    diff = {p: (a[p], b[p]) for p in a if a[p] != b[p]}
    assert not diff, f"differences (ours, reference): {diff}"


@needs_reference
@pytest.mark.parametrize("name", KIND_FILES)
def test_kind_schema_matches_reference(name: str) -> None:
    _compare(load_schema(name), json.loads((REFERENCE / name).read_text()))


@needs_reference
@pytest.mark.parametrize("kind", fields.KINDS)
def test_v1beta1_tree_at_v1_6_matches_v1_6_reference(kind: str) -> None:
    """The `since` / `required_before` annotations: the v1beta1 tree selected at 1.6 is what v1.6.0 served."""
    name = f"{fields.GROUP}_v1beta1_{kind.lower()}.json"
    ref = json.loads((REFERENCE / "kubevirt-v1.6.0" / name).read_text())
    root = fields.envelope(fields.SPECS[fields.FAMILY_OF_KIND[kind]])
    _compare(schemagen.to_schema(root, "v1beta1", (1, 6)), ref)


@needs_reference
def test_virtualmachine_referencing_parts_match_reference() -> None:
    ours = load_schema("kubevirt.io_v1_virtualmachine.json")
    ref = json.loads((REFERENCE / "kubevirt.io_v1_virtualmachine.json").read_text())
    parts = ("spec.instancetype", "spec.preference", "status.instancetypeRef", "status.preferenceRef")
    _compare(ours, ref, only=parts)
    a, b = shape(ours, ours), shape(ref, ref)
    for path in ("<root>", "spec.template"):
        assert a[path][:2] == b[path][:2]
    for path in ("spec", "status"):  # open: our properties are a subset, the type and required agree
        assert a[path][:2] == b[path][:2] and set(a[path][2]) <= set(b[path][2])


@needs_reference
def test_controllerrevision_matches_reference() -> None:
    ref = json.loads((REFERENCE / "apps_v1_controllerrevision.json").read_text())
    _compare(load_schema("apps_v1_controllerrevision.json"), ref)


def test_every_file_sets_schema_dialect_and_is_indexed() -> None:
    index = json.loads((SOURCE_DIR / "index.json").read_text())
    listed = {entry["file"] for entry in index}
    on_disk = {p.name for p in SOURCE_DIR.glob("*.json")} - {"index.json"}
    assert listed == on_disk
    for entry in index:
        assert load_schema(entry["file"])["$schema"] == schemagen.SCHEMA_DIALECT
        assert {"group", "version", "kind", "releases", "sha256"} <= set(entry)
        first, last = (parse_release(entry["releases"][k]) for k in ("from", "to"))
        assert first <= last


def test_index_sha256_matches_files() -> None:
    for entry in json.loads((SOURCE_DIR / "index.json").read_text()):
        data = (SOURCE_DIR / entry["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["file"]


def test_regenerating_gives_identical_bytes() -> None:
    for name, data in schemagen.render_all().items():
        assert (SOURCE_DIR / name).read_bytes() == data, (
            f"{name} is stale: python -m transform.kubevirt.fields --write-schemas schemas/"
        )


def test_write_schemas_cli(tmp_path: Path) -> None:
    assert fields.main(["--write-schemas", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(schemagen.render_all())
    assert fields.main([]) == 2


def test_loader() -> None:
    assert load_schema("apps_v1_controllerrevision.json")["required"] == ["revision"]
    assert load_schema("apps_v1_controllerrevision.json") is load_schema("apps_v1_controllerrevision.json")
    assert schema_name("instancetype.kubevirt.io/v1beta1", "VirtualMachinePreference") == (
        "instancetype.kubevirt.io_v1beta1_virtualmachinepreference.json"
    )
    assert schema_name("v1", "ConfigMap") is None
    with pytest.raises(ValueError):
        load_schema("../pyproject.toml")
    with pytest.raises(FileNotFoundError):
        load_schema("nope.json")


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
