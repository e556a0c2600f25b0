"""The KRM function (`instancetype-upgrade krm`) and kustomizations upgraded by `fix`.

Unit tests call transform.integrations.krm.process or run `python -m transform krm` on ResourceLists.
Integration tests run the real orchestrators installed on the machine: kpt (`fn eval --exec`)
and kustomize (`kustomize build` or `kubectl kustomize` with --enable-alpha-plugins
--enable-exec); each is skipped with its reason when the tool or the flag is missing.
Slow tests (a few seconds each) are named test_slow_*.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import module_script, run_module
from transform.integrations import krm
from transform.model.settings import Settings

ROOT = Path(__file__).resolve().parents[2]

RL_YAML = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: instancetype.kubevirt.io/v1alpha1  # old version
  kind: VirtualMachineInstancetype
  metadata:
    name: csmall
    namespace: default
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'instancetypes/csmall.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'instancetypes/csmall.yaml'
      internal.config.kubernetes.io/seqindent: 'compact'
  spec:
    cpu:
      guest: 1   # vCPUs
    memory: {guest: 128Mi}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: unrelated  # untouched
    annotations: {config.kubernetes.io/path: 'cm.yaml'}
  data: {a: b}
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: fn-config}
  data:
    target-kubevirt: "1.7"
"""


def run_krm(data: str | bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    raw = data.encode() if isinstance(data, str) else data
    return run_module("krm", *args, input=raw, timeout=60, cwd=None)


def test_yaml_items_upgraded_comments_and_annotations_kept() -> None:
    out = krm.process(RL_YAML.encode())
    text = out.data.decode()
    body, _, results = text.partition("\nresults:\n")
    expected = RL_YAML.replace("instancetype.kubevirt.io/v1alpha1  # old", "instancetype.kubevirt.io/v1beta1  # old")
    assert body + "\n" == expected  # every other byte of the input kept, results appended
    assert not out.failed
    doc = yaml.safe_load(text)
    (result,) = doc["results"]  # shape of the functions spec (report.krm_results may add keys)
    assert result["severity"] == "info" and "v1alpha1 -> instancetype.kubevirt.io/v1beta1" in result["message"]
    assert {k: result["resourceRef"][k] for k in ("apiVersion", "kind", "name", "namespace")} == {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "name": "csmall",
        "namespace": "default",
    }
    assert result["field"]["path"] == "apiVersion"
    assert result["file"] == {"path": "instancetypes/csmall.yaml", "index": 0}


def test_cli_stdout_is_only_the_resource_list() -> None:
    proc = run_krm(RL_YAML)
    assert proc.returncode == 0, proc.stderr
    doc = yaml.safe_load(proc.stdout)  # one document, nothing else on stdout
    assert doc["kind"] == "ResourceList"
    assert doc["items"][0]["apiVersion"] == "instancetype.kubevirt.io/v1beta1"
    assert b"1 object(s) upgraded" in proc.stderr


def test_json_resource_list_stays_json() -> None:
    src = json.loads(json.dumps(yaml.safe_load(RL_YAML)))
    src["results"] = [{"message": "from an earlier function", "severity": "error"}]
    data = json.dumps(src, indent=2) + "\n"
    out = krm.process(data.encode())
    doc = json.loads(out.data)  # still JSON
    assert doc["items"][0]["apiVersion"] == "instancetype.kubevirt.io/v1beta1"
    assert doc["items"][1] == src["items"][1]
    assert [r["severity"] for r in doc["results"]] == ["info"]  # the old results were replaced
    assert doc["results"][0]["file"] == {"path": "instancetypes/csmall.yaml", "index": 0}
    assert not out.failed


def test_existing_results_replaced_and_idempotent() -> None:
    first = krm.process(RL_YAML.encode()).data
    second = krm.process(first)
    doc = yaml.safe_load(second.data)
    assert "results" not in doc  # nothing left to do: no results, the old key removed
    assert second.data.decode() == RL_YAML.replace("v1alpha1  # old", "v1beta1  # old")


def test_legacy_annotations_locate_results() -> None:
    rl: dict[str, Any] = {
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": [
            {
                "apiVersion": "instancetype.kubevirt.io/v1alpha2",
                "kind": "VirtualMachineClusterPreference",
                "metadata": {
                    "name": "p",
                    "annotations": {"config.kubernetes.io/path": "a/b.yaml", "config.kubernetes.io/index": "2"},
                },
                "spec": {},
            }
        ],
    }
    out = krm.process(yaml.safe_dump(rl, sort_keys=False).encode())
    (result,) = yaml.safe_load(out.data)["results"]
    assert result["file"] == {"path": "a/b.yaml", "index": 2}
    assert result["resourceRef"]["kind"] == "VirtualMachineClusterPreference"
    assert yaml.safe_load(out.data)["items"][0]["metadata"]["annotations"] == rl["items"][0]["metadata"]["annotations"]


