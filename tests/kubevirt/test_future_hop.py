"""A future instancetype version is one hop module and one registry line (plus its table row): a fake
`instancetype.kubevirt.io/v1beta1 -> v1` (served from a fake KubeVirt 1.10) is used by conversion,
validation, scan and the target checks, with no other change.

The facts derived from the table are computed at import time, so the registration happens in a fresh
interpreter before the rest of `transform` is imported: nothing leaks into the other tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

HOP_MODULE = '''
"""instancetype.kubevirt.io/v1beta1 -> v1 (fake): the same JSON shape, only apiVersion changes."""
from typing import Any

GROUP, VERSION = "instancetype.kubevirt.io", "v1beta1"
TO_GROUP, TO_VERSION = "instancetype.kubevirt.io", "v1"
GO_TYPES = "v1beta1"  # the Go type table its output is encoded with: v1 keeps v1beta1's JSON shape


def convert_spec(spec: dict[str, Any], family: str) -> dict[str, Any]:
    return dict(spec)
'''

SCRIPT = """
import json, sys
from transform.kubevirt import apis

# The table row of the new version and the release serving it (a release is a fact of its own).
apis.TABLE = (*apis.TABLE, apis.Api("instancetype.kubevirt.io", "v1", "instancetype", served=(1, 10)))
apis.LATEST_KUBEVIRT = (1, 10)

import instancetype_v1beta1  # the hop module
from transform import convert

convert.STEPS["instancetype.kubevirt.io/v1beta1"] = convert._step(instancetype_v1beta1)  # the registry line

from click.testing import CliRunner
from transform.cli.main import cli
from transform.kubevirt import releases
from transform.validate import target

old, new, v1, rev = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
run = CliRunner().invoke
fixed = run(cli, ["fix", "--rename", "--target-kubevirt", "1.10", "--format", "json", rev])


def findings(*args):
    return [(f["code"], f["message"]) for f in json.loads(run(cli, [*args, "--format", "json"]).output)["findings"]]


print(json.dumps({
    "diff": run(cli, ["diff", "--target-kubevirt", "1.10", old]).output,
    "validate_new_1_10": findings("validate", "--target-kubevirt", "1.10", new),
    "validate_new_1_9": findings("validate", "--target-kubevirt", "1.9", new),
    "scan": json.loads(run(cli, ["scan", "--format", "json", "--target-kubevirt", "1.10", old]).output),
    "target_1_9": [f.code for f in target.target_findings(v1, "1.9")],
    "target_1_10": [f.code for f in target.target_findings(v1, "1.10")],
    "payload": [releases.reads_payload(r, "v1") for r in ("1.9", "1.10")],
    "latest": convert.LATEST,
    "revision_fix": json.loads(fixed.output)["findings"],
    "revision": open(rev).read(),
    "revision_scan_1_9": json.loads(run(cli, ["scan", "--format", "json", "--target-kubevirt", "1.9", rev]).output),
    "revision_scan_1_10": json.loads(run(cli, ["scan", "--format", "json", "--target-kubevirt", "1.10", rev]).output),
}))
"""

V1BETA1 = """\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineInstancetype
metadata:
  name: small
spec:
  cpu:
    guest: 1
  memory:
    guest: 1Gi
"""


UID = "72c3a35b-6e18-487d-bebf-f73c7d4f4a40"
REVISION = f"""\
apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: vm1-small-{UID}-2
  namespace: default
  ownerReferences:
  - apiVersion: kubevirt.io/v1
    kind: VirtualMachine
    name: vm1
    uid: 0b0f7c2e-1d3a-4e5f-8a9b-0c1d2e3f4a5b
    controller: true
data:
  apiVersion: instancetype.kubevirt.io/v1alpha2
  kind: VirtualMachineInstancetype
  metadata:
    name: small
    namespace: default
    uid: {UID}
    generation: 2
  spec:
    cpu:
      guest: 1
    memory:
      guest: 1Gi
revision: 1
"""


def test_a_fake_hop_is_used_everywhere(tmp_path: Path) -> None:
    (tmp_path / "instancetype_v1beta1.py").write_text(textwrap.dedent(HOP_MODULE))
    old, new, rev = tmp_path / "old.yaml", tmp_path / "new.yaml", tmp_path / "rev.yaml"
    rev.write_text(REVISION)
    old.write_text(V1BETA1)
    new.write_text(V1BETA1.replace("/v1beta1", "/v1").replace("guest: 1\n", "guest: 1\n    bogus: 1\n", 1))
    v1 = {
        "apiVersion": "instancetype.kubevirt.io/v1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": "small"},
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}},
    }
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(old), str(new), json.dumps(v1), str(rev)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    # conversion: the registry chains v1beta1 -> v1, and fix writes v1 for the new release
    assert out["latest"] == "instancetype.kubevirt.io/v1"
    assert "-apiVersion: instancetype.kubevirt.io/v1beta1\n+apiVersion: instancetype.kubevirt.io/v1\n" in out["diff"]
    # validation: a v1 object is judged by the newest bundled schema (v1beta1's, reused), which still finds
    # the unknown field; a release that does not serve v1 is reported as such
    assert [code for code, _ in out["validate_new_1_10"]] == ["schema.unknown-field"]
    assert any(
        code == "target.api-version" and "instancetype.kubevirt.io/v1" in message
        for code, message in out["validate_new_1_9"]
    )
    # scan: counted, with the new version as the replacement the target serves
    (row,) = out["scan"]["apis"]
    assert (row["apiVersion"], row["count"], row["status"], row["replacement"]) == (
        "instancetype.kubevirt.io/v1beta1",
        1,
        "served",
        "instancetype.kubevirt.io/v1",
    )
    # target checks and payload formats: 1.10 serves and reads v1, 1.9 does neither
    assert out["target_1_9"] == ["target.api-version"] and out["target_1_10"] == []
    assert out["payload"] == [False, True]

    # a ControllerRevision goes to the registry's latest version: payload, labels, name and message say v1
    written = out["revision"]
    assert "  apiVersion: instancetype.kubevirt.io/v1\n  kind: VirtualMachineInstancetype\n" in written
    assert "instancetype.kubevirt.io/object-version: v1\n" in written
    assert f"  name: vm1-small-v1-{UID}-2\n" in written
    assert "v1beta1" not in written
    messages = [f["message"] for f in out["revision_fix"] if f["code"] == "upgraded"]
    assert messages == ["upgraded ControllerRevision (v1alpha2 payload) to v1"]
    # the target check: 1.9 cannot read the v1 payload it now holds, 1.10 can
    codes_1_9 = [f["code"] for f in out["revision_scan_1_9"]["breaking"]]
    assert codes_1_9 == ["target.payload-format"]
    assert "a whole v1 object" in out["revision_scan_1_9"]["breaking"][0]["message"]
    assert out["revision_scan_1_10"]["breaking"] == []
