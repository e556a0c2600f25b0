"""Races between reading and writing (issue 23, item 2): a directory swapped for a symbolic link, or a
file swapped for an identical copy, after the tree was read and before the rewrite. The rewrite goes
to the very directory and file that were read, or nowhere: never outside the tree, and never with
the owner of a file it did not read."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from transform.cli.main import main
from transform.pipeline import upgrade

OLD = (
    "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: a\n"
    "spec:\n  cpu: {guest: 1}\n  memory: {guest: 1Gi}\n"
)


def _after_reading(monkeypatch: pytest.MonkeyPatch, swap: Callable[[], None]) -> None:
    """Run `swap` once the inputs are read and upgraded in memory, before anything is written."""
    real = upgrade.upgrade_items

    def racing(*args: Any, **kw: Any) -> Any:
        out = real(*args, **kw)
        swap()
        return out

    monkeypatch.setattr(upgrade, "upgrade_items", racing)


def test_a_directory_swapped_for_a_link_to_an_identical_copy_gets_no_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: the parent was resolved again at write time and the bytes compared equal, so the rewrite
    landed outside the tree (and took the outside file's owner)."""
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    (tree / "sub").mkdir(parents=True)
    outside.mkdir()
    (tree / "sub" / "a.yaml").write_text(OLD)
    (outside / "a.yaml").write_text(OLD)  # the same bytes: a content check alone passes

    def swap() -> None:
        os.rename(tree / "sub", tmp_path / "moved")
        os.symlink(outside, tree / "sub")

    _after_reading(monkeypatch, swap)
    code = main(["fix", str(tree)])
    out = capsys.readouterr().out
    assert code == 3 and "replaced" in out, out
    assert (outside / "a.yaml").read_text() == OLD
    assert (tmp_path / "moved" / "a.yaml").read_text() == OLD
    assert not [p for p in os.listdir(outside) if p.endswith(".tmp")]


def test_a_file_swapped_for_an_identical_copy_gets_no_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(OLD)
    keep = tmp_path / "kept"

    def swap() -> None:
        os.rename(path, keep)  # the file that was read, still held by its other name
        shutil.copyfile(keep, path)  # another file with the same bytes at the path

    _after_reading(monkeypatch, swap)
    code = main(["fix", str(path)])
    out = capsys.readouterr().out
    assert code == 3 and "no longer leads to the file that was read" in out, out
    assert path.read_text() == OLD and keep.read_text() == OLD


def test_a_file_swapped_for_a_link_gets_no_write_through_the_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(OLD)
    outside = tmp_path / "outside.yaml"
    outside.write_text(OLD)

    def swap() -> None:
        path.unlink()
        os.symlink(outside, path)

    _after_reading(monkeypatch, swap)
    assert main(["fix", str(tmp_path / "a.yaml")]) == 3
    capsys.readouterr()
    assert outside.read_text() == OLD and path.is_symlink()


def test_an_untouched_tree_is_still_rewritten_in_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "sub").mkdir()
    path = tmp_path / "sub" / "a.yaml"
    path.write_text(OLD)
    os.chmod(path, 0o640)
    ino = path.stat().st_ino
    assert main(["fix", str(tmp_path)]) == 1
    capsys.readouterr()
    assert "v1beta1" in path.read_text() and path.stat().st_mode & 0o777 == 0o640 and path.stat().st_ino != ino
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["a.yaml"]


def test_an_output_dir_directory_swapped_for_a_link_gets_no_more_copies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: a directory under --output-dir was checked once; a link planted there later was followed."""
    from transform.pipeline import writes

    src, out, outside = tmp_path / "src", tmp_path / "out", tmp_path / "outside"
    (src / "sub").mkdir(parents=True)
    outside.mkdir()
    for name in ("a.yaml", "b.yaml"):
        (src / "sub" / name).write_text(OLD)
    real = writes.write_atomic
    calls: list[str] = []

    def racing(path: str, data: bytes, *args: Any, **kw: Any) -> None:
        real(path, data, *args, **kw)
        if not calls:
            os.rename(out / "sub", tmp_path / "moved")
            os.symlink(outside, out / "sub")
        calls.append(path)

    monkeypatch.setattr(writes, "write_atomic", racing)
    code = main(["fix", str(src), "--output-dir", str(out)])
    capsys.readouterr()
    assert code == 3 and os.listdir(outside) == []
