"""Reading an edited document back from the parser's events (issue 15, item 8): a proof, as strict as
composing the document and comparing its value with `edits.same`, without building the node tree."""

from __future__ import annotations

import copy
import pathlib
from typing import Any

import pytest

from transform.yamltext import comments, edits, nodepath, nodes, readback

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = sorted(
    p
    for d in ("fixtures/revisions", "fixtures/objects", "fixtures/trees/gitops/in")
    for p in (ROOT / d).rglob("*.yaml")
)

pytestmark = pytest.mark.usefixtures("parser")


def _value(text: str) -> Any:
    doc = nodes.parse(text)
    assert doc is not None
    return doc.value


def _mutations(value: Any) -> list[Any]:
    """Each a copy of `value` with one difference that `edits.same` sees."""
    out: list[Any] = []

    def walk(v: Any, path: tuple[Any, ...]) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, (*path, k))
            out.append(_changed(value, path, lambda d: d.update({"added-key": "x"})))
            if v:
                out.append(_changed(value, path, lambda d: d.pop(next(reversed(d)))))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, (*path, i))
            out.append(_changed(value, path, lambda d: d.append("x")))
            if v:
                out.append(_changed(value, path, lambda d: d.pop()))
        else:
            for other in _others(v):
                out.append(_changed(value, path[:-1], lambda d, k=path[-1], o=other: d.__setitem__(k, o)))

    if isinstance(value, (dict, list)):
        walk(value, ())
    return out


def _others(v: Any) -> list[Any]:
    """Values that differ from `v` by type or by value (1, 1.0, True and "1" all differ)."""
    if isinstance(v, bool):
        return [int(v), str(v).lower(), not v]
    if isinstance(v, int):
        return [float(v), str(v), v + 1]
    if isinstance(v, float):
        return [int(v), str(v)]
    if isinstance(v, str):
        return [v + "x", None] + ([int(v)] if v.isdigit() else [])
    return ["", 0, False]


def _changed(value: Any, path: tuple[Any, ...], change: Any) -> Any:
    out = copy.deepcopy(value)
    target = out
    for p in path:
        target = target[p]
    change(target)
    return out


def test_samples_found() -> None:
    assert len(SAMPLES) > 40


def test_every_sample_reads_back_and_every_difference_is_seen() -> None:
    proven = 0
    for path in SAMPLES:
        text = path.read_text()
        if len(text.split("\n---")) > 1 or not text.strip() or text.lstrip().startswith("{"):
            continue
        try:
            value = _value(text)
        except nodes.ParseError:
            continue
        spans = readback.spans_if_same(text, value)
        if spans is None:
            continue  # anchors, tags, merge keys...: composed as before
        proven += 1
        root = nodes.compose(text)
        assert root is not None
        assert spans == sorted(
            (s.start_mark.index, s.end_mark.index)
            for s in nodepath.iter_scalars(root)
            if "#" in text[s.start_mark.index : s.end_mark.index]
        ), path.name
        for other in _mutations(value):
            assert not edits.same(other, value)
            assert readback.spans_if_same(text, other) is None, (path.name, other)
    assert proven > 30


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a: 1\n", {"a": "1"}),
        ("a: 1\n", {"a": 1.0}),
        ("a: 1.0\n", {"a": 1}),
        ("a: true\n", {"a": 1}),
        ("a: yes\n", {"a": "yes"}),  # Kubernetes reads `yes` as true
        ("a: '1'\n", {"a": 1}),
        ("a: ~\n", {"a": ""}),
        ("a: [1, 2]\n", {"a": [1, 2, 3]}),
        ("a: [1, 2, 3]\n", {"a": [1, 2]}),
        ("a: {b: 1}\n", {"a": {"b": 1, "c": 2}}),
        ("a: {b: 1, c: 2}\n", {"a": {"b": 1}}),
        ("a: [1]\n", {"a": {"0": 1}}),
        ("a: {b: 1}\n", {"a": [1]}),
        ("a: 1\nb: 2\n", {"a": 1, "c": 2}),
    ],
)
def test_a_difference_is_never_proven(text: str, value: Any) -> None:
    assert not edits.same(_value(text), value)
    assert readback.spans_if_same(text, value) is None


@pytest.mark.parametrize(
    "text",
    [
        "a: &x {b: 1}\nc: *x\n",  # anchors and aliases
        "a: !!str 1\n",  # a tag
        "a: !!int '1'\n",
        "base: &b {x: 1}\nd:\n  <<: *b\n  y: 2\n",  # a merge key
        "a: 1\na: 1\n",  # a duplicate key (the last one counts)
        "1: a\n",  # a key read as a number
        "true: a\n",
        "? [a]\n: b\n",  # a collection as a key
        "a: 1\n---\nb: 2\n",  # two documents
        "a: [1\n",  # does not parse
        "a: 'b\n",
        "",  # no document
        "\t- a\n",  # a tab where YAML refuses it
        "a:" + " [" * 201 + " ]" * 201 + "\n",  # past the nesting limit
    ],
)
def test_what_events_alone_do_not_settle_is_left_to_composing(text: str) -> None:
    try:
        value = _value(text)
    except (nodes.ParseError, AssertionError):
        value = None
    assert readback.spans_if_same(text, value) is None


def test_hash_signs_in_scalars_are_not_comments() -> None:
    text = "a: 'x # y'  # real\nb: \"#\"\nc: |\n  # in a block scalar\n# a line\nd: e#f\n"
    spans = readback.spans_if_same(text, _value(text))
    assert spans is not None and len(spans) == 4  # 'x # y', "#", the block scalar, e#f
    found = comments.comments_outside(text, 0, len(text), spans)
    root = nodes.compose(text)
    assert root is not None
    assert found == comments.comments(text, 0, len(text), [root])
    assert "# a line" in found and not [c for c in found if "block scalar" in c]
    assert "# real" in found  # after a `#` inside a quoted scalar on the same line


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: 'x # y'  # real\n", ["# real"]),
        ('a: "#" # one\nb: c # two\n', ["# one", "# two"]),
        ("a: [x#y, 'p # q'] # end\n", ["# end"]),
        ("a: 'x # y'\n", []),
    ],
)
def test_a_comment_after_a_hash_in_a_scalar_is_found(text: str, expected: list[str]) -> None:
    root = nodes.compose(text)
    assert root is not None
    assert comments.comments(text, 0, len(text), [root]) == expected


def test_comments_outside_overlapping_spans() -> None:
    # spans that overlap or nest (never from one document, but the answer must not depend on it)
    text = "#a\n#b\n#c\n"
    assert comments.comments_outside(text, 0, len(text), [(0, 7), (3, 4)]) == []
    assert comments.comments_outside(text, 0, len(text), [(3, 4)]) == ["#a", "#c"]
    assert comments.comments_outside(text, 0, len(text), [(0, 1), (0, 5)]) == ["#c"]
    assert comments.comments_outside(text, 0, len(text), [(0, 5), (1, 2)]) == ["#c"]
    assert comments.comments_outside(text, 4, len(text), []) == ["#c"]
