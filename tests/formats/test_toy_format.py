"""A new container format is one module and one line in `formats.FORMATS`: a toy format (`*.toy.yaml` files
whose lines are `apiVersion kind name`, e.g. an inventory a shell script reads) is detected, upgraded by fix,
reported by check, counted by scan and left alone by validate, with no other change to the engine, the way
tests/kubevirt/test_future_hop.py proves a version hop. Without its line, the same file is a YAML string to the
engine, passed over: the line is what makes it a format."""

from __future__ import annotations

import json
import pathlib
import types
from typing import Any

import pytest

from tests.support.cli import invoke
from transform.formats import registry

# The toy format's module, whole: it imports only the formats contract, the model and the facts (as any
# format may), nothing of the engine; what it does not answer (kinds, facts, ignores) keeps the contract's default.
TOY_MODULE = """
from transform.formats.base import Format, Held, Read
from transform.kubevirt import apis
from transform.model.findings import info

NEW = {"instancetype.kubevirt.io/v1alpha1": "instancetype.kubevirt.io/v1beta1",
       "instancetype.kubevirt.io/v1alpha2": "instancetype.kubevirt.io/v1beta1"}


class Toy(Format):
    name = "toy"

    def detect(self, path, data):
        return Held(self.name, "inventory") if path.endswith(".toy.yaml") else None

    def read(self, text, targets, held):
        lines, findings, uses, upgraded = text.split("\\n"), [], [], 0
        for n, line in enumerate(lines):
            api, _, rest = line.partition(" ")
            if api in NEW:
                uses.append((n + 1, api, rest.split(" ")[0]))
                findings.append(info("upgraded", f"upgraded {api} -> {NEW[api]}", line=n + 1, column=1))
                lines[n] = NEW[api] + " " + rest
                upgraded += 1
        return Read(findings, "\\n".join(lines), upgraded, uses)

    def label(self, held):
        return "toy inventory"


FORMAT = Toy()
"""

INVENTORY = (
    "instancetype.kubevirt.io/v1alpha2 VirtualMachineClusterInstancetype u1.small\nkubevirt.io/v1 VirtualMachine web\n"
)


def cli(*args: str) -> tuple[int, str]:
    r = invoke(*args)
    return r.exit_code, r.stdout


def _toy() -> Any:
    module = types.ModuleType("toy_format")
    exec(compile(TOY_MODULE, "toy_format.py", "exec"), module.__dict__)
    return module


@pytest.fixture
def inventory(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "vms.toy.yaml"
    path.write_text(INVENTORY)
    return path


def test_without_its_line_the_file_is_passed_over(inventory: pathlib.Path) -> None:
    code, out = cli("check", "--format", "json", str(inventory))
    assert code == 0 and json.loads(out)["findings"] == [], out
    assert cli("fix", str(inventory))[0] == 0
    assert inventory.read_text() == INVENTORY


def test_a_toy_format_is_one_module_and_one_line(inventory: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "FORMATS", (*registry.FORMATS, _toy().FORMAT))  # the registry line

    code, out = cli("check", "--format", "json", str(inventory))
    assert code == 1, out
    found = [(f["code"], f["line"]) for f in json.loads(out)["findings"]]
    assert ("upgraded", 1) in found and not any(c.startswith("input.") for c, _ in found), found

    code, out = cli("scan", "--format", "json", "--target-kubevirt", "1.6", str(inventory))
    uses = json.loads(out)["apis"]
    assert [(u["apiVersion"], u["kind"], u["files"], u["count"]) for u in uses] == [
        ("instancetype.kubevirt.io/v1alpha2", "VirtualMachineClusterInstancetype", [str(inventory)], 1)
    ], uses

    code, out = cli("validate", str(inventory))
    assert code == 0, out

    code, out = cli("fix", str(inventory))
    assert code == 1, out
    assert inventory.read_text() == INVENTORY.replace("v1alpha2", "v1beta1", 1)
    code, out = cli("check", str(inventory))
    assert code == 0, out
    assert cli("fix", str(inventory))[0] == 0 and inventory.read_text() == INVENTORY.replace("v1alpha2", "v1beta1", 1)
