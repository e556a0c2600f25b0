"""scan: the report on a fixture repo and a Velero-style tarball with known contents."""

from __future__ import annotations

import base64
import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import invoke
from transform.pipeline import inventory as core
from transform.pipeline.batch import Item
from transform.report import scan_tables as scan_report

UID1 = "72c3a35b-6e18-487d-bebf-f73c7d4f4a40"
UID2 = "5d7f9b1c-3e5a-4c82-9d0b-2f4a6c8e0b39"
UID3 = "e2c4a6f8-0b1d-4e3f-8c5a-7b9d1f3e5a62"
LABELS = "instancetype.kubevirt.io/"


def owner(vm: str) -> list[dict[str, Any]]:
    return [{"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "name": vm, "uid": "u", "controller": True}]


def cr(name: str, data: Any, vm: str | None = "vm-a", labels: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if vm:
        meta["ownerReferences"] = owner(vm)
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": meta, "data": data, "revision": 0}


def whole(version: str, kind: str, name: str, uid: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": f"instancetype.kubevirt.io/{version}",
        "kind": kind,
        "metadata": {"name": name, "uid": uid, "generation": 1},
        "spec": spec,
    }


def labels(name: str, kind: str, uid: str) -> dict[str, str]:
    return {
        LABELS + "object-generation": "1",
        LABELS + "object-kind": kind,
        LABELS + "object-name": name,
        LABELS + "object-uid": uid,
        LABELS + "object-version": "v1beta1",
    }


IT_SPEC = {"cpu": {"guest": 1}, "memory": {"guest": "128Mi"}}
WRAPPER = {"apiVersion": "", "spec": base64.b64encode(json.dumps(IT_SPEC).encode()).decode()}

F1 = cr(f"vm-a-csmall-{UID1}-1", WRAPPER)
F2 = cr(f"vm-a-rhel-{UID2}-1", whole("v1alpha2", "VirtualMachineClusterPreference", "rhel", UID2, {}))
F4 = cr(
    f"vm-b-u1-{UID3}-1",
    whole("v1beta1", "VirtualMachineClusterInstancetype", "u1", UID3, IT_SPEC),
    "vm-b",
    labels("u1", "VirtualMachineClusterInstancetype", UID3),
)
F5 = cr(
    f"vm-b-fedora-v1beta1-{UID1}-2",
    whole("v1beta1", "VirtualMachineClusterPreference", "fedora", UID1, {}),
    "vm-b",
    labels("fedora", "VirtualMachineClusterPreference", UID1),
)
ORPHAN = cr(f"vm-gone-x-{UID2}-3", whole("v1beta1", "VirtualMachineInstancetype", "x", UID2, IT_SPEC), "vm-gone")
VM_A = {
    "apiVersion": "kubevirt.io/v1",
    "kind": "VirtualMachine",
    "metadata": {"name": "vm-a", "namespace": "default"},
    "spec": {
        "instancetype": {
            "name": "csmall",
            "kind": "VirtualMachineInstancetype",
            "revisionName": F1["metadata"]["name"],
        },
        "preference": {"name": "rhel", "revisionName": F2["metadata"]["name"]},
        "template": {},
    },
}
VM_B = {
    "apiVersion": "kubevirt.io/v1",
    "kind": "VirtualMachine",
    "metadata": {"name": "vm-b", "namespace": "default"},
    "spec": {"instancetype": {"name": "u1"}, "preference": {"name": "fedora-renamed"}, "template": {}},
    "status": {
        "instancetypeRef": {"name": "u1", "controllerRevisionRef": {"name": F4["metadata"]["name"]}},
        "preferenceRef": {"name": "fedora", "controllerRevisionRef": {"name": F5["metadata"]["name"]}},
    },
}
VM_C = {
    "apiVersion": "kubevirt.io/v1",
    "kind": "VirtualMachine",
    "metadata": {"name": "vm-c", "namespace": "default"},
    "spec": {"instancetype": {"name": "big", "revisionName": "vm-c-big-missing-1"}, "template": {}},
}

OBJECTS = """\
apiVersion: instancetype.kubevirt.io/v1alpha1
kind: VirtualMachineInstancetype
metadata:
  name: csmall
spec:
  cpu:
    guest: 1
  memory:
    guest: 128Mi
---
apiVersion: v1
kind: List
items:
- apiVersion: instancetype.kubevirt.io/v1alpha2
  kind: VirtualMachineClusterPreference
  metadata: {name: rhel}
  spec: {}
- apiVersion: instancetype.kubevirt.io/v1alpha2
  kind: VirtualMachineClusterPreference
  metadata: {name: fedora}
  spec: {}
"""
CURRENT = """\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata:
  name: u1
spec:
  cpu:
    guest: 1
  memory:
    guest: 1Gi
"""


def dump(*docs: Any) -> str:
    return "---\n".join(json.dumps(d, indent=2) + "\n" for d in docs)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "objects").mkdir(parents=True)
    (root / "revisions").mkdir()
    (root / "vms").mkdir()
    (root / "objects" / "old.yaml").write_text(OBJECTS)
    (root / "objects" / "current.yaml").write_text(CURRENT)
    (root / "revisions" / "a.yaml").write_text(dump(F1, F2))
    (root / "revisions" / "b.json").write_text(dump(F4, F5))
    (root / "revisions" / "orphan.yaml").write_text(dump(ORPHAN))
    (root / "vms" / "vms.yaml").write_text(dump(VM_A, VM_B, VM_C))
    (root / "vms" / "snapshot.yaml").write_text(
        "apiVersion: snapshot.kubevirt.io/v1beta1\nkind: VirtualMachineSnapshot\nmetadata: {name: s}\n"
    )
    (root / "unrelated.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    return root


def run(*args: str) -> tuple[int, str]:
    result = invoke("scan", *args)
    return result.exit_code, result.output


def test_text_header_counts_in_words(repo: Path) -> None:
    code, out = run(str(repo / "vms" / "snapshot.yaml"))
    assert out.splitlines()[0].endswith("): 1 file, 1 candidate, 1 with KubeVirt documents"), out
    code, out = run(str(repo))
    assert out.splitlines()[0].endswith("): 8 files, 7 candidates, 7 with KubeVirt documents"), out


def test_repo_counts(repo: Path) -> None:
    code, out = run("--format", "json", str(repo))
    assert code == 1
    d = json.loads(out)
    assert d["schema"] == "instancetype-upgrade/scan/v1" and d["target"] == "1.9" and d["exit_code"] == 1
    assert d["files"] == {"seen": 8, "candidates": 7, "kubevirt": 7}
    objects = {(g["kind"], g["apiVersion"]): g["count"] for g in d["objects"]}
    assert objects == {
        ("VirtualMachineInstancetype", "instancetype.kubevirt.io/v1alpha1"): 1,
        ("VirtualMachineClusterPreference", "instancetype.kubevirt.io/v1alpha2"): 2,
        ("VirtualMachineClusterInstancetype", "instancetype.kubevirt.io/v1beta1"): 1,
    }
    assert {g["era"]: g["count"] for g in d["revisions"]} == {"F1": 1, "F2": 1, "F4": 1, "F5": 1, "F3": 1}
    assert [g["era"] for g in d["revisions"]] == ["F1", "F2", "F3", "F4", "F5"]
    assert d["vms"]["count"] == 3 and d["vms"]["references"] == {"spec": 3, "status": 2, "flavor": 0}
    assert {(g["kind"], g["count"]) for g in d["other"]} == {("VirtualMachineSnapshot", 1)}
    assert [(x["vm"], x["revision"]) for x in d["dangling"]] == [("vm-c", "vm-c-big-missing-1")]
    assert [x["name"] for x in d["orphans"]] == [ORPHAN["metadata"]["name"]]
    mism = {(x["vm"], x["object_name"], x["source"]) for x in d["label_mismatches"]}
    assert mism == {("vm-a", "old-version-of-instancetype-object", "synthetic"), ("vm-b", "fedora", "label")}
    # findings have the report JSON's shape (docs/report-schema.md)
    assert all(
        set(f)
        == {"severity", "code", "message", "file", "line", "column", "doc", "object", "path", "path_segments", "extra"}
        for f in d["breaking"]
    )
    codes = sorted(f["code"] for f in d["breaking"])
    # v1alpha1 object, 2 v1alpha2 list items, F1 and F2 payloads, the labelled mismatch (F1's is unreadable anyway)
    assert codes == ["target.api-version"] * 3 + ["target.object-name-mismatch"] + ["target.payload-format"] * 2
    assert d["errors"] == []
    files = {g["era"]: g["files"] for g in d["revisions"]}
    assert files["F4"] == [str(repo / "revisions" / "b.json")]


def test_target_changes_what_breaks(repo: Path) -> None:
    d = json.loads(run("--format", "json", "--target-kubevirt", "1.5", str(repo))[1])
    assert d["breaking"] == [] and d["exit_code"] == 0
    d = json.loads(run("--format", "json", "--target-kubevirt", "1.6", str(repo))[1])
    codes = sorted(f["code"] for f in d["breaking"])
    # 1.6 stops serving v1alpha*, still reads old payloads, and ignores both mismatching revisions
    assert codes == ["target.api-version"] * 3 + ["target.object-name-mismatch"] * 2


def test_nothing_breaks_exit_0(tmp_path: Path) -> None:
    (tmp_path / "it.yaml").write_text(CURRENT)
    code, out = run(str(tmp_path))
    assert code == 0 and "Result: nothing would break (exit 0)" in out


def test_unreadable_exit_3(repo: Path) -> None:
    (repo / "broken.yaml").write_text("apiVersion: instancetype.kubevirt.io/v1beta1\nkind: [unclosed\n")
    code, out = run("--format", "json", str(repo))
    assert code == 3 and json.loads(out)["errors"][0]["code"] == "input.yaml"
    assert run(str(repo / "missing.yaml"))[0] == 3


def test_text_report(repo: Path) -> None:
    code, out = run(str(repo))
    assert code == 1
    for needle in (
        "API versions on KubeVirt 1.9 / CDI 1.66:",
        "Instance types and preferences:",
        "ControllerRevisions:",
        "v0.56-v0.57",
        "VirtualMachines: 3",
        "Dangling references (1)",
        "Orphan revisions (1)",
        "object-name mismatches (2)",
        "Would break on KubeVirt 1.9 (6):",
        "Result: something would break (exit 1)",
        "objects/old.yaml",
    ):
        assert needle in out, needle


def velero_tar(path: Path) -> None:
    def member(tar: tarfile.TarFile, name: str, obj: Any) -> None:
        data = json.dumps(obj, separators=(",", ":")).encode()
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))

    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("metadata/version")
        info.size = 5
        tar.addfile(info, io.BytesIO(b"1.1.0"))
        for prefix in ("", "v1-preferredversion/"):  # Velero writes the preferred version twice
            member(
                tar, f"resources/controllerrevisions.apps/{prefix}namespaces/default/{F1['metadata']['name']}.json", F1
            )
            member(tar, f"resources/virtualmachines.kubevirt.io/{prefix}namespaces/default/vm-a.json", VM_A)
        member(
            tar,
            "resources/controllerrevisions.apps/namespaces/default/other.json",
            {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "sts-1"}, "revision": 1},
        )
        member(tar, f"resources/controllerrevisions.apps/namespaces/default/{F5['metadata']['name']}.json", F5)


