"""A value that must change, defined by an anchor used elsewhere, is upgraded as KubeVirt would (issue 31 §2).

The tool writes the changed value where it changes and leaves every other use reading as it did: the alias
through which a change reaches an anchored node is written out in full (only that alias); a change at the
anchor itself writes out the aliases that must keep the old value. Each result is read back by the
independent reader (tests/oracles/k8s_scalars.py, go-yaml v2's rules): the intended values, every other use
unchanged, and a second run changes nothing. Was: `input.alias`, exit 3."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.oracles import k8s_scalars
from transform.cli import main as cli

OLD, NEW = "instancetype.kubevirt.io/v1alpha1", "instancetype.kubevirt.io/v1beta1"
BODY = "spec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1Gi\n"
UID = "6709b990-f717-44fe-a8ff-cb441d20b904"
CR = (
    "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: vm-x-csmall-" + UID + "-1\n"
    "  namespace: default\n  ownerReferences:\n  - apiVersion: kubevirt.io/v1\n    kind: VirtualMachine\n"
    "    name: vm-x\n    uid: 7ad77f47-ee51-4024-8d5b-4141aec7b04c\n    controller: true\n"
)
PAYLOAD = (
    "data:\n  apiVersion: instancetype.kubevirt.io/v1alpha2\n  kind: VirtualMachineInstancetype\n  metadata:\n"
    f"    name: csmall\n    uid: {UID}\n    generation: 1\n  spec:\n    cpu: {{guest: 2}}\n"
)

CASES = {
    # the anchor is the apiVersion: it changes, the alias keeps reading the old version
    "anchor-at-apiversion": (
        f"apiVersion: &a {OLD}\nkind: VirtualMachineInstancetype\nmetadata:\n  name: x\n  annotations:\n"
        f"    was: *a  # kept\n{BODY}",
        {("apiVersion",): NEW, ("metadata", "annotations", "was"): OLD},
        ["&a"],
    ),
    # the alias is the apiVersion: only it is written out; the anchor and another alias stay
    "alias-at-apiversion": (
        f"kind: VirtualMachineInstancetype\nmetadata:\n  name: x\n  annotations:\n    src: &a {OLD}\n"
        f"    copy: *a\napiVersion: *a\n{BODY}",
        {("apiVersion",): NEW, ("metadata", "annotations", "src"): OLD, ("metadata", "annotations", "copy"): OLD},
        ["&a", "copy: *a"],
    ),
    # the object's fields come from a merged anchor (go-yaml applies the merge): the merge's alias is written out
    "merge-top-level": (
        f"base: &b\n  apiVersion: {OLD}\n  kind: VirtualMachineInstancetype\n<<: *b\nmetadata:\n  name: a\n{BODY}",
        {("apiVersion",): NEW, ("base", "apiVersion"): OLD},
        ["base: &b"],
    ),
    # a revision payload whose converted value is anchored and used by a field KubeVirt drops
    "payload-anchor": (
        CR + PAYLOAD + "    memory: &m\n      guest: 1024Mi\n    x: *m\nrevision: 0\n",
        {("data", "spec", "memory", "guest"): "1Gi", ("data", "apiVersion"): NEW},
        [],
    ),
    # a revision payload merging an anchored mapping from elsewhere: the merge's copy changes, the anchor not
    "payload-merged-anchor": (
        CR.replace("    controller: true\n", "    controller: true\n  annotations: &m\n    guest: 1024Mi\n")
        + PAYLOAD
        + "    memory:\n      guest: 512Mi\n      <<: *m\nrevision: 0\n",
        {("data", "spec", "memory", "guest"): "1Gi", ("metadata", "annotations", "guest"): "1024Mi"},
        ["annotations: &m"],
    ),
}


def _at(value: object, path: tuple[str, ...]) -> object:
    for part in path:
        assert isinstance(value, dict)
        value = value[part]
    return value


@pytest.mark.parametrize("name", sorted(CASES))
def test_anchored_value_is_upgraded_and_reads_back(tmp_path: Path, name: str) -> None:
    text, want, kept = CASES[name]
    path = tmp_path / "doc.yaml"
    path.write_text(text)
    assert cli.main(["fix", "-q", str(path)]) == 1
    out = path.read_text()
    [got] = k8s_scalars.load_all(out)
    for where, value in want.items():
        assert _at(got, where) == value, (where, out)
    for piece in kept:  # the uses that do not change keep their text
        assert piece in out, out
    if "# kept" in text:
        assert "# kept" in out
    assert cli.main(["fix", "-q", str(path)]) == 0  # a second run changes nothing
    assert path.read_text() == out


def test_unchanged_uses_read_as_before(tmp_path: Path) -> None:
    text = CASES["alias-at-apiversion"][0]
    path = tmp_path / "doc.yaml"
    path.write_text(text)
    [before] = k8s_scalars.load_all(text)
    assert cli.main(["fix", "-q", str(path)]) == 1
    [after] = k8s_scalars.load_all(path.read_text())
    assert {k: v for k, v in after.items() if k != "apiVersion"} == {
        k: v for k, v in before.items() if k != "apiVersion"
    }
