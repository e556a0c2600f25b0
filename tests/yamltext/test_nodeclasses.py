"""libyaml's composer builds the lean node classes (a regression guard for the composing speed, not
timed): the same attributes as ruamel's nodes, and the same values from both parsers."""

from __future__ import annotations

import pytest
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

from transform.yamltext import nodeclasses, nodes

TEXT = "a: &x [1, !!str 2, 'q', {b: ~}]\nc: *x\nd: !!binary aGk=\ne: |\n  lit\n"


def test_the_c_composer_builds_the_lean_classes() -> None:
    if nodes.CParser is None:
        pytest.skip("ruamel.yaml.clib is not installed: the pure parser builds ruamel's own classes")
    root = nodes.compose(TEXT)
    assert type(root) is nodeclasses.LeanMappingNode
    (k, seq), *_ = root.value
    assert type(k) is nodeclasses.LeanScalarNode and type(seq) is nodeclasses.LeanSequenceNode
    assert isinstance(root, MappingNode) and isinstance(k, ScalarNode) and isinstance(seq, SequenceNode)
    assert (k.value, k.style, k.tag, k.comment, k.anchor) == ("a", "", "tag:yaml.org,2002:str", None, None)
    assert seq.value[1].tag == "tag:yaml.org,2002:str"  # an explicit tag comes as a string: made a Tag
    assert (seq.flow_style, root.flow_style, root.merge) == (True, False, None)
    assert root.end_mark.index == len(TEXT)


def test_both_parsers_read_the_same_values() -> None:
    c_doc = nodes.parse(TEXT)
    assert c_doc is not None
    c_value = c_doc.value
    previous = nodes.use_parser("pure")
    try:
        pure_doc = nodes.parse(TEXT)
        assert pure_doc is not None and pure_doc.value == c_value
    finally:
        nodes.use_parser(previous)
    assert c_value == {"a": [1, "2", "q", {"b": None}], "c": [1, "2", "q", {"b": None}], "d": "hi", "e": "lit\n"}
