"""Backups that will not restore (issue 21 §5): a VM whose revision reference names a ControllerRevision
the backup does not hold is a warning naming the VM and the revision, in `backup` and in `scan` of the
tarball. The tarballs are made by GNU tar from a Velero-shaped directory (resources/<resource>/namespaces/
<ns>/<name>.json, and the preferred-version copy beside it), as Velero lays a backup out.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import invoke

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("tar") is None, reason="GNU tar is not installed"),
]

NS = "prod"
IT_REV = "db-1-u1large-6709b990-f717-44fe-a8ff-cb441d20b904-1"  # not in the backup
PREF_REV = "db-1-fedora-72c3a35b-6e18-487d-bebf-f73c7d4f4a40-1"  # in the backup


def vm(name: str, spec_refs: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "instancetype": {"kind": "VirtualMachineClusterInstancetype", "name": "u1.large"},
        "preference": {"kind": "VirtualMachineClusterPreference", "name": "fedora"},
        "runStrategy": "Always",
        "template": {"spec": {"domain": {"devices": {}}}},
    }
    status: dict[str, Any] = {}
    if spec_refs:  # KubeVirt <= 1.4 names them in spec
        spec["instancetype"]["revisionName"] = IT_REV
        spec["preference"]["revisionName"] = PREF_REV
    else:  # 1.5+: in status
        status = {
            "instancetypeRef": {"controllerRevisionRef": {"name": IT_REV}},
            "preferenceRef": {"controllerRevisionRef": {"name": PREF_REV}},
        }
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": name, "namespace": NS},
        "spec": spec,
        "status": status,
    }


def revision(name: str) -> dict[str, Any]:
    payload = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterPreference",
        "metadata": {"name": "fedora", "uid": "72c3a35b-6e18-487d-bebf-f73c7d4f4a40", "generation": 1},
        "spec": {"devices": {"preferredDiskBus": "virtio"}},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": name,
            "namespace": NS,
            "labels": {
                "instancetype.kubevirt.io/object-generation": "1",
                "instancetype.kubevirt.io/object-kind": "VirtualMachineClusterPreference",
                "instancetype.kubevirt.io/object-name": "fedora",
                "instancetype.kubevirt.io/object-uid": "72c3a35b-6e18-487d-bebf-f73c7d4f4a40",
                "instancetype.kubevirt.io/object-version": "v1beta1",
            },
            "ownerReferences": [{"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "name": "db-1", "uid": "u"}],
        },
        "data": payload,
        "revision": 0,
    }


def backup_tarball(tmp_path: Path, spec_refs: bool, with_it_revision: bool = False) -> Path:
    root = tmp_path / "backup"
    items = {
        "virtualmachines.kubevirt.io": {"db-1": vm("db-1", spec_refs)},
        "controllerrevisions.apps": {PREF_REV: revision(PREF_REV)},
    }
    if with_it_revision:
        items["controllerrevisions.apps"][IT_REV] = revision(IT_REV)
    for resource, objs in items.items():
        for name, obj in objs.items():
            for where in (f"{resource}/namespaces/{NS}", f"{resource}/v1-preferredversion/namespaces/{NS}"):
                path = root / "resources" / where / f"{name}.json"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(obj))
    (root / "metadata").mkdir()
    (root / "metadata" / "version").write_text("1\n")
    out = tmp_path / "db.tar.gz"
    subprocess.run(["tar", "-czf", str(out), "-C", str(root), "."], check=True)
    return out


def run(*args: str) -> tuple[int, list[dict[str, Any]]]:
    result = invoke(*args, "--format", "json")
    data = json.loads(result.stdout)
    return result.exit_code, data.get("findings", data.get("breaking", []))


def missing(found: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(f["object"], f["severity"]) for f in found if f["code"] == "backup.missing-revision"]


@pytest.mark.parametrize("spec_refs", [True, False], ids=["spec-revisionName", "status-ref"])
def test_backup_says_which_vm_names_a_revision_it_does_not_hold(tmp_path: Path, spec_refs: bool) -> None:
    tarball = backup_tarball(tmp_path, spec_refs)
    code, found = run("backup", "--check", str(tarball))
    assert missing(found) == [(f"VirtualMachine/{NS}/db-1", "warning")]  # once, though Velero stores it twice
    said = next(f for f in found if f["code"] == "backup.missing-revision")
    assert IT_REV in said["message"] and PREF_REV not in said["message"]
    assert "Failure to find instancetype" in said["message"]
    assert code == 0  # a warning: nothing else to change


def test_scan_of_the_tarball_says_the_same(tmp_path: Path) -> None:
    tarball = backup_tarball(tmp_path, spec_refs=False)
    _code, found = run("scan", str(tarball))
    assert missing(found) == [(f"VirtualMachine/{NS}/db-1", "warning")]
    said = next(f for f in found if f["code"] == "backup.missing-revision")
    assert IT_REV in said["message"] and said["file"].startswith(f"{tarball}:")


def test_a_complete_backup_and_a_tree_say_nothing(tmp_path: Path) -> None:
    tarball = backup_tarball(tmp_path, spec_refs=True, with_it_revision=True)
    assert missing(run("backup", "--check", str(tarball))[1]) == []
    assert missing(run("scan", str(tarball))[1]) == []
    tree = tmp_path / "backup"  # the same items as files of a tree: references may point outside the inputs
    (tree / "resources" / "controllerrevisions.apps" / "namespaces" / NS / f"{IT_REV}.json").unlink()
    assert missing(run("scan", str(tree))[1]) == []
