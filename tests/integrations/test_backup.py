"""`backup`: Velero backup tarballs in, upgraded tarballs out; every entry checked."""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import os
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import pytest

from tests.support import samples
from tests.support.cli import run_module
from transform.cli.main import main

NS = "default"
VM_UID = "3f2a9c41-8d7e-4b05-a6c1-2e9f0d4b7a18"
IT_UID = samples.F1_SOURCE_UID
PREF_UID = "72c3a35b-6e18-487d-bebf-f73c7d4f4a40"
F1_NAME = f"vm-legacy-csmall-{IT_UID}-1"
F2_NAME = f"vm-legacy-cirros-{PREF_UID}-1"
SNAP_NAME = f"snap-1-csmall-{IT_UID}-1"
F1_NEW = f"vm-legacy-csmall-v1beta1-{IT_UID}-1"
F2_NEW = f"vm-legacy-cirros-v1beta1-{PREF_UID}-1"
CR_DIR = "resources/controllerrevisions.apps"
VM_DIR = "resources/virtualmachines.kubevirt.io"
IT_DIR = "resources/virtualmachineinstancetypes.instancetype.kubevirt.io"
VMSC_DIR = "resources/virtualmachinesnapshotcontents.snapshot.kubevirt.io"
MTIME = 1_700_000_000


def compact(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def vm_owner(name: str = "vm-legacy", uid: str = VM_UID, kind: str = "VirtualMachine") -> list[dict[str, Any]]:
    api = "kubevirt.io/v1" if kind == "VirtualMachine" else "snapshot.kubevirt.io/v1beta1"
    return [{"apiVersion": api, "blockOwnerDeletion": True, "controller": True, "kind": kind, "name": name, "uid": uid}]


def f1_revision() -> dict[str, Any]:
    spec = base64.b64encode(b'{"cpu":{"guest":1},"memory":{"guest":"128Mi"}}').decode()
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {"name": F1_NAME, "namespace": NS, "ownerReferences": vm_owner()},
        "data": {"apiVersion": "", "spec": spec},
        "revision": 0,
    }


def v1alpha2_payload(kind: str, name: str, uid: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "instancetype.kubevirt.io/v1alpha2",
        "kind": kind,
        "metadata": {
            "creationTimestamp": "2022-09-30T12:20:19Z",
            "generation": 1,
            "name": name,
            "namespace": NS,
            "resourceVersion": "10303",
            "uid": uid,
        },
        "spec": spec,
    }


def f2_revision() -> dict[str, Any]:
    payload = v1alpha2_payload(
        "VirtualMachinePreference", "cirros", PREF_UID, {"devices": {"preferredDiskBus": "virtio"}}
    )
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {"name": F2_NAME, "namespace": NS, "ownerReferences": vm_owner()},
        "data": payload,
        "revision": 0,
    }


def snapshot_revision() -> dict[str, Any]:
    payload = v1alpha2_payload(
        "VirtualMachineInstancetype", "csmall", IT_UID, {"cpu": {"guest": 1}, "memory": {"guest": "128Mi"}}
    )
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": SNAP_NAME,
            "namespace": NS,
            "ownerReferences": vm_owner("snap-1", "5e1d...", "VirtualMachineSnapshot"),
        },
        "data": payload,
        "revision": 0,
    }


def statefulset_revision() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": "postgres-7d9f8b6c5d",
            "namespace": NS,
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "postgres", "uid": "1a3c", "controller": True}
            ],
        },
        "data": {"spec": {"template": {"$patch": "replace"}}},
        "revision": 3,
    }


def vm(instancetype_rev: str = F1_NAME, preference_rev: str = F2_NAME, name: str = "vm-legacy") -> dict[str, Any]:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": name, "namespace": NS, "uid": VM_UID},
        "spec": {
            "runStrategy": "Always",
            "instancetype": {"kind": "VirtualMachineInstancetype", "name": "csmall", "revisionName": instancetype_rev},
            "preference": {"kind": "VirtualMachinePreference", "name": "cirros", "revisionName": preference_rev},
            "template": {"spec": {"domain": {"devices": {}}}},
        },
        "status": {
            "instancetypeRef": {
                "kind": "VirtualMachineInstancetype",
                "name": "csmall",
                "controllerRevisionRef": {"name": instancetype_rev},
            },
            "preferenceRef": {
                "kind": "VirtualMachinePreference",
                "name": "cirros",
                "controllerRevisionRef": {"name": preference_rev},
            },
        },
    }


