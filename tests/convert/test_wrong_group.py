"""Issue 21 §2: a KubeVirt kind under a group that never served it is recognised and named, for every
kind of every family: an error for an object, the kind's own group/version in a patch applied by
`target` (kustomize ignores the patch's group, version and kind).

The oracle is written here from KubeVirt's and CDI's CRDs (not read from transform/): each kind, the
group it belongs to, and the apiVersion `fix` writes for it on KubeVirt 1.9 / CDI 1.66.
"""

from __future__ import annotations

import pathlib

import pytest

from tests.support.cli import invoke
from transform.convert.index import Index
from transform.model.settings import Settings
from transform.pipeline.onefile import upgrade_file

KINDS = {
    "VirtualMachine": ("kubevirt.io", "kubevirt.io/v1"),
    "VirtualMachineInstance": ("kubevirt.io", "kubevirt.io/v1"),
    "VirtualMachineInstanceReplicaSet": ("kubevirt.io", "kubevirt.io/v1"),
    "VirtualMachineInstanceMigration": ("kubevirt.io", "kubevirt.io/v1"),
    "KubeVirt": ("kubevirt.io", "kubevirt.io/v1"),
    "VirtualMachineInstancetype": ("instancetype.kubevirt.io", "instancetype.kubevirt.io/v1beta1"),
    "VirtualMachineClusterInstancetype": ("instancetype.kubevirt.io", "instancetype.kubevirt.io/v1beta1"),
    "VirtualMachinePreference": ("instancetype.kubevirt.io", "instancetype.kubevirt.io/v1beta1"),
    "VirtualMachineClusterPreference": ("instancetype.kubevirt.io", "instancetype.kubevirt.io/v1beta1"),
    "VirtualMachineSnapshot": ("snapshot.kubevirt.io", "snapshot.kubevirt.io/v1beta1"),
    "VirtualMachineSnapshotContent": ("snapshot.kubevirt.io", "snapshot.kubevirt.io/v1beta1"),
    "VirtualMachineRestore": ("snapshot.kubevirt.io", "snapshot.kubevirt.io/v1beta1"),
    "VirtualMachineExport": ("export.kubevirt.io", "export.kubevirt.io/v1"),
    "VirtualMachineClone": ("clone.kubevirt.io", "clone.kubevirt.io/v1beta1"),
    "VirtualMachinePool": ("pool.kubevirt.io", "pool.kubevirt.io/v1beta1"),
    "DataVolume": ("cdi.kubevirt.io", "cdi.kubevirt.io/v1beta1"),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_kind_under_a_wrong_group_is_named(kind: str) -> None:
    home, current = KINDS[kind]
    api = "pool.kubevirt.io/v1alpha1" if home == "kubevirt.io" else "kubevirt.io/v1alpha2"  # never had it
    text = f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: x\nspec: {{}}\n"
    r = upgrade_file("obj.yaml", text.encode(), Settings(), Index())
    assert r.failed and r.new_text is None
    errors = [f for f in r.findings if f.severity.value == "error"]
    assert [f.code for f in errors] == ["input.wrong-group"], [str(f) for f in r.findings]
    assert f"kind {kind} belongs to {home}; {api} never had it" in errors[0].message
    assert f"did you mean apiVersion: {current}" in errors[0].message
    index = Index()
    index.patch_files.add("p.yaml")
    index.target_patch_files.add("p.yaml")
    patch = upgrade_file("p.yaml", text.encode(), Settings(), index)
    assert not patch.failed and patch.new_text == text.replace(api, current, 1)
    assert [f.code for f in patch.findings if f.severity.value == "warning"] == ["kustomize.wrong-group"]


@pytest.mark.parametrize(
    ("api", "kind"),
    [
        ("kubevirt.io/v1", "VirtualMachine"),
        ("cdi.kubevirt.io/v1beta1", "DataSource"),  # a CDI kind the table does not list: not judged here
        ("migrations.kubevirt.io/v1alpha1", "MigrationPolicy"),
        ("kubevirt.io/v1alpha2", "VirtualMachineInstance"),  # the 2018 API: its own reason
    ],
)
def test_a_kind_its_group_has_is_not_called_misplaced(api: str, kind: str) -> None:
    text = f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: x\n"
    r = upgrade_file("obj.yaml", text.encode(), Settings(), Index())
    assert "input.wrong-group" not in {f.code for f in r.findings}


def test_scan_names_the_group_too(tmp_path: pathlib.Path) -> None:
    text = "apiVersion: kubevirt.io/v1alpha2\nkind: VirtualMachineClusterInstancetype\nmetadata:\n  name: m\n"
    (tmp_path / "m.yaml").write_text(text)
    result = invoke("scan", str(tmp_path))
    assert "kind VirtualMachineClusterInstancetype belongs to instancetype.kubevirt.io; kubevirt.io/v1alpha2" in (
        result.stdout
    )
    assert "2018" not in result.stdout


@pytest.mark.parametrize(
    "api, kind, home",
    [
        ("kubevirt.io/v1", "VirtualMachineClone", "clone.kubevirt.io"),  # the user guide's clone_api.md slip
        ("snapshot.kubevirt.io/v1beta1", "VirtualMachineClone", "clone.kubevirt.io"),
        ("kubevirt.io/v1alpha2", "VirtualMachineClusterInstancetype", "instancetype.kubevirt.io"),
    ],
)
def test_validate_and_check_agree_it_is_an_error(tmp_path: pathlib.Path, api: str, kind: str, home: str) -> None:
    """No API server takes such an object (`no matches for kind`): validate says it as check does, an error
    (it was a warning, exit 0, beside the 2018 v1alpha2 text for the instancetype)."""
    (tmp_path / "x.yaml").write_text(f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: x\nspec: {{}}\n")
    for command in ("validate", "check"):
        result = invoke(command, str(tmp_path))
        assert result.exit_code == 3, (command, result.stdout)
        assert f"error: doc 0 {kind}/x: apiVersion: kind {kind} belongs to {home}; {api} never had it" in result.stdout
        assert "[input.wrong-group]" in result.stdout and "2018" not in result.stdout


def test_validate_of_a_target_patch_in_its_tree_only_warns(tmp_path: pathlib.Path) -> None:
    """A patch applied by `target`: kustomize ignores its group, so validate of the tree does not refuse it."""
    (tmp_path / "kustomization.yaml").write_text(
        "resources:\n- it.yaml\npatches:\n- path: patch.yaml\n  target:\n    kind: VirtualMachineClusterInstancetype\n"
    )
    (tmp_path / "it.yaml").write_text(
        "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineClusterInstancetype\nmetadata:\n"
        "  name: m\nspec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1Gi\n"
    )
    (tmp_path / "patch.yaml").write_text(
        "apiVersion: kubevirt.io/v1alpha2\nkind: VirtualMachineClusterInstancetype\nmetadata:\n  name: m\n"
        "spec:\n  cpu:\n    guest: 2\n"
    )
    result = invoke("validate", str(tmp_path))
    assert result.exit_code == 0, result.stdout
    assert "belongs to instancetype.kubevirt.io" in result.stdout