def test_velero_backup(tmp_path: Path) -> None:
    backup = tmp_path / "backup.tar.gz"
    velero_tar(backup)
    items = list(__import__("transform.integrations.scan_inputs", fromlist=["x"]).iter_tarball(str(backup), []))
    assert len(items) == 5  # version + F1 + VM + sts + F5; the preferredversion copies skipped
    code, out = run("--format", "json", str(backup))
    d = json.loads(out)
    assert code == 1
    assert {g["era"]: g["count"] for g in d["revisions"]} == {"F1": 1, "F5": 1}
    assert d["vms"]["count"] == 1 and d["vms"]["references"]["spec"] == 2
    assert [x["revision"] for x in d["dangling"]] == [F2["metadata"]["name"]]
    assert [x["name"] for x in d["orphans"]] == [F5["metadata"]["name"]]
    assert all(f["file"].startswith(str(backup) + ":resources/") for f in d["breaking"])
    assert d["files"]["seen"] == 5


def test_scan_items_direct() -> None:
    result = core.scan_items([Item("a.yaml", dump(F1, VM_A).encode()), Item("b.txt", b"nothing here")], (1, 6))
    assert result.files_seen == 2 and result.candidates == 1
    assert [r.era for r in result.revisions] == ["F1"] and result.exit_code == 1
    assert scan_report.to_dict(result)["dangling"][0]["revision"] == F2["metadata"]["name"]


