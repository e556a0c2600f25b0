"""A document is validated once per run (issue 20 §2), whatever the command.

The validators' entry points are wrapped to count their calls per document (by its JSON text): the
schema walk (`crds.validate_object`), the whole judgement of a document (`documents.validate_document`)
and KubeVirt's payload decoder (`decoding.decode`). Each command runs in this process over inputs that
hold every kind of document the judge treats differently: an old instancetype (upgraded), a current
preference (left as it is), a revision with a whole v1alpha2 payload, one with a v1alpha1 wrapper, a
current revision (left as it is), a VM and another KubeVirt group's object.
"""

from __future__ import annotations

import base64
import collections
import io
import json
import pathlib
import tarfile
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support.cli import invoke
from transform.validate import crds, decoding, documents

UID = "2b0f9f6e-7f7e-4a59-9d35-0b7c59a2d1aa"
IT = {"cpu": {"guest": 1}, "memory": {"guest": "128Mi"}}

DOCS: list[dict[str, Any]] = [
    {
        "apiVersion": "instancetype.kubevirt.io/v1alpha1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": "small", "namespace": "default"},
        "spec": IT,
    },
    {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachinePreference",
        "metadata": {"name": "pref", "namespace": "default"},
        "spec": {"cpu": {"preferredCPUTopology": "preferSockets"}},
    },
    {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {"name": "vm-small-1", "namespace": "default"},
        "data": {
            "apiVersion": "instancetype.kubevirt.io/v1alpha2",
            "kind": "VirtualMachineInstancetype",
            "metadata": {"name": "small", "namespace": "default", "uid": UID, "generation": 1},
            "spec": {"cpu": {"guest": 2}, "memory": {"guest": "256Mi"}},
        },
        "revision": 1,
    },
    {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": f"vm-pref-{UID}-1",
            "namespace": "default",
            "ownerReferences": [
                {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "name": "vm", "uid": UID, "controller": True}
            ],
        },
        "data": {
            "apiVersion": "",
            "spec": base64.b64encode(json.dumps({"cpu": {"preferredCPUTopology": "preferCores"}}).encode()).decode(),
        },
        "revision": 1,
    },
    {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": f"vm-cur-v1beta1-{UID}-1",
            "namespace": "default",
            "labels": {"instancetype.kubevirt.io/object-version": "v1beta1"},
        },
        "data": {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineInstancetype",
            "metadata": {"name": "cur", "namespace": "default"},
            "spec": {"cpu": {"guest": 3}, "memory": {"guest": "512Mi"}, "bogus": 1},
        },
        "revision": 1,
    },
    {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm", "namespace": "default", "uid": UID},
        "spec": {
            "runStrategy": "Halted",
            "instancetype": {"name": "small", "revisionName": "vm-small-1"},
            "preference": {"name": "pref", "revisionName": f"vm-pref-{UID}-1"},
            "template": {"spec": {"domain": {"devices": {}}}},
        },
    },
    {
        "apiVersion": "pool.kubevirt.io/v1alpha1",
        "kind": "VirtualMachinePool",
        "metadata": {"name": "pool", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {},
            "virtualMachineTemplate": {"spec": {"template": {"spec": {"domain": {"devices": {}}}}}},
        },
    },
]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[collections.Counter[tuple[str, str]]]:
    calls: collections.Counter[tuple[str, str]] = collections.Counter()

    def wrap(module: Any, name: str) -> None:
        original: Callable[..., Any] = getattr(module, name)

        def counting(obj: Any, *args: Any, **kwargs: Any) -> Any:
            calls[(name, json.dumps(obj, sort_keys=True, default=str))] += 1
            return original(obj, *args, **kwargs)

        monkeypatch.setattr(module, name, counting)

    wrap(crds, "validate_object")
    wrap(documents, "validate_document")
    wrap(decoding, "decode")
    yield calls


def _stream() -> str:
    return "---\n".join(json.dumps(d, indent=2) + "\n" for d in DOCS)


def _backup(path: pathlib.Path) -> None:
    """A Velero backup holding every document twice (the classic path and the preferred version's)."""
    with tarfile.open(path, "w:gz") as tf:

        def add(name: str, data: bytes) -> None:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))

        add("metadata/version", b"1.1.0\n")
        for d in DOCS:
            group = d["apiVersion"].rpartition("/")[0]
            resource = d["kind"].lower() + "s" + (f".{group}" if group else "")
            version = d["apiVersion"].rpartition("/")[2]
            data = json.dumps(d).encode()
            name = d["metadata"]["name"]
            add(f"resources/{resource}/namespaces/default/{name}.json", data)
            add(f"resources/{resource}/{version}-preferredversion/namespaces/default/{name}.json", data)


def _resource_list() -> str:
    return json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": DOCS}, indent=2)


@pytest.mark.parametrize("command", ["fix", "check", "diff", "validate", "scan", "backup", "krm"])
def test_every_document_is_validated_once(
    tmp_path: pathlib.Path, counted: collections.Counter[tuple[str, str]], command: str
) -> None:
    stdin = None
    if command == "backup":
        _backup(tmp_path / "backup.tar.gz")
        args = ["backup", str(tmp_path / "backup.tar.gz"), "-o", str(tmp_path / "out.tar.gz")]
    elif command == "krm":
        args, stdin = ["krm"], _resource_list()
    else:
        (tmp_path / "all.yaml").write_text(_stream())
        args = [command, "-j", "1", str(tmp_path / "all.yaml")] if command != "scan" else ["scan", str(tmp_path)]
        if command == "validate":
            args.remove("-j")
            args.remove("1")
    result = invoke(*args, input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert counted, "nothing was validated: the counting wrappers are not on the path the command takes"
    again = {key: n for key, n in counted.items() if n > 1}
    assert again == {}, f"{command}: validated more than once: {again}"


def test_a_failed_file_is_not_upgraded_again(
    tmp_path: pathlib.Path, counted: collections.Counter[tuple[str, str]]
) -> None:
    """--strict fails the file (its warnings are errors), so its revision keeps its name: the file's VM
    references need no second upgrade, its documents no second judgement."""
    (tmp_path / "all.yaml").write_text(_stream())
    result = invoke("check", "--strict", "--rename", "-j", "1", str(tmp_path / "all.yaml"))
    assert result.exit_code == 3, result.output
    again = {key: n for key, n in counted.items() if n > 1 and key[0] != "decode"}
    assert again == {}, f"validated more than once: {again}"
