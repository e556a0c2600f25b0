"""Issue 22 §2 class B: a `:` inside a plain scalar of a flow collection, which go-yaml v2 (kubectl, the API
server) reads and libyaml refuses ("found unexpected ':'"), is read on every path; what Kubernetes refuses
stays refused.

The expected values are Kubernetes' (go-yaml v2's scanner: in a flow collection a plain scalar ends at
`,[]{}` or at a `:` before a blank, never at a `:` inside it), written here from that rule.
"""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest
import yaml
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from tests.support.cli import run_module
from transform.cli.main import main
from transform.yamltext import nodes

STANDALONE = """\
apiVersion: instancetype.kubevirt.io/v1alpha2
kind: VirtualMachineInstancetype
metadata: {name: small, creationTimestamp: 2023-03-01T10:00:00Z, annotations: {at: 10:30}}
spec:
  cpu: {guest: 1}
  memory: {guest: 1Gi}
"""

# a whole v1alpha2 payload in flow style whose timestamp carries the colons: converted and written anew
REVISION = """\
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: vm-small-v1alpha2-4a1c2e37-7d1c-4a0e-9b7a-0e6f3c2d1b55-1, namespace: ns}
data: {apiVersion: instancetype.kubevirt.io/v1alpha2, kind: VirtualMachineInstancetype, metadata: {name: small,
  creationTimestamp: 2023-03-01T10:00:00Z, uid: 4a1c2e37-7d1c-4a0e-9b7a-0e6f3c2d1b55, generation: 1},
  spec: {cpu: {guest: 2}, memory: {guest: 1Gi}}}
revision: 1
"""


def _libyaml_refuses(text: str) -> bool:
    """ruamel.yaml's own safe loader (libyaml 0.1 from ruamel.yaml.clib, or its Python port) refuses it."""
    try:
        YAML(typ="safe").load(text)
    except YAMLError as exc:
        return "found unexpected ':'" in str(exc)
    return False


def test_the_inputs_are_what_libyaml_refuses() -> None:
    assert _libyaml_refuses(STANDALONE) and _libyaml_refuses(REVISION)


@pytest.mark.parametrize("parser", ["libyaml", "pure"])
def test_read_as_goyaml_reads_it(parser: str) -> None:
    previous = nodes.use_parser(parser)
    try:
        doc = nodes.parse(STANDALONE)
        assert doc is not None
        assert doc.value["metadata"] == {
            "name": "small",
            "creationTimestamp": "2023-03-01T10:00:00Z",
            "annotations": {"at": "10:30"},
        }
        assert nodes.well_formed(STANDALONE)
        assert nodes.block_entries("items:\n- {a: 1:2}\n- b\n", "items") is not None
    finally:
        nodes.use_parser(previous)


@pytest.mark.parametrize(
    "text",
    [
        "a: {b: c: d}\n",  # `: ` inside a flow mapping's value: go-yaml refuses too
        "a: [b, c\n",  # unterminated
        "a: {b: x?y}\n",  # go-yaml v2 ends a flow plain scalar at `?`
    ],
)
def test_what_goyaml_refuses_stays_refused(text: str) -> None:
    with pytest.raises(nodes.ParseError):
        nodes.parse(text + "t: {x: 2023-03-01T10:00:00Z}\n")


def test_fix_file_and_rerun(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "it.yaml"
    path.write_text(STANDALONE)
    assert main(["fix", str(path)]) == 1, capsys.readouterr().err
    assert path.read_text() == STANDALONE.replace("v1alpha2", "v1beta1")
    assert main(["fix", str(path)]) == 0


def test_stdin_and_validate(tmp_path: Path) -> None:
    r = run_module("fix", "-", input=STANDALONE, text=True, cwd=None)
    assert r.returncode == 0, r.stderr
    assert r.stdout == STANDALONE.replace("v1alpha2", "v1beta1")
    path = tmp_path / "it.yaml"
    path.write_text(STANDALONE.replace("v1alpha2", "v1beta1"))
    r = run_module("validate", str(path), text=True, cwd=None)
    assert r.returncode == 0 and "invalid YAML" not in r.stderr, r.stderr


def test_revision_payload_in_flow_style_is_upgraded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cr.yaml"
    path.write_text(REVISION)
    assert main(["fix", str(path)]) == 1, capsys.readouterr().err
    [doc] = yaml.safe_load_all(path.read_text().replace("T10:00:00Z", "T10-00-00Z"))  # PyYAML: libyaml's rules
    assert doc["data"]["apiVersion"] == "instancetype.kubevirt.io/v1beta1"
    assert doc["data"]["spec"]["cpu"]["guest"] == 2
    assert "2023-03-01T10:00:00Z" in path.read_text()


def test_krm_resource_list() -> None:
    items = STANDALONE.replace("\n", "\n  ").rstrip() + "\n"
    rl = f"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {items}"
    r = run_module("krm", input=rl, text=True, cwd=None)
    assert r.returncode == 0, r.stderr + r.stdout
    assert "instancetype.kubevirt.io/v1beta1" in r.stdout and "2023-03-01T10:00:00Z" in r.stdout


def test_backup_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A Velero entry is JSON (no plain scalar), but an entry written as flow YAML is read as Go reads it."""
    src, out = tmp_path / "b.tar.gz", tmp_path / "out.tar.gz"
    name = "resources/virtualmachineinstancetypes.instancetype.kubevirt.io/namespaces/ns/small.json"
    with tarfile.open(src, "w:gz") as tf:
        data = STANDALONE.encode()
        ti = tarfile.TarInfo(name)
        ti.size = len(data)
        tf.addfile(ti, io.BytesIO(data))
    code = main(["backup", str(src), "-o", str(out)])
    captured = capsys.readouterr()
    err = captured.out + captured.err
    assert "invalid YAML" not in err and code in (0, 1), err
    with tarfile.open(out) as tf:
        member = tf.extractfile(name)
        assert member is not None
        text = member.read().decode()
    assert "2023-03-01T10:00:00Z" in text
    json.dumps(text)
