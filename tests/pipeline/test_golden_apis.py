"""Golden trees for every KubeVirt and CDI group/version (fixtures/apis/): a GitOps repo, a
`kubectl get -o yaml` export and a Velero backup (packed into a tarball here) upgrade in one run to
the reviewed output, keep every comment, come back unchanged on a second run, and the upgraded
objects validate against the target's real schemas.

Regenerate after a deliberate change with INSTANCETYPE_UPGRADE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import io
import json
import os
import pathlib
import re
import shutil
import tarfile

import pytest
import yaml

from transform.cli.main import main
from transform.validate import documents

ROOT = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "apis"
BEFORE, AFTER = ROOT / "before", ROOT / "after"
REGENERATE = os.environ.get("INSTANCETYPE_UPGRADE_GOLDEN") == "1"
OLD = re.compile(r"kubevirt\.io/v1alpha[123]|export\.kubevirt\.io/v1beta1")


def files(root: pathlib.Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def comments(data: bytes) -> list[str]:
    return [line.split("#", 1)[1].strip() for line in data.decode().splitlines() if "#" in line and "://" not in line]


@pytest.mark.parametrize("tree", ["gitops", "export"])
def test_tree_upgrades_in_one_run(tree: str, tmp_path: pathlib.Path) -> None:
    work = tmp_path / tree
    shutil.copytree(BEFORE / tree, work)
    assert main(["fix", "-q", str(work)]) == 1
    if REGENERATE:
        shutil.rmtree(AFTER / tree, ignore_errors=True)
        shutil.copytree(work, AFTER / tree)
    assert files(work) == files(AFTER / tree)
    for name, data in files(BEFORE / tree).items():
        assert comments(data) == comments(files(AFTER / tree)[name]), name
    assert main(["fix", "-q", str(work)]) == 0  # a second run changes nothing
    assert files(work) == files(AFTER / tree)


def _objects(root: pathlib.Path) -> list[tuple[str, dict]]:
    out = []
    for name, data in files(root).items():
        if not name.endswith((".yaml", ".json")) or name.endswith("kustomization.yaml"):
            continue
        for doc in yaml.safe_load_all(data):
            for obj in doc.get("items") or [doc] if isinstance(doc, dict) else []:
                out.append((name, obj))
                if obj.get("kind") == "Template":
                    out += [(name, o) for o in obj.get("objects", [])]
    return out


@pytest.mark.parametrize("tree", ["gitops", "export", "velero"])
def test_upgraded_objects_are_current_and_valid_on_the_target(tree: str) -> None:
    for name, obj in _objects(AFTER / tree):
        api = str(obj.get("apiVersion"))
        if obj.get("kind") != "CDI":  # the CDI operator CR keeps v1alpha1 on purpose
            assert not OLD.search(api), (name, api)
        obj = json.loads(json.dumps(obj).replace("${NAME}", "rendered"))  # template parameters, rendered
        found = documents.validate_document(obj, target=(1, 9))
        assert [str(f) for f in found if f.severity.value == "error"] == [], name


def _pack(root: pathlib.Path, out: pathlib.Path) -> pathlib.Path:
    with tarfile.open(out, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        for name, data in files(root).items():
            member = "metadata/version" if name == "metadata-version" else name
            info = tarfile.TarInfo(member)
            info.size, info.mtime, info.mode = len(data), 1_700_000_000, 0o644
            tf.addfile(info, io.BytesIO(data))
    return out


def _member(tf: tarfile.TarFile, m: tarfile.TarInfo) -> bytes:
    f = tf.extractfile(m)
    assert f is not None, m.name
    return f.read()


def _unpack(tarball: pathlib.Path) -> dict[str, bytes]:
    with tarfile.open(tarball, "r:gz") as tf:
        return {
            ("metadata-version" if m.name == "metadata/version" else m.name): _member(tf, m)
            for m in tf.getmembers()
            if m.isreg()
        }


def test_velero_backup_upgrades_every_old_group_directory(tmp_path: pathlib.Path) -> None:
    src = _pack(BEFORE / "velero", tmp_path / "backup.tar.gz")
    out = tmp_path / "upgraded.tar.gz"
    assert main(["backup", "-q", str(src), "-o", str(out)]) == 1
    got = _unpack(out)
    if REGENERATE:
        shutil.rmtree(AFTER / "velero", ignore_errors=True)
        for name, data in got.items():
            (AFTER / "velero" / name).parent.mkdir(parents=True, exist_ok=True)
            (AFTER / "velero" / name).write_bytes(data)
    assert got == files(AFTER / "velero")
    again = tmp_path / "again.tar.gz"
    assert main(["backup", "-q", str(out), "-o", str(again)]) == 0
    assert _unpack(again) == got
    # the snapshot's copy of an instancetype revision: payload upgraded, owner apiVersion too
    name = next(n for n in got if n.startswith("resources/controllerrevisions.apps/"))
    revision = json.loads(got[name])
    assert revision["data"]["apiVersion"] == "instancetype.kubevirt.io/v1beta1"
    assert revision["metadata"]["ownerReferences"][0]["apiVersion"] == "snapshot.kubevirt.io/v1beta1"
    # items Velero keeps outside the KubeVirt groups are copied byte for byte (pods)
    pod = "resources/pods/namespaces/vms/virt-launcher-db-abcde.json"
    assert got[pod] == files(BEFORE / "velero")[pod]
