"""A block-style ResourceList is read item by item (`transform/integrations/krmitems.py`): the same bytes,
results and findings as reading it whole, and read whole wherever the cut is not proven."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integrations.test_krm import RL_YAML
from transform.formats.krm import items as krmitems
from transform.integrations import krm
from transform.model.settings import Settings
from transform.yamltext import textio

ROOT = Path(__file__).resolve().parents[2]
EXPORTED = ROOT / "examples" / "gitops-repo" / "exported"
HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"


def _items(*docs: str, indent: str = "") -> str:
    """Documents as the items of a block sequence (`indent`: the dashes' column)."""
    out = []
    for doc in (d for text in docs for d in text.split("\n---\n")):
        lines = [ln for ln in doc.splitlines() if not ln.startswith(("#", "---"))]
        out.append(f"{indent}- {lines[0]}\n" + "".join(f"{indent}  {ln}\n" if ln else "\n" for ln in lines[1:]))
    return "items:\n" + "".join(out)


IT = "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: {n}\n"
IT += "  annotations:\n    config.kubernetes.io/path: 'it/{n}.yaml'\n    config.kubernetes.io/index: '0'\n"
IT += 'spec:\n  cpu: {{guest: 1}}  # one\n  memory:\n    guest: "128Mi"\n'
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: 'b'\n  s: \"it's\"\n"
WITH_IDS = "\n".join(
    (EXPORTED / "controllerrevisions" / "vm-legacy.yaml")
    .read_text()
    .replace(
        "metadata:\n",
        "metadata:\n  annotations:\n    config.k8s.io/id: '1'\n    config.kubernetes.io/path: cr.yaml\n",
        1,
    )
    .splitlines()
)
VM = (EXPORTED / "vms" / "vm-legacy.yaml").read_text()

CASES = {
    "test_krm": RL_YAML,
    "indented-dashes": HEAD + _items(IT.format(n="a"), CM, IT.format(n="b"), indent="  "),
    "crlf": (HEAD + _items(IT.format(n="a"), CM)).replace("\n", "\r\n"),
    "results-before-items": HEAD + "results:\n- message: old\n  severity: info\n" + _items(IT.format(n="a"), CM),
    "results-after-items": HEAD + _items(CM, IT.format(n="a")) + "results: [{message: old}]\n",
    "trailing-comments": HEAD + _items(IT.format(n="a"), IT.format(n="b")) + "# the end\n  \n",
    "no-final-newline": (HEAD + _items(CM, IT.format(n="a"))).rstrip("\n"),
    "duplicate-keys": HEAD
    + _items(IT.format(n="a").replace("kind:", "kind: X\nkind:"), CM, IT.format(n="a") + "spec: {}\n"),
    "strict": HEAD + _items(IT.format(n="a") + "spec: {}\n") + "functionConfig:\n  kind: C\n  spec: {strict: true}\n",
    "an-error": HEAD
    + _items(IT.format(n="a"), IT.format(n="b").replace("kind: VirtualMachineInstancetype", "kind: X")),
    "revision-and-vm": HEAD + _items(WITH_IDS, VM) + "functionConfig:\n  kind: C\n  spec:\n    rename: true\n",
    "bad-config": HEAD + _items(IT.format(n="a")) + "functionConfig: {kind: C, spec: {rename: maybe}}\n",
    "nothing-to-do": HEAD + _items(CM, CM),
    "four-spaces": HEAD + _items(IT.format(n="a").replace("  ", "    ")),
}

# where the cut is not proven, the list is read whole (and reads as it did)
WHOLE = {
    "json": '{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": []}\n',
    "flow-items": HEAD
    + "items: ["
    + "{apiVersion: instancetype.kubevirt.io/v1alpha1, kind: VirtualMachineInstancetype}]\n",
    "an-alias-across-items": HEAD + _items(CM.replace("\ndata:", "\ndata: &d"), IT.format(n="a") + "extra: *d\n"),
    "a-fake-item-in-a-string": HEAD
    + 'items:\n- apiVersion: v1\n  kind: ConfigMap\n  data:\n    a: "x\n'
    + _items(IT.format(n="a")).removeprefix("items:\n")
    + '  b: y"\n',
    "an-item-that-is-not-a-mapping": HEAD + _items(IT.format(n="a")) + "- just a VirtualMachine string\n",
    "a-directive": "%YAML 1.1\n---\n" + HEAD + _items(IT.format(n="a")),
    "tab-indented": HEAD + _items(IT.format(n="a")) + "\t# tab\n",
}


def _whole(monkeypatch: pytest.MonkeyPatch, data: bytes) -> krm.Outcome:
    with monkeypatch.context() as m:
        m.setattr(krmitems, "layout", lambda *_a, **_k: None)
        return krm.process(data)


def _same(a: krm.Outcome, b: krm.Outcome) -> None:
    assert a.data.decode() == b.data.decode()
    assert a.results == b.results
    assert [str(f) for f in a.findings] == [str(f) for f in b.findings]
    assert a.upgraded == b.upgraded


@pytest.mark.usefixtures("parser")
@pytest.mark.parametrize("name", CASES)
def test_item_by_item_reads_as_the_whole_list(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = CASES[name]
    source = text.replace("\r\n", "\n")
    assert krmitems.layout(source, "\n") is not None  # the case is cut into its items
    monkeypatch.setattr(krm, "_whole", lambda *_a: pytest.fail("read whole"))
    out = krm.process(text.encode())
    monkeypatch.undo()
    _same(out, _whole(monkeypatch, text.encode()))
    yaml.safe_load(out.data)  # another parser reads it


def test_cases_exercise_upgrades_errors_and_removed_ids() -> None:
    outs = {name: krm.process(text.encode()) for name, text in CASES.items()}
    assert sum(o.upgraded > 0 for o in outs.values()) >= 8
    assert outs["an-error"].failed and outs["strict"].failed and outs["bad-config"].failed
    assert b"config.k8s.io/id" in CASES["revision-and-vm"].encode()
    assert b"config.k8s.io/id" not in outs["revision-and-vm"].data  # a wrapper became an object: ids dropped
    assert outs["revision-and-vm"].data.count(b"v1beta1") >= 2


@pytest.mark.usefixtures("parser")
@pytest.mark.parametrize("name", WHOLE)
def test_whatever_cannot_be_cut_is_read_whole(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = WHOLE[name].encode()
    calls: list[Any] = []
    real = krm._whole

    def whole(source: textio.Source, raw: bytes, base: Settings) -> krm.Outcome:
        calls.append((source, raw, base))
        return real(source, raw, base)

    monkeypatch.setattr(krm, "_whole", whole)
    try:
        out: krm.Outcome | None = krm.process(data)
    except krm.KrmError:
        out = None
    assert calls, "read item by item"
    if out is not None and name == "a-fake-item-in-a-string":
        assert b"v1alpha1" in out.data and out.upgraded == 0  # inside a string: not an object


@pytest.mark.parametrize("tail", ["  # deeper\n", "\n", "  \n# the end\n"])
def test_blank_and_deeper_comment_lines_after_the_last_item_stay_with_it(
    tail: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether they are comments or the last lines of a block scalar (`|+` keeps blank lines) only a parse
    can tell: they stay with the item, and `results` comes after them (read whole, before them)."""
    text = HEAD + _items(IT.format(n="a"), IT.format(n="b")) + tail
    out, whole = krm.process(text.encode()), _whole(monkeypatch, text.encode())

    def content(data: bytes) -> list[str]:
        return [ln for ln in data.decode().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]

    assert content(out.data) == content(whole.data)
    assert tail.partition("# the end")[0] + "results:" in out.data.decode()
    assert out.results == whole.results


def test_the_items_are_planned_by_the_pipeline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A list read item by item is one input of the pipeline's `upgrade_items` (its documents the items,
    `parts.Reading`), as a list read whole and every file are: no engine or index driven by the KRM
    function itself (issue 20 §4)."""
    from transform.pipeline import upgrade

    calls: list[list[Any]] = []
    real = upgrade.upgrade_items

    def counting(items: list[Any], *a: Any, **k: Any) -> Any:
        calls.append(items)
        return real(items, *a, **k)

    monkeypatch.setattr(upgrade, "upgrade_items", counting)
    text = CASES["revision-and-vm"]
    lay = krmitems.layout(text, "\n")
    assert lay is not None
    out = krm.process(text.encode())
    assert out.upgraded and len(calls) == 1
    (item,) = calls[0]
    assert item.reading is not None and item.reading.source.text == lay.spaced
    assert item.reading.span is not None and item.reading.span.chunks == lay.spans
