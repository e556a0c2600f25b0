"""Writes never lose a byte: atomic replacement, kills at random points, symlinks, unwritable
files, concurrent runs, --output-dir confinement."""

from __future__ import annotations

import os
import pathlib
import random
import re
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from transform.convert.index import Index
from transform.model.settings import Settings
from transform.pipeline import writes
from transform.pipeline.onefile import upgrade_file

ROOT = pathlib.Path(__file__).resolve().parents[2]
OBJECTS = ROOT / "fixtures" / "objects"
TEMP_PREFIX = ".instancetype-upgrade."
TIMEOUT = 120
OLD = sorted(
    p
    for p in OBJECTS.iterdir()
    if p.suffix in (".yaml", ".json") and "kustomize" not in p.name and "multi" not in p.name
)


def upgraded(data: bytes, name: str = "x.yaml") -> bytes:
    result = upgrade_file(name, data, Settings(), Index())
    assert not result.failed, [str(f) for f in result.findings]
    assert result.changed and result.source is not None and result.new_text is not None
    return result.source.encode(result.new_text)


def cli_background(*args: str, stderr: int = subprocess.PIPE) -> subprocess.Popen[bytes]:
    """`fix` started in the background (stdout discarded)."""
    cmd = [sys.executable, "-m", "transform", "fix", *args]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=stderr, cwd=ROOT)


def cli(*args: str, preexec_fn: Callable[[], None] | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "transform", "fix", *args]
    # the report (stdout) and the messages (stderr) in one stream, in order
    proc = subprocess.run(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
        cwd=ROOT,
        preexec_fn=preexec_fn,
    )
    assert proc.returncode != 123 and "Traceback" not in proc.stdout, proc.stdout
    return proc


def make_tree(root: pathlib.Path, count: int) -> dict[pathlib.Path, tuple[bytes, bytes]]:
    """`count` old files spread over a few directories: path -> (old bytes, expected new bytes)."""
    out: dict[pathlib.Path, tuple[bytes, bytes]] = {}
    for i in range(count):
        src = OLD[i % len(OLD)]
        d = root / f"d{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"f{i:03d}{src.suffix}"
        data = src.read_bytes()
        path.write_bytes(data)
        out[path] = (data, upgraded(data, src.name))
    return out


# --- atomic write ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o600, 0o755, 0o640, 0o444])
def test_permission_bits_are_kept(tmp_path: pathlib.Path, mode: int) -> None:
    src = OBJECTS / "instancetype-v1alpha1.yaml"
    path = tmp_path / "a.yaml"
    path.write_bytes(src.read_bytes())
    path.chmod(mode)
    # a read-only file is rewritten only with --force (issue 12: the user's protection is a signal)
    proc = cli(str(tmp_path), *(["--force"] if not mode & 0o222 else []))
    assert proc.returncode == 1, proc.stdout
    assert path.read_bytes() == upgraded(src.read_bytes())
    assert path.stat().st_mode & 0o7777 == mode


def test_write_atomic_uses_a_synced_temp_file_in_the_same_directory(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.yaml"
    path.write_bytes(b"old")
    path.chmod(0o600)
    events: list[tuple[str, tuple[str, str] | int]] = []
    real_replace, real_fsync = os.replace, os.fsync

    def replace(src: str, dst: str) -> None:
        events.append(("replace", (src, dst)))
        assert pathlib.Path(src).read_bytes() == b"new"  # complete before it becomes visible
        assert pathlib.Path(src).stat().st_mode & 0o7777 == 0o600
        real_replace(src, dst)

    def fsync(fd: int) -> None:
        events.append(("fsync", fd))
        real_fsync(fd)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "fsync", fsync)
    writes.write_atomic(str(path), b"new", expect=b"old")
    assert path.read_bytes() == b"new"
    kinds = [k for k, _ in events]
    assert kinds.index("fsync") < kinds.index("replace")
    replaced = next(v for k, v in events if k == "replace")
    assert isinstance(replaced, tuple)
    src, dst = replaced
    assert os.path.dirname(src) == str(tmp_path) and dst == str(path)
    assert os.path.basename(src).startswith(TEMP_PREFIX)
    assert sorted(os.listdir(tmp_path)) == ["a.yaml"]


