"""ruamel.yaml is the one YAML library of transform/, imported only by transform/yamltext/, and only
when a file needs parsing: a run over irrelevant files never loads it (pre-commit start-up)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "transform"


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_only_yamltext_imports_the_yaml_library() -> None:
    importers = {
        str(p.relative_to(PACKAGE)): _imports(p) & {"ruamel", "yaml", "_ruamel_yaml"} for p in PACKAGE.rglob("*.py")
    }
    assert not any("yaml" in libs for libs in importers.values()), "PyYAML is a test dependency only"
    outside = {p for p, libs in importers.items() if libs and not p.startswith("yamltext/")}
    assert not outside, outside
    assert any(libs for libs in importers.values())


def test_irrelevant_files_never_load_ruamel(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"app{i}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n")
    code = (
        "import sys\n"
        "from transform.cli.main import main\n"
        "rc = main(['check', sys.argv[1]])\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('ruamel', '_ruamel_yaml', 'yaml')))\n"
        "print(rc, loaded)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60, cwd=ROOT, check=True
    )
    assert out.stdout.splitlines()[-1] == "0 []", out.stdout + out.stderr


def test_a_candidate_file_loads_it(tmp_path: Path) -> None:
    (tmp_path / "it.yaml").write_text(
        "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineInstancetype\n"
        "metadata:\n  name: x\nspec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1Gi\n"
    )
    code = (
        "import sys\n"
        "from transform.cli.main import main\n"
        "rc = main(['check', sys.argv[1]])\n"
        "print(rc, 'ruamel.yaml' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60, cwd=ROOT, check=True
    )
    assert out.stdout.splitlines()[-1] == "0 True", out.stdout + out.stderr
