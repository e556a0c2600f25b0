"""Start-up cost is counted in imports, not timed: what `check` imports when nothing staged is ours.

Pre-commit runs the tool on every commit; most commits stage nothing it cares about. On that path the
tool may import click and its own light modules only: no parser, no validator, no conversion rules, no
report format that is not asked for (benchmarks/run.py times it against `python -c "import click"`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The only transform modules the nothing-relevant path may import (add one only with a reason).
ALLOWED = {
    "transform",
    "transform.cli",
    "transform.cli.main",
    "transform.cli.driver",
    "transform.cli.config",
    "transform.cli.exits",
    "transform.cli.options",
    "transform.cli.progress",  # the progress line (stdlib only), split out of driver
    "transform.model",
    "transform.model.findings",
    "transform.model.policy",  # the run policy (stdlib only), split out of findings
    "transform.pipeline.outputs",  # the sinks of the file commands (stdlib only)
    "transform.pipeline.upgrade",  # the plan (its engine is imported lazily)
    "transform.model.settings",
    "transform.model.limits",
    "transform.pipeline",
    "transform.pipeline.batch",
    "transform.pipeline.writes",
    "transform.pipeline.sources",
    "transform.report",
    "transform.report.formats",
    "transform.report.summary",  # split out of formats (the summary line and its wording)
    "transform.report.text_formats",  # split out of formats (statistics, markdown)
    "transform.yamltext",
    "transform.yamltext.textio",
    "transform.convert",
    "transform.convert.kustomize",
    "transform.convert.apiversion",
    "transform.kubevirt",
    "transform.kubevirt.apis",  # the pre-filter's needles come from the API table
    "transform.kubevirt.apihistory",  # generated rows of that table (two literals, no imports)
    "transform.convert.flavor_v1alpha1",
    "transform.convert.instancetype_v1alpha1",
    "transform.convert.instancetype_v1alpha2",
}
# Heavy or unneeded outside modules (those the interpreter's site may already hold are not listed).
FORBIDDEN = ("yaml", "ruamel", "jsonschema", "jsonschema_rs", "json", "xml", "difflib", "email", "socket", "decimal")

PROBE = """
import sys
before = set(sys.modules)
from transform.cli.main import main
code = main(["check", *sys.argv[1:]])
new = sorted(set(sys.modules) - before)
import json
print(json.dumps({"code": code, "new": new}))
"""


def _imports(tmp_path: Path, files: dict[str, str], *args: str) -> tuple[int, set[str]]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args, *(str(tmp_path / n) for n in files)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["code"], set(result["new"])


ORDINARY = {
    "deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n",
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: '1'\n",
    "svc.json": '{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}\n',
}


def test_nothing_relevant_imports_only_the_light_modules(tmp_path: Path) -> None:
    code, new = _imports(tmp_path, ORDINARY)
    assert code == 0
    ours = {m for m in new if m.split(".")[0] == "transform"}
    assert ours <= ALLOWED, sorted(ours - ALLOWED)
    heavy = sorted(m for m in new if m.split(".")[0] in FORBIDDEN)
    assert not heavy, heavy


def test_rare_subcommands_are_imported_only_when_named(tmp_path: Path) -> None:
    _, new = _imports(tmp_path, ORDINARY)
    assert not {"transform.cli.cmd_backup", "transform.cli.cmd_krm", "transform.cli.cmd_scan"} & new
