"""Bad input, mixed into a tree of valid old objects: one clear message naming the file (and line:column
where there is one), the bad file byte-identical, every other file still upgraded, exit 3 - never a
traceback (123), a hang or a memory blow-up. Run through the real CLI in a subprocess."""

from __future__ import annotations

import base64
import codecs
import pathlib
import re
import resource
import subprocess

import pytest

from tests.support import samples
from tests.support.cli import run_module
from transform.convert.index import Index
from transform.model.settings import Settings
from transform.pipeline.onefile import upgrade_file

ROOT = pathlib.Path(__file__).resolve().parents[2]
OBJECTS = ROOT / "fixtures" / "objects"
GOOD = ["instancetype-v1alpha1.yaml", "preference-v1alpha2.yaml", "clusterpreference-v1alpha2.json"]
TIMEOUT = 60
MEMORY_LIMIT = 2 << 30  # 2 GiB of address space: a blow-up fails the run instead of the machine

IT = "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\n"
IT2 = "apiVersion: instancetype.kubevirt.io/v1alpha2\nkind: VirtualMachineInstancetype\n"
CR = samples.REVISION_METADATA


def _billion_laughs() -> str:
    text = IT + "metadata:\n  name: lol\nspec:\n  cpu: {guest: 1}\n  memory: {guest: 1Gi}\n"
    text += "  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for i in range(1, 10):
        text += f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n"
    return text


def _recursive_alias() -> str:
    return IT + "metadata: &m\n  name: rec\n  self: *m\nspec:\n  cpu: {guest: 1}\n  memory: {guest: 1Gi}\n"


