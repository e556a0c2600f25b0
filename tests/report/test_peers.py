"""`export FORMAT`: the files other tools read, checked against the peers' own formats (issue 24 §2).

The shapes below are written here from each peer's own sample files, read in their repositories:
helm/helm-mapkubeapis `config/Map.yaml` (and `pkg/mapping/mapping.go`: the version fields are optional,
`newAPI` may be empty), FairwindsOps/pluto `versions.yaml` (and `pkg/api/versions.go`: an additional
file's `target-versions` are used for components the defaults lack), datreeio/CRDs-catalog (the layout
`<group>/<kind>_<version>.json`, e.g. `kubevirt.io/virtualmachine_v1.json`, and the cases of the test of
its `Utilities/openapi2jsonschema.py`). No code of theirs is used. The expected KubeVirt and CDI facts are
written out from kubevirt-deprecated-apis.md and kubevirt-api-versions.md, not computed from the table.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from transform.cli import cmd_export
from transform.cli import main as main_module
from transform.report import peers

# helm-mapkubeapis config/Map.yaml, two of its entries (one without a successor), in its own spelling
MAPKUBEAPIS_SAMPLE = """\
mappings:
  - deprecatedAPI: "apiVersion: extensions/v1beta1\\nkind: Deployment\\n"
    newAPI: "apiVersion: apps/v1\\nkind: Deployment\\n"
    deprecatedInVersion: "v1.9"
    removedInVersion: "v1.16"
  - deprecatedAPI: "apiVersion: policy/v1beta1\\nkind: PodSecurityPolicy\\n"
    removedInVersion: "v1.25"
"""
# pluto versions.yaml, two of its entries and its target versions, in its own spelling
PLUTO_SAMPLE = """\
deprecated-versions:
  - version: extensions/v1beta1
    kind: Deployment
    deprecated-in: v1.9.0
    removed-in: v1.16.0
    replacement-api: apps/v1
    replacement-available-in: v1.9.0
    component: k8s
  - version: extensions/v1beta1
    kind: ReplicaSet
    deprecated-in: ""
    removed-in: v1.16.0
    replacement-api: apps/v1
    component: k8s
target-versions:
    cert-manager: v1.5.3
    k8s: v1.25.0
