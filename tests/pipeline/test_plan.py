"""The plan and its sinks (issue 20 §4, issue 29 §2): renames run in stages, each file planned once, the
files that reference a revision planned against the renames that landed."""

from __future__ import annotations

import collections
import json
import os
import pathlib
import stat
from typing import Any

import pytest

from tests.support.cli import invoke

UID = "2b0f9f6e-7f7e-4a59-9d35-0b7c59a2d1aa"
OLD = f"vm-small-{UID}-1"
REVISION = {
    "apiVersion": "apps/v1",
    "kind": "ControllerRevision",
    "metadata": {
        "name": OLD,
        "namespace": "default",
        "ownerReferences": [
            {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "name": "vm", "uid": UID, "controller": True}
        ],
    },
    "data": {
        "apiVersion": "instancetype.kubevirt.io/v1alpha2",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": "small", "namespace": "default", "uid": UID, "generation": 1},
        "spec": {"cpu": {"guest": 2}, "memory": {"guest": "256Mi"}},
    },
    "revision": 1,
}
VM = {
    "apiVersion": "kubevirt.io/v1",
    "kind": "VirtualMachine",
    "metadata": {"name": "vm", "namespace": "default", "uid": UID},
    "spec": {
        "runStrategy": "Halted",
        "instancetype": {"name": "small", "revisionName": OLD},
        "template": {"spec": {"domain": {"devices": {}}}},
    },
}


def test_a_read_only_revision_file_keeps_its_references(tmp_path: pathlib.Path) -> None:
    """--rename with the revision's file read-only: the revision keeps its name, so the VM in another
    file must keep naming it (before, the VM was rewritten to the new name of a revision never renamed)."""
    rev, vm = tmp_path / "rev.json", tmp_path / "vm.json"
    rev.write_text(json.dumps(REVISION, indent=2) + "\n")
    vm.write_text(json.dumps(VM, indent=2) + "\n")
    os.chmod(rev, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    try:
        result = invoke("fix", "--rename", "--format", "json", str(tmp_path))
    finally:
        os.chmod(rev, stat.S_IRUSR | stat.S_IWUSR)
    assert result.exit_code == 3, result.output
    codes = {f["code"] for f in json.loads(result.output)["findings"]}
    assert {"output.read-only", "reference.kept"} <= codes
    assert json.loads(vm.read_text())["spec"]["instancetype"]["revisionName"] == OLD
    assert json.loads(rev.read_text())["metadata"]["name"] == OLD


def test_a_change_is_data() -> None:
    """What dispatch hands the pipeline is data (it pickles, compares, crosses a process), not closures
    that call the validator; the verify step judges it (before: `Change.check` was a lambda)."""
    import pickle

    from transform.convert.dispatch import upgrade_document
    from transform.convert.index import Index
    from transform.model.settings import Settings

    old = {
        "apiVersion": "instancetype.kubevirt.io/v1alpha1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": "small"},
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}},
    }
    changes = []
    for doc in (old, REVISION):
        out = upgrade_document(doc, settings=Settings(), index=Index())
        changes += out.changes
    assert len(changes) == 2
    assert pickle.loads(pickle.dumps(changes)) == changes
    assert [c.verify.value if c.verify else None for c in changes] == ["upgraded", "payload"]


