"""Scalars as Kubernetes reads them, everywhere (issue 22 §3): kubernetes-yaml-scalars.md is the truth.

- The oracle (tests/oracles/k8s_scalars.py, the document's quoting rules written anew, PyYAML's
  composer for the structure) reads every row of the table as the table's Kubernetes column says.
- Writing: every row, as a string, goes through `fix` (a v0.57 SpecRevision wrapper whose decoded spec
  holds it becomes a whole v1beta1 object, written by the emitter) and is read back by the oracle as
  the same string; the numbers the table lists, the same numbers.
- Reading: the pre-filter finds a KubeVirt document whose apiVersion Kubernetes reads through an escape
  (`"cdi.kubevirt.io\\/v1alpha1"`, as JSON writers that escape `/` write it; `\\x2f`; a `\\` line break).
  The resolver, the index and the kustomize patch targets read plain data from the one resolver, which
  tests/yamltext/test_resolver_table.py holds to the table.
"""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path
from typing import Any

import pytest

from tests.oracles import k8s_scalars, quantity_model
from tests.support import samples
from tests.yamltext.test_resolver_table import NOT_FINITE, REFUSED, ROWS, _expected
from transform.cli import main as cli

UID = samples.F1_SOURCE_UID


@pytest.mark.parametrize(("scalar", "k8s"), ROWS, ids=[s or "(empty)" for s, _ in ROWS])
def test_the_oracle_reads_the_table(scalar: str, k8s: str) -> None:
    want = _expected(k8s)
    if scalar in ("?", "-", "=", "<<"):
        return  # parse errors and Go's `!!value`/`!!merge` quirks: never a value the writer emits plain
    got = k8s_scalars.plain(scalar)
    if want is REFUSED or want is NOT_FINITE:
        assert got is k8s_scalars.REFUSED, scalar
    elif isinstance(want, float):
        assert type(got) is float and got == want and math.copysign(1, got) == math.copysign(1, want), scalar
    else:
        assert type(got) is type(want) and got == want, scalar


def _wrapper_revision(spec: dict[str, Any]) -> str:
    encoded = base64.b64encode(json.dumps(spec).encode()).decode()
    return f"""apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: vm-a-csmall-{UID}-1
  namespace: default
  ownerReferences:
  - apiVersion: kubevirt.io/v1
    blockOwnerDeletion: true
    controller: true
    kind: VirtualMachine
    name: vm-a
    uid: 3f2a9c41-8d7e-4b05-a6c1-2e9f0d4b7a18
data:
  apiVersion: ""
  spec: {encoded}
revision: 0
"""


STRINGS = [s for s, _ in ROWS if s] + ["a: b", "#x", " x", "x ", "x\ny", "x #y", "'q'", '"q"', "[a]", "{a}", "@x", "`x", "!x", "&a", "*a", "|", ">", "%x"]  # fmt: skip


def test_fix_writes_every_row_as_the_same_string(tmp_path: Path) -> None:
    gpus = [{"name": f"g{i}", "deviceName": text} for i, text in enumerate(STRINGS)]
    path = tmp_path / "cr.yaml"
    path.write_text(_wrapper_revision({"cpu": {"guest": 1}, "memory": {"guest": "128Mi"}, "gpus": gpus}))
    assert cli.main(["fix", "-q", str(path)]) == 1
    [doc] = k8s_scalars.load_all(path.read_text())
    written = [g["deviceName"] for g in doc["data"]["spec"]["gpus"]]
    assert written == STRINGS


NUMBERS = sorted({v for _, k8s in ROWS if type(v := _expected(k8s)) is int and 0 <= v < 2**32})


@pytest.mark.parametrize("number", NUMBERS)
def test_fix_writes_numbers_as_the_same_number(tmp_path: Path, number: int) -> None:
    path = tmp_path / "cr.yaml"
    path.write_text(_wrapper_revision({"cpu": {"guest": number}, "memory": {"guest": "128Mi"}}))
    assert cli.main(["fix", "-q", str(path)]) in (1, 3)  # cpu.guest 0 is a webhook error, still written
    [doc] = k8s_scalars.load_all(path.read_text())
    guest = doc["data"]["spec"]["cpu"]["guest"]
    assert type(guest) is int and guest == number


