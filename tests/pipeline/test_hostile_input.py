"""Hostile documents (issue 15, items 7, 10, 11, 12): each reproducer is a clear input error naming the
file, line and reason - never exit 123 or a traceback - the bad file stays as it is and every other
file of the tree is still upgraded. CR-only files are read as YAML reads them."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from tests.pipeline.test_bad_input import CR, IT, assert_good_upgraded, make_tree, run_cli
from tests.support import samples
from transform.convert.index import Index
from transform.model.settings import Settings
from transform.pipeline.onefile import upgrade_file

BODY = "metadata:\n  name: a\nspec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1Gi\n"


def _wrapper(spec_json: str) -> bytes:
    return samples.wrapper_revision(spec_json).encode()


def _deep_list(depth: int) -> list[object]:
    top: list[object] = []
    cur = top
    for _ in range(depth):
        nxt: list[object] = []
        cur.append(nxt)
        cur = nxt
    return top


DEEP_JSON = '{"cpu":{"guest":1},"memory":{"guest":"1Gi"},"x":' + "[" * 100_000 + "]" * 100_000 + "}"
GPUS_900 = json.dumps({"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}, "gpus": _deep_list(900)})

# name -> (bytes, regex the report must match)
HOSTILE: dict[str, tuple[bytes, str]] = {
    # item 7: decoded payloads obey the document limits (were RecursionError: exit 123)
    "payload-deep.yaml": (_wrapper(DEEP_JSON), r"payload-deep\.yaml:\d+:\d+: error: .*nesting deeper than 200"),
    "payload-gpus-900.yaml": (_wrapper(GPUS_900), r"payload-gpus-900\.yaml:\d+:\d+: error: .*nesting deeper than 200"),
    "json-gpus-900.json": (
        json.dumps(
            {
                "apiVersion": "instancetype.kubevirt.io/v1alpha1",
                "kind": "VirtualMachineInstancetype",
                "metadata": {"name": "g"},
                "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}, "gpus": _deep_list(900)},
            }
        ).encode(),
        r"json-gpus-900\.json:\d+:\d+: error: .*nesting deeper",
    ),
    # item 10: NaN / 1e999 (were internal.verify "please report this")
    "payload-nan.yaml": (
        _wrapper('{"cpu":{"guest":NaN},"memory":{"guest":"1Gi"}}'),
        r"payload-nan\.yaml:\d+:\d+: error: .*NaN",
    ),
    "payload-inf.yaml": (
        _wrapper('{"cpu":{"guest":1e999},"memory":{"guest":"1Gi"}}'),
        r"payload-inf\.yaml:\d+:\d+: error: .*not a finite number",
    ),
    "yaml-nan.yaml": (
        (IT + BODY.replace("guest: 1\n", "guest: .nan\n")).encode(),
        r"yaml-nan\.yaml:7:\d+: error: .*spec\.cpu\.guest.*not a finite number",
    ),
    "json-nan.json": (
        b'{"apiVersion": "instancetype.kubevirt.io/v1alpha1", "kind": "VirtualMachineInstancetype",\n'
        b' "metadata": {"name": "a"}, "spec": {"cpu": {"guest": NaN}, "memory": {"guest": "1Gi"}}}',
        r"json-nan\.json:2:\d+: error: .*spec\.cpu\.guest.*not a finite number",
    ),
    "json-1e999.json": (
        b'{"apiVersion": "instancetype.kubevirt.io/v1alpha1", "kind": "VirtualMachineInstancetype",\n'
        b' "metadata": {"name": "a"}, "spec": {"cpu": {"guest": -1e999}, "memory": {"guest": "1Gi"}}}',
        r"json-1e999\.json:2:\d+: error: .*spec\.cpu\.guest.*not a finite number",
    ),
    "json-400-digits.json": (  # no exponent, still too large for a double
        b'{"apiVersion": "instancetype.kubevirt.io/v1alpha1", "kind": "VirtualMachineInstancetype",\n'
        b' "metadata": {"name": "a"}, "spec": {"cpu": {"guest": ' + b"9" * 400 + b'.5}, "memory": {"guest": "1Gi"}}}',
        r"json-400-digits\.json:2:\d+: error: .*spec\.cpu\.guest.*not a finite number",
    ),
    "yaml-flow-inf.yaml": (
        (IT + BODY.replace("guest: 1\n", "{guest: -.Inf}\n")).encode(),
        r"yaml-flow-inf\.yaml:\d+:\d+: error: .*spec\.cpu\.guest.*not a finite number",
    ),
    "yaml-1e999.yaml": (  # in a payload: a standalone object's own bad value is a warning (issue 22 class C)
        (
            CR + "data:\n  apiVersion: instancetype.kubevirt.io/v1alpha2\n  kind: VirtualMachineInstancetype\n"
            "  metadata:\n    name: a\n  spec:\n    cpu:\n      guest: 1.0e+999\n    memory:\n      guest: 1Gi\n"
        ).encode(),
        # Kubernetes reads 1.0e+999 as a string (go-yaml: strconv.ParseFloat fails with ErrRange)
        r'yaml-1e999\.yaml:19:\d+: error: .*data\.spec\.cpu\.guest.*got "1\.0e\+999"',
    ),
    # (an anchored apiVersion and a top-level merge are upgraded now: tests/pipeline/test_anchors_upgraded.py)
    "double-bom.yaml": (
        b"\xef\xbb\xbf\xef\xbb\xbf" + (IT + BODY).encode(),
        r"double-bom\.yaml: error: .*two byte-order marks",
    ),
    # found by the CLI fuzz run: JSON that json.loads takes but YAML refuses (scan: exit 123)
    "del-in-json.json": (
        b'{"apiVersion": "instancetype.kubevirt.io/v1alpha1", "kind": "VirtualMachineInstancetype", '
        b'"metadata": {"name": "a\x7fb"}, "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}}',
        r"del-in-json\.json:\d+:\d+: error: .*unacceptable character #x007f",
    ),
    # found by the slow fuzz run: a line break between a key and its ':' (JSON whitespace, no YAML) and an
    # infinity, whose line was looked up in the YAML node tree (exit 123)
    "cr-key-1e999.json": (
        b'{"apiVersion": "instancetype.kubevirt.io/v1alpha1", "kind": "VirtualMachineInstancetype",\n'
        b' "metadata": {"name"\r: "a"}, "spec": {"cpu": {"guest": -1e999}, "memory": {"guest": "1Gi"}}}',
        r"cr-key-1e999\.json:\d+:\d+: error: .*spec\.cpu\.guest.*not a finite number",
    ),
    # item 12: streams libyaml refuses are never rewritten
    "directive-after-content.yaml": (
        (IT + BODY + "---\nb: 1\n%YAML 1.1\n").encode(),
        r"directive-after-content\.yaml:\d+:\d+: error: .*directive",
    ),
    "tab-before-marker.yaml": (
        ("b: 1\n\t---\n---\n" + IT + BODY).encode(),
        r"tab-before-marker\.yaml:\d+:\d+: error: .*tab",
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_file_in_a_tree(tmp_path: pathlib.Path, name: str) -> None:
    data, pattern = HOSTILE[name]
    make_tree(tmp_path, {name: data})
    proc = run_cli("fix", str(tmp_path))
    assert proc.returncode == 3, proc.stderr
    assert (tmp_path / name).read_bytes() == data
    assert_good_upgraded(tmp_path)
    assert re.search(pattern, proc.stderr), proc.stderr


@pytest.mark.parametrize("command", ["check", "diff", "validate", "scan"])
def test_deep_and_nan_payloads_every_command(tmp_path: pathlib.Path, command: str) -> None:
    for name in ("payload-deep.yaml", "payload-gpus-900.yaml", "payload-nan.yaml"):
        (tmp_path / name).write_bytes(HOSTILE[name][0])
    proc = run_cli(command, str(tmp_path))
    if command == "validate":
        # a ControllerRevision's data is no error of the revision object (issue 20 §2): said, as warnings
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.count("warning: doc 0 ControllerRevision/default/vm-x-csmall-1: data.spec:") == 3
        return
    assert proc.returncode in (1, 3), proc.stderr


def test_deep_payload_on_stdin() -> None:
    proc = run_cli("fix", "-", input_=HOSTILE["payload-deep.yaml"][0].decode())
    assert proc.returncode == 3 and proc.stdout == "", proc.stderr


def test_kustomization_patches_not_a_list(tmp_path: pathlib.Path) -> None:
    """`patches: 5` stopped every file (TypeError in the cross-file index: exit 123)."""
    bad = b"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\npatches: 5\n"
    named = bad + b"# instancetype.kubevirt.io\npatchesJson6902: {}\n"
    sub = tmp_path / "k"
    sub.mkdir()
    (sub / "kustomization.yaml").write_bytes(named)
    make_tree(tmp_path, {"kustomization.yaml": bad})
    proc = run_cli("fix", str(tmp_path))
    assert proc.returncode == 3, proc.stderr
    assert re.search(r"k/kustomization\.yaml:3:\d+: error: .*patches is a int, not a list", proc.stderr)
    assert (tmp_path / "kustomization.yaml").read_bytes() == bad
    assert_good_upgraded(tmp_path)


# --- item 11: CR-only line endings ----------------------------------------------------------------


def _cr(text: str) -> bytes:
    return text.replace("\n", "\r").encode()


@pytest.mark.parametrize("command,code", [("check", 1), ("validate", 0), ("scan", 1)])
def test_cr_only_file_is_read(tmp_path: pathlib.Path, command: str, code: int) -> None:
    """The old object after a `---` in a CR-only file was hidden: check/validate/scan exit 0, nothing said."""
    (tmp_path / "mac.yaml").write_bytes(_cr("kind: ConfigMap\napiVersion: v1\n---\n" + IT + BODY))
    proc = run_cli(command, str(tmp_path))
    assert proc.returncode == code, proc.stderr + proc.stdout
    assert re.search(r"VirtualMachineInstancetype|v1alpha1", proc.stderr + proc.stdout)


def test_cr_only_file_keeps_its_line_breaks() -> None:
    data = _cr("# c\nkind: ConfigMap\n...\n---\n" + IT + BODY)
    r = upgrade_file("mac.yaml", data, Settings(), Index())
    assert r.changed and not r.failed and r.source is not None and r.new_text is not None
    new = r.source.encode(r.new_text)
    assert b"\n" not in new and new == data.replace(b"v1alpha1", b"v1beta1")
    again = upgrade_file("mac.yaml", new, Settings(), Index())
    assert not again.changed


def test_cr_only_findings_count_cr_lines() -> None:
    data = _cr("a: 1\n---\n" + IT + BODY.replace("guest: 1\n", "guest: [1]\n"))
    r = upgrade_file("mac.yaml", data, Settings(), Index())
    # issue 21 §1: the input's own problem is a warning
    assert any(f.line == 9 and f.severity.value == "warning" for f in r.findings), r.findings


def test_a_yaml_number_kubernetes_reads_as_a_string_is_the_inputs_problem(tmp_path: pathlib.Path) -> None:
    """Kubernetes reads 1.0e+999 as a string (go-yaml: strconv.ParseFloat fails with ErrRange): the input
    had that problem already, so the upgrade carries it over with a warning (issue 21 §1; was exit 3)."""
    data = (IT + BODY.replace("guest: 1\n", "guest: 1.0e+999\n")).encode()
    make_tree(tmp_path, {"yaml-1e999.yaml": data})
    proc = run_cli("fix", str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    pattern = r'yaml-1e999\.yaml:7:\d+: warning: .*spec\.cpu\.guest: input: the API server will refuse this object: expected integer, got "1\.0e\+999"'
    assert re.search(pattern, proc.stderr), proc.stderr
    assert (tmp_path / "yaml-1e999.yaml").read_bytes() == data.replace(b"v1alpha1", b"v1beta1")
    assert_good_upgraded(tmp_path)
