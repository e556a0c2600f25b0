"""`export kubeconform-schemas DIR` under hostile directories (issue 32, item 3): nothing outside DIR
changes (a link to a file is replaced, a link to a directory refused), each schema is written
atomically (a failed write leaves the old schema whole), every failure is an error naming the path
(exit 3), never an internal error."""

from __future__ import annotations

import os
import resource
import signal
from pathlib import Path

import pytest

from tests.support.cli import run_module
from transform.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = Path("kubevirt.io", "virtualmachine_v1.json")
GROUP = "snapshot.kubevirt.io"


def export(directory: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["export", "kubeconform-schemas", str(directory)])
    c = capsys.readouterr()
    return code, c.out + c.err


@pytest.fixture(scope="module")
def expected(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, bytes]:
    """Every schema, as a plain export into an empty directory writes it."""
    out = tmp_path_factory.mktemp("plain") / "schemas"
    assert main(["export", "kubeconform-schemas", str(out)]) == 0
    return {p.relative_to(out): p.read_bytes() for p in out.rglob("*.json")}


def test_a_schema_that_is_a_link_is_replaced_its_target_untouched(
    tmp_path: Path, expected: dict[Path, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim.json"
    victim.write_text("keep\n")
    out = tmp_path / "schemas"
    (out / SCHEMA.parent).mkdir(parents=True)
    (out / SCHEMA).symlink_to(victim)
    code, said = export(out, capsys)
    assert code == 0, said
    assert victim.read_text() == "keep\n"
    assert not (out / SCHEMA).is_symlink() and (out / SCHEMA).read_bytes() == expected[SCHEMA]


def test_a_group_directory_that_is_a_link_out_is_refused(
    tmp_path: Path, expected: dict[Path, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "schemas"
    out.mkdir()
    (out / GROUP).symlink_to(elsewhere)
    code, said = export(out, capsys)
    assert code == 3 and "internal error" not in said
    assert list(elsewhere.iterdir()) == []
    assert str(out / GROUP) in said and "outside" in said
    others = [rel for rel in expected if rel.parts[0] != GROUP]
    assert others and all((out / rel).read_bytes() == expected[rel] for rel in others)


def test_a_file_where_a_directory_must_go_is_named(
    tmp_path: Path, expected: dict[Path, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "schemas"
    out.mkdir()
    (out / GROUP).write_text("a file\n")
    code, said = export(out, capsys)
    assert code == 3 and "internal error" not in said and str(out / GROUP) in said, said
    assert (out / GROUP).read_text() == "a file\n"
    assert all((out / rel).read_bytes() == expected[rel] for rel in expected if rel.parts[0] != GROUP)


def test_a_directory_that_is_a_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "schemas"
    out.write_text("a file\n")
    code, said = export(out, capsys)
    assert code in (2, 3) and "internal error" not in said and str(out) in said, said
    assert out.read_text() == "a file\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
def test_a_read_only_directory_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "schemas"
    out.mkdir()
    out.chmod(0o555)
    try:
        code, said = export(out, capsys)
    finally:
        out.chmod(0o755)
    assert code == 3 and "internal error" not in said and str(out) in said, said


def _limited(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_write_that_fails_midway_leaves_every_schema_whole(tmp_path: Path, expected: dict[Path, bytes]) -> None:
    """A full disk, as a file-size limit (RLIMIT_FSIZE: the write fails as it would with ENOSPC):
    was exit 123 and a truncated schema; now each failed schema is named and the old one kept."""
    out = tmp_path / "schemas"
    for rel in expected:
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(b"{}\n")  # an older export, to be replaced or kept whole
    big = sorted(rel for rel, data in expected.items() if len(data) > 64 * 1024)
    assert big  # the limit below cuts these
    run = run_module(
        "export",
        "kubeconform-schemas",
        out,
        env={"PYTHONDONTWRITEBYTECODE": "1"},
        text=True,
        preexec_fn=lambda: _limited(64 * 1024),
    )
    assert run.returncode == 3 and "internal error" not in run.stderr, run.stderr
    for rel, data in expected.items():
        now = (out / rel).read_bytes()
        assert now in (data, b"{}\n"), rel  # the new schema whole, or the old one: never a part
        assert (now == data) == (rel not in big), rel
    assert all(str(out / rel) in run.stderr for rel in big)
    assert [p for p in out.rglob("*") if p.name.endswith(".tmp")] == []