def test_write_atomic_refuses_when_the_file_changed_meanwhile(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_bytes(b"someone else's edit")
    with pytest.raises(writes.WriteError, match="changed"):
        writes.write_atomic(str(path), b"new", expect=b"old")
    assert path.read_bytes() == b"someone else's edit"
    assert sorted(os.listdir(tmp_path)) == ["a.yaml"]  # the temp file is gone


def test_write_atomic_cleans_up_when_writing_fails(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.yaml"
    path.write_bytes(b"old")

    def boom(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(writes.WriteError, match="No space"):
        writes.write_atomic(str(path), b"new", expect=b"old")
    assert path.read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["a.yaml"]


# --- killed at random points -------------------------------------------------------------------


def test_sigkill_at_random_points_leaves_old_or_new(tmp_path: pathlib.Path) -> None:
    rng = random.Random(20240611)
    tree = make_tree(tmp_path, 200)
    names = {p.name for p in tree}
    start = time.monotonic()
    cli(str(tmp_path))  # calibrate: how long a whole run takes on this machine (writes come last)
    full = time.monotonic() - start
    dirs = sorted({p.parent for p in tree})
    kills = partial = 0
    for i in range(20):
        for path, (old, _new) in tree.items():
            path.write_bytes(old)
        marks = [d.stat().st_mtime_ns for d in dirs]
        proc = cli_background(str(tmp_path), stderr=subprocess.DEVNULL)
        if i % 2:
            # every other run: kill at a random point of the whole run
            time.sleep(rng.uniform(0.4, 1.0) * full)
        else:
            # the others: wait until the write phase has begun (a temp file or a rename changes a directory),
            # then kill a few milliseconds into it, so that the kills land among the writes on any machine
            while proc.poll() is None and [d.stat().st_mtime_ns for d in dirs] == marks:
                time.sleep(0.0005)
            time.sleep(rng.uniform(0.0, 0.01))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=TIMEOUT)
        done = 0
        for path, (old, new) in tree.items():
            data = path.read_bytes()
            assert data in (old, new), f"{path}: neither the old nor the new bytes"
            done += data == new
        partial += 0 < done < len(tree)
        for d in {p.parent for p in tree}:
            for entry in os.listdir(d):
                if entry not in names:  # only our hidden temp files, never a visible YAML name
                    assert entry.startswith(TEMP_PREFIX) and entry.endswith(".tmp"), entry
    assert kills >= 5 and partial >= 1, (kills, partial, "the kills never hit the write phase: proves nothing")
    final = cli(str(tmp_path))  # a final run finishes the job and ignores the leftovers
    assert final.returncode in (0, 1), final.stdout
    assert TEMP_PREFIX not in final.stdout
    for path, (_old, new) in tree.items():
        assert path.read_bytes() == new


# --- symlinks ----------------------------------------------------------------------------------


def test_symlink_inside_the_tree_is_upgraded_through_its_target(tmp_path: pathlib.Path) -> None:
    data = (OBJECTS / "instancetype-v1alpha1.yaml").read_bytes()
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "a.yaml"
    target.write_bytes(data)
    link = tmp_path / "link.yaml"
    link.symlink_to(os.path.join("real", "a.yaml"))
    proc = cli(str(tmp_path))
    assert proc.returncode == 1, proc.stdout
    assert link.is_symlink() and os.readlink(link) == os.path.join("real", "a.yaml")
    assert target.read_bytes() == upgraded(data)


def test_symlink_only_path_to_a_file_inside_is_upgraded(tmp_path: pathlib.Path) -> None:
    """The link is found before its target (sorted walk): the target must still be written once."""
    data = (OBJECTS / "preference-v1alpha2.yaml").read_bytes()
    (tmp_path / "z").mkdir()
    target = tmp_path / "z" / "p.yaml"
    target.write_bytes(data)
    (tmp_path / "a.yaml").symlink_to(target)
    proc = cli(str(tmp_path))
    assert proc.returncode == 1, proc.stdout
    assert (tmp_path / "a.yaml").is_symlink()
    assert target.read_bytes() == upgraded(data)


def test_symlink_pointing_outside_is_not_followed(tmp_path: pathlib.Path) -> None:
    data = (OBJECTS / "instancetype-v1alpha1.yaml").read_bytes()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_bytes(data)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "escape.yaml").symlink_to(outside / "secret.yaml")
    (tree / "dangling.yaml").symlink_to(tmp_path / "nowhere.yaml")
    (tree / "good.yaml").write_bytes(data)
    proc = cli(str(tree))
    # both links are skipped with a warning (issue 12: a link leaving the tree is not an error); the
    # good file is upgraded, so the run exits 1
    assert proc.returncode == 1, proc.stdout
    assert re.search(r"escape\.yaml: warning: symbolic link pointing outside the tree", proc.stdout), proc.stdout
    assert re.search(r"dangling\.yaml: warning: ", proc.stdout), proc.stdout
    assert (outside / "secret.yaml").read_bytes() == data
    assert (tree / "escape.yaml").is_symlink()
    assert (tree / "good.yaml").read_bytes() == upgraded(data)


# --- unwritable files (tests run as root: permissions do not stop us) ---------------------------


def _small_file_size_limit() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of death
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def test_a_file_that_cannot_be_written_is_reported_and_the_run_goes_on(tmp_path: pathlib.Path) -> None:
    small = (OBJECTS / "preference-v1alpha2.yaml").read_bytes()
    big = (OBJECTS / "instancetype-v1alpha1.yaml").read_bytes() + b"# padding\n" * 1000
    (tmp_path / "a-big.yaml").write_bytes(big)
    (tmp_path / "b-small.yaml").write_bytes(small)
    proc = cli(str(tmp_path), preexec_fn=_small_file_size_limit)
    assert proc.returncode == 3, proc.stdout
    assert "a-big.yaml: error: cannot write" in proc.stdout
    assert (tmp_path / "a-big.yaml").read_bytes() == big
    assert (tmp_path / "b-small.yaml").read_bytes() == upgraded(small)
    assert sorted(os.listdir(tmp_path)) == ["a-big.yaml", "b-small.yaml"]


def test_output_dir_with_a_file_in_the_way(tmp_path: pathlib.Path) -> None:
    data = (OBJECTS / "instancetype-v1alpha1.yaml").read_bytes()
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "a.yaml").write_bytes(data)
    (src / "b.yaml").write_bytes(data)
    out = tmp_path / "out"
    out.mkdir()
    (out / "sub").write_bytes(b"a file, not a directory")
    proc = cli("--output-dir", str(out), str(src))
    assert proc.returncode == 3, proc.stdout
    assert "a.yaml: error: cannot" in proc.stdout
    assert (out / "sub").read_bytes() == b"a file, not a directory"
    assert (out / "b.yaml").read_bytes() == upgraded(data)
    assert (src / "sub" / "a.yaml").read_bytes() == data


