"""Hostile command lines, configurations and reports (issue 23, items 3, 6, 7, 8, 9 and the low items):
a report file that is an input, names that are not UTF-8, broken configuration values and working
directories, numbers out of range, control characters and markup in keys, `-q`, config discovery."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.support import samples
from transform.cli.main import main

OLD = samples.INSTANCETYPE_V1ALPHA1


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ---- item 3: --output-file naming an input -------------------------------------------------------


@pytest.mark.parametrize("command", ["check", "fix", "validate", "diff", "scan"])
@pytest.mark.parametrize("how", ["same", "symlink", "dot-slash", "in-directory", "config"])
def test_a_report_file_that_is_an_input_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], command: str, how: str
) -> None:
    """Was: the report replaced the manifest (even under check, and from pyproject.toml on every run)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    Path("a.yaml").write_text(OLD)
    Path("plain.yaml").write_text("kind: ConfigMap\n")
    target = {"same": "a.yaml", "symlink": "link.yaml", "dot-slash": "./a.yaml", "in-directory": "plain.yaml"}
    if how == "symlink":
        os.symlink("a.yaml", "link.yaml")
    args = [command, "." if how == "in-directory" else "a.yaml"]
    if how == "config":
        Path("pyproject.toml").write_text('[tool.instancetype-upgrade]\noutput-file = "a.yaml"\n')
    else:
        args += ["--output-file", target[how]]
    code, _, err = _run(args, capsys)
    assert code == 2 and "--output-file" in err and "input" in err, err
    assert Path("a.yaml").read_text() == OLD and Path("plain.yaml").read_text() == "kind: ConfigMap\n"


def test_backup_report_file_is_neither_the_archive_nor_the_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.tar.gz"
    src.write_bytes(b"not read")
    for report in (src, tmp_path / "out.tar.gz"):
        code, _, err = _run(
            ["backup", str(src), "-o", str(tmp_path / "out.tar.gz"), "--output-file", str(report)], capsys
        )
        assert code == 2 and "--output-file" in err, err
    assert src.read_bytes() == b"not read"


def test_the_report_replaces_a_symlink_at_the_target_and_never_writes_through_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("a.yaml").write_text(OLD)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n")
    os.symlink(outside, "report.txt")
    code, _, _ = _run(["check", "a.yaml", "--output-file", "report.txt"], capsys)
    assert code == 1 and outside.read_text() == "keep\n"
    assert not Path("report.txt").is_symlink() and "would change" in Path("report.txt").read_text()
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_a_report_that_cannot_be_written_after_a_rewrite_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The files were rewritten and the report then failed: exit 3, and the message says both."""
    monkeypatch.chdir(tmp_path)
    Path("a.yaml").write_text(OLD)
    code, _, err = _run(["fix", "a.yaml", "--output-file", "missing/rep.json"], capsys)
    assert code == 3 and "missing/rep.json" in err and "1 file(s) had been rewritten" in err, err
    assert "v1beta1" in Path("a.yaml").read_text()


# ---- item 6: names that are not UTF-8 -------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "sarif", "markdown"])
@pytest.mark.parametrize("to_file", [False, True])
def test_a_file_name_that_is_not_utf8_is_escaped_in_every_format(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    fmt: str,
    to_file: bool,
) -> None:
    """Was: exit 123 after `fix` had rewritten the file (sarif), an empty report file (text, json,
    markdown). Now: the name is written as git writes it (`bad\\377`), the report is valid UTF-8."""
    monkeypatch.chdir(tmp_path)
    os.mkdir("t")
    name = b"t/bad\xff\x1b[2J.yaml"
    with open(name, "wb") as fh:
        fh.write(OLD.encode())
    args = ["fix", "t", "--format", fmt] + (["--output-file", "report.out"] if to_file else [])
    code = main(args)
    out = capsysbinary.readouterr().out
    report = Path("report.out").read_bytes() if to_file else out
    assert code == 1, report
    text = report.decode("utf-8")  # valid UTF-8
    assert "\x1b" not in text, text
    assert ("%FF%1B" if fmt == "sarif" else "377") in text, text  # SARIF: a URI, its bytes percent-encoded
    if fmt in ("json", "sarif"):
        json.loads(text)
    with open(name, "rb") as fh:
        assert b"v1beta1" in fh.read()


# ---- items 7 and 8: configuration values, the working directory, ranges ---------------------------


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("quiet = [1]", "quiet"),
        ('rename = "yes"', "rename"),
        ("jobs = true", "jobs"),
        ("exclude = 5", "exclude"),
        ("target-kubevirt = 1.10", "quote"),
        ("target-cdi = 1.60", "quote"),
        ("max-document-size = -5", "positive"),
        ("max-document-size = 0", "positive"),
        ("jobs = -1", "jobs"),
        ("exclude = " + "[" * 5000 + "]" * 5000, "nested"),
    ],
)
def test_a_bad_configuration_value_is_one_usage_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], line: str, says: str
) -> None:
    """Was: a traceback and exit 1 (quiet = [1], the deep array), or a silent 1.1 / -80 bytes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    Path("a.yaml").write_text(OLD)
    Path("pyproject.toml").write_text(f"[tool.instancetype-upgrade]\n{line}\n")
    code, out, err = _run(["check", "a.yaml"], capsys)
    assert code == 2, (out, err)
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in err, err


