"""The verify step re-reads every edited document as Kubernetes reads it and refuses anything that does
not read back as intended: an emitter that wrote the label value "1" plain (an int to Kubernetes) or a
quoted-looking `yes` plain would be caught, and the file left as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from transform.convert.index import Index
from transform.model.settings import Settings
from transform.pipeline import verify
from transform.pipeline.onefile import upgrade_file
from transform.yamltext import emit, nodes

ROOT = Path(__file__).resolve().parents[2]
WRAPPER = ROOT / "fixtures/revisions/f1-instancetype-wrapper.yaml"


def _naive_block(value: Any, indent: int, style: emit.Style) -> list[str]:
    """A careless emitter: every scalar plain, as str() writes it."""
    pad = " " * indent
    lines: list[str] = []
    for k, v in value.items() if isinstance(value, dict) else enumerate(value):
        head = f"{pad}{k}:" if isinstance(value, dict) else f"{pad}-"
        if isinstance(v, (dict, list)) and v:
            lines.append(head)
            lines.extend(_naive_block(v, indent + 2, style))
        else:
            lines.append(f"{head} {v}".rstrip())
    return lines


def test_the_real_emitter_quotes_the_generation_label() -> None:
    result = upgrade_file(WRAPPER.name, WRAPPER.read_bytes(), Settings(), Index())
    assert result.new_text is not None
    assert 'instancetype.kubevirt.io/object-generation: "1"' in result.new_text


def test_verify_refuses_what_does_not_read_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emit, "block", _naive_block)
    result = upgrade_file(WRAPPER.name, WRAPPER.read_bytes(), Settings(), Index())
    assert result.new_text is None  # the file is left as it is
    codes = [f.code for f in result.findings]
    assert "internal.verify" in codes, codes


# --- scalar-only edits: each new scalar is read alone instead of the whole document -----------------

INSTANCETYPE = (
    "apiVersion: instancetype.kubevirt.io/v1alpha1  # old\n"
    "kind: VirtualMachineInstancetype\n"
    "metadata:\n  name: small\nspec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1Gi\n"
)


def _parsed_texts(monkeypatch: pytest.MonkeyPatch, events: bool = True) -> list[str]:
    """The texts composed into node trees (and, with `events`, read from the parser's events)."""
    texts: list[str] = []
    for name in ("compose", "event_loader") if events else ("compose",):
        original = getattr(nodes, name)

        def counting(text: str, original: Any = original) -> Any:
            texts.append(text)
            return original(text)

        monkeypatch.setattr(nodes, name, counting)
    return texts


def test_a_scalar_only_edit_is_proven_without_reading_the_document_again(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _parsed_texts(monkeypatch)
    result = upgrade_file("it.yaml", INSTANCETYPE.encode(), Settings(), Index())
    assert result.new_text == INSTANCETYPE.replace("v1alpha1", "v1beta1")
    assert not [t for t in texts if "v1beta1" in t and "kind:" in t], "the edited document was parsed again"
    assert not [t for t in texts if t.startswith("instancetype.kubevirt.io/v1beta1")]  # read alone: not composed


@pytest.mark.parametrize(
    "written",
    [
        "instancetype.kubevirt.io/v1beta1: x",  # a mapping, not the scalar
        "'instancetype.kubevirt.io/v1beta1",  # does not parse
        "instancetype.kubevirt.io/v1beta2",  # another value
        "!!binary aW5zdGFuY2V0eXBl",  # a tag: another value
    ],
)
def test_a_scalar_that_does_not_read_back_alone_is_refused(monkeypatch: pytest.MonkeyPatch, written: str) -> None:
    real = emit.scalar
    monkeypatch.setattr(
        emit,
        "scalar",
        lambda value, style, quote=None: written if "v1beta1" in str(value) else real(value, style, quote),
    )
    result = upgrade_file("it.yaml", INSTANCETYPE.encode(), Settings(), Index())
    assert result.new_text is None  # the file is left as it is
    assert "internal.verify" in [f.code for f in result.findings]


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: v1\nkind: List\nitems: [{apiVersion: instancetype.kubevirt.io/v1alpha1, kind: "
        "VirtualMachineInstancetype, metadata: {name: a}, spec: {cpu: {guest: 1}, memory: {guest: 1Gi}}}]\n",
        # flow context: there `,` `]` `}` end a plain scalar
        INSTANCETYPE.replace("apiVersion: instancetype", "apiVersion: !!str instancetype"),  # a tag goes with it
        INSTANCETYPE.replace("apiVersion: instancetype", "apiVersion: &v instancetype"),  # an anchor too
    ],
)
def test_other_scalar_edits_read_the_whole_document_again(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    texts = _parsed_texts(monkeypatch)
    result = upgrade_file("it.yaml", text.encode(), Settings(), Index())
    assert result.new_text is not None and "v1beta1" in result.new_text
    assert [t for t in texts if "v1beta1" in t and "kind" in t], "the edited document must be parsed again"


# --- a block written anew (a payload): read back from the parser's events, no node tree -------------


def _payload(n: int) -> bytes:
    from tests.pipeline.test_scale import payload_file

    return payload_file(n)


def test_a_replaced_block_is_read_back_without_composing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # composing it was 1.5M nodes and 550 MB for a payload of 300,000 list entries (issue 15, item 8)
    composed = _parsed_texts(monkeypatch, events=False)
    read = _parsed_texts(monkeypatch)
    result = upgrade_file("cr.yaml", _payload(50), Settings(), Index())
    assert result.new_text is not None and "- deviceName: n/g\n      name: g49\n" in result.new_text
    assert [t for t in read if "name: g49" in t], "the edited document must be read again"
    assert not [t for t in composed if "name: g49" in t], "the edited document was composed"


def _corrupt(change: Any) -> Any:
    real = emit.block

    def block(value: Any, indent: int, style: emit.Style, **kw: Any) -> list[str]:
        return change(real(value, indent, style, **kw))

    return block


@pytest.mark.parametrize(
    "change",
    [
        lambda lines: [line.replace("name: g49", "name: g48") for line in lines],  # another value
        lambda lines: [line.replace("name: g7", "name: 7") for line in lines],  # "g7" -> 7, "7": a number
        lambda lines: [line for line in lines if "name: g30" not in line],  # a key lost
        lambda lines: lines[:-2],  # the last entry lost (memory: guest)
        lambda lines: [*lines, lines[-1].replace("1Gi", "2Gi")],  # a key written twice (the last counts)
        lambda lines: [line.replace("name: g9", "name: g9\n      name: g8") for line in lines],  # in a list entry
        lambda lines: [line.replace("guest: 1", "guest: 1.0") for line in lines],  # 1 -> 1.0
        lambda lines: [line.replace("- deviceName", "- &a deviceName") for line in lines],  # an anchor: composed
        lambda lines: [*lines, "    - extra"],  # does not parse
    ],
)
def test_a_replaced_block_that_does_not_read_back_is_refused(monkeypatch: pytest.MonkeyPatch, change: Any) -> None:
    monkeypatch.setattr(emit, "block", _corrupt(change))
    result = upgrade_file("cr.yaml", _payload(50), Settings(), Index())
    assert result.new_text is None  # the file is left as it is
    assert "internal.verify" in [f.code for f in result.findings], [str(f) for f in result.findings]


def _json_payload(n: int) -> bytes:
    parsed = nodes.parse(_payload(n).decode())
    assert parsed is not None
    return json.dumps(parsed.value, indent=2).encode()


def test_a_large_json_document_is_read_back_from_events(monkeypatch: pytest.MonkeyPatch) -> None:
    # json.loads of the written document was a plain copy of it: 200 MB for a 24 MB payload
    data = _json_payload(25_000)
    loaded: list[str] = []
    real = nodes.parse

    def parse(text: str) -> nodes.Document | None:
        loaded.append(text)
        return real(text)

    monkeypatch.setattr(nodes, "parse", parse)
    read = _parsed_texts(monkeypatch)
    result = upgrade_file("cr.json", data, Settings(), Index())
    assert result.new_text is not None and len(result.new_text) > verify._JSON_READ_WHOLE
    assert [t for t in read if '"name": "g24999"' in t], "the edited document must be read again"
    assert not [t for t in loaded if "v1beta1" in t], "the edited document was loaded whole"


@pytest.mark.parametrize(
    ("old", "new"),
    [('"g24999"', '"g24998"'), ('"guest": 1,', '"guest": 1.0,'), ('"deviceName": "n/g",\n', "")],
)
def test_a_large_json_document_that_does_not_read_back_is_refused(
    monkeypatch: pytest.MonkeyPatch, old: str, new: str
) -> None:
    real = emit.flow
    monkeypatch.setattr(emit, "flow", lambda *a, **kw: real(*a, **kw).replace(old, new))
    result = upgrade_file("cr.json", _json_payload(25_000), Settings(), Index())
    assert result.new_text is None  # the file is left as it is
    assert "internal.verify" in [f.code for f in result.findings], [str(f) for f in result.findings]