# --- concurrent runs ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_two_concurrent_runs_never_corrupt_a_file(tmp_path: pathlib.Path, seed: int) -> None:
    tree = make_tree(tmp_path, 120)
    sub = next(iter(tree)).parent  # the second run sees part of the tree: overlapping, not equal
    first = cli_background(str(tmp_path))
    time.sleep(random.Random(seed).uniform(0.0, 0.3))
    second = cli_background(str(sub))
    for proc in (first, second):
        _out, err = proc.communicate(timeout=TIMEOUT)
        assert proc.returncode in (0, 1, 3), err
        assert b"Traceback" not in err and b"internal error" not in err, err
        if proc.returncode == 3:  # only "someone else changed it" is acceptable
            errors = [ln for ln in err.decode().splitlines() if ": error:" in ln]
            assert all("[output.write]" in ln for ln in errors), err
    for path, (_old, new) in tree.items():
        assert path.read_bytes() == new, path


def test_an_edit_made_during_the_run_is_not_overwritten(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone edits the file between our read and our write: their edit wins, we report it."""
    from transform.cli import main as cli_mod

    data = (OBJECTS / "instancetype-v1alpha1.yaml").read_bytes()
    path = tmp_path / "a.yaml"
    path.write_bytes(data)
    real = writes.write_atomic

    def racing(p: str, new: bytes, expect: bytes | None = None, **kw: Any) -> None:
        pathlib.Path(p).write_bytes(b"# edited by a person\n" + data)
        real(p, new, expect=expect, **kw)

    monkeypatch.setattr(writes, "write_atomic", racing)
    assert cli_mod.main(["fix", str(tmp_path)]) == 3
    assert path.read_bytes() == b"# edited by a person\n" + data


# --- --output-dir confinement ------------------------------------------------------------------


@pytest.mark.parametrize(
    "rel", ["../x.yaml", "a/../../x.yaml", "/etc/x.yaml", "../out-sibling/x.yaml", "a/../../../../../x.yaml"]
)
def test_output_path_refuses_to_leave_the_directory(tmp_path: pathlib.Path, rel: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(writes.WriteError, match="outside"):
        writes.output_path(str(out), rel)
    with pytest.raises(writes.WriteError):
        writes.OutputDir(str(out)).write(rel, b"data")
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_output_path_refuses_a_symlink_inside_out_dir_that_escapes(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / "link").symlink_to(elsewhere)
    with pytest.raises(writes.WriteError, match="outside"):
        writes.OutputDir(str(out)).write("link/x.yaml", b"data")
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("rel", ["a.yaml", "a/b/c.yaml", "a/../b.yaml", "./c.yaml"])
def test_output_path_keeps_legitimate_paths_inside(tmp_path: pathlib.Path, rel: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    target = writes.OutputDir(str(out)).write(rel, b"data")
    assert target.startswith(str(out.resolve()) + os.sep)
    assert pathlib.Path(target).read_bytes() == b"data"


def test_output_dir_leaves_inputs_untouched_and_mirrors_the_tree(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    tree = make_tree(src, 20)
    out = tmp_path / "out"
    proc = cli("--output-dir", str(out), str(src))
    assert proc.returncode == 1, proc.stdout
    for path, (old, new) in tree.items():
        assert path.read_bytes() == old
        assert (out / path.relative_to(src)).read_bytes() == new
    assert sorted(os.listdir(tmp_path)) == ["out", "src"]
