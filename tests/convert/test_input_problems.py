"""Issue 21 §1: an upgrade is refused only for a problem it introduces; a problem the input already
had (same field path, same code), whatever its code, is carried over as an `input:` warning.

The table drives a stand-in validator: each row says which problems it reports on the input (the old
apiVersion) and which on the upgraded object, and what the run must then do.
"""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

from tests.support.cli import invoke
from transform.convert.index import Index
from transform.model.findings import Finding, Severity, error
from transform.model.settings import Settings
from transform.pipeline.onefile import upgrade_file
from transform.validate import documents

OLD = "instancetype.kubevirt.io/v1alpha2"
NEW = "instancetype.kubevirt.io/v1beta1"
TEXT = f"""\
apiVersion: {OLD}
kind: VirtualMachineClusterInstancetype
metadata:
  name: VirtualMachineClusterInstancetype
spec:
  cpu:
    guest: 1
  memory:
    guest: 1Gi
"""
Problem = tuple[str, tuple[str, ...]]  # (code, field path)
NAME: Problem = ("metadata.name", ("metadata", "name"))
TYPE_A: Problem = ("schema.type", ("spec", "cpu", "guest"))
TYPE_B: Problem = ("schema.type", ("spec", "memory", "guest"))
ENUM_A: Problem = ("schema.enum", ("spec", "cpu", "guest"))
REQUIRED: Problem = ("schema.required", ("spec", "cpu"))
WEBHOOK: Problem = ("webhook.overcommit-percent", ("spec", "memory", "guest"))

# (problems of the input, problems of the upgraded object) -> (refused for, warned as input problems)
TABLE: list[tuple[list[Problem], list[Problem], list[Problem], list[Problem]]] = [
    ([], [], [], []),
    ([NAME], [NAME], [], [NAME]),  # the placeholder name of a kustomize base
    ([TYPE_A], [TYPE_A], [], [TYPE_A]),
    ([REQUIRED], [REQUIRED], [], [REQUIRED]),
    ([WEBHOOK], [WEBHOOK], [], [WEBHOOK]),
    ([NAME, TYPE_A], [NAME, TYPE_A], [], [NAME, TYPE_A]),
    ([], [TYPE_A], [TYPE_A], []),  # the upgrade introduces it
    ([TYPE_A], [TYPE_B], [TYPE_B], [TYPE_A]),  # same code, another path
    ([TYPE_A], [ENUM_A], [ENUM_A], [TYPE_A]),  # same path, another code
    ([NAME], [NAME, WEBHOOK], [WEBHOOK], [NAME]),
    ([NAME, TYPE_A], [], [], [NAME, TYPE_A]),  # the upgrade repairs one: still reported on the input
]


@pytest.fixture
def validator(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Problem]]:
    said: dict[str, list[Problem]] = {OLD: [], NEW: []}

    def fake(obj: dict[str, Any], **_: Any) -> list[Finding]:
        return [error(code, f"bad {code}", path) for code, path in said.get(str(obj.get("apiVersion")), [])]

    monkeypatch.setattr(documents, "validate_document", fake)
    return said


def _pairs(found: list[Finding], severity: Severity) -> list[Problem]:
    return sorted((f.code, tuple(f.path)) for f in found if f.severity is severity and f.code != "upgraded")


@pytest.mark.parametrize(("before", "after", "refused", "warned"), TABLE)
def test_only_what_the_upgrade_introduces_refuses_it(
    validator: dict[str, list[Problem]],
    before: list[Problem],
    after: list[Problem],
    refused: list[Problem],
    warned: list[Problem],
) -> None:
    validator[OLD], validator[NEW] = before, after
    r = upgrade_file("t.yaml", TEXT.encode(), Settings(), Index())
    assert _pairs(r.findings, Severity.ERROR) == sorted(refused)
    assert _pairs(r.findings, Severity.WARNING) == sorted(warned)
    assert all(f.message.startswith("input: ") for f in r.findings if f.severity is Severity.WARNING)
    if refused:
        assert r.new_text is None
        assert all(
            f.message.startswith("the upgraded object would be invalid: ") and f.message.endswith("fix the input first")
            for f in r.findings
            if f.severity is Severity.ERROR
        )
    else:
        assert r.new_text == TEXT.replace(OLD, NEW)


def test_check_says_the_upgraded_object_would_be_invalid(
    validator: dict[str, list[Problem]], tmp_path: pathlib.Path
) -> None:
    """`check` words the refusal as a condition, not "would upgrade object would be invalid"."""
    validator[NEW] = [TYPE_A]
    path = tmp_path / "it.yaml"
    path.write_text(TEXT)
    result = invoke("check", str(path))
    assert result.exit_code == 3, result.stdout
    assert "spec.cpu.guest: the upgraded object would be invalid: bad schema.type" in result.stdout
    assert "would upgrade object" not in result.stdout


def test_a_placeholder_name_is_a_warning_that_ignore_and_select_filter(tmp_path: pathlib.Path) -> None:
    """The real validator: a kustomize base whose metadata.name is a placeholder is upgraded (exit 1)
    with an `input:` warning; --ignore drops the warning, --select of another code too; --strict refuses."""
    path = tmp_path / "it.yaml"
    path.write_text(TEXT)
    strict = invoke("fix", str(path), "--strict")
    assert strict.exit_code == 3 and path.read_text() == TEXT, strict.stdout
    plain = invoke("check", str(path))
    assert plain.exit_code == 1, plain.stdout
    assert (
        "warning: doc 0 VirtualMachineClusterInstancetype/VirtualMachineClusterInstancetype: metadata.name: input: "
        in (plain.stdout)
    )
    for option in (["--ignore", "metadata.name"], ["--select", "upgraded"]):
        quiet = invoke("check", str(path), *option)
        assert quiet.exit_code == 1 and "warning" not in quiet.stdout, quiet.stdout
    selected = invoke("check", str(path), "--select", "metadata.name")
    assert "metadata.name: input: " in selected.stdout
    fixed = invoke("fix", str(path))
    assert fixed.exit_code == 1 and path.read_text() == TEXT.replace(OLD, NEW), fixed.stdout
    assert invoke("fix", str(path)).exit_code == 0