def test_a_source_that_reads_its_documents_its_own_way_is_planned_by_upgrade_items(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`upgrade_items` serves an input whose source reads its documents its own way (`parts.Reading`,
    as the KRM function's items): only the chunks of its span, from its own text, each document parsed
    once for the index and the upgrade, the upgraded value adjusted, the part finished by the source
    (before, the KRM function drove the engine and the index itself)."""
    from collections import Counter

    from transform.model.settings import Settings
    from transform.pipeline.batch import Item, RunResult
    from transform.pipeline.parts import Part, Reading, spans
    from transform.pipeline.upgrade import upgrade_items
    from transform.yamltext import nodes, textio

    revision = json.dumps(REVISION)
    vm = json.dumps(VM)
    it = '{"apiVersion": "instancetype.kubevirt.io/v1alpha1", "kind": "VirtualMachineInstancetype", "spec": {}}'
    text = f"{it}\n---\n{revision}\n---\n{vm}\n"
    source = textio.decode(text.encode())
    chunks = textio.split_documents(text)
    span = spans(text, chunks, [0, 1, len(chunks)])[1]  # the revision and the VM, not the instancetype
    parsed: Counter[str] = Counter()
    real = nodes.parse
    monkeypatch.setattr(nodes, "parse", lambda t: parsed.update([t]) or real(t))
    adjusted: list[int] = []
    finished: list[int] = []

    def adjust(pd: Any, new: Any) -> Any:
        adjusted.append(pd.index)
        return new

    def after(part: Part) -> Part:
        finished.append(len(part.pieces))
        return part

    item = Item("list", text.encode(), reading=Reading(source, source, span, adjust, after))
    plan = upgrade_items([item], Settings(rename=True), RunResult(), jobs=0)
    (r,) = plan.run.results
    assert adjusted == [1, 2] and finished == [2]
    assert r.new_text is not None and r.new_text.startswith(it + "\n---\n")  # outside the span: as it was
    assert r.renames and f'"revisionName": "{r.renames[0][2]}"' in r.new_text
    assert max(n for t, n in parsed.items() if t in text) == 1


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[str]:
    """How often the judge's document validation ran on each object (by its JSON)."""
    from transform.validate import documents

    calls: collections.Counter[str] = collections.Counter()
    real = documents.validate_document

    def counting(obj: Any, *args: Any, **kwargs: Any) -> Any:
        calls[json.dumps(obj, sort_keys=True)] += 1
        return real(obj, *args, **kwargs)

    monkeypatch.setattr(documents, "validate_document", counting)
    return calls


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[str]:
    """How often each file was planned (the file engine's entry point, by file name)."""
    from transform.pipeline import onefile

    calls: collections.Counter[str] = collections.Counter()
    real = onefile.upgrade_file

    def counting(name: str, *args: Any, **kwargs: Any) -> Any:
        calls[pathlib.Path(name).name] += 1
        return real(name, *args, **kwargs)

    monkeypatch.setattr(onefile, "upgrade_file", counting)
    return calls


def test_a_file_after_a_failed_rename_is_planned_once(
    tmp_path: pathlib.Path, judged: collections.Counter[str], planned: collections.Counter[str]
) -> None:
    """--rename, the revision's file fails (another of its documents cannot be read), so the revision keeps its
    name, and the VM's file, planned after it, keeps the old name: each file is planned once and each document
    judged once (before, the VM's file was planned again without the rename, its judgements remembered)."""
    bad = "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\nmetadata: {name: [\n"
    it = {
        "apiVersion": "instancetype.kubevirt.io/v1alpha1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": "small", "namespace": "default"},
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "128Mi"}},
    }
    (tmp_path / "a-rev.yaml").write_text(json.dumps(REVISION) + "\n---\n" + bad)  # a document YAML cannot read
    (tmp_path / "b-vm.yaml").write_text(json.dumps(VM) + "\n---\n" + json.dumps(it) + "\n")
    result = invoke("check", "--rename", "-j", "1", "--format", "json", str(tmp_path))
    assert result.exit_code == 3, result.output
    report = json.loads(result.output)
    codes = {(pathlib.Path(f["file"]).name, f["code"]) for f in report["findings"]}
    assert ("a-rev.yaml", "input.yaml") in codes and ("b-vm.yaml", "upgraded") in codes
    assert ("b-vm.yaml", "reference.renamed") not in codes  # the revision keeps its name
    assert planned == {"a-rev.yaml": 1, "b-vm.yaml": 1}
    assert json.dumps(VM, sort_keys=True) in judged and json.dumps(it, sort_keys=True) in judged
    assert {k[:80]: n for k, n in judged.items() if n > 1} == {}


@pytest.mark.parametrize("names", [("rev.json", "vm.json"), ("a-vm.json", "b-rev.json")])
def test_a_file_after_an_unwritten_revision_is_planned_once(
    tmp_path: pathlib.Path,
    judged: collections.Counter[str],
    planned: collections.Counter[str],
    names: tuple[str, str],
) -> None:
    """The same when the revision's file cannot be written (read-only), whichever comes first in the input:
    the revision's file is planned and given to the sink first, the VM's file planned once after it, against
    the renames that landed (before, the sink's loop planned it again, `Plan.settled`)."""
    rev, vm = tmp_path / names[0], tmp_path / names[1]
    if "vm" in names[0]:
        rev, vm = vm, rev
    rev.write_text(json.dumps(REVISION, indent=2) + "\n")
    vm.write_text(json.dumps(VM, indent=2) + "\n")
    os.chmod(rev, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    try:
        result = invoke("fix", "--rename", "-j", "1", "--format", "json", str(tmp_path))
    finally:
        os.chmod(rev, stat.S_IRUSR | stat.S_IWUSR)
    assert result.exit_code == 3, result.output
    findings = json.loads(result.output)["findings"]
    kept = [f for f in findings if f["code"] == "reference.kept"]
    assert len(kept) == 1 and pathlib.Path(kept[0]["file"]).name == vm.name and OLD in kept[0]["message"]
    assert json.loads(vm.read_text())["spec"]["instancetype"]["revisionName"] == OLD
    assert planned == {rev.name: 1, vm.name: 1}
    assert json.dumps(VM, sort_keys=True) in judged
    assert {k[:80]: n for k, n in judged.items() if n > 1} == {}


def test_stages_follow_the_revisions_files_refer_to() -> None:
    """Files holding a renamed revision come first; one that also references a revision another such file
        renames comes after that file; files renaming each other's revisions (a circle) share a stage, once
    nothing else is ready; every
        other file (a VM's, or one with nothing to rename) comes last, each stage in input order."""
    from transform.convert.index import Index
    from transform.pipeline.batch import Item
    from transform.pipeline.upgrade import stages

    index = Index()
    index.renames = {r: [("default", r + "-new")] for r in ("x", "y", "p", "q")}
    index.holders = {"x": {"a"}, "y": {"b"}, "p": {"c"}, "q": {"d"}}
    index.referrers = {"y": {"a", "e"}, "x": {"f"}, "p": {"d"}, "q": {"c"}}
    items = [Item(n, b"") for n in "abcdefg"]
    got = [[items[n].name for n in stage] for stage in stages(items, index)]
    assert got == [["b"], ["a"], ["c", "d"], ["e", "f", "g"]]
    assert stages(items, Index()) == [list(range(7))]
