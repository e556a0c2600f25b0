"""A kind that no KubeVirt or CDI group has, under a group this tool owns (`kubevirt.io/v1` with
`kind: Kubevirt`, a case slip 7 snippets of the KubeVirt user guide make): the API server answers
`no matches for kind "Kubevirt" in version "kubevirt.io/v1"`. check, fix, validate and scan say it
(`input.unknown-kind`), with the kind the user most likely meant; groups the tool does not own, and
List kinds, are left alone.

The oracle is written here from KubeVirt's and CDI's CRDs (not read from transform/).
"""

from __future__ import annotations

import pathlib

import pytest

from tests.support.cli import invoke
from transform.convert.index import Index
from transform.model.policy import run_policy
from transform.model.settings import Settings
from transform.pipeline.onefile import upgrade_file

KUBEVIRT_CR = (
    "apiVersion: kubevirt.io/v1\nkind: Kubevirt\nmetadata:\n  name: kubevirt\n  namespace: kubevirt\n"
    "spec:\n  configuration:\n    developerConfiguration:\n      featureGates: [VSOCK]\n"
)


def _errors(text: str, index: Index | None = None) -> list[str]:
    r = upgrade_file("obj.yaml", text.encode(), Settings(), index or Index())
    return [f"{f.severity.value} {f.code} {f.message}" for f in r.findings]


def test_the_user_guides_kubevirt_cr_is_refused_in_every_command(tmp_path: pathlib.Path) -> None:
    (tmp_path / "kv.yaml").write_text(KUBEVIRT_CR)
    said = 'kubevirt.io/v1 has no kind Kubevirt: no API server takes this object (`no matches for kind "Kubevirt"'
    # fix/check leave it as it is: a problem the input already had, an `input:` warning (an error under --strict);
    # validate judges the object itself (an error); scan: the API server refuses it, so applying it breaks
    for command, code in (("check", 0), ("validate", 3), ("scan", 1), ("fix", 0), ("check --strict", 3)):
        result = invoke(*command.split(), str(tmp_path))
        assert result.exit_code == code, (command, result.stdout)
        assert said in result.stdout and "did you mean kind: KubeVirt?" in result.stdout, (command, result.stdout)
        assert ("input: kubevirt.io/v1" in result.stdout) == command.startswith(("check", "fix")), command
        assert "[input.unknown-kind]" in result.stdout, command
        assert result.stdout.count("has no kind Kubevirt") == 1, (command, result.stdout)  # one fact, once
    assert (tmp_path / "kv.yaml").read_text() == KUBEVIRT_CR  # fix wrote nothing


@pytest.mark.parametrize(
    ("api", "kind", "meant"),
    [
        ("kubevirt.io/v1", "Kubevirt", "KubeVirt"),
        ("kubevirt.io/v1", "virtualmachine", "VirtualMachine"),
        ("kubevirt.io/v1", "VirtualMachineInstanceMigraton", "VirtualMachineInstanceMigration"),  # a typo
        ("instancetype.kubevirt.io/v1beta1", "VirtualMachineInstanceType", "VirtualMachineInstancetype"),
        ("cdi.kubevirt.io/v1beta1", "Datavolume", "DataVolume"),
        ("cdi.kubevirt.io/v1beta1", "Datasource", "DataSource"),  # a kind only CDI's CRDs list
        ("kubevirt.io/v1", "Datavolume", "DataVolume (a kind of cdi.kubevirt.io)"),  # another group's kind
        ("migrations.kubevirt.io/v1alpha1", "Migrationpolicy", "MigrationPolicy"),
        ("kubevirt.io/v1", "Frobnicator", ""),  # nothing close: the group's kinds are named
        ("kubevirt.io/v1", "Pod", ""),  # no guess from another group's kinds but a case slip
    ],
)
def test_an_unknown_kind_under_a_current_version_is_an_input_warning(api: str, kind: str, meant: str) -> None:
    """Nothing to upgrade: fix leaves the object as it is, a problem the input already had (model/policy)."""
    text = f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: x\nspec: {{}}\n"
    r = upgrade_file("obj.yaml", text.encode(), Settings(), Index())
    assert not r.failed and r.new_text is None
    said = [f for f in r.findings if f.code == "input.unknown-kind"]
    assert [f.severity.value for f in said] == ["warning"], [str(f) for f in r.findings]
    assert said[0].message.startswith(f"input: {api} has no kind {kind}: no API server takes this object")
    if meant:
        assert said[0].message.endswith(f"did you mean kind: {meant}?")
    else:
        assert "correct its kind (kubevirt.io has KubeVirt, VirtualMachine, VirtualMachineInstance," in said[0].message
    assert said[0].path == ("kind",)
    strict = upgrade_file("obj.yaml", text.encode(), Settings(strict=True), Index())
    shown = run_policy(strict.findings, strict=True)  # as the report shows them (the run's policy, once)
    assert strict.failed and any(f.code == "input.unknown-kind" and f.severity.value == "error" for f in shown)