def test_error_result_exit_1_and_list_unchanged() -> None:
    bad = RL_YAML.replace("kind: VirtualMachineInstancetype", "kind: VirtualMachineNonsense")
    proc = run_krm(bad)
    assert proc.returncode == 1
    doc = yaml.safe_load(proc.stdout)
    assert doc["items"][0]["apiVersion"] == "instancetype.kubevirt.io/v1alpha1"  # nothing upgraded
    errors = [r for r in doc["results"] if r["severity"] == "error"]
    assert errors and errors[0]["file"]["path"] == "instancetypes/csmall.yaml"
    assert errors[0]["field"]["path"] == "kind"
    assert b"error" in proc.stderr


def test_function_config_options() -> None:
    base = Settings()
    s, found = krm.options(
        {"kind": "ConfigMap", "data": {"rename": "true", "strict": "true", "target-kubevirt": "1.7"}}, base
    )
    assert (s.rename, s.strict, s.target, found) == (True, True, (1, 7), [])
    s, found = krm.options({"kind": "UpgradeConfig", "spec": {"rename": True, "colour": "red"}}, base)
    assert s.rename and [f.severity.value for f in found] == ["warning"]
    s, found = krm.options({"kind": "ConfigMap", "data": {"target-kubevirt": "banana"}}, base)
    assert found[0].severity.value == "error" and found[0].path == ("functionConfig", "data", "target-kubevirt")


def test_bad_function_config_is_an_error_result() -> None:
    proc = run_krm(RL_YAML.replace('target-kubevirt: "1.7"', "strict: maybe"))
    assert proc.returncode == 1
    doc = yaml.safe_load(proc.stdout)
    assert doc["items"][0]["apiVersion"] == "instancetype.kubevirt.io/v1alpha1"
    assert doc["results"][0]["severity"] == "error" and "strict" in doc["results"][0]["message"]


def test_strict_turns_warnings_into_errors() -> None:
    dup = RL_YAML.replace("    name: csmall\n", "    name: csmall\n    name: csmall\n", 1)
    assert run_krm(dup).returncode == 0
    proc = run_krm(dup.replace('target-kubevirt: "1.7"', 'strict: "true"'))
    assert proc.returncode == 1
    assert any(r["severity"] == "error" for r in yaml.safe_load(proc.stdout)["results"])


