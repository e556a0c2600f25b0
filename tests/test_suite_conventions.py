"""The suite's own conventions (docs/testing.md): the command line runs through tests/support/cli.py, and the
tests that run a tool from the PATH carry the `integration` marker, which the default run still selects."""

from __future__ import annotations

import pathlib
import re

import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
# click's runner inside the script a test hands to a child process (its own sys.path): not a test's runner
CHILD_SCRIPTS = {"tests/kubevirt/test_future_hop.py"}
TOOL_RUN = re.compile(r"""\[\s*(?:"(?:kubectl|kpt|kustomize|tar|git|pre-commit)"|KUBECTL\b|TAR\b|\*cmd\b)""")


def _modules() -> dict[str, str]:
    here = pathlib.Path(__file__).resolve()
    return {
        p.relative_to(ROOT).as_posix(): p.read_text()
        for p in sorted(TESTS.rglob("*.py"))
        if p.resolve() != here and "support" not in p.relative_to(TESTS).parts
    }


def test_the_command_line_runs_through_the_shared_runner() -> None:
    """No module builds its own CliRunner or `python -m transform` command line (tests/support/cli.py does)."""
    own = [
        rel
        for rel, text in _modules().items()
        if ("CliRunner(" in text and rel not in CHILD_SCRIPTS) or '"-m", "transform"' in text
    ]
    assert own == []


def test_a_module_that_runs_a_tool_from_the_path_marks_its_tests_integration() -> None:
    unmarked = [
        rel
        for rel, text in _modules().items()
        if TOOL_RUN.search(text) and "pytest.mark.integration" not in text and "subprocess" in text
    ]
    assert unmarked == []


def test_the_integration_marker_is_registered_and_selected_by_default() -> None:
    """`python -m pytest` (the README's command, what .ci/run runs) runs the integration tests too."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert any(m.startswith("integration:") for m in options["markers"])
    assert "integration" not in options["addopts"]
    assert "integration" not in (ROOT / ".ci" / "run").read_text()
