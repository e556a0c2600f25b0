"""Helm release records (Secrets of type helm.sh/release.v1, Helm's ConfigMaps): exported files and
Velero backups (real `tar`). Records are built here as Helm writes them (pkg/storage/driver/util.go:
json.Marshal, gzip BestCompression, base64 StdEncoding; a Secret's data base64 once more)."""

from __future__ import annotations

import base64
import gzip
import json
import pathlib
import subprocess
from typing import Any

import pytest

from transform.cli.main import main

MANIFEST = """---
# Source: vms/templates/it.yaml
apiVersion: instancetype.kubevirt.io/v1alpha2
kind: VirtualMachineInstancetype
metadata:
  name: small
spec:
  cpu:
    guest: 1
  memory:
    guest: 1Gi
---
# Source: vms/templates/vm.yaml
apiVersion: kubevirt.io/v1alpha3
kind: VirtualMachine
metadata:
  name: vm
spec:
  runStrategy: Halted
  instancetype:
    kind: VirtualMachineInstancetype
    name: small
  template:
    spec:
      domain:
        devices: {}
---
# Source: vms/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: notes
data:
  note: "<b>tom & jerry</b> \u00e9t\u00e9 \\\\ tab\\t"
"""
UPGRADED = MANIFEST.replace("instancetype.kubevirt.io/v1alpha2", "instancetype.kubevirt.io/v1beta1").replace(
    "apiVersion: kubevirt.io/v1alpha3", "apiVersion: kubevirt.io/v1"
)


