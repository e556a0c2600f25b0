"""`validate` on a VM with typos across spec.template: each at its line:column, for every target v1.0-v1.9.

The expected lines and columns are read from the fixture's text here (the key's position), not from
transform/; every report format carries them.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import run_module

ROOT = Path(__file__).resolve().parents[2]
TYPOS = ROOT / "fixtures" / "validate" / "vm-typos.yaml"
TARGETS = [f"1.{minor}" for minor in range(10)]


def _at(key: str, nth: int = 0) -> tuple[int, int]:
    hits = [
        (n + 1, line.index(key) + 1)
        for n, line in enumerate(TYPOS.read_text().splitlines())
        if line.lstrip(" -").startswith(f"{key}:")
    ]
    return hits[nth]


EXPECTED = [  # (severity, code, path, key whose position is reported)
    ("error", "schema.type", "spec.running", "running"),
    ("error", "schema.type", "spec.template.spec.domain.cpu.cores", "cores"),
    ("warning", "schema.unknown-field", "spec.template.spec.domain.cpuu", "cpuu"),
    ("warning", "schema.unknown-field", "spec.template.spec.domain.devices.disks[0].disk.buss", "buss"),
]


def _validate(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_module("validate", *args, str(path), text=True)


@pytest.mark.parametrize("target", TARGETS)
def test_typos_reported_at_line_and_column(target: str) -> None:
    run = _validate(TYPOS, "--target-kubevirt", target, "--format", "json")
    assert run.returncode == 3, run.stderr
    report = json.loads(run.stdout or run.stderr)
    got = sorted((f["severity"], f["code"], f["path"], f["line"], f["column"]) for f in report["findings"])
    want = sorted((sev, code, path, *_at(key)) for sev, code, path, key in EXPECTED)
    assert got == want
    # `dataVolume: null` is pruned as the API server prunes it: absent, not an error
    assert all("dataVolume" not in f["path"] for f in report["findings"])
    unknown = [f for f in report["findings"] if f["code"] == "schema.unknown-field"]
    assert unknown[0]["message"] == 'unknown field "spec.template.spec.domain.cpuu"'


def test_strict_makes_unknown_fields_errors_and_every_format_has_positions() -> None:
    run = _validate(TYPOS, "--strict", "--format", "json")
    report = json.loads(run.stdout or run.stderr)
    assert {f["severity"] for f in report["findings"]} == {"error"}
    line, col = _at("cpuu")
    text = _validate(TYPOS)
    assert f"vm-typos.yaml:{line}:{col}: warning:" in text.stdout + text.stderr
    sarif = json.loads((lambda r: r.stdout or r.stderr)(_validate(TYPOS, "--format", "sarif")))
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in sarif["runs"][0]["results"]]
    assert {"startLine": line, "startColumn": col} in [
        {k: v for k, v in region.items() if k in ("startLine", "startColumn")} for region in regions
    ]
    junit = (lambda r: r.stdout or r.stderr)(_validate(TYPOS, "--format", "junit"))
    assert f"{line}:{col}" in junit


@pytest.mark.parametrize("target", ["1.0", "1.5", "1.9"])
def test_a_valid_vm_passes(tmp_path: Path, target: str) -> None:
    text = TYPOS.read_text()
    for bad, good in (('"yes please"', "true"), ("cpuu: 2", "ioThreadsPolicy: auto"), ("cores: two", "cores: 2"),
                      ("buss:", "bus:")):  # fmt: skip
        text = text.replace(bad, good)
    (tmp_path / "vm.yaml").write_text(text)
    run = _validate(tmp_path / "vm.yaml", "--target-kubevirt", target)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "warning" not in run.stdout + run.stderr