def snapshot_content() -> dict[str, Any]:
    embedded = vm(SNAP_NAME, F2_NAME)
    embedded.pop("status")
    embedded["spec"]["preference"].pop("revisionName")
    return {
        "apiVersion": "snapshot.kubevirt.io/v1beta1",
        "kind": "VirtualMachineSnapshotContent",
        "metadata": {"name": "vmsnapshot-content-1", "namespace": NS},
        "spec": {"source": {"virtualMachine": embedded}, "virtualMachineSnapshotName": "snap-1"},
    }


def instancetype_v1alpha2() -> dict[str, Any]:
    return {
        "apiVersion": "instancetype.kubevirt.io/v1alpha2",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": "csmall", "namespace": NS, "uid": IT_UID, "generation": 1},
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "128Mi"}},
    }


def pod() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "virt-launcher-vm-legacy-x7k2p",
            "namespace": NS,
            "ownerReferences": [
                {
                    "apiVersion": "kubevirt.io/v1",
                    "kind": "VirtualMachineInstance",
                    "name": "vm-legacy",
                    "uid": "9c1e",
                    "controller": True,
                }
            ],
        },
        "spec": {"containers": [{"name": "compute", "image": "virt-launcher"}]},
    }


def velero_entries() -> list[tuple[str, bytes]]:
    """(path, bytes) in the order Velero writes them (a regular file each)."""
    ns = f"namespaces/{NS}"
    out = [("metadata/version", b"1.1.0\n")]
    for prefix in ("", "v1-preferredversion/"):
        out += [
            (f"{CR_DIR}/{prefix}{ns}/{F1_NAME}.json", compact(f1_revision())),
            (f"{CR_DIR}/{prefix}{ns}/{F2_NAME}.json", compact(f2_revision())),
            (f"{CR_DIR}/{prefix}{ns}/{SNAP_NAME}.json", compact(snapshot_revision())),
            (f"{CR_DIR}/{prefix}{ns}/postgres-7d9f8b6c5d.json", compact(statefulset_revision())),
        ]
    for prefix in ("", "v1alpha2-preferredversion/"):
        out.append((f"{IT_DIR}/{prefix}{ns}/csmall.json", compact(instancetype_v1alpha2())))
    for prefix in ("", "v1-preferredversion/"):
        out += [
            (f"resources/pods/{prefix}{ns}/virt-launcher-vm-legacy-x7k2p.json", compact(pod())),
            (f"{VM_DIR}/{prefix}{ns}/vm-legacy.json", compact(vm())),
        ]
    for prefix in ("", "v1beta1-preferredversion/"):
        out.append((f"{VMSC_DIR}/{prefix}{ns}/vmsnapshot-content-1.json", compact(snapshot_content())))
    return out


def make_tar(path: Path, entries: list[tuple[str, bytes]], extra: list[tarfile.TarInfo] | None = None) -> Path:
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        for i, (name, data) in enumerate(entries):
            ti = tarfile.TarInfo(name)
            ti.size, ti.mode, ti.mtime = len(data), 0o644 if i % 2 else 0o600, MTIME + i
            ti.uid, ti.gid, ti.uname, ti.gname = 1000 + i, 2000 + i, "velero", "nogroup"
            tf.addfile(ti, io.BytesIO(data))
        for ti in extra or []:
            tf.addfile(ti)
    return path


def link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    ti = tarfile.TarInfo(name)
    ti.type, ti.linkname, ti.mtime, ti.mode = kind, target, MTIME, 0o777
    return ti


def read_tar(path: Path) -> list[tuple[tarfile.TarInfo, bytes | None]]:
    out = []
    with tarfile.open(path, "r:gz") as tf:
        for m in tf.getmembers():
            fh = tf.extractfile(m) if m.isreg() else None
            out.append((m, fh.read() if fh else None))
    return out


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def backup(tmp_path: Path) -> Path:
    extra = [link("metadata/version-link", "version")]
    d = tarfile.TarInfo("resources/extra-dir")
    d.type, d.mode, d.mtime = tarfile.DIRTYPE, 0o755, MTIME
    extra.append(d)
    return make_tar(tmp_path / "backup.tar.gz", velero_entries(), extra)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out + captured.err  # the report (stdout) and the messages (stderr)


def header(m: tarfile.TarInfo) -> tuple[Any, ...]:
    return (m.mode, m.mtime, m.uid, m.gid, m.uname, m.gname, m.type, m.linkname)


KUBEVIRT_CHANGED = {F1_NAME, F2_NAME, SNAP_NAME, "csmall"}