def test_not_a_resource_list() -> None:
    proc = run_krm("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    assert proc.returncode == 1 and proc.stdout == b""
    assert b"not a ResourceList" in proc.stderr


# --- a kustomization upgraded by `fix` ----------------------------------------------------------

KUSTOMIZATION = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- instancetype.yaml
patches:
- target:
    group: instancetype.kubevirt.io
    version: v1alpha2   # was served until KubeVirt v1.6
    kind: VirtualMachineClusterInstancetype
    name: u1.large
  patch: |-
    - op: replace
      path: /spec/memory/guest
      value: 16Gi
- target: {group: flavor.kubevirt.io, version: v1alpha1, kind: VirtualMachineFlavor}
  path: bump.yaml
"""


def test_fix_upgrades_kustomization_patch_targets(tmp_path: Path) -> None:
    path = tmp_path / "kustomization.yaml"
    path.write_text(KUSTOMIZATION)
    # the whole tree (its resources among the inputs): targets are pinned to v1beta1; a kustomization
    # alone is a partial tree (issue 12 item 3: tests/integrations/test_kustomize_build.py)
    (tmp_path / "instancetype.yaml").write_text(INSTANCETYPE)
    proc = run_module("fix", str(tmp_path), timeout=60, cwd=None)
    assert proc.returncode == 1, proc.stderr  # changed
    assert path.read_text() == KUSTOMIZATION.replace("version: v1alpha2   #", "version: v1beta1   #").replace(
        "{group: flavor.kubevirt.io, version: v1alpha1, kind: VirtualMachineFlavor}",
        "{group: instancetype.kubevirt.io, version: v1beta1, kind: VirtualMachineInstancetype}",
    )
    assert b"patches[0].target.version" in proc.stdout  # the report: stdout


def test_upgrade_kustomization_inline_patches() -> None:
    from transform.convert.kustomize import upgrade_kustomization

    patch = "apiVersion: instancetype.kubevirt.io/v1alpha1  # keep\nkind: VirtualMachineInstancetype\n"
    obj = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "patches": [{"patch": patch}],
        "patchesStrategicMerge": ["file.yaml", patch.replace("1  #", "2  #")],
        "patchesJson6902": [
            {"target": {"version": "v1alpha1", "kind": "VirtualMachineClusterFlavor"}, "path": "p.yaml"}
        ],
    }
    new, findings = upgrade_kustomization(obj) or ({}, [])
    assert new["patches"][0]["patch"] == patch.replace("v1alpha1", "v1beta1")
    assert new["patchesStrategicMerge"] == ["file.yaml", patch.replace("v1alpha1", "v1beta1")]
    assert new["patchesJson6902"][0]["target"] == {"version": "v1beta1", "kind": "VirtualMachineClusterInstancetype"}
    assert ("patches", 0, "patch") in [f.path for f in findings]
    assert ("patchesJson6902", 0, "target", "version") in [f.path for f in findings]
    assert upgrade_kustomization(new) is None
    assert upgrade_kustomization({"patches": [{"target": {"group": "apps", "version": "v1"}}]}) is None


# --- real orchestrators ---------------------------------------------------------------------------

INSTANCETYPE = """\
# a v1alpha1 instancetype kept in git
apiVersion: instancetype.kubevirt.io/v1alpha1
kind: VirtualMachineInstancetype
metadata:
  name: csmall
spec:
  cpu:
    guest: 1  # one vCPU
  memory:
    guest: 128Mi
"""


def _function_dir(tmp_path: Path) -> Path:
    d = tmp_path / "app"
    d.mkdir()
    (d / "instancetype.yaml").write_text(INSTANCETYPE)
    module_script(d / "upgrade.sh", "krm")
    return d


def _kustomize_command() -> list[str] | None:
    if shutil.which("kustomize"):
        return ["kustomize", "build", "--enable-alpha-plugins", "--enable-exec"]
    if shutil.which("kubectl"):
        help_text = subprocess.run(
            ["kubectl", "kustomize", "--help"], capture_output=True, text=True, check=False, timeout=60
        ).stdout
        if "--enable-exec" in help_text:
            return ["kubectl", "kustomize", "--enable-alpha-plugins", "--enable-exec"]
    return None


@pytest.mark.integration
def test_slow_kustomize_exec_transformer(tmp_path: Path) -> None:
    cmd = _kustomize_command()
    if cmd is None:
        pytest.skip(
            "no kustomize binary, and this kubectl's `kustomize` has no --enable-exec "
            "(kustomize#4556: it silently skips exec functions)"
        )
    d = _function_dir(tmp_path)
    (d / "upgrade-fn.yaml").write_text(
        "apiVersion: example.com/v1\nkind: InstancetypeUpgrade\nmetadata:\n  name: upgrade\n  annotations:\n"
        "    config.kubernetes.io/function: |\n      exec:\n        path: ./upgrade.sh\n"
        'spec:\n  target-kubevirt: "1.7"\n'
    )
    (d / "kustomization.yaml").write_text("resources:\n- instancetype.yaml\ntransformers:\n- upgrade-fn.yaml\n")
    proc = subprocess.run([*cmd, str(d)], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    (obj,) = list(yaml.safe_load_all(proc.stdout))
    assert obj["apiVersion"] == "instancetype.kubevirt.io/v1beta1"
    assert obj["spec"] == {"cpu": {"guest": 1}, "memory": {"guest": "128Mi"}}


@pytest.mark.integration
def test_slow_kpt_fn_eval_exec(tmp_path: Path) -> None:
    if not shutil.which("kpt"):
        pytest.skip("kpt is not installed")
    d = _function_dir(tmp_path)
    pkg = d / "pkg"
    pkg.mkdir()
    (d / "instancetype.yaml").rename(pkg / "instancetype.yaml")
    proc = subprocess.run(
        ["kpt", "fn", "eval", str(pkg), "--exec", str(d / "upgrade.sh"), "--", "target-kubevirt=1.7"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # kpt writes in place, through its own YAML serializer (kyaml): comments survive
    text = (pkg / "instancetype.yaml").read_text()
    assert "apiVersion: instancetype.kubevirt.io/v1beta1" in text
    assert "# a v1alpha1 instancetype kept in git" in text and "# one vCPU" in text
    assert "upgraded instancetype.kubevirt.io/v1alpha1" in proc.stdout + proc.stderr


@pytest.mark.integration
def test_slow_kpt_accepts_a_v1alpha1_wrapper_becoming_an_object(tmp_path: Path) -> None:
    """kpt walks input and output items together by id: a base64 scalar that became a mapping failed
    with "wrong node kind" and nothing was written (issue 12 item 4)."""
    if not shutil.which("kpt"):
        pytest.skip("kpt is not installed")
    d = _function_dir(tmp_path)
    pkg = d / "pkg"
    pkg.mkdir()
    example = Path(__file__).resolve().parents[2] / "examples" / "gitops-repo" / "exported"
    (pkg / "cr.yaml").write_text((example / "controllerrevisions" / "vm-legacy.yaml").read_text())
    (pkg / "vm.yaml").write_text((example / "vms" / "vm-legacy.yaml").read_text())
    proc = subprocess.run(
        ["kpt", "fn", "eval", str(pkg), "--exec", str(d / "upgrade.sh")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    docs = list(yaml.safe_load_all((pkg / "cr.yaml").read_text()))
    assert [doc["data"]["apiVersion"] for doc in docs] == ["instancetype.kubevirt.io/v1beta1"] * 2
    assert docs[0]["data"]["spec"]["memory"] == {"guest": "128Mi"}
    assert "# client-go stripped TypeMeta" in (pkg / "cr.yaml").read_text()  # our comments kept
    assert not any("config.k8s.io/id" in str(doc) for doc in docs)
    again = subprocess.run(
        ["kpt", "fn", "eval", str(pkg), "--exec", str(d / "upgrade.sh")], capture_output=True, text=True, timeout=120
    )
    assert again.returncode == 0 and "0 object(s) upgraded" in again.stdout + again.stderr


def test_reshaped_items_lose_only_their_ids() -> None:
    from transform.integrations import krm

    assert krm.reshaped({"data": {"spec": "eyJ9"}}, {"data": {"spec": {"cpu": {}}}})
    assert not krm.reshaped({"apiVersion": "a"}, {"apiVersion": "b"})
    assert not krm.reshaped({"a": None}, {"a": {}})


def test_json_resource_list_that_yaml_cannot_read_is_an_error_not_an_internal_one() -> None:
    """`"key"\\r:` is JSON whitespace that libyaml refuses (an implicit key spans no line break): the
    results could not be written into the list, which exited 123 (found by the fuzz run)."""
    item = {
        "apiVersion": "instancetype.kubevirt.io/v1alpha1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": "it"},
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}},
    }
    text = json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [item]})
    proc = run_module("krm", input=text.replace('"metadata":', '"metadata"\r:').encode())
    assert proc.returncode not in (0, 123), proc.stderr
    assert b"internal error" not in proc.stderr and b"YAML does not read" in proc.stderr, proc.stderr