def test_flavor_era_in_scan() -> None:
    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "flavor"
    code, out = run("--format", "json", "--target-kubevirt", "0.55", str(fixtures))
    d = json.loads(out)
    assert {g["era"] for g in d["revisions"]} == {"F0"}
    assert d["vms"]["references"]["flavor"] == 1 and d["dangling"] == []
    assert code == 0
    d = json.loads(run("--format", "json", str(fixtures))[1])
    assert {"target.vm-flavor", "target.api-version"} <= {f["code"] for f in d["breaking"]}


def test_json_that_yaml_cannot_read_is_scanned_not_an_internal_error(tmp_path: Path) -> None:
    """The json module reads `"key"\\r:` (JSON whitespace), libyaml does not (an implicit key spans no
    line break): found by the fuzz run in a tarball; scan exited 123 composing it for line numbers."""
    text = json.dumps(whole("v1alpha1", "VirtualMachineInstancetype", "it", UID1, {"cpu": {"guest": 1}}))
    text = text.replace('"metadata":', '"metadata"\r:')
    (tmp_path / "it.json").write_text(text)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo(
            "resources/virtualmachineinstancetypes.instancetype.kubevirt.io/namespaces/default/it.json"
        )
        info.size = len(text.encode())
        tar.addfile(info, io.BytesIO(text.encode()))
    (tmp_path / "b.tar.gz").write_bytes(buf.getvalue())
    for arg in ("it.json", "b.tar.gz"):
        result = invoke("scan", str(tmp_path / arg))
        assert result.exit_code != 123 and "internal error" not in result.output, result.output
        assert "VirtualMachineInstancetype" in result.output, result.output
