"""The emitter: new nodes in the file's detected style; a new scalar is plain only when Kubernetes (and
YAML 1.1 readers) read the plain text back as the same string."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from transform.yamltext import emit, nodes

KUBECTL = emit.Style()
INDENTED = emit.Style(dash_offset=2, seq_indent=True)
FOUR = emit.Style(unit=4, dash_offset=4, seq_indent=True)
SINGLE = emit.Style(quote="'")

BLOCKS: list[tuple[str, Any, int, emit.Style, list[str]]] = [
    ("mapping", {"a": 1, "b": "x"}, 0, KUBECTL, ["a: 1", "b: x"]),
    ("at a column", {"a": {"b": None}}, 4, KUBECTL, ["    a:", "      b: null"]),
    ("key order kept", {"z": 1, "a": 2}, 0, KUBECTL, ["z: 1", "a: 2"]),
    ("kubectl lists", {"a": ["x", {"b": 1, "c": 2}]}, 0, KUBECTL, ["a:", "- x", "- b: 1", "  c: 2"]),
    ("indented lists", {"a": ["x", {"b": 1}]}, 0, INDENTED, ["a:", "  - x", "  - b: 1"]),
    ("four spaces", {"a": {"b": ["x"]}}, 0, FOUR, ["a:", "    b:", "        - x"]),
    ("a top-level list", ["x", {"b": 1}], 2, INDENTED, ["  - x", "  - b: 1"]),
    ("empty collections", {"a": {}, "b": []}, 0, KUBECTL, ["a: {}", "b: []"]),
    (
        "Kubernetes non-strings quoted",
        {"a": "yes", "b": "y", "c": "0o755", "d": "08", "e": "1e3", "f": "", "g": "null", "h": "-.5"},
        0,
        KUBECTL,
        ['a: "yes"', 'b: "y"', 'c: "0o755"', 'd: "08"', 'e: "1e3"', 'f: ""', 'g: "null"', 'h: "-.5"'],
    ),
    (
        "YAML 1.1 readers' non-strings quoted",
        {"a": "12:30", "b": "2001-12-14", "c": "=", "d": "<<"},
        0,
        KUBECTL,
        ['a: "12:30"', 'b: "2001-12-14"', 'c: "="', 'd: "<<"'],
    ),
    (
        "strings plain where safe",
        {"a": "1Gi", "b": "v1.10", "c": "1.2.3", "d": "yES", "e": "it's", "f": "ü"},
        0,
        KUBECTL,
        ["a: 1Gi", "b: v1.10", "c: 1.2.3", "d: yES", "e: it's", "f: ü"],
    ),
    ("keys quoted too", {"on": 1, "1.0": 2}, 0, KUBECTL, ['"on": 1', '"1.0": 2']),
    ("indicators quoted", {"a": "a: b", "b": "#x", "c": "- x"}, 0, KUBECTL, ['a: "a: b"', 'b: "#x"', 'c: "- x"']),
    ("newlines escaped", {"a": "x\ny"}, 0, KUBECTL, ['a: "x\\ny"']),
    ("the file's single quotes", {"a": "yes", "b": ""}, 0, SINGLE, ["a: 'yes'", "b: ''"]),
    (
        "numbers and booleans",
        {"a": 2, "b": 1.5, "c": True, "d": False},
        0,
        KUBECTL,
        ["a: 2", "b: 1.5", "c: true", "d: false"],
    ),
    ("a long string is never folded", {"a": "word " * 40 + "end"}, 0, KUBECTL, ["a: " + "word " * 40 + "end"]),
]


@pytest.mark.parametrize(("value", "indent", "style", "lines"), [b[1:] for b in BLOCKS], ids=[b[0] for b in BLOCKS])
def test_block(value: Any, indent: int, style: emit.Style, lines: list[str]) -> None:
    got = emit.block(value, indent, style)
    assert got == lines
    text = "\n".join(line[indent:] for line in got) + "\n"
    doc = nodes.parse(text)
    assert doc is not None and doc.value == value  # reads back as intended, as Kubernetes reads it
    assert yaml.safe_load(text) == value  # and as PyYAML (YAML 1.1) reads it


@pytest.mark.parametrize(("value", "indent", "style", "lines"), [b[1:] for b in BLOCKS], ids=[b[0] for b in BLOCKS])
def test_python_emitter_writes_the_same(value: Any, indent: int, style: emit.Style, lines: list[str]) -> None:
    """libyaml's C emitter (kubectl's style) and ruamel's Python emitter write the same text."""
    assert emit.block(value, indent, style, c_emitter=False) == lines


