"""Hostile file systems (issue 15, items 6, 13-17): limits while reading, non-regular files, owners and
hard links, --rename dependants, --output-dir overlapping the inputs, temp files of killed runs,
workers outliving their parent, broken symbolic links. Tests run as root."""

from __future__ import annotations

import base64
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from tests.pipeline.test_writes import OBJECTS, ROOT, TEMP_PREFIX, _small_file_size_limit, cli, upgraded
from transform.pipeline import writes

IT = (OBJECTS / "instancetype-v1alpha1.yaml").read_bytes()
NOBODY = 65534


def run(*args: str, stdin: int | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "transform", *args],
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
    assert proc.returncode != 123 and "Traceback" not in proc.stderr, proc.stderr
    return proc


# --- item 6: limits while reading, non-regular arguments ------------------------------------------


@pytest.mark.parametrize("command", ["check", "validate", "scan", "diff"])
def test_dev_zero_as_a_path_is_refused(command: str) -> None:
    proc = run(command, "/dev/zero", timeout=30)
    assert proc.returncode == 3 and "not a regular file" in proc.stdout + proc.stderr


@pytest.mark.parametrize("args", [["fix", "-"], ["check", "-"], ["scan", "-"], ["krm"]])
def test_dev_zero_on_stdin_stops_quickly(args: list[str]) -> None:
    with open("/dev/zero", "rb") as zero:
        proc = run(*args, stdin=zero.fileno(), timeout=30)
    assert proc.returncode in (1, 3) and "NUL bytes" in proc.stderr + proc.stdout
    assert proc.stdout == "" or args[0] == "scan"