"""
GO_SEMVER = re.compile(r"^v\d+(\.\d+(\.\d+)?)?$")  # golang.org/x/mod/semver accepts v1, v1.2 and v1.2.3


def load(text: str) -> Any:
    return YAML(typ="safe", pure=True).load(io.StringIO(text))


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main_module.cli, list(args))
    return result.exit_code, result.stdout


def test_the_cli_names_the_formats_of_the_renderer() -> None:
    assert cmd_export.FORMATS == peers.FORMATS


def mappings(*args: str) -> dict[tuple[str, str], dict[str, str]]:
    code, out = run("export", "mapkubeapis", *args)
    assert code == 0
    data = load(out)
    assert set(data) == set(load(MAPKUBEAPIS_SAMPLE)) == {"mappings"}
    out_map = {}
    sample_keys = {k for m in load(MAPKUBEAPIS_SAMPLE)["mappings"] for k in m}
    for m in data["mappings"]:
        assert set(m) <= sample_keys and "deprecatedAPI" in m and "newAPI" in m
        assert {"deprecatedInVersion", "removedInVersion"} & set(m)  # helm-mapkubeapis needs one of them
        for key in ("deprecatedInVersion", "removedInVersion"):
            assert key not in m or GO_SEMVER.match(m[key]), m
        header = re.fullmatch(r"apiVersion: (\S+)\nkind: (\S+)\n", m["deprecatedAPI"])
        assert header and re.fullmatch(r"apiVersion: \S+\nkind: \S+\n", m["newAPI"])
        out_map[(header.group(1), header.group(2))] = m
    return out_map


def test_mapkubeapis_maps_every_old_kind_to_the_newest_the_targets_serve() -> None:
    got = mappings()  # KubeVirt 1.9, CDI 1.66
    vmit = got[("instancetype.kubevirt.io/v1alpha2", "VirtualMachineInstancetype")]
    assert vmit["newAPI"] == "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineInstancetype\n"
    assert (vmit["deprecatedInVersion"], vmit["removedInVersion"]) == ("v1.0", "v1.6")  # served: false from 1.6
    assert got[("flavor.kubevirt.io/v1alpha1", "VirtualMachineClusterFlavor")]["newAPI"] == (
        "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineClusterInstancetype\n"
    )
    assert got[("export.kubevirt.io/v1alpha1", "VirtualMachineExport")]["newAPI"].startswith(
        "apiVersion: export.kubevirt.io/v1\n"
    )
    assert got[("kubevirt.io/v1alpha3", "VirtualMachine")]["deprecatedInVersion"] == "v1.0"
    dv = got[("cdi.kubevirt.io/v1alpha1", "DataVolume")]
    assert (
        dv["newAPI"] == "apiVersion: cdi.kubevirt.io/v1beta1\nkind: DataVolume\n" and dv["removedInVersion"] == "v1.56"
    )
    assert ("cdi.kubevirt.io/v1alpha1", "CDI") not in got  # served by every CDI release: kept
    assert not any(api.startswith("snapshot.kubevirt.io/v1alpha1") for api, _kind in got)  # served, not deprecated


def test_mapkubeapis_follows_the_targets() -> None:
    got = mappings("--target-kubevirt", "1.5")
    assert ("export.kubevirt.io/v1alpha1", "VirtualMachineExport") not in got  # served and current on 1.5
    assert got[("instancetype.kubevirt.io/v1alpha1", "VirtualMachinePreference")]["newAPI"].startswith(
        "apiVersion: instancetype.kubevirt.io/v1beta1\n"
    )


def test_a_mapping_does_what_fix_does_to_a_release_manifest() -> None:
    # helm-mapkubeapis replaces the deprecatedAPI text by the newAPI text in the release manifest
    manifest = (
        "---\napiVersion: instancetype.kubevirt.io/v1alpha2\nkind: VirtualMachinePreference\nmetadata:\n  name: p\n"
    )
    mapped = manifest
    for m in load(run("export", "mapkubeapis")[1])["mappings"]:
        mapped = mapped.replace(m["deprecatedAPI"], m["newAPI"])
    fixed = CliRunner().invoke(main_module.cli, ["fix", "--quiet", "-"], input=manifest)
    assert mapped != manifest and fixed.stdout == mapped


def test_pluto_lists_every_old_version_for_both_components() -> None:
    code, out = run("export", "pluto", "--target-kubevirt", "1.7", "--target-cdi", "1.60")
    assert code == 0
    data = load(out)
    sample = load(PLUTO_SAMPLE)
    assert set(data) == set(sample)
    keys = {k for v in sample["deprecated-versions"] for k in v}
    required = {"version", "kind", "deprecated-in", "removed-in", "replacement-api", "component"}
    seen = set()
    for v in data["deprecated-versions"]:
        assert required <= set(v) <= keys, v
        assert v["component"] in ("kubevirt", "cdi")
        for key in ("deprecated-in", "removed-in", "replacement-available-in"):
            assert v.get(key, "") == "" or re.fullmatch(r"v\d+\.\d+\.\d+", v[key]), v
        assert (v["version"], v["kind"]) not in seen  # pluto refuses duplicates
        seen.add((v["version"], v["kind"]))
    assert data["target-versions"] == {"kubevirt": "v1.7.0", "cdi": "v1.60.0"}
    by = {(v["version"], v["kind"]): v for v in data["deprecated-versions"]}
    vmp = by[("instancetype.kubevirt.io/v1alpha1", "VirtualMachinePreference")]
    assert (vmp["deprecated-in"], vmp["removed-in"], vmp["replacement-api"]) == (
        "v1.0.0",
        "v1.6.0",
        "instancetype.kubevirt.io/v1beta1",
    )
    assert by[("cdi.kubevirt.io/v1alpha1", "DataVolume")]["component"] == "cdi"
    assert by[("kubevirt.io/v1alpha1", "OfflineVirtualMachine")]["removed-in"] == "v0.6.0"  # each kind it had
    export = by[("export.kubevirt.io/v1alpha1", "VirtualMachineExport")]
    assert (export["removed-in"], export["replacement-api"]) == ("v1.9.0", "export.kubevirt.io/v1")


def _pluto_match(versions: list[dict[str, Any]], api_version: str, kind: str) -> dict[str, Any] | None:
    """pluto's Instance.checkVersion (pkg/api/versions.go): the first row whose `version` is the object's
    apiVersion and whose `kind` is the object's kind, compared exactly (some pluto releases also let an empty
    kind stand for a whole API; others do not, so a row names its kind)."""
    return next((v for v in versions if v["version"] == api_version and v["kind"] == kind), None)


@pytest.mark.parametrize(
    ("api_version", "kind", "removed_in"),
    [
        ("kubevirt.io/v1alpha1", "OfflineVirtualMachine", "v0.6.0"),  # KubeVirt v0.3-v0.6 registered it
        ("kubevirt.io/v1alpha1", "VirtualMachine", "v0.6.0"),
        ("kubevirt.io/v1alpha2", "VirtualMachineInstance", "v0.13.0"),  # v0.7-v0.12
        ("kubevirt.io/v1alpha2", "KubeVirt", "v0.13.0"),  # v0.12
        ("upload.cdi.kubevirt.io/v1alpha1", "UploadTokenRequest", "v1.56.0"),  # CDI's uploadTokenVersions
    ],
)
def test_pluto_matches_every_kind_of_an_old_version(api_version: str, kind: str, removed_in: str) -> None:
    """The exported file read as pluto matches it: an object of each kind those versions had finds its row;
    no row has an empty kind (which never matches an object under an exact comparison)."""
    code, out = run("export", "pluto")
    assert code == 0
    versions = load(out)["deprecated-versions"]
    assert all(v["kind"] for v in versions)
    found = _pluto_match(versions, api_version, kind)
    assert found is not None and found["removed-in"] == removed_in
    assert _pluto_match(versions, "kubevirt.io/v1alpha1", "KWebUI") is None  # not a KubeVirt kind


# the cases of the catalog converter's own test (openapi2jsonschema.py, test_additional_properties),
# one level down (the root is left open, as the converter leaves it by default)
CONVERTER_CASES = [
    ({"type": "object", "properties": {}}, {"type": "object", "properties": {}, "additionalProperties": False}),
    ({"properties": {}}, {"properties": {}}),
    ({"type": "object", "somethingelse": {}}, {"type": "object", "somethingelse": {}}),
    (
        {"type": "object", "properties": {}, "x-kubernetes-preserve-unknown-fields": True},
        {"type": "object", "properties": {}, "x-kubernetes-preserve-unknown-fields": True},  # kept: not pruned
    ),
    ({"format": "int-or-string"}, {"oneOf": [{"type": "string"}, {"type": "integer"}]}),
]


@pytest.mark.parametrize(("before", "after"), CONVERTER_CASES)
def test_standalone_schemas_close_what_the_api_server_prunes(before: dict[str, Any], after: dict[str, Any]) -> None:
    root = {"type": "object", "properties": {"something": before}}
    assert peers.standalone(root) == {"type": "object", "properties": {"something": after}}


VM = {
    "apiVersion": "kubevirt.io/v1",
    "kind": "VirtualMachine",
    "metadata": {"name": "vm"},
    "spec": {
        "runStrategy": "Always",
        "template": {"spec": {"domain": {"devices": {}, "memory": {"guest": "1Gi"}}}},
    },
}


def test_kubeconform_schemas_in_the_catalog_layout(tmp_path: Path) -> None:
    code, _out = run("export", "kubeconform-schemas", str(tmp_path), "--target-kubevirt", "1.9")
    assert code == 0
    files = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.json")}
    # the catalog's own names for KubeVirt's kinds, and what the targets serve
    assert {"kubevirt.io/virtualmachine_v1.json", "kubevirt.io/virtualmachineinstance_v1.json"} <= files
    assert "instancetype.kubevirt.io/virtualmachineclusterinstancetype_v1beta1.json" in files
    assert not any("_v1alpha2" in f and f.startswith("instancetype.") for f in files)  # unserved on 1.9
    assert {"cdi.kubevirt.io/datavolume_v1beta1.json", "cdi.kubevirt.io/cdi_v1alpha1.json"} <= files
    assert "cdi.kubevirt.io/datavolume_v1alpha1.json" not in files
    schema = json.loads((tmp_path / "kubevirt.io" / "virtualmachine_v1.json").read_text())
    assert "additionalProperties" not in schema and schema["properties"]["spec"]["additionalProperties"] is False
    validator = jsonschema.Draft7Validator(schema)
    assert list(validator.iter_errors(VM)) == []
    typo = json.loads(json.dumps(VM))
    typo["spec"]["template"]["spec"]["domain"]["cpuu"] = {"cores": 2}
    assert [list(e.absolute_path) for e in validator.iter_errors(typo)] == [["spec", "template", "spec", "domain"]]


def test_kubeconform_schemas_need_a_directory_and_the_others_none(tmp_path: Path) -> None:
    assert run("export", "kubeconform-schemas")[0] == 2
    assert run("export", "pluto", str(tmp_path))[0] == 2
