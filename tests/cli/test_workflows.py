"""Issue 12: right in every real workflow (--output-dir, reports where tools look, --strict, ...).

Each test here failed on the code before the fix it names.
"""

from __future__ import annotations

import json
import os
import pathlib
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from transform.cli import main as main_module

OLD = "apiVersion: instancetype.kubevirt.io/v1alpha1  # keep me\nkind: VirtualMachinePreference\nmetadata:\n  name: p\nspec: {}\n"
NEW = OLD.replace("v1alpha1", "v1beta1")
KUSTOMIZATION = (
    "resources:\n- it.yaml\npatches:\n- path: p.yaml\n  target:\n    group: instancetype.kubevirt.io\n"
    "    version: v1alpha1\n    kind: VirtualMachinePreference\n"
)
# a v1alpha2 preference that the webhook rules warn about (deprecated topology) but that needs no change
WARNED = (
    "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachinePreference\nmetadata:\n  name: w\n"
    "spec:\n  cpu:\n    preferredCPUTopology: preferThreads\n"
)


def invoke(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main_module.cli, list(args), input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def files(root: pathlib.Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


# --- item 2: --output-dir keeps each input's path; collisions refused before writing ---------------


def test_output_dir_keeps_paths_relative_to_the_common_root(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for env in ("prod", "staging"):
        (tmp_path / "overlays" / env).mkdir(parents=True)
        (tmp_path / "overlays" / env / "kustomization.yaml").write_text(KUSTOMIZATION)
        (tmp_path / "overlays" / env / "it.yaml").write_text(OLD)
    monkeypatch.chdir(tmp_path)
    code, out, err = invoke("fix", "overlays/prod", "overlays/staging", "--output-dir", "out")
    assert code == 1, out + err
    assert files(tmp_path / "out") == [
        "prod/it.yaml",
        "prod/kustomization.yaml",
        "staging/it.yaml",
        "staging/kustomization.yaml",
    ]
    assert "4 files changed" in out


def test_output_dir_file_arguments_are_not_flattened(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "x.yaml").write_text(OLD.replace("name: p", f"name: {d}"))
    monkeypatch.chdir(tmp_path)
    code, out, err = invoke("fix", "a/x.yaml", "b/x.yaml", "--output-dir", "out")
    assert code == 1, out + err
    assert files(tmp_path / "out") == ["a/x.yaml", "b/x.yaml"]
    assert "name: b" in (tmp_path / "out" / "b" / "x.yaml").read_text()


def test_output_dir_outside_the_working_directory(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for d in ("a", "b"):
        (tmp_path / "src" / d).mkdir(parents=True)
        (tmp_path / "src" / d / "x.yaml").write_text(OLD)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    src = tmp_path / "src"
    code, out, err = invoke("fix", str(src / "a" / "x.yaml"), str(src / "b" / "x.yaml"), "--output-dir", "out")
    assert code == 1, out + err
    assert files(tmp_path / "elsewhere" / "out") == ["a/x.yaml", "b/x.yaml"]


def test_output_dir_collision_is_refused_before_writing(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from transform.pipeline import writes

    names = writes.output_names([("a/x.yaml", ""), ("b/../a/x.yaml", "")], cwd=str(tmp_path))
    assert writes.collisions(names) == [("x.yaml", ["a/x.yaml", "b/../a/x.yaml"])]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.yaml").write_text(OLD)
    (tmp_path / "a" / "y.yaml").write_text(OLD)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(writes, "output_names", lambda inputs, cwd=None: {n: "same.yaml" for n, _ in inputs})
    code, _out, err = invoke("fix", "a", "--output-dir", "out")
    assert code == 2 and "would overwrite each other" in err and "nothing written" in err
    assert not (tmp_path / "out").exists()


# --- item 5: the report goes to stdout (or --output-file) unless stdout is the data --------------


@pytest.mark.parametrize("command", ["check", "validate", "scan", "fix"])
def test_sarif_report_on_stdout(tmp_path: pathlib.Path, command: str) -> None:
    (tmp_path / "it.yaml").write_text(OLD)
    code, out, _err = invoke(command, str(tmp_path), "--format", "sarif")
    assert json.loads(out)["version"] == "2.1.0", out


def test_output_file_everywhere(tmp_path: pathlib.Path) -> None:
    (tmp_path / "it.yaml").write_text(OLD)
    for command in ("check", "validate", "scan", "diff"):
        report = tmp_path / f"{command}.json"
        code, out, _err = invoke(command, str(tmp_path / "it.yaml"), "--format", "json", "--output-file", str(report))
        assert json.loads(report.read_text()), command
        if command == "diff":
            assert out.startswith("--- a/"), out  # stdout keeps the data
        else:
            assert out == "", out


def test_diff_and_stdin_keep_stdout_for_data(tmp_path: pathlib.Path) -> None:
    (tmp_path / "it.yaml").write_text(OLD)
    code, out, err = invoke("diff", str(tmp_path / "it.yaml"))
    assert code == 1 and out.startswith("--- ") and "would change" in err
    code, out, err = invoke("fix", "-", stdin=OLD)
    assert code == 0 and out == NEW and "1 file changed" in err


# --- papercut: read-only files -------------------------------------------------------------------


def test_read_only_file_is_refused_unless_force(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "it.yaml"
    path.write_text(OLD)
    path.chmod(0o444)
    try:
        code, out, _err = invoke("fix", str(tmp_path))
        assert code == 3 and "read-only, not rewritten" in out
        assert path.read_text() == OLD
        code, out, _err = invoke("fix", "--force", str(tmp_path))
        assert code == 1 and path.read_text() == NEW
        assert os.stat(path).st_mode & 0o777 == 0o444  # --force keeps the bits
    finally:
        path.chmod(0o644)


# --- item 6: a file that would change is a failure in every format -------------------------------


def test_junit_one_case_per_file_and_would_change_fails(tmp_path: pathlib.Path) -> None:
    (tmp_path / "old.yaml").write_text(OLD)
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")  # no KubeVirt
    code, out, _ = invoke("check", str(tmp_path), "--format", "junit")
    assert code == 1
    suite = ET.fromstring(out)
    assert suite.get("tests") == "2" and suite.get("failures") == "1", out
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases[str(tmp_path / "old.yaml")].find("failure") is not None
    assert cases[str(tmp_path / "cm.yaml")].find("failure") is None


def test_sarif_levels_follow_the_exit_code(tmp_path: pathlib.Path) -> None:
    (tmp_path / "old.yaml").write_text(OLD)
    code, out, _ = invoke("check", str(tmp_path), "--format", "sarif")
    assert code == 1
    levels = {r["ruleId"]: r["level"] for r in json.loads(out)["runs"][0]["results"]}
    assert levels["upgraded"] == "error"
    code, out, _ = invoke("check", str(tmp_path), "--format", "sarif", "--exit-zero")
    assert code == 0
    assert {r["level"] for r in json.loads(out)["runs"][0]["results"]} == {"note"}


# --- item 7: --strict: a warning is an error, counted and rendered so, and nothing with one is written


def test_strict_counts_labels_and_writes_nothing_with_a_warning(tmp_path: pathlib.Path) -> None:
    (tmp_path / "old.yaml").write_text(OLD)
    (tmp_path / "warned.yaml").write_text(WARNED.replace("v1beta1", "v1alpha2"))
    code, out, _ = invoke("fix", "--strict", str(tmp_path))
    assert code == 3
    assert "1 error" in out and "warning" not in out.splitlines()[-1], out
    assert "warned.yaml:7:5: error:" in out and "(an error under --strict)" in out
    assert (tmp_path / "warned.yaml").read_text() == WARNED.replace("v1beta1", "v1alpha2")  # not written
    assert (tmp_path / "old.yaml").read_text() == NEW  # a clean file still is
    code, out, _ = invoke("check", "--strict", "--format", "json", str(tmp_path / "warned.yaml"))
    report = json.loads(out)
    assert report["summary"]["errors"] == 1 and report["summary"]["warnings"] == 0
    assert {f["severity"] for f in report["findings"] if f["code"].startswith("webhook.")} == {"error"}


# --- item 8: one finding per fact, in the command's tense ----------------------------------------


def test_validate_reports_each_fact_once(tmp_path: pathlib.Path) -> None:
    from tests.cli.test_cli import EXAMPLE

    code, out, _ = invoke("validate", str(EXAMPLE))
    lines = [ln for ln in out.splitlines() if ": warning:" in ln or ": error:" in ln]
    assert len(lines) == len(set(lines)), out


def test_check_speaks_in_the_conditional(tmp_path: pathlib.Path) -> None:
    (tmp_path / "old.yaml").write_text(OLD)
    _, out, _ = invoke("check", str(tmp_path))
    assert "apiVersion: would upgrade instancetype.kubevirt.io/v1alpha1" in out, out
    _, out, _ = invoke("fix", str(tmp_path))
    assert "apiVersion: upgraded instancetype.kubevirt.io/v1alpha1" in out, out


def test_a_failed_file_reports_no_upgrade(tmp_path: pathlib.Path) -> None:
    from tests.cli.test_cli import BAD

    (tmp_path / "bad.yaml").write_text(BAD)
    code, out, _ = invoke("check", "--strict", str(tmp_path))  # issue 21 §1: the input's problem refuses under --strict
    assert code == 3 and "[upgraded]" not in out and "0 objects would be upgraded" in out, out


# --- item 9: every fixer option previews in check/diff/stdin/krm ---------------------------------


def test_modernize_previews_and_stops_warning(tmp_path: pathlib.Path) -> None:
    (tmp_path / "warned.yaml").write_text(WARNED)
    code, out, err = invoke("diff", "--modernize", str(tmp_path / "warned.yaml"))
    assert code == 1 and "+    preferredCPUTopology: threads" in out, out + err
    assert "webhook.deprecated" not in err  # the value it rewrote no longer warns
    code, out, _ = invoke("check", "--modernize", str(tmp_path))
    assert code == 1 and "modernize.topology" in out and "webhook.deprecated-topology" not in out
    code, out, _ = invoke("fix", "--modernize", "-", stdin=WARNED)
    assert code == 0 and "preferredCPUTopology: threads" in out
    from transform.integrations import krm

    rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(
        "- " + ln + "\n" if i == 0 else "  " + ln + "\n" for i, ln in enumerate(WARNED.splitlines())
    )
    rl += "functionConfig:\n  kind: ConfigMap\n  data:\n    modernize: 'true'\n"
    assert b"preferredCPUTopology: threads" in krm.process(rl.encode()).data


# --- item 11: nothing matched is said; --exclude takes a bare directory name ----------------------


def test_no_files_matched_warns_and_fails_under_strict(tmp_path: pathlib.Path) -> None:
    (tmp_path / "empty").mkdir()
    code, out, _ = invoke("check", str(tmp_path / "empty"))
    assert code == 0 and "warning: no files matched" in out, out
    assert out.startswith(f"{tmp_path / 'empty'}: warning"), out  # named by the path given, not <stdin>
    code, out, _ = invoke("check", "--strict", str(tmp_path / "empty"))
    assert code == 3 and "error: no files matched" in out, out


def test_exclude_a_bare_directory_name(tmp_path: pathlib.Path) -> None:
    (tmp_path / "exported" / "deep").mkdir(parents=True)
    (tmp_path / "exported" / "deep" / "old.yaml").write_text(OLD)
    (tmp_path / "kept.yaml").write_text(NEW)
    code, out, _ = invoke("check", "--exclude", "exported", str(tmp_path))
    assert code == 0 and "in 1 file" in out, out
    code, out, _ = invoke("check", "--exclude", "exported", str(tmp_path / "exported" / "deep" / "old.yaml"))
    assert code == 0, out


# --- item 12: --statistics, markdown, --exit-zero, --select/--ignore ------------------------------


def test_statistics_counts_per_code(tmp_path: pathlib.Path) -> None:
    (tmp_path / "a.yaml").write_text(OLD)
    (tmp_path / "b.yaml").write_text(OLD.replace("name: p", "name: q"))
    code, out, _ = invoke("check", "--statistics", str(tmp_path))
    assert code == 1 and out.splitlines()[0].split() == ["2", "upgraded", "(info)"], out
    assert invoke("check", "--statistics", "--format", "json", str(tmp_path))[0] == 2


def test_markdown_report(tmp_path: pathlib.Path) -> None:
    (tmp_path / "a.yaml").write_text(OLD)
    code, out, _ = invoke("check", "--format", "markdown", str(tmp_path))
    assert code == 1 and out.startswith("### instancetype-upgrade check")
    assert "| info | `upgraded` |" in out and "| location | severity | code |" in out


@pytest.mark.parametrize("command", ["check", "validate", "scan"])
def test_exit_zero(tmp_path: pathlib.Path, command: str) -> None:
    from tests.cli.test_cli import BAD

    (tmp_path / "a.yaml").write_text(OLD if command != "validate" else BAD)
    assert invoke(command, str(tmp_path))[0] != 0
    assert invoke(command, "--exit-zero", str(tmp_path))[0] == 0


def test_select_and_ignore_by_code_prefix(tmp_path: pathlib.Path) -> None:
    (tmp_path / "warned.yaml").write_text(WARNED)
    _, out, _ = invoke("check", str(tmp_path))
    assert "webhook.deprecated-topology" in out
    _, out, _ = invoke("check", "--ignore", "webhook.", str(tmp_path))
    assert "webhook." not in out and "0 warnings" not in out
    code, _, _ = invoke("check", "--strict", "--ignore", "webhook.deprecated", str(tmp_path))
    assert code == 0  # an ignored warning does not fail a --strict run
    _, out, _ = invoke("check", "--select", "upgraded", str(tmp_path / "warned.yaml"))
    assert "webhook." not in out


# --- papercuts -----------------------------------------------------------------------------------


def test_diff_of_an_absolute_path_has_clean_headers(tmp_path: pathlib.Path) -> None:
    (tmp_path / "old.yaml").write_text(OLD)
    _, out, _ = invoke("diff", str(tmp_path / "old.yaml"))
    assert out.splitlines()[0] == f"--- a{tmp_path}/old.yaml", out


# --- item 10: a progress line for long runs on a terminal only -----------------------------------


def test_progress_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    from transform.cli import progress as progress_module

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    clock = iter(range(0, 100, 2))
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: float(next(clock)))
    bar = progress_module.Progress(unit="entries")
    bar(10)
    bar(20)
    bar.close()
    assert "20 entries" in capsys.readouterr().err
    monkeypatch.setenv("CI", "true")
    bar = progress_module.Progress(unit="entries")
    bar(10)
    bar.close()
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_progress_and_summary_count_the_same_files(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, jobs: str
) -> None:
    """Issue 24 §4: the progress line said "2/2 files" (the candidates) where the summary said "in 5
    files" (every file seen): both count every file seen."""
    from transform.cli import progress as progress_module

    monkeypatch.setattr(progress_module, "stream_is_terminal", lambda: True)
    clock = iter(range(0, 1000, 2))
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: float(next(clock)))
    for i in range(3):
        (tmp_path / f"plain{i}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n")
    for i in range(2):
        (tmp_path / f"old{i}.yaml").write_text(OLD.replace("name: p", f"name: p{i}"))
    code, out, err = invoke("check", str(tmp_path), "-j", jobs)
    assert code == 1 and out.splitlines()[-1].endswith(" in 5 files"), out
    shown = [s for s in err.split("\r") if s.strip() and "files" in s]
    assert shown and shown[-1].strip() == "5/5 files", err
    assert all(s.strip().endswith("/5 files") for s in shown), shown


def test_backup_reports_progress_per_entry(tmp_path: pathlib.Path) -> None:
    import io
    import tarfile

    from transform.integrations import velero
    from transform.model.settings import Settings

    archive = tmp_path / "b.tar"
    with tarfile.open(archive, "w") as tf:
        for i in range(3):
            data = b"{}"
            info = tarfile.TarInfo(f"resources/configmaps/namespaces/default/c{i}.json")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    seen: list[int] = []
    velero.upgrade_backup(str(archive), None, Settings(), lambda done, total: seen.append(done))
    assert seen == [1, 2, 3]


def test_backup_of_a_missing_archive_names_it(tmp_path: pathlib.Path) -> None:
    code, out, _ = invoke("backup", str(tmp_path / "nonexist.tar.gz"), "-o", str(tmp_path / "x.tar.gz"))
    assert code == 3 and out.startswith(f"{tmp_path}/nonexist.tar.gz: error: cannot read"), out


def test_backup_and_scan_take_the_same_archives(tmp_path: pathlib.Path) -> None:
    """scan read an uncompressed tar that backup refused: both take .tar and .tar.gz."""
    import gzip
    import io
    import tarfile

    plain = tmp_path / "b.tar"
    data = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default"}}'
    with tarfile.open(plain, "w") as tf:
        info = tarfile.TarInfo("resources/configmaps/namespaces/default/c.json")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    compressed = tmp_path / "b.tar.gz"
    compressed.write_bytes(gzip.compress(plain.read_bytes()))
    for archive in (plain, compressed):
        code, out, err = invoke("backup", str(archive), "--check")
        assert code == 0 and "in 1 file" in out, out + err
        code, out, err = invoke("scan", str(archive))
        assert code == 0, out + err
