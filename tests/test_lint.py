"""The code stays ruff-clean, ruff-formatted and type-checked.

The tools are test dependencies (`pip install -e '.[test]'`): a missing one fails these tests, it never
skips them, so a test environment without them cannot pass silently.
"""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PATHS = ["transform", "tests", "benchmarks", "scripts"]


def _run(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    assert importlib.util.find_spec(module) is not None, f"{module} is not installed: pip install -e '.[test]'"
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff() -> None:
    out = _run("ruff", "check", *PATHS)
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_format() -> None:
    out = _run("ruff", "format", "--check", *PATHS)
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy() -> None:
    out = _run("mypy")
    assert out.returncode == 0, out.stdout + out.stderr