@pytest.mark.parametrize("option", ["--max-document-size", "--max-archive-size"])
@pytest.mark.parametrize("value", ["-5", "0", "0k"])
def test_sizes_must_be_positive_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    command = "scan" if option == "--max-archive-size" else "check"
    (tmp_path / "a.yaml").write_text(OLD)
    code, _, err = _run([command, str(tmp_path / "a.yaml"), option, value], capsys)
    assert code == 2 and "positive" in err, err


def test_a_deleted_working_directory_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.yaml").write_text(OLD)
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    code, _, err = _run(["check", str(tmp_path / "a.yaml")], capsys)
    assert code == 2 and "working directory" in err and "Traceback" not in err, err


def test_reading_the_configuration_runs_inside_the_guard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bug while reading the configuration is an internal error (123, one line), not a traceback."""
    from transform.cli import config

    def broken(*args: object, **kw: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(config, "find", broken)
    (tmp_path / "a.yaml").write_text(OLD)
    code, _, err = _run(["check", str(tmp_path / "a.yaml")], capsys)
    assert code == 123 and "internal error" in err and "boom" in err and "Traceback" not in err


# ---- config discovery (low) -------------------------------------------------------------------------


def test_discovery_stops_at_the_first_project_and_never_goes_above_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: without .git the walk went up to /, and a stray pyproject.toml in /tmp applied."""
    stray = '[tool.instancetype-upgrade]\nquiet = "not a flag"\n'
    (tmp_path / "pyproject.toml").write_text(stray)  # above home: never read
    home = tmp_path / "home"
    (home / "proj" / "sub").mkdir(parents=True)
    (home / "proj" / "sub" / "a.yaml").write_text(OLD)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home / "proj" / "sub")
    code, _, err = _run(["check", "a.yaml", "--debug"], capsys)
    assert code == 1 and "configuration: none found" in err, err
    (home / "pyproject.toml").write_text(stray)  # a project of its own in between ends the search
    (home / "proj" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    code, _, err = _run(["check", "a.yaml"], capsys)
    assert code == 1, err
    (home / "proj" / "pyproject.toml").write_text("[tool.instancetype-upgrade]\nquiet = true\n")
    code, _, err = _run(["check", "a.yaml", "--debug"], capsys)
    assert code == 1 and f"configuration: {home / 'proj' / 'pyproject.toml'}" in err, err


# ---- item 9: control characters and markup from the input --------------------------------------------

KEY = "\x1b[2J\nforged.yaml:1:1: error: x `<img src=x onerror=alert(1)>` | a\rb"


def _hostile_key(tmp_path: Path) -> Path:
    doc = OLD + "  " + json.dumps(KEY) + ": 1\n"
    path = tmp_path / "a.yaml"
    path.write_text(doc)
    return path


def test_text_report_escapes_control_characters_in_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Was: ESC[2J cleared the screen and a newline forged a finding line."""
    code, out, _ = _run(["check", str(_hostile_key(tmp_path))], capsys)
    assert code == 1 and "\x1b" not in out and "\r" not in out
    assert not any(line.startswith("forged.yaml") for line in out.splitlines()), out
    assert "\\033[2J\\nforged" in out


def test_markdown_report_escapes_what_markdown_and_html_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: a backtick closed the code span, raw HTML followed, a CR broke the table row."""
    code, out, _ = _run(["check", str(_hostile_key(tmp_path)), "--format", "markdown"], capsys)
    assert code == 1
    rows = [line for line in out.splitlines() if line.startswith("|")]
    assert all(line.endswith("|") for line in rows) and "\r" not in out and "\x1b" not in out
    assert "<img" not in out and "&lt;img" in out
    for row in rows[2:]:  # every row has the header's five cells: no `|` from the input splits one
        assert len(re.findall(r"(?<!\\)\|", row)) == 6, row
    assert all(row.count("`") % 2 == 0 for row in rows)  # only our own code spans, closed


def test_scan_text_escapes_names_from_the_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(OLD.replace("name: a", 'name: "a\\e[2J"\n  namespace: "n\\e]0;x\\a"'))
    code, out, _ = _run(["scan", str(path)], capsys)
    assert "\x1b" not in out and "\x07" not in out and "\\033" in out, out


# ---- -q (low) ------------------------------------------------------------------------------------------


def test_quiet_prints_no_rewriting_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(3):
        (tmp_path / f"{i}.yaml").write_text(OLD)
    code, out, err = _run(["fix", str(tmp_path), "-q"], capsys)
    assert code == 1 and "Rewriting" not in err and "3 files changed" in out, (out, err)
    for i in range(3):
        (tmp_path / f"{i}.yaml").write_text(OLD)
    code, _, err = _run(["fix", str(tmp_path)], capsys)
    assert err.count("Rewriting") == 3


def test_export_output_file_is_replaced_never_written_through_a_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The sibling of --output-file for `export -o`: was opened for writing through the link."""
    outside = tmp_path / "outside.yaml"
    outside.write_text("keep\n")
    link = tmp_path / "map.yaml"
    os.symlink(outside, link)
    code, _, err = _run(["export", "mapkubeapis", "-o", str(link)], capsys)
    assert code == 0, err
    assert outside.read_text() == "keep\n" and not link.is_symlink() and link.read_text()