@pytest.mark.parametrize(
    ("api", "kind", "meant"),
    [
        ("kubevirt.io/v1alpha3", "VirtualMachineInstanceReplicaset", "VirtualMachineInstanceReplicaSet"),
        ("instancetype.kubevirt.io/v1alpha1", "VirtualMachineFoo", ""),
        ("export.kubevirt.io/v1alpha1", "VirtualMachineexport", "VirtualMachineExport"),
    ],
)
def test_an_unknown_kind_under_a_version_fix_would_upgrade_is_an_error(api: str, kind: str, meant: str) -> None:
    """The target would have the version upgraded, and the tool cannot without knowing the kind: the input could
    not be upgraded (exit 3), as for an instance type of an unknown kind before."""
    text = f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: x\nspec: {{}}\n"
    r = upgrade_file("obj.yaml", text.encode(), Settings(), Index())
    assert r.failed and r.new_text is None
    errors = [f for f in r.findings if f.severity.value == "error"]
    assert [f.code for f in errors] == ["input.unknown-kind"], [str(f) for f in r.findings]
    assert errors[0].message.startswith(f"{api} has no kind {kind}: no API server takes this object")
    assert errors[0].message.endswith("not upgraded: the version's rules depend on its kind")
    assert (
        (f"did you mean kind: {meant}?" in errors[0].message) if meant else ("correct its kind (" in errors[0].message)
    )


def test_the_files_other_objects_are_still_upgraded(tmp_path: pathlib.Path) -> None:
    """The unknown kind is the input's problem: it does not stop the upgrade of the VM beside it."""
    vm = "apiVersion: kubevirt.io/v1alpha3\nkind: VirtualMachine\nmetadata:\n  name: a\nspec:\n  runStrategy: Halted\n"
    path = tmp_path / "m.yaml"
    path.write_text(vm + "---\n" + KUBEVIRT_CR)
    result = invoke("fix", str(path))
    assert result.exit_code == 1, result.stdout
    assert path.read_text() == vm.replace("v1alpha3", "v1") + "---\n" + KUBEVIRT_CR
    assert "has no kind Kubevirt" in result.stdout


@pytest.mark.parametrize(
    ("api", "kind"),
    [
        ("hco.kubevirt.io/v1beta1", "HyperConverged"),  # groups that merely contain kubevirt.io: not ours
        ("hco.kubevirt.io/v1beta1", "Kubevirt"),
        ("ssp.kubevirt.io/v1beta2", "SSP"),
        ("network.kubevirt.io/v1alpha1", "NetworkAddonsConfig"),
        ("aaq.kubevirt.io/v1alpha1", "AAQ"),
        ("hostpathprovisioner.kubevirt.io/v1beta1", "HostPathProvisioner"),
        ("networkaddonsoperator.network.kubevirt.io/v1", "NetworkAddonsConfig"),
        ("kubevirt.io/v1", "VirtualMachineList"),  # a List without items
        ("kubevirt.io/v1", "KubeVirt"),
        ("cdi.kubevirt.io/v1beta1", "StorageProfile"),
        ("cdi.kubevirt.io/v1beta1", "VolumeImportSource"),
        ("forklift.cdi.kubevirt.io/v1beta1", "OvirtVolumePopulator"),
        ("backup.kubevirt.io/v1alpha1", "VirtualMachineBackupTracker"),
        ("plugin.kubevirt.io/v1alpha1", "Plugin"),
        ("upload.cdi.kubevirt.io/v1beta1", "UploadTokenRequest"),
        ("template.kubevirt.io/v1beta1", "VirtualMachineTemplateRequest"),
        ("kubevirt.io/v1", "${KIND}"),  # an OpenShift Template parameter
        ("kubevirt.io/v1alpha2", "OfflineVirtualMachine"),  # the 2018 API: its own reason (core.legacy)
    ],
)
def test_what_is_not_judged_or_exists_is_not_called_unknown(api: str, kind: str) -> None:
    text = f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: x\n"
    assert not [e for e in _errors(text) if "unknown-kind" in e]


