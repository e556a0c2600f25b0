"""Without the C extension the pure-Python parser gives the same results: every fixture and a table of
YAML forms, parsed by both, give the same values, duplicate keys and node trees (positions, styles)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from transform.yamltext import nodes, textio

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted(p for p in (ROOT / "fixtures").rglob("*") if p.suffix in (".yaml", ".yml", ".json") and p.is_file())
FORMS = {
    "block": "a: 1\nb:\n  c: [1, 2]\n  d: {e: f}\n",
    "sequences": "a:\n- 1\n- - 2\n  - 3\nb:\n  - x: 1\n    y: 2\n",
    "literal": "a: |\n  line 1\n  line 2\nb: |-\n  x\nc: |+\n  y\n\nd: >\n  folded\n  text\n",
    "quoted": "a: 'it''s'\nb: \"tab\\there \\u00fc \\x41\"\nc: \"multi\n  line\"\n",
    "plain multi-line": "a: this is\n  one string\nb: x\n",
    "comments": "# top\na: 1  # trailing\n# between\nb:\n  # inside\n  c: 2\n",
    "anchors": "base: &b {x: 1, y: 2}\nuse: *b\nmerged:\n  <<: *b\n  y: 3\n",
    "merge list": "a: &a {x: 1}\nb: &b {x: 2, z: 3}\nc:\n  <<: [*a, *b]\n",
    "explicit key": "? a\n: 1\n? [b]\n",
    "tags": "a: !!str 1\nb: !!int '2'\nc: !custom x\nd: !!binary aGVsbG8=\n",
    "unicode": "name: ü-ö-ß\nemoji: 🎉 party\nkey ü: value\n",
    "crlf": "a: 1\r\nb:\r\n  - x\r\n  - y\r\n",
    "document markers": "%YAML 1.1\n---\na: 1\n...\n",
    "empty values": "a:\nb: ~\nc: ''\nd: []\ne: {}\n",
    "duplicates": "a: 1\nb: 2\na: 3\n",
    "flow": "{a: [1, {b: c}], 'd': \"e\", f: }\n",
    "scalars": "a: yes\nb: 0o755\nc: 08\nd: -.5\ne: 1e3\nf: 12:30\ng: 2001-12-14\nh: y\n",
    "long": "a: " + "x" * 5000 + "\n",
    "tab value": "a:\tb\n",
    "bad indent": "a:\n  b: 1\n c: 2\n",
    "unclosed": "a: [1, 2\n",
    "tab indent": "a:\n\tb: 1\n",
    "undefined alias": "a: *x\n",
    "bad char": "a: \x07\n",
}


def _tree(node: Any, seen: set[int] | None = None) -> Any:
    seen = set() if seen is None else seen
    if node is None:
        return None
    if id(node) in seen:
        return ("alias", node.start_mark.index)
    seen.add(id(node))
    # end marks: the index (what the edit planner uses); at the end of a stream without a final newline
    # libyaml puts the end on a virtual next line, ruamel's Python reader does not
    marks = (node.start_mark.index, node.start_mark.line, node.start_mark.column, node.end_mark.index)
    if isinstance(node, nodes.ScalarNode):
        return ("scalar", node.tag, node.value, node.style or None, marks)
    if isinstance(node, nodes.SequenceNode):
        return ("seq", bool(node.flow_style), marks, [_tree(n, seen) for n in node.value])
    return ("map", bool(node.flow_style), marks, [(_tree(k, seen), _tree(v, seen)) for k, v in node.value])


def _read(text: str) -> Any:
    try:
        doc = nodes.parse(text)
    except nodes.ParseError as exc:
        return ("error", exc.line)
    if doc is None:
        return None
    return (doc.value, [p for p, _ in doc.duplicates], _tree(doc.root))


def _both(text: str) -> tuple[Any, Any]:
    previous = nodes.use_parser("pure")
    try:
        pure = _read(text)
    finally:
        nodes.use_parser(previous)
    try:
        nodes.use_parser("libyaml")
    except ValueError:
        pytest.skip("ruamel.yaml.clib is not installed")
    try:
        c = _read(text)
    finally:
        nodes.use_parser(previous)
    return pure, c


@pytest.mark.parametrize("name", sorted(FORMS))
def test_forms(name: str) -> None:
    pure, c = _both(FORMS[name])
    assert pure == c


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(ROOT / "fixtures")) for p in FIXTURES])
def test_fixtures(path: Path) -> None:
    try:
        source = textio.decode(path.read_bytes())
    except textio.ReadError:
        pytest.skip("not text")
    for chunk in textio.split_documents(source.text):
        text = source.text[chunk.start : chunk.end]
        pure, c = _both(text)
        assert pure == c, text[:200]


def test_parser_name_and_choice() -> None:
    previous = nodes.use_parser("pure")
    try:
        assert nodes.parser_name() == "pure"
        assert "pure Python" in nodes.parser_description()
    finally:
        nodes.use_parser(previous)
    with pytest.raises(ValueError):
        nodes.use_parser("pyyaml")


@pytest.mark.usefixtures("parser")
@pytest.mark.parametrize("name", FORMS)
def test_well_formed_is_composing_without_nodes(name: str) -> None:
    """`well_formed` (libyaml's parser alone, for the KRM function's items) accepts what composes, but aliases."""
    text = FORMS[name]
    try:
        nodes.compose(text)
        composes = True
    except nodes.ParseError:
        composes = False
    assert nodes.well_formed(text) is (composes and name not in ("anchors", "merge list"))
