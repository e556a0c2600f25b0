"""kubectl-style blocks are written directly (issue 15, item 8: 12 us a node through ruamel's nodes and
libyaml's emitter): the direct writer must write exactly what libyaml writes, or leave the value to it."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from transform.yamltext import emit

# the characters that decide a scalar's style: indicators, quotes, spaces, breaks, non-ASCII, numbers
ALPHABET = st.sampled_from(
    list("ab-:#?,[]{}&*!|>'\"%@`. \\\t\n\r\x85\u2028\xa0\xe9\u4e2d\U0001f600\x07\ufeff01eE+x~_/=")
)
WORDS = st.sampled_from(
    ["", "...", "---", "... x", "true", "no", "null", "~", "0x1A", "1e3", "1_000", "2024-01-01", "<<", "=", "-", "a: b"]
)
STRINGS = WORDS | st.text(ALPHABET, max_size=8) | st.text(max_size=6) | st.text("ab", min_size=120, max_size=140)
SCALARS = (
    STRINGS
    | st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(STRINGS, inner, max_size=4),
    max_leaves=25,
)
TOP = st.lists(VALUES, min_size=1, max_size=4) | st.dictionaries(STRINGS, VALUES, min_size=1, max_size=4)


def _through_libyaml(value: Any, indent: int, style: emit.Style) -> list[str]:
    return emit.block(value, indent, style, library=True)


def _direct(value: Any, quote: str) -> list[str] | None:
    return emit._Writer(emit.Style(quote=quote)).lines(value)


@settings(max_examples=400, deadline=None)
@given(TOP, st.sampled_from(['"', "'"]), st.sampled_from([0, 4]))
def test_direct_writer_writes_what_libyaml_writes(value: Any, quote: str, indent: int) -> None:
    style = emit.Style(quote=quote)
    assert emit.block(value, indent, style) == _through_libyaml(value, indent, style)


@pytest.mark.parametrize("quote", ['"', "'"])
def test_direct_writer_takes_the_common_case(quote: str) -> None:
    value = {
        "spec": {
            "gpus": [{"deviceName": "nvidia.com/GP", "name": "g0"}, {"name": 'it\'s "x" \\'}],
            "cpu": {"guest": 1, "model": "", "ratio": 1.5, "on": True, "off": None},
            "n": [[1, [2, {}]], [], {"a": []}],
            "": "1",
        }
    }
    lines = _direct(value, quote)
    assert lines is not None
    assert lines == _through_libyaml(value, 0, emit.Style(quote=quote))
    assert yaml.safe_load("\n".join(lines)) == value


def test_direct_writer_leaves_the_rest_to_libyaml() -> None:
    for value in ({"k": "a\nb"}, {"k": "é"}, {"x" * 130: 1}, ["...x"], [2**64], {"k": "\x07"}):
        assert _direct(value, '"') is None, value