def test_a_file_over_the_read_limit_is_refused_before_it_is_read(tmp_path: pathlib.Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(IT + b"# padding padding padding\n" * 50_000)  # 1.3 MB
    proc = run("check", "--max-document-size", "64KiB", str(big))
    assert proc.returncode == 3 and "larger than 1048576 bytes" in proc.stdout + proc.stderr, proc.stdout
    with open(big, "rb") as fh:
        proc = run("fix", "--max-document-size", "64KiB", "-", stdin=fh.fileno())
    assert proc.returncode == 3 and proc.stdout == "" and "larger than" in proc.stderr, proc.stderr


@pytest.mark.parametrize("command", [["check"], ["scan"], ["backup", "--check"]])
def test_a_fifo_argument_is_refused_not_waited_for(tmp_path: pathlib.Path, command: list[str]) -> None:
    fifo = tmp_path / ("x.tar.gz" if command[0] == "backup" else "x.yaml")
    os.mkfifo(fifo)
    proc = run(*command, str(fifo), timeout=30)
    assert proc.returncode == 3 and "FIFO" in proc.stdout + proc.stderr


# --- item 13: owner, group, hard links ------------------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown")
def test_owner_and_group_are_kept_when_root_rewrites(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_bytes(IT)
    os.chown(path, NOBODY, NOBODY)
    os.chmod(path, 0o600)
    proc = cli(str(tmp_path))
    assert proc.returncode == 1, proc.stdout
    st = os.stat(path)
    assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (NOBODY, NOBODY, 0o600)
    assert path.read_bytes() == upgraded(IT)


def test_a_hard_linked_file_is_refused_not_split(tmp_path: pathlib.Path) -> None:
    """Decision: refused (a rename over one name would leave the other with the old text)."""
    path = tmp_path / "a.yaml"
    path.write_bytes(IT)
    os.link(path, tmp_path / "b.yml.bak")
    proc = cli(str(path))
    assert proc.returncode == 3 and "2 hard links" in proc.stdout, proc.stdout
    assert path.read_bytes() == IT and (tmp_path / "b.yml.bak").read_bytes() == IT
    assert os.stat(path).st_nlink == 2


# --- item 14: --rename plans every file; dependants of a failed write are not rewritten ------------

UID = "6709b990-f717-44fe-a8ff-cb441d20b904"
OLD_NAME = f"vm-a-csmall-{UID}-1"


def _rename_tree(root: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    spec = base64.b64encode(b'{"cpu":{"guest":1},"memory":{"guest":"128Mi"}}').decode()
    rev = {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": OLD_NAME,
            "namespace": "default",
            "ownerReferences": [
                {
                    "apiVersion": "kubevirt.io/v1",
                    "kind": "VirtualMachine",
                    "name": "vm-a",
                    "uid": "u",
                    "controller": True,
                }
            ],
        },
        "data": {"apiVersion": "instancetype.kubevirt.io/v1alpha1", "spec": spec},
        "revision": 0,
    }
    vm = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm-a", "namespace": "default"},
        "spec": {"instancetype": {"kind": "VirtualMachineInstancetype", "name": "csmall", "revisionName": OLD_NAME}},
    }
    (root / "revisions").mkdir()
    rev_path = root / "revisions" / "cr.json"
    rev_path.write_text(json.dumps(rev, indent=2) + "\n" + " " * 5000 + "\n")  # too big for the 4 KiB limit
    vm_path = root / "vm.yaml"
    vm_path.write_text(json.dumps(vm))
    return rev_path, vm_path


def test_rename_does_not_point_vms_at_a_revision_that_was_not_written(tmp_path: pathlib.Path) -> None:
    """Was: the VM rewritten to the new name, the revision (read-only folder) not: the VM points at nothing."""
    rev_path, vm_path = _rename_tree(tmp_path)
    rev_before, vm_before = rev_path.read_bytes(), vm_path.read_bytes()
    proc = cli("--rename", str(tmp_path), preexec_fn=_small_file_size_limit)
    assert proc.returncode == 3, proc.stdout
    assert rev_path.read_bytes() == rev_before
    assert OLD_NAME.encode() in vm_path.read_bytes() and "v1beta1" not in vm_path.read_text()
    assert "reference.kept" in proc.stdout or vm_path.read_bytes() == vm_before
    proc = cli("--rename", str(tmp_path))  # nothing in the way: both move together
    assert proc.returncode == 1, proc.stdout
    assert OLD_NAME.encode() not in vm_path.read_bytes() and b"v1beta1" in rev_path.read_bytes()


# --- item 15: --output-dir overlapping the inputs -------------------------------------------------


@pytest.mark.parametrize("out", ["t", "t/out", "."])
def test_output_dir_overlapping_an_input_is_refused(tmp_path: pathlib.Path, out: str) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a.yaml").write_bytes(IT)
    proc = subprocess.run(
        [sys.executable, "-m", "transform", "fix", "t", "--output-dir", out],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 2, proc.stderr
    assert "--output-dir" in proc.stderr
    assert (tmp_path / "t" / "a.yaml").read_bytes() == IT


# --- item 16: temp files of killed runs, workers of a dead parent ---------------------------------


def test_stale_temp_files_of_dead_runs_are_swept(tmp_path: pathlib.Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f"{TEMP_PREFIX}{dead.pid}.abc123.tmp"
    stale.write_bytes(b"half")
    mine = tmp_path / f"{TEMP_PREFIX}{os.getpid()}.live.tmp"  # a live run's: kept
    mine.write_bytes(b"in progress")
    (tmp_path / "a.yaml").write_bytes(IT)
    proc = cli(str(tmp_path))
    assert proc.returncode == 1, proc.stdout
    assert not stale.exists() and mine.exists()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_and_sigint_leave_no_temp_file(tmp_path: pathlib.Path, sig: int) -> None:
    target = tmp_path / "a.yaml"
    target.write_bytes(IT)
    code = (
        "import os, signal, sys\n"
        "from transform.cli.exits import guard\n"
        "from transform.pipeline import writes\n"
        "def body():\n"
        "    with writes.atomic_file(sys.argv[1]) as fh:\n"
        "        fh.write(b'partial')\n"
        "        print('ready', flush=True)\n"
        "        signal.pause()\n"
        "    return 0\n"
        "sys.exit(guard(body))\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", code, str(target)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, text=True
    ) as proc:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        proc.send_signal(sig)
        try:
            _out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:  # a failure, not a hung suite: kill it and say so
            proc.kill()
            proc.communicate()
            raise AssertionError(f"the run did not exit within 30 s of {sig!r}") from None
    assert proc.returncode in (130, 143), err
    assert [p.name for p in tmp_path.iterdir()] == ["a.yaml"] and target.read_bytes() == IT


def test_workers_exit_when_their_parent_dies(tmp_path: pathlib.Path) -> None:
    code = (
        "import os, sys, time\n"
        "from transform.pipeline import forkpool\n"
        "def task(n):\n"
        "    os.write(1, f'{os.getpid()}\\n'.encode())  # one write: the workers run at once\n"
        "    time.sleep(60)\n"
        "list(forkpool.imap(task, [0, 1], 2))\n"
    )
    with subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, cwd=ROOT, text=True) as parent:
        assert parent.stdout is not None
        workers = [int(parent.stdout.readline()) for _ in range(2)]
        assert len(set(workers)) == 2  # each held a task (they are handed out in turn)
        parent.kill()
        parent.communicate()
    deadline = time.monotonic() + 20
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [w for w in workers if _running(w)]
    assert not alive, f"workers {alive} outlived their parent"


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return False


# --- item 17: broken symbolic links ---------------------------------------------------------------


def test_dangling_looping_and_self_links_are_named_and_skipped_with_a_warning(tmp_path: pathlib.Path) -> None:
    (tmp_path / "good.yaml").write_bytes(IT)
    (tmp_path / "dangling.yaml").symlink_to(tmp_path / "nowhere.yaml")
    (tmp_path / "self.yaml").symlink_to("self.yaml")
    (tmp_path / "loop-a.yaml").symlink_to("loop-b.yaml")
    (tmp_path / "loop-b.yaml").symlink_to("loop-a.yaml")
    proc = cli(str(tmp_path))
    assert proc.returncode == 1, proc.stdout
    assert "outside the tree" not in proc.stdout
    out = proc.stdout
    assert "dangling.yaml: warning: dangling symbolic link" in out, out
    assert "self.yaml: warning: symbolic link pointing to itself" in out, out
    assert "loop-a.yaml: warning: symbolic link loop" in out and "loop-b.yaml: warning: symbolic link loop" in out
    assert (tmp_path / "good.yaml").read_bytes() == upgraded(IT)


def test_sweep_names() -> None:
    assert writes.temp_name_pid(".instancetype-upgrade.123.x.tmp") == 123
    assert writes.temp_name_pid(".instancetype-upgrade.abcdef.tmp") is None
