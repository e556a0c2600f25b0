"""Cutting keys out of a flow mapping that spans lines keeps the comments between them (was: `internal.comments`,
"a comment would be lost", on a revision payload written as a multi-line flow mapping whose dropped field
was last or in the middle)."""

from __future__ import annotations

from typing import Any

import pytest

from transform.yamltext import comments, edits, emit
from transform.yamltext import nodes as yamlnodes

CASES = [
    ("s: {a: 1, # c1\n  b: 2,  # c2\n  x: 1 # c3\n  }\n", {"s": {"a": 1, "b": 2}}),
    ("s: {a: 1, x: 1, # c1\n  b: 2,  # c2\n  z: 3 # c3\n  }\n", {"s": {"a": 1, "b": 2}}),
    ("s: {x: 1,  # c1\n  a: 1}\n", {"s": {"a": 1}}),
    ("s: {a: 1,  # c1\n  x: 1,  # c2\n  b: 2}\n", {"s": {"a": 1, "b": 2}}),
    ("s: [1, # c1\n  2]\nt: {a: 1, x: [1, # c2\n  2]}\n", {"s": [1, 2], "t": {"a": 1}}),
]


@pytest.mark.parametrize(("text", "new"), CASES)
def test_flow_cuts_keep_comments(text: str, new: dict[str, Any], parser: str) -> None:
    doc = yamlnodes.parse(text)
    assert doc is not None
    style = emit.detect_style(text, doc.root, "\n")
    out = edits.apply(text, edits.plan(text, doc.root, doc.value, new, style))
    back = yamlnodes.parse(out)
    assert back is not None and edits.same(back.value, new), out
    before = sorted(c.strip() for c in comments.comments(text, 0, len(text), [doc.root]))
    after = sorted(c.strip() for c in comments.comments(out, 0, len(out), [back.root]))
    assert before == after, out