def check_entries(src: Path, out: Path, renamed: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Every entry: same order, header fields, bytes unless upgraded; upgraded ones compact v1beta1 JSON."""
    before, after = read_tar(src), read_tar(out)
    assert len(before) == len(after)
    upgraded: dict[str, dict[str, Any]] = {}
    for (m0, d0), (m1, d1) in zip(before, after, strict=True):
        stem = m0.name.rsplit("/", 1)[-1].removesuffix(".json")
        expected_name = m0.name.replace(stem + ".json", renamed[stem] + ".json") if stem in renamed else m0.name
        assert m1.name == expected_name
        assert header(m1) == header(m0), m0.name
        if d0 is None:
            assert d1 is None
            continue
        assert d1 is not None
        if stem not in KUBEVIRT_CHANGED and stem != "vm-legacy":
            assert d1 == d0, m0.name
            continue
        if d1 == d0:
            continue
        assert b"\n" not in d1 and b": " not in d1 and b", " not in d1, f"{m0.name} is no longer compact"
        obj = json.loads(d1)
        upgraded[m1.name] = obj
        if obj["kind"] == "ControllerRevision":
            assert obj["data"]["apiVersion"] == "instancetype.kubevirt.io/v1beta1"
            assert obj["metadata"]["labels"]["instancetype.kubevirt.io/object-version"] == "v1beta1"
        elif obj["kind"] == "VirtualMachineInstancetype":
            assert obj["apiVersion"] == "instancetype.kubevirt.io/v1beta1"
    return upgraded


def test_fix_backup_every_entry(backup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    digest = sha(backup)
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(backup), "-o", str(out)], capsys)
    assert code == 1, err
    assert sha(backup) == digest
    upgraded = check_entries(backup, out, {})
    # F1, F2, snapshot-owned revisions (both copies of the first two), both instancetype copies
    assert len(upgraded) == 2 + 2 + 2 + 2
    snap = upgraded[f"{CR_DIR}/namespaces/{NS}/{SNAP_NAME}.json"]
    assert snap["metadata"]["name"] == SNAP_NAME
    f1 = upgraded[f"{CR_DIR}/v1-preferredversion/namespaces/{NS}/{F1_NAME}.json"]
    assert f1["data"]["metadata"]["name"] == "csmall" and f1["data"]["metadata"]["uid"] == IT_UID
    assert "backup.version-dir" in err and "v1alpha2-preferredversion" in err
    assert not list(tmp_path.glob(".instancetype-upgrade.*"))


def test_rename_keeps_vm_and_revision_consistent(
    backup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(backup), "-o", str(out), "--rename"], capsys)
    assert code == 1, err
    upgraded = check_entries(backup, out, {F1_NAME: F1_NEW, F2_NAME: F2_NEW})
    names = {o["metadata"]["name"] for o in upgraded.values() if o["kind"] == "ControllerRevision"}
    assert names == {F1_NEW, F2_NEW, SNAP_NAME}
    for prefix in ("", "v1-preferredversion/"):
        v = upgraded[f"{VM_DIR}/{prefix}namespaces/{NS}/vm-legacy.json"]
        assert v["spec"]["instancetype"]["revisionName"] == F1_NEW
        assert v["spec"]["preference"]["revisionName"] == F2_NEW
        assert v["status"]["instancetypeRef"]["controllerRevisionRef"]["name"] == F1_NEW
        for new in (F1_NEW, F2_NEW):  # file name = object name (Velero looks items up by path)
            path = f"{CR_DIR}/{prefix}namespaces/{NS}/{new}.json"
            assert upgraded[path]["metadata"]["name"] == new
    # the snapshot content's VM references the snapshot-owned revision, which kept its name
    contents = [(m, d) for m, d in read_tar(out) if m.name.startswith(VMSC_DIR)]
    for _m, data in contents:
        assert data is not None
        embedded = json.loads(data)["spec"]["source"]["virtualMachine"]
        assert embedded["spec"]["instancetype"]["revisionName"] == SNAP_NAME
    assert err.count(f"renamed ControllerRevision {NS}/{F1_NAME} -> {F1_NEW}") == 1  # once, not per copy


def test_check_writes_nothing(backup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = sorted(os.listdir(tmp_path))
    code, err = run(["backup", str(backup), "--check", "--format", "json"], capsys)
    assert code == 1
    report = json.loads(err)
    assert report["command"] == "check"
    assert report["summary"]["files_changed"] == 8
    assert report["summary"]["files_seen"] == len(velero_entries())  # files, not the 2 directory entries
    assert sorted(os.listdir(tmp_path)) == before


def test_nothing_to_change_is_a_byte_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entries = [
        ("metadata/version", b"1.1.0\n"),
        (f"resources/pods/namespaces/{NS}/p.json", compact(pod())),
        (f"{CR_DIR}/namespaces/{NS}/postgres.json", compact(statefulset_revision())),
    ]
    src = make_tar(tmp_path / "in.tar.gz", entries)
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out)], capsys)
    assert code == 0, err
    assert out.read_bytes() == src.read_bytes()


def test_rerun_on_output_changes_nothing(backup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, again = tmp_path / "out.tar.gz", tmp_path / "again.tar.gz"
    assert run(["backup", str(backup), "-o", str(out), "--rename"], capsys)[0] == 1
    code, err = run(["backup", str(out), "-o", str(again), "--rename"], capsys)
    assert code == 0, err
    assert again.read_bytes() == out.read_bytes()


@pytest.mark.parametrize(
    "bad",
    [
        [("../evil", b"x")],
        [("/etc/evil", b"x")],
        [("resources/a/../../evil", b"x")],
    ],
)
def test_refuses_unsafe_paths(bad: list[tuple[str, bytes]], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_tar(tmp_path / "in.tar.gz", [("metadata/version", b"1.1.0\n"), *bad])
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out)], capsys)
    assert code == 3
    assert "unsafe entries" in err
    assert not out.exists() and not list(tmp_path.glob(".instancetype-upgrade.*"))


@pytest.mark.parametrize(
    "ti",
    [
        link("metadata/escape", "../../etc/passwd"),
        link("metadata/abs", "/etc/passwd"),
        link("metadata/hard", "../outside", tarfile.LNKTYPE),
        link("resources/dir", "../.."),
    ],
)
def test_refuses_escaping_links(ti: tarfile.TarInfo, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_tar(tmp_path / "in.tar.gz", [("metadata/version", b"1.1.0\n")], [ti])
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out)], capsys)
    assert code == 3, err
    assert "outside the archive" in err or "absolute path" in err
    assert not out.exists()


def test_refuses_entries_below_a_symlink(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_tar(tmp_path / "in.tar.gz", [], [link("a", "."), link("a/b", "x")])
    code, err = run(["backup", str(src), "--check"], capsys)
    assert code == 3 and "below a symbolic link" in err


def test_corrupt_gzip(backup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = bytearray(backup.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(bytes(data))
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(bad), "-o", str(out)], capsys)
    assert code == 3
    assert "not a readable gzip-compressed tar archive" in err or "corrupt" in err
    assert not out.exists() and not list(tmp_path.glob(".instancetype-upgrade.*"))


@pytest.mark.parametrize("content", [b"", b"not gzip at all", b"PK\x03\x04zip"])
def test_not_a_gzip_tar(content: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(content)
    code, err = run(["backup", str(bad), "-o", str(tmp_path / "o.tar.gz")], capsys)
    assert code == 3 and "not a readable gzip-compressed tar archive" in err


def test_truncated(backup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(backup.read_bytes()[:-20])
    code, err = run(["backup", str(bad), "--check"], capsys)
    assert code == 3 and "truncated" in err


def test_failed_member_copied_unchanged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = (
        b'{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"x","namespace":"d",'
        b'"ownerReferences":[{"apiVersion":"kubevirt.io/v1","kind":"VirtualMachine","name":"v",'
        b'"controller":true}]},"data":{"apiVersion":"","spec":"!!!notbase64"}'
    )
    entries = [
        ("metadata/version", b"1.1.0\n"),
        (f"{CR_DIR}/namespaces/d/x.json", broken),
        (f"{CR_DIR}/namespaces/{NS}/{F2_NAME}.json", compact(f2_revision())),
    ]
    src = make_tar(tmp_path / "in.tar.gz", entries)
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out)], capsys)
    assert code == 3, err
    after = read_tar(out)
    assert after[1][1] == broken
    assert json.loads(after[2][1] or b"")["data"]["apiVersion"] == "instancetype.kubevirt.io/v1beta1"


def test_usage_errors(backup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["backup", str(backup)], capsys)[0] == 2
    assert run(["backup", str(backup), "--check", "-o", str(tmp_path / "o")], capsys)[0] == 2
    digest = sha(backup)
    assert run(["backup", str(backup), "-o", str(backup)], capsys)[0] == 2
    assert sha(backup) == digest


def test_subprocess(backup: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.tar.gz"
    proc = run_module("backup", str(backup), "-o", str(out), "-q", text=True, cwd=None)
    assert proc.returncode == 1, proc.stderr
    check_entries(backup, out, {})


def test_extracted_backup_through_fix(backup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "extracted"
    with tarfile.open(backup, "r:gz") as tf:
        tf.extractall(root, filter="data")
    code, err = run(["fix", str(root), "--rename"], capsys)
    assert code == 1, err
    vm_file = json.loads((root / VM_DIR / "namespaces" / NS / "vm-legacy.json").read_text())
    assert vm_file["spec"]["instancetype"]["revisionName"] == F1_NEW
    cr = (root / CR_DIR / "namespaces" / NS / f"{F1_NAME}.json").read_bytes()  # fix keeps file names
    assert b"\n" not in cr and json.loads(cr)["metadata"]["name"] == F1_NEW
    pod_file = root / "resources/pods/namespaces" / NS / "virt-launcher-vm-legacy-x7k2p.json"
    assert pod_file.read_bytes() == compact(pod())


@pytest.mark.integration
def test_backup_repacked_with_real_tar_dot(backup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A backup unpacked and repacked with `tar czf x.tar.gz .` has `./resources/...` members: still upgraded."""
    root = tmp_path / "unpacked"
    root.mkdir()
    subprocess.run(["tar", "xzf", str(backup), "-C", str(root)], check=True)
    repacked = tmp_path / "repacked.tar.gz"
    subprocess.run(["tar", "czf", str(repacked), "-C", str(root), "."], check=True)
    with tarfile.open(repacked, "r:gz") as tf:
        assert any(n.startswith("./resources/") for n in tf.getnames())
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(repacked), "-o", str(out), "--rename"], capsys)
    assert code == 1, err
    with tarfile.open(out, "r:gz") as tf:
        names = tf.getnames()
        f1 = tf.extractfile(f"./{CR_DIR}/namespaces/{NS}/{F1_NEW}.json")
        assert f1 is not None and json.loads(f1.read())["metadata"]["name"] == F1_NEW
        vm = tf.extractfile(f"./{VM_DIR}/namespaces/{NS}/vm-legacy.json")
        assert vm is not None and json.loads(vm.read())["spec"]["instancetype"]["revisionName"] == F1_NEW
    assert all(n == "." or n.startswith("./") for n in names)  # member names keep their form