def go_json(obj: Any) -> str:
    """json.Marshal: compact, HTML-safe, UTF-8 kept."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def release(version: int, status: str, manifest: str = MANIFEST) -> dict[str, Any]:
    return {
        "name": "vms",
        "info": {"first_deployed": "2025-01-01T00:00:00Z", "status": status, "notes": "<i>see</i>"},
        "chart": {"metadata": {"name": "vms", "version": "0.1.0"}, "templates": []},
        "config": {"replicas": 1},
        "manifest": manifest,
        "version": version,
        "namespace": "default",
    }


def helm_string(text: str, gzipped: bool = True) -> str:
    raw = text.encode()
    return base64.b64encode(gzip.compress(raw, 9) if gzipped else raw).decode()


def record(version: int, status: str, kind: str = "Secret", text: str | None = None) -> dict[str, Any]:
    rel = helm_string(text if text is not None else go_json(release(version, status)))
    obj: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": kind,
        "metadata": {
            "name": f"sh.helm.release.v1.vms.v{version}",
            "namespace": "default",
            "labels": {"name": "vms", "owner": "helm", "status": status, "version": str(version)},
        },
        "data": {"release": base64.b64encode(rel.encode()).decode() if kind == "Secret" else rel},
    }
    if kind == "Secret":
        obj["type"] = "helm.sh/release.v1"
    return obj


def decoded(obj: dict[str, Any]) -> str:
    value = obj["data"]["release"]
    helm = base64.b64decode(value) if obj["kind"] == "Secret" else value.encode()
    raw = base64.b64decode(helm)
    return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    c = capsys.readouterr()
    return code, c.out + c.err


def only_manifest_changed(before: str, after: str) -> None:
    """The decoded record equals the original but for the manifest's apiVersion lines; every byte of
    the release JSON outside the manifest string is as it was."""
    old, new = json.loads(before), json.loads(after)
    assert new["manifest"] == UPGRADED
    changed = [(a, b) for a, b in zip(old["manifest"].split("\n"), new["manifest"].split("\n"), strict=True) if a != b]
    assert changed and all(a.startswith("apiVersion: ") and b.startswith("apiVersion: ") for a, b in changed)
    old.pop("manifest"), new.pop("manifest")
    assert old == new
    head = before.index('"manifest":"')
    assert after[:head] == before[:head]
    assert after.endswith(before[before.rindex('","version":') :])


@pytest.mark.parametrize("kind", ["Secret", "ConfigMap"])
def test_exported_record_yaml(kind: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    obj = record(3, "deployed", kind)
    head = f"apiVersion: v1\nkind: {kind}\nmetadata:  # exported\n  name: {obj['metadata']['name']}\n"
    labels = "  namespace: default\n  labels:\n    name: vms\n    owner: helm\n    status: deployed\n    version: '3'\n"
    tail = ("type: helm.sh/release.v1\n" if kind == "Secret" else "") + f"data:\n  release: {obj['data']['release']}\n"
    path = tmp_path / "rec.yaml"
    path.write_text(head + labels + tail)
    code, out = run(["check", str(path)], capsys)
    assert code == 1 and "[helm.release-upgraded]" in out and "manifest line 3" in out
    code, out = run(["fix", str(path)], capsys)
    assert code == 1, out
    text = path.read_text()
    assert text.startswith(head + labels)  # every other field as it was
    new_value = text.rsplit("release: ", 1)[1].strip()
    only_manifest_changed(decoded(obj), decoded({"kind": kind, "data": {"release": new_value}}))
    raw = base64.b64decode(base64.b64decode(new_value) if kind == "Secret" else new_value)
    assert raw[:4] == b"\x1f\x8b\x08\x00" and raw[8] == 2  # gzip, best compression (XFL 2), as Go writes it
    assert run(["check", str(path)], capsys)[0] == 0


def test_only_the_latest_deployed_revision_by_default(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for v, status in ((1, "superseded"), (2, "deployed"), (3, "failed")):
        (tmp_path / f"v{v}.json").write_text(json.dumps(record(v, status)))
    code, out = run(["check", str(tmp_path)], capsys)
    assert code == 1
    assert "vms v2" in out and "vms v1" not in out and "vms v3" not in out
    code, out = run(["check", "--helm-releases", "all", str(tmp_path)], capsys)
    assert "vms v1" in out and "vms v2" in out and "vms v3" in out
    assert run(["check", "--helm-releases", "none", str(tmp_path)], capsys)[0] == 0


@pytest.mark.parametrize(
    ("text", "says"),
    [
        pytest.param("not base64 at all!", "not base64", id="not-base64"),
        pytest.param(base64.b64encode(b"{not json").decode(), "not JSON", id="not-gzip-not-json"),
        pytest.param(base64.b64encode(gzip.compress(b"[1,2]")).decode(), "no manifest", id="not-a-release"),
        pytest.param(base64.b64encode(b"\x1f\x8b\x08garbage").decode(), "gzip", id="bad-gzip"),
    ],
)
def test_bad_records_are_refused(
    text: str, says: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    obj = record(1, "deployed")
    obj["data"]["release"] = base64.b64encode(text.encode()).decode()
    (tmp_path / "bad.json").write_text(json.dumps(obj))
    good = record(1, "deployed")
    good["metadata"]["namespace"] = "other"
    (tmp_path / "good.json").write_text(json.dumps(good))
    code, out = run(["fix", str(tmp_path)], capsys)
    assert code == 3
    assert "bad.json" in out and says in out and "[helm.bad-release]" in out
    assert json.loads((tmp_path / "bad.json").read_text()) == obj  # left as it was
    assert json.loads((tmp_path / "good.json").read_text()) != good  # the rest processed


def test_gzip_bomb_stops_at_the_limit(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    obj = record(1, "deployed", text=go_json(release(1, "deployed", MANIFEST + "#" * (4 << 20))))
    (tmp_path / "bomb.json").write_text(json.dumps(obj))
    code, out = run(["check", "--max-document-size", "1MiB", str(tmp_path)], capsys)
    assert code == 3 and "over the limit" in out


def velero_tree(root: pathlib.Path, members: dict[str, dict[str, Any]]) -> None:
    (root / "metadata").mkdir(parents=True)
    (root / "metadata" / "version").write_text("1\n")
    for rel, obj in members.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(obj, separators=(",", ":")))


@pytest.mark.integration
def test_velero_backup_real_tar(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    secrets = "resources/secrets/namespaces/default"
    bad = record(9, "deployed")
    bad["metadata"]["labels"]["name"] = bad["metadata"]["name"] = "sh.helm.release.v1.broken.v9"
    bad["data"]["release"] = base64.b64encode(b"garbage").decode()
    members = {
        f"{secrets}/sh.helm.release.v1.vms.v1.json": record(1, "superseded"),
        f"{secrets}/sh.helm.release.v1.vms.v2.json": record(2, "deployed"),
        f"{secrets}/sh.helm.release.v1.broken.v9.json": bad,
        f"{secrets}/other.json": {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "other"}},
    }
    velero_tree(src, members)
    backup, out_tar = tmp_path / "b.tar.gz", tmp_path / "out.tar.gz"
    subprocess.run(["tar", "czf", str(backup), "-C", str(src), "."], check=True)
    code, out = run(["scan", str(backup)], capsys)
    assert code == 3 and "[helm.bad-release]" in out  # the broken record; the others are listed
    assert "Helm release default/vms v2: VirtualMachineInstancetype/small in its manifest" in out
    assert "Helm release default/vms v1: VirtualMachineInstancetype/small" in out and "helm rollback" in out
    code, out = run(["backup", str(backup), "-o", str(out_tar)], capsys)
    assert code == 3, out  # the broken record: an error naming it; the rest is written
    assert "sh.helm.release.v1.broken.v9" in out and "[helm.bad-release]" in out
    dest = tmp_path / "dest"
    dest.mkdir()
    subprocess.run(["tar", "xzf", str(out_tar), "-C", str(dest)], check=True)
    got = {rel: json.loads((dest / rel).read_text()) for rel in members}
    v2 = f"{secrets}/sh.helm.release.v1.vms.v2.json"
    only_manifest_changed(decoded(members[v2]), decoded(got[v2]))
    assert {k: v for k, v in got[v2].items() if k != "data"} == {k: v for k, v in members[v2].items() if k != "data"}
    for rel in members:
        if rel != v2:
            assert (dest / rel).read_bytes() == (src / rel).read_bytes()


def test_scan_lists_releases_that_would_fail(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "v2.json").write_text(json.dumps(record(2, "deployed")))
    code, out = run(["scan", str(tmp_path)], capsys)
    assert code == 1
    assert "Helm release default/vms v2: VirtualMachineInstancetype/small in its manifest" in out
    assert "helm upgrade fails" in out
    code, out = run(["scan", "--format", "json", str(tmp_path)], capsys)
    kinds = {(g["kind"], g["apiVersion"]) for g in json.loads(out)["apis"]}
    assert ("VirtualMachine", "kubevirt.io/v1alpha3") in kinds


def test_config_key(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "v1.json").write_text(json.dumps(record(1, "superseded")))
    monkeypatch.chdir(tmp_path)
    assert run(["check", "v1.json"], capsys)[0] == 0
    (tmp_path / ".instancetype-upgrade.toml").write_text('helm-releases = "all"\n')
    assert run(["check", "v1.json"], capsys)[0] == 1
