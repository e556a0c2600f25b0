"""scan as the pre-upgrade report for every KubeVirt and CDI group: the per-group table and exit 1
exactly when the target would refuse something."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import invoke

VM3 = "apiVersion: kubevirt.io/v1alpha3\nkind: VirtualMachine\nmetadata: {name: vm}\nspec: {runStrategy: Always}\n"
EXPORT = "apiVersion: export.kubevirt.io/v1alpha1\nkind: VirtualMachineExport\nmetadata: {name: e}\nspec: {}\n"
DV = "apiVersion: cdi.kubevirt.io/v1alpha1\nkind: DataVolume\nmetadata: {name: d}\nspec: {}\n"
LEGACY = "apiVersion: kubevirt.io/v1alpha2\nkind: VirtualMachineInstance\nmetadata: {name: i}\n"


def run(*args: str) -> tuple[int, str]:
    r = invoke("scan", *args)
    return r.exit_code, r.output


@pytest.mark.parametrize(
    ("docs", "options", "code"),
    [
        ([VM3], [], 0),  # deprecated, still served: upgrade recommended, nothing breaks
        ([VM3, EXPORT], [], 1),  # export v1alpha1 removed in 1.9
        ([VM3, EXPORT], ["--target-kubevirt", "1.8"], 0),
        ([DV], [], 1),  # removed in CDI 1.56 (the default, 1.66, is later)
        ([DV], ["--target-cdi", "1.55"], 0),
        ([LEGACY], ["--target-kubevirt", "1.0"], 1),  # never upgradable
    ],
)
def test_exit_1_exactly_when_something_breaks(tmp_path: Path, docs: list[str], options: list[str], code: int) -> None:
    (tmp_path / "repo.yaml").write_text("---\n".join(docs))
    got, out = run(*options, str(tmp_path))
    assert got == code, out


def test_json_groups(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("---\n".join([VM3, EXPORT, EXPORT.replace("name: e", "name: f"), DV]))
    code, out = run("--format", "json", str(tmp_path))
    data = json.loads(out)
    rows = {(g["apiVersion"], g["kind"]): g for g in data["apis"]}
    assert code == 1 and data["target_cdi"] == "1.66"
    export = rows[("export.kubevirt.io/v1alpha1", "VirtualMachineExport")]
    assert export["count"] == 2 and export["status"] == "removed" and export["breaks"]
    assert export["replacement"] == "export.kubevirt.io/v1" and export["removed_in"] == "KubeVirt 1.9"
    vm = rows[("kubevirt.io/v1alpha3", "VirtualMachine")]
    assert vm["status"] == "deprecated" and not vm["breaks"] and vm["deprecated_in"] == "KubeVirt 1.0"
    assert {f["code"] for f in data["breaking"]} == {"export.not-served", "cdi.not-served"}


def test_text_table(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("---\n".join([VM3, EXPORT]))
    code, out = run(str(tmp_path))
    assert code == 1
    assert "API versions on KubeVirt 1.9 / CDI 1.66:" in out
    header = next(line for line in out.splitlines() if line.strip().startswith("NAME "))
    assert header.split()[:6] == ["NAME", "KIND", "VERSION", "REPLACEMENT", "REMOVED", "DEPRECATED"]
    row = next(line for line in out.splitlines() if "VirtualMachineExport" in line and "true" in line)
    assert row.split()[:6] == [
        "e",
        "VirtualMachineExport",
        "export.kubevirt.io/v1alpha1",
        "export.kubevirt.io/v1",
        "true",
        "false",
    ]