def test_gzip_header_and_tar_format_kept(backup: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "gnu.tar.gz"
    with tarfile.open(src, "w:gz", format=tarfile.GNU_FORMAT) as tf:
        data = compact(instancetype_v1alpha2())
        ti = tarfile.TarInfo(f"{IT_DIR}/namespaces/{NS}/" + "c" * 120 + ".json")
        ti.size = len(data)
        tf.addfile(ti, io.BytesIO(data))
    out = tmp_path / "out.tar.gz"
    assert run(["backup", str(src), "-o", str(out)], capsys)[0] == 1
    raw = gzip.decompress(out.read_bytes())
    assert raw[257:265] == b"ustar  \0"  # GNU in, GNU out
    assert read_tar(out)[0][0].name == ti.name


def test_hardlink_follows_a_renamed_revision(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = f"{CR_DIR}/namespaces/{NS}/{F1_NAME}.json"
    entries = [
        ("metadata/version", b"1.1.0\n"),
        (old, compact(f1_revision())),
        (f"{VM_DIR}/namespaces/{NS}/vm-legacy.json", compact(vm())),
    ]
    src = make_tar(tmp_path / "in.tar.gz", entries, [link("metadata/hard", old, tarfile.LNKTYPE)])
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out), "--rename"], capsys)
    assert code == 1, err
    members = [m for m, _ in read_tar(out)]
    new = f"{CR_DIR}/namespaces/{NS}/{F1_NEW}.json"
    assert members[1].name == new and members[-1].linkname == new


def test_items_of_other_resources_are_not_parsed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a v1alpha2 object stored under an unrelated resource directory is not an item we upgrade
    odd = compact(instancetype_v1alpha2())
    entries = [(f"resources/configmaps/namespaces/{NS}/odd.json", odd)]
    src = make_tar(tmp_path / "in.tar.gz", entries)
    code, err = run(["backup", str(src), "-o", str(tmp_path / "out.tar.gz")], capsys)
    assert code == 0, err
    assert read_tar(tmp_path / "out.tar.gz")[0][1] == odd
