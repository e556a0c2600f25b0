"""emit.block writes simple plain data itself: it must write exactly what the library's emitters write
(libyaml's C emitter for kubectl's style, ruamel.yaml's Python emitter for every style), and leave to
them whatever it does not handle."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transform.yamltext import emit
from transform.yamltext.emit import Style

TRICKY = [
    "yes", "no", "on", "y", "1", "-1", "0o17", "1e3", "12:30", "2024-01-02", "null", "~", "true", ".inf",
    "...", "..x", "---", "- a", "a: b", "a:b", "a #b", "a#b", "#a", "'q'", 'say "hi"', "back\\slash", "it's",
    "a,b", "[x]", "{x}", "x]", "?x", "? x", ":x", "x:", "=", "<<", "._a", "%x", "@x", "`x", "!x", "&x", "*x",
    "|", ">", " lead", "trail ", "two  spaces", "", "0", "0.5", "-", "a-b", "vm-1", "Always", "1Gi", "100m",
]  # fmt: skip

scalars = st.one_of(
    st.sampled_from(TRICKY),
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=12),
    st.text(max_size=4),  # non-ASCII and control characters: left to the library
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)
keys = st.one_of(st.sampled_from(TRICKY), st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=8))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=20,
)
styles = st.builds(
    lambda unit, offset, quote: Style(unit=unit, seq_indent=offset > 0, dash_offset=offset, quote=quote),
    st.integers(1, 5),
    st.integers(0, 5),
    st.sampled_from(['"', "'"]),
)


def theirs_first(value: Any, indent: int, style: Style) -> list[str]:
    return emit.block(value, indent, style, library=True)


def _both(value: Any, indent: int, style: Style) -> tuple[list[str] | None, list[list[str]]]:
    mine = emit._Writer(style).lines(value, indent)  # written at `indent`, not padded after
    unpadded = emit._Writer(style).lines(value)
    assert mine == (None if unpadded is None else [" " * indent + line for line in unpadded])
    assert emit.block(value, indent, style) == (mine if mine is not None else theirs_first(value, indent, style))
    theirs = [emit.block(value, indent, style, library=True)]
    if style.unit == 2 and style.offset == 0:
        theirs.append(emit.block(value, indent, style, library=True, c_emitter=False))
    return mine, theirs


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(st.dictionaries(keys, values, min_size=1, max_size=5), st.lists(values, min_size=1, max_size=5)),
    st.integers(0, 6),
    styles,
)
def test_the_writer_writes_what_the_emitters_write(value: Any, indent: int, style: Style) -> None:
    mine, theirs = _both(value, indent, style)
    if mine is not None:
        for lines in theirs:
            assert mine == lines


PAYLOAD: dict[str, Any] = {
    "apiVersion": "instancetype.kubevirt.io/v1beta1",
    "kind": "VirtualMachineInstancetype",
    "metadata": {"creationTimestamp": None, "generation": 1, "name": "c1.large", "labels": {}},
    "spec": {
        "cpu": {"guest": 2, "model": "", "dedicatedCPUPlacement": False},
        "memory": {"guest": "4Gi", "overcommitPercent": 0},
        "gpus": [{"name": "gpu1", "deviceName": "nvidia.com/GP102GL_Tesla_P40"}, {"name": "x", "tags": ["a", []]}],
        "ioThreadsPolicy": "auto",
        "annotations": {"yes": "on", "version": "1.0", "ratio": 0.5, "empty": "", "time": "12:30"},
    },
}


@pytest.mark.parametrize("unit,offset", [(2, 0), (2, 2), (4, 2), (4, 4), (3, 1)])
@pytest.mark.parametrize("quote", ['"', "'"])
def test_a_revision_payload_is_written_by_the_writer(unit: int, offset: int, quote: str) -> None:
    style = Style(unit=unit, seq_indent=offset > 0, dash_offset=offset, quote=quote)
    payload = {k: v for k, v in PAYLOAD.items()}
    payload["spec"] = {**PAYLOAD["spec"], "annotations": {"yes": "on", "version": "1.0", "ratio": 0.5}}
    mine, theirs = _both(payload, 2, style)
    assert mine is not None, "plain data: no need for the library"
    for lines in theirs:
        assert mine == lines


def test_what_the_writer_leaves_to_the_library() -> None:
    style = Style()
    for value in ({"a": "é"}, {"a": "x\ny"}, {"a": "..."}, {"k" * 101: 1}, {"a": float("nan")}, [2**64]):
        assert emit._Writer(style).lines(value) is None, value
        assert emit.block(value, 0, style) == emit.block(value, 0, style, library=True)
