"""--context: files read for the cross-file index only (a revision and its VM split across runs, as
pre-commit's batches or a pull request's diff split them). Each "batch" here is one run naming some
files, with the whole tree as context."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integrations.test_precommit import NEW_NAME, VM, WRAPPER_REVISION
from tests.support.cli import invoke

OLD_NAME = "vm-z-u1.medium-0b1c9d2e-3f40-4a51-8b62-7c83d94ea5f6-2"
CLUSTER = "instancetype.kubevirt.io/object-kind: VirtualMachineClusterInstancetype"
NAMESPACED = "instancetype.kubevirt.io/object-kind: VirtualMachineInstancetype"
OLD_TYPE = "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: t\n"
OLD_TYPE += "spec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1Gi\n"
# a second VM of the same namespace naming the same revision
OTHER_VM = VM.replace("name: vm-z\n", "name: vm-y\n", 1).replace("uid: 7ad77f47-ee51-4024-8d5b-4141aec7b04c", "uid: 1")


def run(*args: str) -> tuple[int, str]:
    result = invoke(*args)
    return result.exit_code, result.output


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-cr.yaml").write_text(WRAPPER_REVISION)
    (tmp_path / "z-vm.yaml").write_text(VM)
    return tmp_path


def findings(out: str) -> list[dict]:
    return json.loads(out)["findings"]


def test_a_revision_gets_its_kind_from_a_vm_in_the_context(tree: Path) -> None:
    code, out = run("fix", "--context", ".", "a-cr.yaml")
    assert code == 1, out
    revision = (tree / "a-cr.yaml").read_text()
    assert CLUSTER in revision and NAMESPACED not in revision, revision
    assert (tree / "z-vm.yaml").read_text() == VM  # the context is never written


def test_without_the_context_the_kind_is_guessed(tree: Path) -> None:
    """The fault --context fixes: the VM outside the run, the namespaced kind."""
    code, out = run("fix", "a-cr.yaml")
    assert code == 1, out
    assert NAMESPACED in (tree / "a-cr.yaml").read_text()


@pytest.mark.parametrize("first", ["a-cr.yaml", "z-vm.yaml"])
def test_rename_split_across_two_runs_never_dangles(tree: Path, first: str) -> None:
    """The revision in one batch and its VM in the other, in either order: the revision keeps its name
    (its VM is outside the run that upgrades it), the VM keeps naming it, the kind is the cluster one."""
    second = "z-vm.yaml" if first == "a-cr.yaml" else "a-cr.yaml"
    codes = []
    outs = []
    for name in (first, second):
        code, out = run("fix", "--rename", "--format", "json", "--context", ".", name)
        codes.append(code)
        outs.append(out)
    revision = (tree / "a-cr.yaml").read_text()
    assert f"name: {OLD_NAME}\n" in revision and NEW_NAME not in revision, revision
    assert CLUSTER in revision, revision
    assert (tree / "z-vm.yaml").read_text() == VM  # still names the revision that exists
    rev_run = outs[(first, second).index("a-cr.yaml")]
    kept = [f for f in findings(rev_run) if f["code"] == "reference.outside-run"]
    assert len(kept) == 1 and kept[0]["severity"] == "warning", rev_run
    assert "z-vm.yaml" in kept[0]["message"] and "fix --rename" in kept[0]["message"], kept
    assert kept[0]["file"] == "a-cr.yaml"
    assert codes[(first, second).index("a-cr.yaml")] == 1
    assert codes[(first, second).index("z-vm.yaml")] == 0
    # a second pass changes nothing
    for name in (first, second):
        assert run("fix", "--rename", "--context", ".", name)[0] == 0


def test_rename_when_every_reference_is_in_the_run(tree: Path) -> None:
    """Both named (the context holds them too: they are inputs, read once): renamed together."""
    code, out = run("fix", "--rename", "--format", "json", "--context", ".", "a-cr.yaml", "z-vm.yaml")
    assert code == 1, out
    assert f"name: {NEW_NAME}\n" in (tree / "a-cr.yaml").read_text()
    assert f"revisionName: {NEW_NAME}\n" in (tree / "z-vm.yaml").read_text()
    assert not [f for f in findings(out) if f["code"] == "reference.outside-run"]
    assert json.loads(out)["summary"]["files_seen"] == 2


def test_one_reference_outside_the_run_keeps_the_name_for_every_vm(tree: Path) -> None:
    """The revision and one VM named, a second VM naming it only in the context: no rename, and the
    named VM does not follow one either."""
    (tree / "other").mkdir()
    (tree / "other" / "y-vm.yaml").write_text(OTHER_VM)
    code, out = run("fix", "--rename", "--format", "json", "--context", ".", "a-cr.yaml", "z-vm.yaml")
    assert code == 1, out
    assert f"name: {OLD_NAME}\n" in (tree / "a-cr.yaml").read_text()
    assert (tree / "z-vm.yaml").read_text() == VM
    assert (tree / "other" / "y-vm.yaml").read_text() == OTHER_VM
    kept = [f for f in findings(out) if f["code"] == "reference.outside-run"]
    assert len(kept) == 1 and os.path.join("other", "y-vm.yaml") in kept[0]["message"], out
    assert "z-vm.yaml:" not in kept[0]["message"]


def test_a_reference_in_another_namespace_does_not_keep_the_name(tree: Path) -> None:
    (tree / "y-vm.yaml").write_text(OTHER_VM.replace("namespace: default", "namespace: elsewhere"))
    code, out = run("fix", "--rename", "--context", ".", "a-cr.yaml", "z-vm.yaml")
    assert code == 1, out
    assert f"name: {NEW_NAME}\n" in (tree / "a-cr.yaml").read_text()
    assert f"revisionName: {NEW_NAME}\n" in (tree / "z-vm.yaml").read_text()


def test_context_files_are_never_upgraded_reported_or_counted(tree: Path) -> None:
    (tree / "ctx").mkdir()
    (tree / "ctx" / "old-type.yaml").write_text(OLD_TYPE)
    (tree / "ctx" / "broken.yaml").write_text("apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nspec: [\n")
    code, out = run("check", "--format", "json", "--context", "ctx", "--context", ".", "a-cr.yaml")
    assert code == 1, out
    report = json.loads(out)
    assert report["summary"]["files_seen"] == 1
    assert {f.get("file") for f in report["findings"]} == {"a-cr.yaml"}, out
    assert (tree / "ctx" / "old-type.yaml").read_text() == OLD_TYPE
    code, out = run("fix", "--context", "ctx", "a-cr.yaml")
    assert code == 1 and (tree / "ctx" / "old-type.yaml").read_text() == OLD_TYPE


def test_the_context_honours_exclude(tree: Path) -> None:
    (tree / "z-vm.yaml").unlink()
    (tree / "exported").mkdir()
    (tree / "exported" / "z-vm.yaml").write_text(VM)
    assert run("fix", "--exclude", "exported", "--context", ".", "a-cr.yaml")[0] == 1
    assert NAMESPACED in (tree / "a-cr.yaml").read_text()


def test_the_context_is_read_only_when_an_input_is_a_candidate(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pre-commit run with nothing KubeVirt costs what it did: the tree is not walked."""
    from transform.pipeline import sources

    walked: list[list[str]] = []
    real = sources.discover

    def discover(
        paths: list[str], include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()
    ) -> Iterator[sources.Input | sources.Skipped]:
        walked.append(list(paths))
        return real(paths, include, exclude)

    monkeypatch.setattr(sources, "discover", discover)
    monkeypatch.setattr("transform.pipeline.batch.discover", discover)
    (tree / "app.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n")
    assert run("check", "--context", ".", "app.yaml")[0] == 0
    assert walked == [["app.yaml"]]
    assert run("check", "--context", ".", "app.yaml", "a-cr.yaml")[0] == 1
    assert walked[1:] == [["app.yaml", "a-cr.yaml"], ["."]]


