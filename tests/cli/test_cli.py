"""The command-line contract: exit codes, stdin/stdout, --output-dir, report formats.

In process with click's CliRunner (stdout and stderr apart, bytes); `e2e` runs the installed
entry point in a subprocess for the few tests that are about the process itself.
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys
from dataclasses import dataclass

import pytest
from click.testing import CliRunner

from transform.cli import main as main_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "gitops-repo"
OLD = "apiVersion: instancetype.kubevirt.io/v1alpha1  # keep me\nkind: VirtualMachinePreference\nmetadata:\n  name: p\nspec: {}\n"
NEW = OLD.replace("v1alpha1", "v1beta1")
BAD = "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\nmetadata: {name: x}\nspec:\n  cpu: {guest: two}\n  memory: {guest: 1Gi}\n"


@dataclass
class Ran:
    returncode: int
    stdout: bytes
    stderr: bytes


def cli(*args: str, stdin: bytes | None = None) -> Ran:
    """The command in process: exit code, stdout (data or report), stderr (messages)."""
    result = CliRunner().invoke(main_module.cli, list(args), input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Ran(result.exit_code, result.stdout_bytes, result.stderr_bytes)


def e2e(*args: str, stdin: bytes | None = None, cwd: pathlib.Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "transform", *args], input=stdin, capture_output=True, cwd=cwd, timeout=120
    )


@pytest.fixture
def tree(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "old.yaml").write_text(OLD)
    (tmp_path / "current.yaml").write_text(NEW)
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "old.yaml").write_text(OLD)
    (tmp_path / "notes.txt").write_text(OLD)
    return tmp_path


def test_fix_rewrites_and_exits_1_then_0(tree: pathlib.Path) -> None:
    first = cli("fix", str(tree))
    assert first.returncode == 1, first.stderr
    assert (tree / "a" / "old.yaml").read_text() == NEW
    assert (tree / ".hidden" / "old.yaml").read_text() == OLD  # hidden directories are skipped
    assert (tree / "notes.txt").read_text() == OLD  # only *.yaml, *.yml, *.json
    assert b"1 file changed, 1 object upgraded" in first.stdout  # the report: stdout
    second = cli("fix", str(tree))
    assert second.returncode == 0, second.stderr


def test_check_and_diff_write_nothing(tree: pathlib.Path) -> None:
    check = cli("check", str(tree))
    assert check.returncode == 1
    assert (tree / "a" / "old.yaml").read_text() == OLD
    assert b"would change" in check.stdout
    diff = cli("diff", str(tree))
    assert diff.returncode == 1
    assert (tree / "a" / "old.yaml").read_text() == OLD
    lines = diff.stdout.decode().splitlines()
    assert [ln for ln in lines if ln.startswith(("-api", "+api"))] == [
        "-apiVersion: instancetype.kubevirt.io/v1alpha1  # keep me",
        "+apiVersion: instancetype.kubevirt.io/v1beta1  # keep me",
    ]


def test_include_exclude(tree: pathlib.Path) -> None:
    assert cli("check", str(tree), "--exclude", "a/*").returncode == 0
    assert cli("check", str(tree), "--include", "*.txt").returncode == 1


JINJA_CR = """\
apiVersion: kubevirt.io/v1alpha3
kind: KubeVirt
metadata:
  name: kubevirt
  namespace: {{ namespace }}
spec:
  imagePullPolicy: {{ image_pull_policy }}
