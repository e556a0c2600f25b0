"""The benchmark corpus generator: deterministic, and it writes every part run.py times (no timings here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAKE = ROOT / "benchmarks" / "make_corpus.py"


def _make(out: Path) -> str:
    cmd = [sys.executable, str(MAKE), "--out", str(out), "--scale", "0.01", "--parts", "tree,dense", "--quiet"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return done.stdout.split()[1]


def test_corpus_is_deterministic_and_has_the_dense_part(tmp_path: Path) -> None:
    first = _make(tmp_path / "a")
    assert first == _make(tmp_path / "b")
    info = json.loads((tmp_path / "a" / "corpus.json").read_text())
    assert info["dense"]["files"] == 30 and info["dense"]["kubevirt_files"] == 5
    assert (tmp_path / "a" / "dense" / "export.yaml").stat().st_size > 10_000
    assert info["dense_export"]["documents"] > 1
    assert info["tree"]["files"] == 100