def test_a_named_file_is_not_read_twice(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from transform.pipeline import batch

    read: list[str] = []
    real = batch.read_file

    def read_file(path: str, limit: int) -> bytes:
        read.append(os.path.realpath(path))
        return real(path, limit)

    monkeypatch.setattr(batch, "read_file", read_file)
    (tree / "link.yaml").symlink_to("z-vm.yaml")
    assert run("fix", "--rename", "--context", ".", "--context", str(tree), "a-cr.yaml", "link.yaml")[0] == 1
    assert str(tree / "a-cr.yaml") not in read and str(tree / "z-vm.yaml") not in read, read
    assert f"revisionName: {NEW_NAME}\n" in (tree / "z-vm.yaml").read_text()


PATCH = """\
apiVersion: kubevirt.io/v1alpha3
kind: VirtualMachine
metadata:
  name: vm-a
spec:
  runStrategy: Halted
"""


@pytest.fixture
def overlay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "kustomization.yaml").write_text("resources:\n- vm.yaml\n")
    (tmp_path / "base" / "vm.yaml").write_text(VM.replace("vm-z", "vm-a"))
    (tmp_path / "overlay").mkdir()
    (tmp_path / "overlay" / "kustomization.yaml").write_text("resources:\n- ../base\npatches:\n- path: patch.yaml\n")
    (tmp_path / "overlay" / "patch.yaml").write_text(PATCH)
    return tmp_path


def test_a_patch_is_judged_as_one_when_its_kustomization_is_in_the_context(overlay: Path) -> None:
    code, out = run("validate", "--format", "json", "overlay/patch.yaml")
    assert code == 3 and "schema.required" in out, out  # alone: a whole object missing its template
    code, out = run("validate", "--format", "json", "--context", ".", "overlay/patch.yaml")
    assert code == 0 and "schema.required" not in out, out
    code, out = run("check", "--format", "json", "--context", ".", "overlay/patch.yaml")
    assert code == 1 and "schema.required" not in out, out
    assert "kubevirt.io/v1alpha3 -> kubevirt.io/v1" in out


def test_context_in_help_of_every_file_command() -> None:
    for command in ("fix", "check", "diff", "validate"):
        code, out = run(command, "--help")
        assert code == 0 and "--context PATH" in out, command


def test_the_context_parses_only_what_the_inputs_need(tree: Path) -> None:
    """Kustomizations for any input (it may be a patch); VM references only for an input that holds a
    revision (its kind; whether --rename may rename it)."""
    from transform.model.settings import Settings
    from transform.pipeline.batch import Item, read_context

    (tree / "kustomization.yaml").write_text("resources:\n- z-vm.yaml\n")
    (tree / "old-type.yaml").write_text(OLD_TYPE)
    settings = Settings()
    for named, wanted in (
        ("old-type.yaml", {"kustomization.yaml"}),
        ("a-cr.yaml", {"kustomization.yaml", "z-vm.yaml"}),
    ):
        item = Item(named, (tree / named).read_bytes())
        got = {i.name for i in read_context((".",), settings, [named], [item])}
        assert got == wanted, (named, got)