DEEP = 100_000
# name -> (bytes, regex the report must match (beyond naming the file), extra CLI args)
BAD: dict[str, tuple[bytes, str, tuple[str, ...]]] = {
    "tabs.yaml": ((IT + "metadata:\n\tname: x\n").encode(), r"tabs\.yaml:4:1: error: .*invalid YAML", ()),
    "unclosed-quote.yaml": (
        (b'apiVersion: "instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\n'),
        r"unclosed-quote\.yaml:\d+:\d+: error: .*invalid YAML",
        (),
    ),
    "bad-indent.yaml": (
        (IT + "metadata:\n  name: x\n spec:\n  cpu:\n    guest: 1\n").encode(),
        r"bad-indent\.yaml:5:\d+: error: .*invalid YAML",
        (),
    ),
    "truncated.json": (
        b'{"apiVersion": "instancetype.kubevirt.io/v1alpha1", "kind": "VirtualMachineInstancetype", "spec": {"cpu": ',
        r"truncated\.json:\d+:\d+: error: .*invalid YAML",
        (),
    ),
    "scalar.yaml": (
        b'"instancetype.kubevirt.io/v1alpha1"\n',
        r"scalar\.yaml:1:1: error: .*not a Kubernetes object",
        (),
    ),
    "list.yaml": (
        b"- instancetype.kubevirt.io/v1alpha1\n- VirtualMachineInstancetype\n",
        r"list\.yaml:1:1: error: .*list, not a Kubernetes object",
        (),
    ),
    "latin1.yaml": (
        IT.encode() + b"metadata:\n  name: caf\xe9\n",
        r"latin1\.yaml: error: not valid UTF-8 at line 4, column 12",
        (),
    ),
    "utf16.yaml": (codecs.BOM_UTF16_LE + IT.encode("utf-16-le"), r"utf16\.yaml: error: .*UTF-16", ()),
    "binary.yaml": (
        bytes(range(256)) + b"instancetype.kubevirt.io" + bytes(range(255, -1, -1)),
        r"binary\.yaml: error: .*binary",
        (),
    ),
    "billion-laughs.yaml": (_billion_laughs().encode(), r"billion-laughs\.yaml:\d+:\d+: error: .*billion laughs", ()),
    "recursive-alias.yaml": (_recursive_alias().encode(), r"recursive-alias\.yaml:\d+:\d+: error: ", ()),
    "deep-flow.yaml": (
        (IT + "spec: " + "[" * DEEP + "]" * DEEP + "\n").encode(),
        r"deep-flow\.yaml:\d+:\d+: error: .*nesting deeper",
        (),
    ),
    "deep-flow-map.yaml": (
        (IT + "spec: " + "{a: " * DEEP + "x" + "}" * DEEP + "\n").encode(),
        r"deep-flow-map\.yaml:\d+:\d+: error: .*nesting deeper",
        (),
    ),
    "deep-block-seq.yaml": (
        (IT + "spec: " + "- " * DEEP + "x\n").encode(),
        r"deep-block-seq\.yaml:\d+:\d+: error: .*nesting deeper",
        (),
    ),
    "deep-block-map.yaml": (  # 1-space indentation: below the text heuristic, caught on the node tree
        (IT + "spec:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(400))).encode(),
        r"deep-block-map\.yaml:\d+:\d+: error: .*nesting deeper",
        (),
    ),
    # a standalone object's own bad value is a warning (issue 22 class C): the refused bad value is a payload's
    "cpu-guest-list.yaml": (
        (
            CR + "data:\n  apiVersion: instancetype.kubevirt.io/v1alpha1\n  kind: VirtualMachineInstancetype\n"
            "  metadata:\n    name: c\n  spec:\n    cpu:\n      guest: [1, 2]\n    memory:\n      guest: 1Gi\n"
        ).encode(),
        r"cpu-guest-list\.yaml:19:\d+: error: .*data\.spec\.cpu\.guest",
        (),
    ),
    "memory-guest-map.yaml": (
        (
            CR + "data:\n  apiVersion: instancetype.kubevirt.io/v1alpha2\n  kind: VirtualMachineInstancetype\n"
            "  metadata:\n    name: c\n  spec:\n    cpu:\n      guest: 1\n    memory:\n      guest: {}\n"
        ).encode(),
        r"memory-guest-map\.yaml:21:\d+: error: .*data\.spec\.memory\.guest",
        (),
    ),
    "unknown-kind.yaml": (
        b"apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineFoo\nmetadata:\n  name: c\nspec: {}\n",
        r"unknown-kind\.yaml:2:1: error: .*VirtualMachineFoo",
        (),
    ),
    "rev-data-missing.yaml": ((CR + "revision: 1\n").encode(), r"rev-data-missing\.yaml:\d+:\d+: error: .*no data", ()),
    "rev-data-null.yaml": ((CR + "data: null\nrevision: 1\n").encode(), r"rev-data-null\.yaml:12:1: error: ", ()),
    "rev-data-empty.yaml": ((CR + "data: {}\nrevision: 1\n").encode(), r"rev-data-empty\.yaml:12:\d+: error: ", ()),
    "rev-not-base64.yaml": (
        (
            CR + "data:\n  apiVersion: instancetype.kubevirt.io/v1alpha1\n  spec: '!!not base64**'\nrevision: 1\n"
        ).encode(),
        r"rev-not-base64\.yaml:14:\d+: error: .*base64",
        (),
    ),
    "rev-not-json.yaml": (
        (
            CR
            + "data:\n  apiVersion: instancetype.kubevirt.io/v1alpha1\n  spec: "
            + base64.b64encode(b'{"cpu": {"guest": 1}').decode()
            + "\nrevision: 1\n"
        ).encode(),
        r"rev-not-json\.yaml:14:\d+: error: .*JSON",
        (),
    ),
    # found by tests/test_fuzz.py (were AttributeError / ValueError: exit 123)
    "rev-metadata-string.yaml": (
        b"apiVersion: apps/v1\nkind: ControllerRevision\nmetadata: name\ndata: {}\n",
        r"rev-metadata-string\.yaml:3:\d+: error: .*metadata is a str",
        (),
    ),
    "rev-generation-not-int.yaml": (
        (
            CR + "data:\n  apiVersion: instancetype.kubevirt.io/v1alpha2\n  kind: VirtualMachineInstancetype\n"
            "  metadata:\n    name: c\n    generation: 1{\n  spec:\n    cpu: {guest: 1}\n    memory: {guest: 1Gi}\n"
            "revision: 1\n"
        ).encode(),
        r"rev-generation-not-int\.yaml:\d+:\d+: error: .*generation",
        (),
    ),
    "huge.yaml": (
        (IT + "metadata:\n  name: big\n  annotations:\n    a: " + "x" * 300_000 + "\nspec: {}\n").encode(),
        r"huge\.yaml:1:1: error: .*over the limit.*--max-document-size",
        ("--max-document-size", "64KiB"),
    ),
}

FINE: dict[str, bytes] = {
    "empty.yaml": b"",
    "comments-only.yaml": b"# instancetype.kubevirt.io/v1alpha1 VirtualMachineInstancetype\n---\n# nothing here\n",
}

NOT_OURS: dict[str, bytes] = {
    # a list of settings, no manifest (HCO's dataImportCronTemplates.yaml): a CDI annotation key is a needle,
    # but no value names a KubeVirt or CDI apiVersion (a list that names one is `list.yaml` above: an error)
    "settings-list.yaml": (
        b"- metadata:\n    annotations:\n      cdi.kubevirt.io/storage.bind.immediate.requested: 'true'\n"
        b"    name: centos-stream9-image-cron\n  spec:\n    schedule: 0 */12 * * *\n"
    ),
    "statefulset-revision.yaml": (
        b"apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: web-7b9f\n  ownerReferences:\n"
        b"  - apiVersion: apps/v1\n    kind: StatefulSet\n    name: web\n    uid: x\ndata:\n  spec:\n"
        b"    template: {}\nrevision: 3\n"
    ),
    "configmap.yaml": (
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  x: |\n"
        b"    apiVersion: instancetype.kubevirt.io/v1alpha1\n    kind: VirtualMachineInstancetype\n"
    ),
    "crd.yaml": (
        b"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
        b"  name: virtualmachineinstancetypes.instancetype.kubevirt.io\nspec:\n  group: instancetype.kubevirt.io\n"
        b"  versions:\n  - name: v1alpha1\n    served: true\n  - name: v1beta1\n    served: true\n"
    ),
    "vm-no-instancetype.yaml": (
        b"apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: plain\nspec:\n  template:\n"
        b"    spec:\n      domain:\n        devices: {}\n"
    ),
}


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_cli(*args: str, cwd: pathlib.Path | None = None, input_: str | None = None) -> subprocess.CompletedProcess[str]:
    proc = run_module(
        *args,
        input=input_,
        text=True,
        timeout=TIMEOUT,
        cwd=cwd or ROOT,
        preexec_fn=_limit_memory,
        env={"INSTANCETYPE_UPGRADE_DEBUG": ""},
    )
    if "-" not in args and args[:1] != ("diff",):
        # stdout carries the report: `stderr` here is everything a person reads, report then messages
        proc = subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout, proc.stdout + proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "internal error" not in proc.stderr, proc.stderr
    assert proc.returncode != 123, proc.stderr
    return proc


def expected_upgrade(name: str) -> bytes:
    data = (OBJECTS / name).read_bytes()
    result = upgrade_file(name, data, Settings(), Index())
    assert result.changed and result.source is not None and result.new_text is not None
    return result.source.encode(result.new_text)


def make_tree(tmp: pathlib.Path, extra: dict[str, bytes]) -> dict[str, bytes]:
    for name in GOOD:
        (tmp / name).write_bytes((OBJECTS / name).read_bytes())
    sub = tmp / "nested"
    sub.mkdir()
    (sub / GOOD[0]).write_bytes((OBJECTS / GOOD[0]).read_bytes())
    for name, data in extra.items():
        (tmp / name).write_bytes(data)
    return extra


def assert_good_upgraded(tmp: pathlib.Path) -> None:
    for name in GOOD:
        assert (tmp / name).read_bytes() == expected_upgrade(name), name
    assert (tmp / "nested" / GOOD[0]).read_bytes() == expected_upgrade(GOOD[0])


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_file_in_a_tree(tmp_path: pathlib.Path, name: str) -> None:
    data, pattern, args = BAD[name]
    make_tree(tmp_path, {name: data})
    proc = run_cli("fix", *args, str(tmp_path))
    assert proc.returncode == 3, proc.stderr
    assert (tmp_path / name).read_bytes() == data
    assert_good_upgraded(tmp_path)
    problems = [ln for ln in proc.stderr.splitlines() if ": error:" in ln]
    assert problems and all(name in ln for ln in problems), proc.stderr
    assert re.search(pattern, proc.stderr), proc.stderr


def test_every_bad_file_at_once(tmp_path: pathlib.Path) -> None:
    bad = {name: data for name, (data, _p, args) in BAD.items() if not args}
    make_tree(tmp_path, {**bad, **FINE, **NOT_OURS})
    proc = run_cli("fix", str(tmp_path))
    assert proc.returncode == 3, proc.stderr
    for name, data in {**bad, **FINE, **NOT_OURS}.items():
        assert (tmp_path / name).read_bytes() == data, name
    assert_good_upgraded(tmp_path)
    for name, (_d, pattern, _a) in BAD.items():
        if name in bad:
            assert re.search(pattern, proc.stderr), (name, proc.stderr)
    for name in {**FINE, **NOT_OURS}:
        assert f"/{name}" not in proc.stderr, proc.stderr


def test_fine_and_foreign_files_are_silent(tmp_path: pathlib.Path) -> None:
    make_tree(tmp_path, {**FINE, **NOT_OURS})
    proc = run_cli("fix", str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    for name, data in {**FINE, **NOT_OURS}.items():
        assert (tmp_path / name).read_bytes() == data, name
        assert f"/{name}" not in proc.stderr, proc.stderr
    assert_good_upgraded(tmp_path)
    proc = run_cli("fix", str(tmp_path))  # a second run: nothing left to do
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("data", sorted(FINE.values()) + sorted(NOT_OURS.values()))
def test_fine_and_foreign_files_alone(tmp_path: pathlib.Path, data: bytes) -> None:
    (tmp_path / "x.yaml").write_bytes(data)
    proc = run_cli("fix", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "x.yaml").read_bytes() == data
    assert "x.yaml" not in proc.stderr
    proc = run_cli("validate", str(tmp_path))  # one verdict: validate passes them over too
    assert proc.returncode == 0 and "x.yaml" not in proc.stderr, proc.stderr


DUP = (
    IT + "metadata:\n  name: d\nspec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1Gi\n  cpu:\n    guest: 2\n"
).encode()


def test_duplicate_keys_warn(tmp_path: pathlib.Path) -> None:
    make_tree(tmp_path, {"dup.yaml": DUP})
    proc = run_cli("fix", str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    assert re.search(r"dup\.yaml:11:\d+: warning: .*duplicate key", proc.stderr), proc.stderr
    assert b"instancetype.kubevirt.io/v1beta1" in (tmp_path / "dup.yaml").read_bytes()
    assert_good_upgraded(tmp_path)


def test_duplicate_keys_strict_is_an_error(tmp_path: pathlib.Path) -> None:
    make_tree(tmp_path, {"dup.yaml": DUP})
    proc = run_cli("fix", "--strict", str(tmp_path))
    assert proc.returncode == 3, proc.stderr
    assert re.search(r"dup\.yaml:11:\d+: error: .*duplicate key", proc.stderr), proc.stderr
    assert (tmp_path / "dup.yaml").read_bytes() == DUP
    # under --strict a warning is an error and a file with one is not written (issue 12 item 7):
    # both preferences have a deprecated-topology warning; the instancetype is upgraded
    for name in GOOD[1:]:
        assert (tmp_path / name).read_bytes() == (OBJECTS / name).read_bytes(), name
    assert re.search(r"preference-v1alpha2\.yaml:\d+:\d+: error: .*deprecated.*--strict", proc.stderr), proc.stderr
    assert (tmp_path / GOOD[0]).read_bytes() == expected_upgrade(GOOD[0])


def test_just_under_the_size_limit_is_upgraded(tmp_path: pathlib.Path) -> None:
    data = (OBJECTS / GOOD[0]).read_bytes()
    (tmp_path / "a.yaml").write_bytes(data)
    proc = run_cli("fix", "--max-document-size", str(len(data)), str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    assert (tmp_path / "a.yaml").read_bytes() == expected_upgrade(GOOD[0])


# Issue 21 §1: a problem the input already had is carried over by the upgrade (exit 1, an `input:` warning;
# these two were refused with exit 3 before).
CARRIED: dict[str, tuple[bytes, str]] = {
    "cpu-guest-list.yaml": (
        (IT + "metadata:\n  name: c\nspec:\n  cpu:\n    guest: [1, 2]\n  memory:\n    guest: 1Gi\n").encode(),
        r"cpu-guest-list\.yaml:7:\d+: warning: .*spec\.cpu\.guest: input: ",
    ),
    "memory-guest-map.yaml": (
        (IT2 + "metadata:\n  name: c\nspec:\n  cpu:\n    guest: 1\n  memory:\n    guest: {}\n").encode(),
        r"memory-guest-map\.yaml:9:\d+: warning: .*spec\.memory\.guest: input: ",
    ),
}


@pytest.mark.parametrize("name", sorted(CARRIED))
def test_an_input_problem_is_carried_over_in_a_tree(tmp_path: pathlib.Path, name: str) -> None:
    data, pattern = CARRIED[name]
    make_tree(tmp_path, {name: data})
    proc = run_cli("fix", str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    assert (tmp_path / name).read_bytes() == data.replace(b"v1alpha1", b"v1beta1").replace(b"v1alpha2", b"v1beta1")
    assert_good_upgraded(tmp_path)
    assert re.search(pattern, proc.stderr), proc.stderr
    assert run_cli("fix", "--strict", str(tmp_path)).returncode == 3
