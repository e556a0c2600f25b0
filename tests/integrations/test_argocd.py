"""The Argo CD plugin's generate command, run with bash in example application directories.

The command is taken from examples/argocd/plugin.yaml as Argo CD would run it (cwd = the
application directory). `kustomize` is the real binary when installed, else a shim running
`kubectl kustomize`; `instancetype-upgrade` runs this checkout. Argo CD's contract: stdout is
only valid Kubernetes objects, and a non-zero exit fails the sync.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import module_script

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "examples" / "argocd" / "plugin.yaml"


def _bin(tmp_path: Path) -> dict[str, str]:
    b = tmp_path / "bin"
    b.mkdir()
    module_script(b / "instancetype-upgrade")
    if not shutil.which("kustomize"):
        if not shutil.which("kubectl"):
            pytest.skip("neither kustomize nor kubectl is installed")
        shim = b / "kustomize"
        shim.write_text('#!/bin/sh\n[ "$1" = build ] && shift\nexec kubectl kustomize "$@"\n')
        shim.chmod(0o755)
    return {**os.environ, "PATH": f"{b}{os.pathsep}{os.environ.get('PATH', '')}"}


def _generate(app: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    spec = yaml.safe_load(PLUGIN.read_text())["spec"]
    cmd = [*spec["generate"]["command"], *spec["generate"].get("args", [])]
    return subprocess.run(cmd, cwd=app, env=env, capture_output=True, text=True, timeout=120, check=False)


def _objects(stdout: str) -> list[dict[str, Any]]:
    docs = [d for d in yaml.safe_load_all(stdout) if d is not None]
    assert docs, "no manifests: Argo CD would prune everything"
    out: list[dict[str, Any]] = []
    for d in docs:
        assert isinstance(d, dict) and d.get("apiVersion") and d.get("kind"), d
        out += d["items"] if str(d["kind"]).endswith("List") and isinstance(d.get("items"), list) else [d]
    return out


def _assert_upgraded(objs: list[dict[str, Any]]) -> None:
    ours = [
        o
        for o in objs
        if str(o.get("apiVersion", "")).split("/")[0] in ("instancetype.kubevirt.io", "flavor.kubevirt.io")
    ]
    assert ours
    assert {o["apiVersion"] for o in ours} == {"instancetype.kubevirt.io/v1beta1"}


def test_discover_matches_kustomization_dir() -> None:
    spec = yaml.safe_load(PLUGIN.read_text())["spec"]
    proc = subprocess.run(
        spec["discover"]["find"]["command"],
        cwd=ROOT / "examples" / "gitops-repo",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert proc.stdout.strip()


@pytest.mark.integration
def test_slow_generate_kustomize_app(tmp_path: Path) -> None:
    app = tmp_path / "gitops-repo"
    shutil.copytree(ROOT / "examples" / "gitops-repo", app)
    proc = _generate(app, _bin(tmp_path))
    assert proc.returncode == 0, proc.stderr
    _assert_upgraded(_objects(proc.stdout))
    assert not any(line.startswith("instancetype-upgrade") for line in proc.stdout.splitlines())


@pytest.mark.integration
def test_slow_generate_plain_directory(tmp_path: Path) -> None:
    app = tmp_path / "plain"
    shutil.copytree(ROOT / "fixtures" / "objects", app)  # incl. JSON, CRLF, BOM, no final newline, List
    (app / ".hidden").mkdir()
    (app / ".hidden" / "junk.yaml").write_text("not: [valid\n")
    proc = _generate(app, _bin(tmp_path))
    assert proc.returncode == 0, proc.stderr
    objs = _objects(proc.stdout)
    _assert_upgraded(objs)
    assert len(objs) >= len(list(app.glob("*.yaml"))) + len(list(app.glob("*.json")))


@pytest.mark.integration
def test_slow_generate_fails_loudly(tmp_path: Path) -> None:
    app = tmp_path / "broken"
    app.mkdir()
    (app / "kustomization.yaml").write_text("resources:\n- missing.yaml\n")
    proc = _generate(app, _bin(tmp_path))
    assert proc.returncode != 0  # pipefail: kustomize's failure is not hidden by the upgrade
