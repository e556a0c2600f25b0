"""The hint "(a partial object such as a kustomize patch? ...)" on a required field an upgraded object lacks:
said where the object sets fields of its own, as a patch does; not on a placeholder (a kustomize resource or
a values stub with only apiVersion, kind and a name, or an empty spec), where it would mislead."""

from __future__ import annotations

import pytest

from transform.convert.index import Index
from transform.formats.kustomize.facts import KustomizeFacts
from transform.model.settings import Settings
from transform.pipeline.onefile import upgrade_file

HINT = "(a partial object such as a kustomize patch?"
IT = "apiVersion: instancetype.kubevirt.io/v1alpha2\nkind: VirtualMachineInstancetype\nmetadata:\n  name: m\n"
VM = "apiVersion: kubevirt.io/v1alpha3\nkind: VirtualMachine\nmetadata:\n  name: vm\n"


def _required(text: str, index: Index | None = None) -> list[str]:
    r = upgrade_file("x.yaml", text.encode(), Settings(), index or Index())
    assert r.new_text is not None  # upgraded all the same: the input's problem is carried over
    return [f.message for f in r.findings if f.code == "schema.required"]


@pytest.mark.parametrize(
    "text",
    [
        IT + "spec:\n  cpu:\n    guest: 2\n",  # spec.memory missing: a patch of the cpu only?
        VM + "spec:\n  runStrategy: Halted\n",  # spec.template missing
    ],
)
def test_a_patch_shaped_object_gets_the_hint(text: str) -> None:
    found = _required(text)
    assert found and all(HINT in m for m in found), found


@pytest.mark.parametrize(
    "text",
    [
        IT,  # a placeholder: apiVersion, kind, metadata.name
        VM,
        VM + "spec: {}\n",  # an empty spec sets nothing
        IT.replace("  name: m\n", "  name: m\n  labels: {a: b}\n") + "status: {}\n",  # labels, status: not its own
    ],
)
def test_a_placeholder_does_not(text: str) -> None:
    found = _required(text)
    assert found and not any(HINT in m for m in found), found


def test_a_listed_patch_is_judged_as_one_and_needs_no_hint() -> None:
    facts = KustomizeFacts()
    index = Index(facts={"kustomize": facts})
    facts.patch_files.add("x.yaml")
    assert _required(IT + "spec:\n  cpu:\n    guest: 2\n", index) == []