"""


def test_a_directory_walk_reads_jinja_templates(tmp_path: pathlib.Path) -> None:
    """kubevirt-ansible's roles/kubevirt/templates/kubevirt-cr.yaml.j2: found in a directory run as when
    named (`*.yaml.j2`, `*.yml.j2`, `*.json.j2`), read as a template, its literal apiVersion upgraded."""
    templates = tmp_path / "roles" / "kubevirt" / "templates"
    templates.mkdir(parents=True)
    (templates / "kubevirt-cr.yaml.j2").write_text(JINJA_CR)
    (templates / "plain.yml.j2").write_text(OLD)
    (templates / "notes.txt.j2").write_text(OLD)
    (templates / "cr.json.j2").write_text(
        '{"apiVersion": "kubevirt.io/v1alpha3", "kind": "KubeVirt", "metadata": {"name": "k"}}'
    )
    ran = cli("fix", str(tmp_path))
    assert ran.returncode == 1, ran.stdout
    assert (templates / "kubevirt-cr.yaml.j2").read_text() == JINJA_CR.replace("v1alpha3", "v1")
    assert (templates / "plain.yml.j2").read_text() == NEW
    assert '"kubevirt.io/v1"' in (templates / "cr.json.j2").read_text()
    assert (templates / "notes.txt.j2").read_text() == OLD


def test_stdin_mode() -> None:
    out = e2e("fix", "-", stdin=OLD.encode())
    assert out.returncode == 0, out.stderr
    assert out.stdout == NEW.encode()
    same = cli("fix", "-", stdin=NEW.encode())
    assert same.returncode == 0 and same.stdout == NEW.encode()


def test_stdin_error_writes_nothing_to_stdout() -> None:
    out = e2e("fix", "--strict", "-", stdin=BAD.encode())  # issue 21 §1: an input problem refuses under --strict
    assert out.returncode == 3
    assert out.stdout == b""
    assert b"<stdin>:5:" in out.stderr and b"spec.cpu.guest" in out.stderr


def test_output_dir_leaves_inputs_untouched(tree: pathlib.Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    out = tmp_path_factory.mktemp("out")
    res = cli("fix", str(tree), "--output-dir", str(out))
    assert res.returncode == 1, res.stderr
    assert (tree / "a" / "old.yaml").read_text() == OLD
    assert (out / "a" / "old.yaml").read_text() == NEW
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == ["a/old.yaml"]


def test_usage_error_exits_2(tree: pathlib.Path) -> None:
    assert e2e("fix").returncode == 2
    assert cli("fix", str(tree), "--format", "yaml").returncode == 2
    assert cli("fix", str(tree), "--target-kubevirt", "banana").returncode == 2
    assert cli("fix", "-", str(tree)).returncode == 2


def test_errors_exit_3_and_other_files_still_processed(tree: pathlib.Path) -> None:
    (tree / "bad.yaml").write_text(BAD)
    res = cli("fix", "--strict", str(tree))  # issue 21 §1: BAD's problem was the input's: refused under --strict
    assert res.returncode == 3
    assert (tree / "bad.yaml").read_text() == BAD
    assert (tree / "a" / "old.yaml").read_text() == NEW
    assert b"bad.yaml:5:" in res.stdout


def test_missing_path_is_an_error(tree: pathlib.Path) -> None:
    res = cli("check", str(tree / "nope.yaml"))
    assert res.returncode == 3
    assert b"no such file" in res.stdout


def test_json_report(tree: pathlib.Path) -> None:
    res = cli("check", str(tree), "--format", "json")
    doc = json.loads(res.stdout)
    assert doc["summary"]["files_changed"] == 1
    assert any(f["code"] == "upgraded" and f["line"] == 1 for f in doc["findings"])


@pytest.mark.parametrize("fmt", ["junit", "sarif"])
def test_machine_formats_parse(tree: pathlib.Path, fmt: str) -> None:
    res = cli("check", str(tree), "--format", fmt)
    text = res.stdout.decode()
    if fmt == "sarif":
        assert json.loads(text)["version"] == "2.1.0"
    else:
        import xml.etree.ElementTree as ET

        ET.fromstring(text)


def test_validate_old_but_valid_passes_with_warning(tree: pathlib.Path) -> None:
    res = cli("validate", str(tree))
    assert res.returncode == 0, res.stderr
    (tree / "bad.yaml").write_text(BAD)
    res = cli("validate", str(tree))
    assert res.returncode == 3
    assert b"bad.yaml:5:" in res.stdout and b"spec.cpu.guest" in res.stdout


def test_help_lists_exit_codes() -> None:
    res = cli("fix", "--help")
    assert res.returncode == 0
    for code in (b"0 ", b"1 ", b"2 ", b"3 ", b"123"):
        assert code in res.stdout


def test_example_repo_round_trip(tmp_path: pathlib.Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    first = e2e("fix", "--rename", str(repo))
    assert first.returncode == 1, first.stderr
    after = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    changed = [p for p in before if before[p] != after[p]]
    assert changed and all(p.suffix in (".yaml", ".json") for p in changed)
    assert (repo / "base" / "web-frontend.yaml").read_bytes() == before[repo / "base" / "web-frontend.yaml"]
    again = cli("fix", "--rename", str(repo))
    assert again.returncode == 0, again.stderr
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == after


def test_a_file_listed_as_a_patch_is_judged_as_a_patch(tmp_path: pathlib.Path) -> None:
    (tmp_path / "overlay").mkdir()
    (tmp_path / "overlay" / "kustomization.yaml").write_text("resources:\n- ../base\npatches:\n- path: bigger.yaml\n")
    patch = "apiVersion: instancetype.kubevirt.io/v1alpha2\nkind: VirtualMachineInstancetype\nmetadata:\n  name: c\nspec:\n  memory:\n    guest: 2Gi\n"
    (tmp_path / "overlay" / "bigger.yaml").write_text(patch)
    assert cli("validate", str(tmp_path)).returncode == 0
    alone = cli("validate", str(tmp_path / "overlay" / "bigger.yaml"))
    assert alone.returncode == 3 and b"required field missing: cpu" in alone.stdout
    res = cli("fix", str(tmp_path))
    assert res.returncode == 1 and b"required" not in res.stdout + res.stderr
    assert (tmp_path / "overlay" / "bigger.yaml").read_text() == patch.replace("v1alpha2", "v1beta1")


def test_worker_processes_give_the_same_results_in_the_same_order(monkeypatch: pytest.MonkeyPatch) -> None:
    from transform.model.settings import Settings
    from transform.pipeline import batch as run
    from transform.pipeline import parallel, sources, upgrade

    monkeypatch.setattr(parallel, "SHARE_MIN_BYTES", 0)  # force the workers even for a small input

    def results(jobs: int) -> list[tuple[str, str | None, list[str]]]:
        res = run.RunResult()
        items = run.read_inputs(sources.discover([str(EXAMPLE)]), res)
        upgrade.upgrade_items(items, Settings(rename=True), res, jobs=jobs)
        return [(r.name, r.new_text, [str(f) for f in r.findings]) for r in res.results]

    serial = results(1)
    assert any(text for _, text, _ in serial)
    assert results(2) == serial


def test_exit_zero_even_if_changed(tree: pathlib.Path) -> None:
    res = cli("fix", "--exit-zero-even-if-changed", str(tree))
    assert res.returncode == 0, res.stderr
    assert (tree / "a" / "old.yaml").read_text() == NEW
    (tree / "bad.yaml").write_text(BAD)
    assert cli("fix", "--strict", "--exit-zero-even-if-changed", str(tree)).returncode == 3


EXIT_PROBE = """
import atexit, runpy, sys

class Kept:
    def __del__(self):
        print("torn down", file=sys.stderr)

kept = Kept()  # freed only when the interpreter tears its modules down
atexit.register(lambda: print("exit handlers ran", file=sys.stderr))
sys.argv = ["transform", *sys.argv[1:]]
runpy.run_module("transform", run_name="__main__")
"""


def test_the_process_ends_without_tearing_the_interpreter_down(tree: pathlib.Path) -> None:
    """`python -m transform` ends once the run is done and its exit handlers ran, without freeing every
    module and object one by one (8% of a pre-commit run's instructions). Observed, not timed; the exit
    code, the report and the written file are those of `main`."""
    probe = [sys.executable, "-c", EXIT_PROBE, "fix", str(tree / "a" / "old.yaml")]
    done = subprocess.run(probe, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 1 and (tree / "a" / "old.yaml").read_text() == NEW, done.stderr  # 1: rewritten
    assert "Rewriting" in done.stderr and "exit handlers ran" in done.stderr
    assert "torn down" not in done.stderr
