"""The shipped pre-commit hooks, run by the real `pre-commit try-repo` (slow: it builds a venv).

`try-repo` installs this package into a fresh virtualenv with pip (the build backend,
hatchling, comes from the configured package index). A clone of HEAD is used, so that
uncommitted work elsewhere in the checkout cannot leak into the hook environment. When pip
cannot get the build requirements (no network and no local index), the tests are skipped
with that reason. Slow tests are named test_slow_*; they share one PRE_COMMIT_HOME.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

OLD = """\
# csmall, still at v1alpha1
apiVersion: instancetype.kubevirt.io/v1alpha1
kind: VirtualMachineInstancetype
metadata:
  name: csmall
spec:
  cpu:
    guest: 1  # vCPUs
  memory:
    guest: 128Mi
"""
UNRELATED = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  key: value\n"
INSTALL_FAILURES = (
    "Could not find a version that satisfies",
    "No matching distribution found",
    "Failed to establish a new connection",
    "Network is unreachable",
)


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    if shutil.which("pre-commit") is None:
        pytest.skip("pre-commit is not installed (pip install -e '.[test]')")
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: pre-commit try-repo needs one")
    base = tmp_path_factory.mktemp("precommit")
    clone = base / "hooks"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, capture_output=True, timeout=120)
    if not (clone / ".pre-commit-hooks.yaml").exists():
        pytest.skip(".pre-commit-hooks.yaml is not committed yet (try-repo uses HEAD)")
    env = {**os.environ, "PRE_COMMIT_HOME": str(base / "cache"), "PRE_COMMIT_COLOR": "never"}
    env.pop("PRE_COMMIT", None)
    yield clone, env


def _project(tmp_path: Path) -> Path:
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "csmall.yaml").write_text(OLD)
    (repo / "app.yaml").write_text(UNRELATED)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "init")
    return repo


def _try_repo(hook_repo: tuple[Path, dict[str, str]], repo: Path, hook: str) -> subprocess.CompletedProcess[str]:
    clone, env = hook_repo
    proc = subprocess.run(
        ["pre-commit", "try-repo", str(clone), hook, "--all-files"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = proc.stdout + proc.stderr
    if "An unexpected error has occurred" in out and any(m in out for m in INSTALL_FAILURES):
        pytest.skip(
            "pre-commit could not install the hook environment (pip has no access to the build "
            "requirement hatchling): " + out[-300:]
        )
    return proc


def test_slow_fix_hook_rewrites_then_passes(hook_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo = _project(tmp_path)
    first = _try_repo(hook_repo, repo, "instancetype-upgrade")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "Failed" in first.stdout and "files were modified by this hook" in first.stdout
    assert (repo / "csmall.yaml").read_text() == OLD.replace("io/v1alpha1\n", "io/v1beta1\n")
    assert (repo / "app.yaml").read_text() == UNRELATED
    second = _try_repo(hook_repo, repo, "instancetype-upgrade")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Passed" in second.stdout


def test_slow_check_hook_fails_without_writing(hook_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo = _project(tmp_path)
    proc = _try_repo(hook_repo, repo, "instancetype-upgrade-check")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Failed" in proc.stdout and "files were modified" not in proc.stdout
    assert (repo / "csmall.yaml").read_text() == OLD
    assert (repo / "app.yaml").read_text() == UNRELATED