def test_a_list_of_kubevirt_objects_is_fine_and_an_unknown_item_is_named() -> None:
    text = (
        "apiVersion: kubevirt.io/v1\nkind: VirtualMachineList\nitems:\n"
        "- apiVersion: kubevirt.io/v1\n  kind: VirtualMachine\n  metadata: {name: a}\n"
        "- apiVersion: kubevirt.io/v1\n  kind: Virtualmachine\n  metadata: {name: b}\n"
    )
    found = [e for e in _errors(text) if "unknown-kind" in e]
    assert len(found) == 1 and "has no kind Virtualmachine" in found[0] and "kind: VirtualMachine?" in found[0]


def test_a_patch_applied_by_target_only_warns_and_is_left_as_it_is(tmp_path: pathlib.Path) -> None:
    """kustomize gives a patch applied by `target` the kind of what it patches: it still applies."""
    text = "apiVersion: kubevirt.io/v1\nkind: Kubevirt\nmetadata:\n  name: kubevirt\nspec: {}\n"
    index = Index()
    index.patch_files.add("p.yaml")
    index.target_patch_files.add("p.yaml")
    r = upgrade_file("p.yaml", text.encode(), Settings(), index)
    assert not r.failed and r.new_text is None
    assert [(f.severity.value, f.code) for f in r.findings] == [("warning", "input.unknown-kind")]
    (tmp_path / "kustomization.yaml").write_text(
        "resources:\n- kv.yaml\npatches:\n- path: patch.yaml\n  target:\n    kind: KubeVirt\n"
    )
    (tmp_path / "kv.yaml").write_text(KUBEVIRT_CR.replace("Kubevirt", "KubeVirt"))
    (tmp_path / "patch.yaml").write_text(text)
    result = invoke("validate", str(tmp_path))
    assert result.exit_code == 0, result.stdout
    assert "warning:" in result.stdout and "has no kind Kubevirt" in result.stdout
    result = invoke("check", str(tmp_path))
    assert result.exit_code == 0 and "has no kind Kubevirt" in result.stdout, result.stdout
    result = invoke("check", "--strict", str(tmp_path))
    assert result.exit_code == 3, result.stdout


def test_an_inline_patch_of_a_kustomization_is_named_too(tmp_path: pathlib.Path) -> None:
    (tmp_path / "kustomization.yaml").write_text(
        "resources:\n- kv.yaml\npatches:\n- patch: |-\n    apiVersion: kubevirt.io/v1\n    kind: Kubevirt\n"
        "    metadata:\n      name: kubevirt\n  target:\n    kind: KubeVirt\n"
    )
    (tmp_path / "kv.yaml").write_text(KUBEVIRT_CR.replace("Kubevirt", "KubeVirt"))
    result = invoke("check", str(tmp_path))
    assert "has no kind Kubevirt" in result.stdout and "[input.unknown-kind]" in result.stdout, result.stdout


def test_a_group_whose_table_rows_list_no_kinds_is_judged_by_its_crds() -> None:
    """migrations.kubevirt.io's only kind is MigrationPolicy: a VirtualMachine under it is misplaced."""
    text = "apiVersion: migrations.kubevirt.io/v1alpha1\nkind: VirtualMachine\nmetadata:\n  name: x\n"
    found = [e for e in _errors(text) if e.startswith("error")]
    assert found == [
        "error input.wrong-group kind VirtualMachine belongs to kubevirt.io; migrations.kubevirt.io/v1alpha1 never "
        "had it: no API server takes this object; did you mean apiVersion: kubevirt.io/v1? (if it is a kustomize "
        "patch applied by `target`, `fix` on the tree holding its kustomization upgrades it)"
    ]
