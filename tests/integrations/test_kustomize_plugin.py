"""The example exec plugin, run by the real `kubectl kustomize --enable-alpha-plugins`."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import pytest
import yaml

from tests.support.cli import module_script

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "kustomize-plugin"
KUBECTL = shutil.which("kubectl")


def build(tmp_path: pathlib.Path, edit: str = "", option: str = "") -> subprocess.CompletedProcess[str]:
    """Copy the example, install its plugin under a private XDG_CONFIG_HOME and run kubectl on it (the tool
    the plugin runs given `option` after the plugin's own arguments)."""
    shutil.copytree(EXAMPLE, tmp_path / "ex")
    if edit:
        target = tmp_path / "ex" / "app" / "instancetype.yaml"
        old, new = edit.split("|")
        target.write_text(target.read_text().replace(old, new))
    (tmp_path / "config" / "kustomize").mkdir(parents=True)
    shutil.copytree(tmp_path / "ex" / "plugin", tmp_path / "config" / "kustomize" / "plugin")
    tool = module_script(tmp_path / "instancetype-upgrade", after=option)
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "INSTANCETYPE_UPGRADE": str(tool),
    }
    return subprocess.run(
        [KUBECTL or "kubectl", "kustomize", "--enable-alpha-plugins", str(tmp_path / "ex" / "app")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.integration
@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
def test_kubectl_kustomize_runs_the_exec_plugin(tmp_path: pathlib.Path) -> None:
    out = build(tmp_path)
    assert out.returncode == 0, out.stderr
    docs = [d for d in yaml.safe_load_all(out.stdout) if d]
    assert [d["apiVersion"] for d in docs] == ["instancetype.kubevirt.io/v1beta1"]
    assert docs[0]["spec"] == {"cpu": {"guest": 1}, "memory": {"guest": "128Mi"}}


@pytest.mark.integration
@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
def test_a_failing_upgrade_fails_the_build(tmp_path: pathlib.Path) -> None:
    # an unknown kind cannot be upgraded (a problem the input merely had, `guest: two`, is a warning
    # since issue 21 §1)
    out = build(tmp_path, edit="kind: VirtualMachineInstancetype|kind: VirtualMachineFoo")
    assert out.returncode != 0
    assert "VirtualMachineFoo" in out.stderr