ESCAPED = [
    pytest.param('{"apiVersion": "cdi.kubevirt.io\\/v1alpha1", "kind": "DataVolume", "metadata": {"name": "dv"}}\n', id="json-slash"),
    pytest.param('apiVersion: "cdi.kubevirt.io\\x2fv1alpha1"\nkind: DataVolume\nmetadata:\n  name: dv\n', id="yaml-hex"),
    pytest.param('apiVersion: "cdi.kubevirt.io\\u002Fv1alpha1"\nkind: DataVolume\nmetadata:\n  name: dv\n', id="yaml-u"),
    pytest.param('apiVersion: "cdi.kube\\\n  virt.io/v1alpha1"\nkind: DataVolume\nmetadata:\n  name: dv\n', id="yaml-line-continuation"),
]  # fmt: skip


@pytest.mark.parametrize("text", ESCAPED)
def test_the_prefilter_reads_escapes_as_kubernetes(tmp_path: Path, text: str) -> None:
    [doc] = k8s_scalars.load_all(text)
    assert doc["apiVersion"] == "cdi.kubevirt.io/v1alpha1"  # what Kubernetes reads
    path = tmp_path / ("dv.json" if text.startswith("{") else "dv.yaml")
    path.write_text(text)
    assert cli.main(["fix", "-q", str(path)]) == 1
    [after] = k8s_scalars.load_all(path.read_text())
    assert after["apiVersion"] == "cdi.kubevirt.io/v1beta1"


def test_an_inline_patch_naming_an_old_version_through_an_escape_is_upgraded(tmp_path: Path) -> None:
    """kustomize parses an inline patch as YAML: `"instancetype.kubevirt.io\\x2fv1alpha1"` is the old version.
    Issue 21 §2: the tool parses it too (it was a warning), so the scalar is upgraded in its own quotes."""
    text = (
        "resources: []\npatches:\n- patch: |\n"
        '    apiVersion: "instancetype.kubevirt.io\\x2fv1alpha1"\n'
        "    kind: VirtualMachineInstancetype\n    metadata:\n      name: u1\n"
    )
    (tmp_path / "kustomization.yaml").write_text(text)
    out = tmp_path / "report.json"
    cli.main(["check", "--format", "json", "--output-file", str(out), str(tmp_path)])
    codes = {f["code"] for f in json.loads(out.read_text())["findings"]}
    assert "kustomize.inline-patch" in codes
    assert cli.main(["fix", "-q", str(tmp_path)]) == 1
    after = (tmp_path / "kustomization.yaml").read_text()
    assert after == text.replace('"instancetype.kubevirt.io\\x2fv1alpha1"', '"instancetype.kubevirt.io/v1beta1"')


def _quantity_rows() -> list[str]:
    out = []
    for scalar, _ in ROWS:
        try:
            quantity_model.canonical(scalar)
        except ValueError:
            continue
        out.append(scalar)
    return out


QUANTITIES = _quantity_rows() + ["1e3", "1E3", "1e-3", "+1Ki", "1.500", "0.5Gi", "12e6", "-0"]


def test_fix_writes_every_quantity_row_as_a_string_kubernetes_reads_back(tmp_path: Path) -> None:
    """Every row that is a quantity, as a payload quantity string: the tool writes Go's Quantity.String() and
    Kubernetes must read that text back as the same string (a plain `1e3` would be the number 1000)."""
    gpus = [{"name": "g", "deviceName": "d"}]
    for text in QUANTITIES:
        path = tmp_path / "cr.yaml"
        path.write_text(_wrapper_revision({"cpu": {"guest": 1}, "memory": {"guest": text}, "gpus": gpus}))
        assert cli.main(["fix", "-q", str(path)]) in (1, 3), text
        [doc] = k8s_scalars.load_all(path.read_text())
        guest = doc["data"]["spec"]["memory"]["guest"]
        assert type(guest) is str and guest == quantity_model.canonical(text), (text, guest)


def test_fix_writes_booleans_as_kubernetes_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "cr.yaml"
    spec = {
        "cpu": {"guest": 1, "dedicatedCPUPlacement": True, "isolateEmulatorThread": False},
        "memory": {"guest": "1Gi"},
    }
    path.write_text(_wrapper_revision(spec))
    assert cli.main(["fix", "-q", str(path)]) == 1
    [doc] = k8s_scalars.load_all(path.read_text())
    cpu = doc["data"]["spec"]["cpu"]
    assert cpu["dedicatedCPUPlacement"] is True and cpu["isolateEmulatorThread"] is False
