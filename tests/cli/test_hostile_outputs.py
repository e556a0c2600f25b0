"""Hostile outputs (issue 32, items 2 and 11): `--output-file` and `export -o` naming what is no
regular file (a character device, a FIFO, /dev/stdout) are written to, never renamed over; a regular
file is still replaced atomically."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import start_module
from transform.cli.main import main

OLD = (
    "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: a\n"
    "spec:\n  cpu: {guest: 1}\n  memory: {guest: 1Gi}\n"
)
COMMANDS: dict[str, Callable[[Path, str], list[str]]] = {
    "check": lambda tree, out: ["check", str(tree), "--output-file", out],
    "export": lambda tree, out: ["export", "pluto", "-o", out],
}


@pytest.fixture
def no_rename_over(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """os.replace / os.rename onto an existing non-regular file fail the test instead of happening: a
    wrong implementation cannot destroy /dev/null, even as root."""
    tried: list[str] = []
    real_replace, real_rename = os.replace, os.rename

    def guard(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(src: Any, dst: Any, *args: Any, **kw: Any) -> Any:
            try:
                mode = os.lstat(dst).st_mode
            except (OSError, TypeError, ValueError):
                mode = 0
            if mode and not stat.S_ISREG(mode):
                tried.append(os.fsdecode(dst))
                raise PermissionError(1, "the test refuses a rename over a non-regular file", os.fsdecode(dst))
            return real(src, dst, *args, **kw)

        return call

    monkeypatch.setattr(os, "replace", guard(real_replace))
    monkeypatch.setattr(os, "rename", guard(real_rename))
    return tried


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "a.yaml").write_text(OLD)
    return root


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_fifo_is_written_to(
    command: str, tmp_path: Path, no_rename_over: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def reader() -> None:
        with open(fifo, "rb") as fh:  # blocks until the run opens it for writing
            got.append(fh.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    code = main(COMMANDS[command](tree(tmp_path), str(fifo)))
    err = capsys.readouterr().err
    if not got:  # the run never opened it: let a blocked reader go (it reads nothing)
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    thread.join(30)
    assert code == (1 if command == "check" else 0), err
    assert no_rename_over == [] and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got and got[0], err
    assert (b"would change" if command == "check" else b"instancetype.kubevirt.io") in got[0]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_character_device_is_written_to(
    command: str, tmp_path: Path, no_rename_over: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A /dev/null of our own (major 1, minor 3), made where mknod is permitted."""
    null = tmp_path / "null"
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a character device here: {exc}")
    code = main(COMMANDS[command](tree(tmp_path), str(null)))
    err = capsys.readouterr().err
    assert code == (1 if command == "check" else 0), err
    st = os.lstat(null)
    assert no_rename_over == [] and stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_dev_null_is_written_to_never_replaced(
    command: str, tmp_path: Path, no_rename_over: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: exit 3 as a normal user (no write access to /dev), /dev/null destroyed as root. The
    fixture turns any rename over it into a failure, so this test cannot harm the real one."""
    before = os.stat("/dev/null")
    assert stat.S_ISCHR(before.st_mode)
    code = main(COMMANDS[command](tree(tmp_path), "/dev/null"))
    err = capsys.readouterr().err
    assert code == (1 if command == "check" else 0), err
    assert no_rename_over == []
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_dev_stdout_is_standard_output(
    command: str, tmp_path: Path, no_rename_over: list[str], capfd: pytest.CaptureFixture[str]
) -> None:
    """/dev/stdout (here a link to a capture file via /proc/self/fd/1) is the run's standard output."""
    code = main(COMMANDS[command](tree(tmp_path), "/dev/stdout"))
    out, err = capfd.readouterr()
    assert code == (1 if command == "check" else 0), err
    assert no_rename_over == [] and os.path.islink("/dev/stdout")
    assert ("would change" if command == "check" else "instancetype.kubevirt.io") in out


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_regular_file_is_still_replaced_atomically(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.txt"
    report.write_text("old report, longer than nothing\n" * 500)
    report.chmod(0o640)
    inode = report.stat().st_ino
    code = main(COMMANDS[command](tree(tmp_path), str(report)))
    capsys.readouterr()
    assert code == (1 if command == "check" else 0)
    assert report.stat().st_ino != inode and stat.S_IMODE(report.stat().st_mode) == 0o640  # a new file, renamed
    assert "old report" not in report.read_text()


# ---- item 11: standard output that fails ---------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
OLD_VM = "apiVersion: kubevirt.io/v1alpha3\nkind: VirtualMachine\nmetadata:\n  name: v{i}\nspec: {{}}\n"
RESOURCE_LIST = '{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[]}'


def _vms(tmp_path: Path, n: int) -> Path:
    root = tmp_path / "vms"
    root.mkdir()
    for i in range(n):
        (root / f"v{i}.yaml").write_text(OLD_VM.format(i=i))
    return root


def _cli(args: list[str], **kw: Any) -> Any:
    import subprocess

    return start_module(*args, stderr=subprocess.PIPE, **kw)


@pytest.mark.parametrize("command", ["check", "diff", "fix -", "krm", "export", "scan"])
def test_a_full_standard_output_is_an_error_naming_it(command: str, tmp_path: Path) -> None:
    """Was: exit 123 (OSError ENOSPC). /dev/full: every write fails with ENOSPC."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    tree = _vms(tmp_path, 3)
    args = {
        "check": ["check", str(tree)],
        "diff": ["diff", str(tree)],
        "fix -": ["fix", "-"],
        "krm": ["krm"],
        "export": ["export", "pluto"],
        "scan": ["scan", str(tree)],
    }[command]
    stdin = OLD_VM.format(i=0) if command == "fix -" else RESOURCE_LIST if command == "krm" else ""
    import subprocess

    with open("/dev/full", "w") as full:
        proc = _cli(args, stdin=subprocess.PIPE, stdout=full)
        _, err = proc.communicate(stdin.encode())
    said = err.decode()
    assert proc.returncode == 3, said
    assert "standard output" in said and "No space left on device" in said
    assert "internal error" not in said and "Traceback" not in said and "Exception ignored" not in said


@pytest.mark.parametrize("command", ["diff", "check"])
def test_a_closed_pipe_ends_the_run_quietly(command: str, tmp_path: Path) -> None:
    """Was: exit 123 (BrokenPipeError) for `diff TREE | head -1`. Now the exit status a tool ended by
    SIGPIPE has (141), and nothing on stderr."""
    import subprocess

    tree = _vms(tmp_path, 3)
    proc = _cli([command, str(tree)], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone (`head -1` had its line) before the run writes
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait() == 141, err
    assert err == ""
