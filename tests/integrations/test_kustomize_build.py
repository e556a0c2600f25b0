"""After an upgrade, real `kubectl kustomize` still builds the overlay and every patch still applies."""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import pytest
import yaml

from transform.cli.main import main

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "gitops-repo"
KUBECTL = shutil.which("kubectl")


def build(path: pathlib.Path) -> list[dict]:
    out = subprocess.run([KUBECTL or "kubectl", "kustomize", str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return [d for d in yaml.safe_load_all(out.stdout) if d]


@pytest.mark.integration
@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
def test_overlay_builds_the_same_objects_after_the_upgrade(tmp_path: pathlib.Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    before = build(repo / "clusters" / "prod")
    assert main(["fix", "-q", str(repo)]) == 1
    after = build(repo / "clusters" / "prod")

    def key(o: dict) -> tuple[str, str, str]:
        return (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])

    olds, news = {key(o): o for o in before}, {key(o): o for o in after}
    assert olds.keys() == news.keys()  # kustomize orders by apiVersion too: compare by identity
    for k, old in olds.items():
        new = news[k]
        if str(old.get("apiVersion", "")).startswith("instancetype.kubevirt.io/"):
            assert new["apiVersion"] == "instancetype.kubevirt.io/v1beta1"
            old = {**old, "apiVersion": new["apiVersion"]}
        assert old == new  # patches (path, inline, JSON6902 target) applied exactly as before
    large = next(o for o in after if o["metadata"]["name"] == "u1.large")
    assert large["spec"]["memory"]["guest"] == "16Gi"


# --- issue 12 item 3: a partial tree (the base not among the inputs) keeps every patch -----------

BASE_KUSTOMIZATION = "resources:\n- it.yaml\n"
BASE_IT = """\
apiVersion: instancetype.kubevirt.io/v1alpha1
kind: VirtualMachineInstancetype
metadata:
  name: csmall
spec:
  cpu:
    guest: 1
  memory:
    guest: 2048Mi
"""
OVERLAY = """\
resources:
- ../../base
patches:
- target:
    group: instancetype.kubevirt.io
    version: v1alpha1
    kind: VirtualMachineInstancetype
    name: csmall
  patch: |-
    - op: replace
      path: /spec/memory/guest
      value: 4Gi
"""


def _tree(root: pathlib.Path) -> pathlib.Path:
    (root / "base").mkdir(parents=True)
    (root / "base" / "kustomization.yaml").write_text(BASE_KUSTOMIZATION)
    (root / "base" / "it.yaml").write_text(BASE_IT)
    (root / "overlays" / "prod").mkdir(parents=True)
    (root / "overlays" / "prod" / "kustomization.yaml").write_text(OVERLAY)
    return root


def _memory(root: pathlib.Path) -> tuple[str, str]:
    (it,) = build(root / "overlays" / "prod")
    return it["apiVersion"], it["spec"]["memory"]["guest"]


@pytest.mark.integration
@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
def test_partial_tree_keeps_the_patch_matching(tmp_path: pathlib.Path) -> None:
    root = _tree(tmp_path)
    assert _memory(root) == ("instancetype.kubevirt.io/v1alpha1", "4Gi")
    # the overlay alone (a pre-commit run that staged only it): the patch must still apply ...
    assert main(["fix", "-q", str(root / "overlays" / "prod" / "kustomization.yaml")]) == 1
    assert _memory(root) == ("instancetype.kubevirt.io/v1alpha1", "4Gi")
    # ... and still apply once the base is upgraded later, on its own
    assert main(["fix", "-q", str(root / "base")]) == 1
    assert _memory(root) == ("instancetype.kubevirt.io/v1beta1", "4Gi")
    assert main(["fix", "-q", str(root)]) == 0  # a second run changes nothing


@pytest.mark.integration
@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
def test_whole_tree_pins_the_new_version(tmp_path: pathlib.Path) -> None:
    root = _tree(tmp_path)
    assert main(["fix", "-q", str(root)]) == 1
    assert _memory(root) == ("instancetype.kubevirt.io/v1beta1", "4Gi")
    assert "version: v1beta1" in (root / "overlays" / "prod" / "kustomization.yaml").read_text()
