"""fix/check/diff: problems of KubeVirt documents that need no change are warnings (errors with
--strict); an upgrade whose result the target's schema refuses is exit 3 and nothing is written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.cli import run_module

ROOT = Path(__file__).resolve().parents[2]
TYPOS = ROOT / "fixtures" / "validate" / "vm-typos.yaml"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run_module(*args, text=True)


def test_unchanged_vm_problems_are_warnings_then_errors_with_strict(tmp_path: Path) -> None:
    vm = tmp_path / "vm.yaml"
    vm.write_text(TYPOS.read_text())
    loose = _cli("check", str(vm))
    assert loose.returncode == 0, loose.stdout + loose.stderr
    out = loose.stdout + loose.stderr
    assert (
        'warning: doc 0 VirtualMachine/typo-vm: spec.template.spec.domain.cpuu: unknown field "spec.template.spec.domain.cpuu"'
        in out
    )
    assert (
        "spec.template.spec.domain.cpu.cores: the API server will refuse this object: "
        'expected integer, got "two" [schema.type]' in out
    )
    strict = _cli("check", "--strict", str(vm))
    assert strict.returncode == 3
    assert "error: doc 0 VirtualMachine/typo-vm: spec.template.spec.domain.cpuu" in strict.stdout + strict.stderr


def test_an_input_problem_is_a_warning_then_an_error_with_strict(tmp_path: Path) -> None:
    """The upgrade changes only apiVersion: the input's invalid value is its own problem, carried over (a warning
    naming who refuses it; under --strict an error and nothing written). Issue 22 class C; was: exit 3."""
    text = (
        "apiVersion: snapshot.kubevirt.io/v1alpha1\nkind: VirtualMachineSnapshot\nmetadata:\n  name: s\n"
        "spec:\n  source:\n    apiGroup: kubevirt.io\n    kind: VirtualMachine\n    name: 3\n"
    )
    doc = tmp_path / "snap.yaml"
    doc.write_text(text)
    run = _cli("fix", "--strict", "--target-kubevirt", "1.9", str(doc))
    assert run.returncode == 3, run.stdout + run.stderr
    assert "the API server will refuse this object: expected string, got 3" in run.stdout + run.stderr
    assert doc.read_text() == text
    run = _cli("fix", "--target-kubevirt", "1.9", str(doc))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "warning" in run.stdout + run.stderr and "expected string, got 3" in run.stdout + run.stderr
    assert "snapshot.kubevirt.io/v1beta1" in doc.read_text()
    doc.write_text(text.replace("name: 3", "name: vm"))
    assert _cli("fix", "--target-kubevirt", "1.9", str(doc)).returncode == 1
    assert "snapshot.kubevirt.io/v1beta1" in doc.read_text()


def test_nothing_relevant_loads_no_schema(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    code = (
        "import sys\nfrom transform.cli.main import main\n"
        f"sys.argv = ['instancetype-upgrade', 'check', {str(tmp_path / 'cm.yaml')!r}]\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert exc.code == 0, exc.code\n"
        "loaded = [m for m in sys.modules if m.startswith(('transform.validate', 'jsonschema', 'gzip'))]\n"
        "assert not loaded, loaded\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr


IT = "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: it\nspec:\n"


def test_standalone_nulls_are_absent_and_refused_values_stay_refused(tmp_path: Path) -> None:
    """Issue 10 part 1: read values as the API server does; what its schema or webhooks refuse stays refused
    (under --strict: a problem the input already had is a warning otherwise, issue 21 §1)."""
    nulls = tmp_path / "nulls.yaml"
    nulls.write_text(
        IT + "  cpu:\n    guest: 2\n    dedicatedCPUPlacement: null\n    numa: null\n  memory:\n    guest: 1Gi\n"
    )
    run = _cli("fix", str(nulls))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "instancetype.kubevirt.io/v1beta1" in nulls.read_text() and "numa: null" in nulls.read_text()
    for spec, reason in (
        (
            "  cpu:\n    guest: 2\n  memory:\n    guest: 0.5\n",
            "expected a quantity (integer or string like 2Gi), got 0.5",
        ),
        ("  cpu:\n    guest: 2\n  memory:\n    guest: Gi\n", '"Gi" is not a valid quantity'),
    ):
        bad = tmp_path / "bad.yaml"
        bad.write_text(IT + spec)
        run = _cli("fix", "--strict", str(bad))
        assert run.returncode == 3 and reason in run.stdout + run.stderr, run.stdout + run.stderr
        assert bad.read_text() == IT + spec
        # issue 21 §1: the input had the problem already: carried over, with an `input:` warning
        run = _cli("fix", str(bad))
        assert run.returncode == 1 and f"input: the API server will refuse this object: {reason}" in run.stdout, (
            run.stdout + run.stderr
        )
        assert bad.read_text() == (IT + spec).replace("v1alpha1", "v1beta1")
    pref = tmp_path / "pref.yaml"
    text = IT.replace("VirtualMachineInstancetype", "VirtualMachinePreference")
    for topology in ('""', "bogus"):
        pref.write_text(text + f"  clock: null\n  cpu:\n    preferredCPUTopology: {topology}\n")
        run = _cli("fix", "--strict", str(pref))
        assert run.returncode == 3, run.stdout + run.stderr
        assert "unknown preferredCPUTopology" in run.stdout + run.stderr
        assert "clock" not in "".join(line for line in (run.stdout + run.stderr).splitlines() if "error" in line)
