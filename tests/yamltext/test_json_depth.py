"""The nesting depth of a JSON document is measured on its text (brackets outside strings), at C speed:
it must be the depth of the value json reads, whatever the strings hold (quotes, backslashes, brackets)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from transform.model.limits import MAX_DEPTH
from transform.yamltext import nodes

TRICKY = st.text(alphabet='ab"\\[]{}\n/ é', max_size=8)


def depth(value: Any) -> int:
    """The oracle: containers nested, counted on the value."""
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


@settings(max_examples=150, deadline=None)
@given(st.integers(1, MAX_DEPTH + 20), st.lists(TRICKY, min_size=1, max_size=4), st.booleans(), st.integers(0, 250))
def test_depth_of_the_text_is_the_depth_of_the_value(levels: int, strings: list[str], objects: bool, wide: int) -> None:
    value: Any = strings
    for i in range(levels - 1):
        value = {strings[i % len(strings)]: value, "k": "[{"} if objects and i % 2 else [value, ']}\\"']
    doc = {"items": [value], "pad": [[] for _ in range(wide)]}  # many brackets, little depth
    text = json.dumps(doc, ensure_ascii=False)
    measured = nodes._json_depth(text)
    if text.count("{") + text.count("[") > MAX_DEPTH:
        assert min(measured, MAX_DEPTH + 1) == min(depth(doc), MAX_DEPTH + 1)
    else:
        assert depth(doc) <= MAX_DEPTH
