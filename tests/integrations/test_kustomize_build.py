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
