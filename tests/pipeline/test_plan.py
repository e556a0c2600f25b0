"""The plan and its sinks (issue 20 §4): renames are settled against what the sink could write."""

from __future__ import annotations

import json
import os
import pathlib
import stat

from click.testing import CliRunner

from transform.cli.main import cli

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
        result = CliRunner().invoke(cli, ["fix", "--rename", "--format", "json", str(tmp_path)])
    finally:
        os.chmod(rev, stat.S_IRUSR | stat.S_IWUSR)
    assert result.exit_code == 3, result.output
    codes = {f["code"] for f in json.loads(result.output)["findings"]}
    assert {"output.read-only", "reference.kept"} <= codes
    assert json.loads(vm.read_text())["spec"]["instancetype"]["revisionName"] == OLD
    assert json.loads(rev.read_text())["metadata"]["name"] == OLD