DETECT = [
    ("kubectl", "a:\n  b: 1\nc:\n- x\n", emit.Style(unit=2, dash_offset=0)),
    ("indented lists", "a:\n  b:\n    - x\n", emit.Style(unit=2, seq_indent=True, dash_offset=2)),
    ("four", "a:\n    b:\n        - x\n", emit.Style(unit=4, seq_indent=True, dash_offset=4)),
    ("single quotes", "a: 'x'\nb: 'y'\nc: \"z\"\n", emit.Style(quote="'")),
    ("double quotes", 'a: "x"\n', emit.Style()),
    ("no nesting: defaults", "a: 1\n", emit.Style()),
]


@pytest.mark.parametrize(("text", "style"), [d[1:] for d in DETECT], ids=[d[0] for d in DETECT])
def test_detect_style(text: str, style: emit.Style) -> None:
    doc = nodes.parse(text)
    assert doc is not None
    assert emit.detect_style(text, doc.root, "\n") == style


def test_detect_json_style() -> None:
    text = '{\n    "a": 1\n}\n'
    doc = nodes.parse(text)
    assert doc is not None
    assert emit.detect_style(text, doc.root, "\n") == emit.Style(json=True, unit=4)
    compact = '{"a":1}'
    doc = nodes.parse(compact)
    assert doc is not None
    assert emit.detect_style(compact, doc.root, "\n").compact_json


SCALARS = [
    ("x", None, KUBECTL, "x"),
    ("yes", None, KUBECTL, '"yes"'),
    ("yes", None, SINGLE, "'yes'"),
    ("x", "'", KUBECTL, "'x'"),  # the replaced node's quote wins
    ("x", '"', SINGLE, '"x"'),
    ("it's", "'", KUBECTL, "'it''s'"),
    (None, None, KUBECTL, "null"),
    (True, None, KUBECTL, "true"),
    (3, None, KUBECTL, "3"),
    ("x", None, emit.Style(json=True), '"x"'),
]


@pytest.mark.parametrize(("value", "quote", "style", "text"), SCALARS)
def test_scalar(value: Any, quote: str | None, style: emit.Style, text: str) -> None:
    assert emit.scalar(value, style, quote) == text


@pytest.mark.parametrize(
    ("s", "ok"),
    [
        ("abc", True),
        ("1Gi", True),
        ("yes", False),
        ("Y", False),
        ("0x1F", False),
        ("1_000", False),
        ("12:30", False),
        ("2001-12-14", False),
        ("2001-1-2", True),
        ("0:0", False),  # base 60 to none of the readers, but quoting it costs nothing
        ("._", False),
        (" x", False),
        ("a: b", False),
        ("", False),
    ],
)
def test_plain_ok(s: str, ok: bool) -> None:
    assert emit.plain_ok(s) is ok


def test_the_writer_does_not_share_the_readers_cache() -> None:
    """`=` and `12:30` are strings to Kubernetes (the reader caches that) but the writer quotes them."""
    doc = nodes.parse("a: =\nb: 12:30\nc: 2001-12-14\n")
    assert doc is not None and doc.value == {"a": "=", "b": "12:30", "c": "2001-12-14"}
    assert emit.block(doc.value, 0, KUBECTL) == ['a: "="', 'b: "12:30"', 'c: "2001-12-14"']
    assert not emit.plain_ok("=")
