"""The shipped pre-commit hooks, run by the real `pre-commit try-repo` (slow: it builds a venv).

`try-repo` installs this package into a fresh virtualenv with pip (the build backend,
hatchling, comes from the configured package index). A clone of HEAD is used, so that
uncommitted work elsewhere in the checkout cannot leak into the hook environment. When pip
cannot get the build requirements (no network and no local index), the tests are skipped
with that reason. Slow tests are named test_slow_*; they share one PRE_COMMIT_HOME.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # git and pre-commit

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


# --- issue 12 item 1: pre-commit splits the file list into batches run in parallel ---------------

WRAPPER_REVISION = """\
# an old v1alpha1 wrapper revision: kind and name only known from the VM that references it
apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: vm-z-u1.medium-0b1c9d2e-3f40-4a51-8b62-7c83d94ea5f6-2
  namespace: default
  ownerReferences:
  - apiVersion: kubevirt.io/v1
    blockOwnerDeletion: true
    controller: true
    kind: VirtualMachine
    name: vm-z
    uid: 7ad77f47-ee51-4024-8d5b-4141aec7b04c
data:
  apiVersion: ""
  spec: eyJjcHUiOnsiZ3Vlc3QiOjF9LCJtZW1vcnkiOnsiZ3Vlc3QiOiI0R2kifX0=
revision: 0
"""
VM = """\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm-z
  namespace: default
  uid: 7ad77f47-ee51-4024-8d5b-4141aec7b04c
spec:
  runStrategy: Always
  instancetype:
    kind: VirtualMachineClusterInstancetype
    name: u1.medium
    revisionName: vm-z-u1.medium-0b1c9d2e-3f40-4a51-8b62-7c83d94ea5f6-2
  template:
    spec:
      domain:
        devices: {}
"""
NEW_NAME = "vm-z-u1.medium-v1beta1-0b1c9d2e-3f40-4a51-8b62-7c83d94ea5f6-2"


def test_slow_every_file_in_one_process_whatever_the_batches(
    hook_repo: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """A revision in the first batch and its VM in the last: with `--rename` the VM's reference must
    follow the rename, and the revision keep the cluster kind only the VM knows (require_serial)."""
    clone, env = hook_repo
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True, check=True)
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a-cr.yaml").write_text(WRAPPER_REVISION)
    # 20 fillers: with 2+ CPUs pre-commit's (seeded) shuffle puts a-cr.yaml and z-vm.yaml in different batches
    for i in range(20):
        (repo / f"m-filler-{i:02}.yaml").write_text(UNRELATED.replace("name: app", f"name: app-{i}"))
    (repo / "z-vm.yaml").write_text(VM)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {clone}\n  rev: {rev.stdout.strip()}\n  hooks:\n  - id: instancetype-upgrade\n"
        "    args: [--rename]\n"
    )
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "init")
    proc = subprocess.run(
        ["pre-commit", "run", "--all-files"], cwd=repo, env=env, capture_output=True, text=True, timeout=600
    )
    out = proc.stdout + proc.stderr
    if "An unexpected error has occurred" in out and any(m in out for m in INSTALL_FAILURES):
        pytest.skip("pre-commit could not install the hook environment: " + out[-300:])
    assert proc.returncode == 1, out
    revision = (repo / "a-cr.yaml").read_text()
    assert f"name: {NEW_NAME}" in revision, revision
    assert "kind: VirtualMachineClusterInstancetype" in revision, revision
    assert f"revisionName: {NEW_NAME}" in (repo / "z-vm.yaml").read_text()
    again = subprocess.run(
        ["pre-commit", "run", "--all-files"], cwd=repo, env=env, capture_output=True, text=True, timeout=600
    )
    assert again.returncode == 0, again.stdout + again.stderr


# --- pre-commit cuts a long file list into serial runs (128 KiB of names): `--context .` ------------

SUMMARY = re.compile(r"^\d+ files? changed, \d+ objects? upgraded, .* in \d+ files?$", re.M)  # one per run


def _batched_repo(hook_repo: tuple[Path, dict[str, str]], repo: Path, args: str) -> None:
    """a-cr.yaml first, z-vm.yaml last, between them 360 fillers of 400-byte paths: 144 KB of names,
    more than pre-commit's 128 KiB cap on one command line (pre_commit/xargs.py), so at least 2 runs."""
    clone, _ = hook_repo
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True, check=True)
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a-cr.yaml").write_text(WRAPPER_REVISION)
    deep = repo / ("m-" + "d" * 190)
    deep.mkdir()
    for i in range(360):
        (deep / f"{i:04}-{'f' * 190}.yaml").write_text(UNRELATED.replace("name: app", f"name: app-{i}"))
    (repo / "z-vm.yaml").write_text(VM)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {clone}\n  rev: {rev.stdout.strip()}\n  hooks:\n  - id: instancetype-upgrade\n"
        f"    args: [{args}]\n    verbose: true\n"
    )
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "init")


def _run_all(hook_repo: tuple[Path, dict[str, str]], repo: Path) -> tuple[int, str]:
    proc = subprocess.run(
        ["pre-commit", "run", "--all-files"], cwd=repo, env=hook_repo[1], capture_output=True, text=True, timeout=600
    )
    out = proc.stdout + proc.stderr
    if "An unexpected error has occurred" in out and any(m in out for m in INSTALL_FAILURES):
        pytest.skip("pre-commit could not install the hook environment: " + out[-300:])
    return proc.returncode, out


@pytest.mark.parametrize("args", ["--rename", "--quiet"])
def test_slow_batches_read_the_whole_tree(hook_repo: tuple[Path, dict[str, str]], tmp_path: Path, args: str) -> None:
    """The revision in the first run, its VM in the last: the revision gets the cluster kind only the
    VM knows; under --rename it keeps its name (its VM is outside the run that upgrades it:
    reference.outside-run), and the VM still names a revision that exists. Never a dangling name."""
    repo = tmp_path / "project"
    _batched_repo(hook_repo, repo, args)
    code, out = _run_all(hook_repo, repo)
    assert code == 1, out
    assert len(SUMMARY.findall(out)) >= 2, out  # pre-commit did cut the list into 2+ runs
    revision = (repo / "a-cr.yaml").read_text()
    assert "instancetype.kubevirt.io/object-kind: VirtualMachineClusterInstancetype" in revision, revision
    assert "kind: VirtualMachineClusterInstancetype" in revision and "VirtualMachineInstancetype" not in revision
    old_name = "vm-z-u1.medium-0b1c9d2e-3f40-4a51-8b62-7c83d94ea5f6-2"
    assert f"  name: {old_name}\n" in revision and NEW_NAME not in revision, revision
    assert (repo / "z-vm.yaml").read_text() == VM
    assert ("[reference.outside-run]" in out) == (args == "--rename"), out
    again, out = _run_all(hook_repo, repo)
    assert again == 0, out
