"""Hostile Helm release records (issue 32, item 1): a release JSON nested 100,000 levels deep, a
manifest holding a lone surrogate escape. Each is a `helm.bad-release` error naming the record, the
record left as it is (exit 3), every other file and backup member still processed and written."""

from __future__ import annotations

import json
import pathlib
import subprocess
from typing import Any

import pytest

from tests.integrations.test_helm_releases import (
    MANIFEST,
    decoded,
    go_json,
    only_manifest_changed,
    record,
    release,
    run,
    velero_tree,
)

DEEP = 100_000


def deep_release() -> str:
    """A release whose `config` nests DEEP arrays (Python's json recursion limit is ~1,000)."""
    return '{"name":"vms","manifest":' + json.dumps(MANIFEST) + ',"config":' + "[" * DEEP + "]" * DEEP + "}"


def surrogate_release() -> str:
    """A release whose manifest starts with `\\ud800`: JSON text, but no string UTF-8 can hold."""
    return go_json(release(1, "deployed")).replace('"manifest":"', '"manifest":"\\ud800', 1)


HOSTILE = {"deep": (deep_release, "nests deeper than 200 levels"), "surrogate": (surrogate_release, "\\ud800")}


def hostile_record(which: str, kind: str, name: str = "broken") -> dict[str, Any]:
    obj = record(1, "deployed", kind, text=HOSTILE[which][0]())
    obj["metadata"]["name"] = f"sh.helm.release.v1.{name}.v1"
    obj["metadata"]["labels"]["name"] = name
    return obj


@pytest.mark.parametrize("kind", ["Secret", "ConfigMap"])
@pytest.mark.parametrize("which", sorted(HOSTILE))
@pytest.mark.parametrize("command", ["check", "fix", "scan"])
def test_a_record_that_cannot_be_decoded_is_an_error_naming_it(
    command: str, which: str, kind: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = hostile_record(which, kind)
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    (tmp_path / "good.json").write_text(json.dumps(record(1, "deployed", kind)))
    code, out = run([command, str(tmp_path)], capsys)
    assert code == 3, out
    assert "[helm.bad-release]" in out and "bad.json" in out and "broken v1" in out and HOSTILE[which][1] in out
    assert "internal error" not in out
    assert json.loads((tmp_path / "bad.json").read_text()) == bad  # left as it is
    if command == "fix":
        assert "good.json" in out and json.loads((tmp_path / "good.json").read_text()) != record(1, "deployed", kind)
    if command == "scan":
        assert "Helm release default/vms v1: VirtualMachineInstancetype/small in its manifest" in out


@pytest.mark.integration
@pytest.mark.parametrize("which", sorted(HOSTILE))
def test_backup_writes_every_other_member(
    which: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "src"
    secrets = "resources/secrets/namespaces/default"
    cms = "resources/configmaps/namespaces/default"
    good = f"{secrets}/sh.helm.release.v1.vms.v2.json"
    members = {
        good: record(2, "deployed"),
        f"{secrets}/sh.helm.release.v1.broken.v1.json": hostile_record(which, "Secret"),
        f"{cms}/sh.helm.release.v1.other.v1.json": hostile_record(which, "ConfigMap", "other"),
        f"{secrets}/plain.json": {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "plain"}},
    }
    velero_tree(src, members)
    backup, out_tar = tmp_path / "b.tar.gz", tmp_path / "out.tar.gz"
    subprocess.run(["tar", "czf", str(backup), "-C", str(src), "."], check=True)
    code, out = run(["backup", str(backup), "-o", str(out_tar)], capsys)
    assert code == 3, out
    assert "internal error" not in out and out.count("[helm.bad-release]") == 2
    assert "sh.helm.release.v1.broken.v1" in out and "sh.helm.release.v1.other.v1" in out
    dest = tmp_path / "dest"
    dest.mkdir()
    subprocess.run(["tar", "xzf", str(out_tar), "-C", str(dest)], check=True)
    only_manifest_changed(decoded(members[good]), decoded(json.loads((dest / good).read_text())))
    for rel in members:
        if rel != good:
            assert (dest / rel).read_bytes() == (src / rel).read_bytes()


# ---- item 8: records as the items of a `kind: List` (what `kubectl get secrets -o yaml` writes) ----


def secret_list(*items: dict[str, Any]) -> str:
    import yaml

    return yaml.safe_dump(
        {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": list(items)}
    )


@pytest.mark.parametrize("kind", ["Secret", "ConfigMap"])
def test_records_in_a_list_are_upgraded_as_lone_records(
    kind: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: "nothing would break", exit 0, the records left at old versions."""
    import yaml

    old = record(1, "superseded", kind)
    new = record(2, "deployed", kind)
    other = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "plain"}, "type": "Opaque"}
    path = tmp_path / "secrets.yaml"
    path.write_text(secret_list(old, new, other))
    code, out = run(["scan", str(path)], capsys)
    assert code == 1 and "Helm release default/vms v2: VirtualMachineInstancetype/small in its manifest" in out, out
    code, out = run(["check", str(path)], capsys)
    assert code == 1 and "[helm.release-upgraded]" in out and "vms v2" in out and "vms v1" not in out, out
    assert "items[1].data.release" in out
    code, out = run(["fix", str(path)], capsys)
    assert code == 1, out
    got = yaml.safe_load(path.read_text())["items"]
    only_manifest_changed(decoded(new), decoded(got[1]))
    assert got[0] == old and got[2] == other  # the superseded revision (default: latest) and the rest kept
    assert {k: v for k, v in got[1].items() if k != "data"} == {k: v for k, v in new.items() if k != "data"}
    assert run(["check", str(path)], capsys)[0] == 0


def test_a_bad_record_in_a_list_is_named_and_the_file_left(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "secrets.yaml"
    text = secret_list(hostile_record("deep", "Secret"), record(1, "deployed"))
    path.write_text(text)
    code, out = run(["fix", str(path)], capsys)
    assert code == 3 and "[helm.bad-release]" in out and "items[0].data.release" in out, out
    assert path.read_text() == text
