"""The edit planner, case by case: (original text, intended value) -> exact new text. Only the changed
nodes move; comments, quoting, indentation, line endings stay; new nodes come in the file's style.
Every output is also read back by PyYAML (an independent reader) where it reads as Kubernetes does."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from transform.yamltext import edits, emit, nodes

Change = Callable[[dict[str, Any]], None]


def _set(path: tuple[Any, ...], value: Any) -> Change:
    def change(doc: dict[str, Any]) -> None:
        node: Any = doc
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value

    return change


def _drop(path: tuple[Any, ...]) -> Change:
    def change(doc: dict[str, Any]) -> None:
        node: Any = doc
        for part in path[:-1]:
            node = node[part]
        del node[path[-1]]

    return change


CASES: dict[str, tuple[str, Change, str]] = {
    "scalar keeps its quotes": (
        "apiVersion: 'a/v1alpha1'  # old\nkind: X\n",
        _set(("apiVersion",), "a/v1beta1"),
        "apiVersion: 'a/v1beta1'  # old\nkind: X\n",
    ),
    "plain scalar": (
        "apiVersion: a/v1alpha1\nkind: X\n",
        _set(("apiVersion",), "a/v1beta1"),
        "apiVersion: a/v1beta1\nkind: X\n",
    ),
    "new string that Kubernetes would read as a bool is quoted": (
        "a: x\n",
        _set(("a",), "yes"),
        'a: "yes"\n',
    ),
    "new string that reads as an octal number is quoted": (
        "a: x\n",
        _set(("a",), "0o755"),
        'a: "0o755"\n',
    ),
    "a base-60 looking string is quoted for YAML 1.1 readers": (
        "a: x\n",
        _set(("a",), "12:30"),
        'a: "12:30"\n',
    ),
    "removed key keeps its comment": (
        "a: 1\n# about b\nb: 2  # b\nc: 3\n",
        _drop(("b",)),
        "a: 1\n# about b\n# b\nc: 3\n",
    ),
    "added key in the mapping's indentation": (
        "metadata:\n    name: x\n    labels:\n        app: web\n",
        _set(("metadata", "labels", "instancetype.kubevirt.io/object-version"), "v1beta1"),
        "metadata:\n    name: x\n    labels:\n        app: web\n        instancetype.kubevirt.io/object-version: v1beta1\n",
    ),
    "added labels mapping in kubectl style": (
        "metadata:\n  name: x\nspec: {}\n",
        _set(("metadata", "labels"), {"a.io/kind": "VirtualMachineInstancetype", "a.io/on": "on"}),
        'metadata:\n  name: x\n  labels:\n    a.io/kind: VirtualMachineInstancetype\n    a.io/on: "on"\nspec: {}\n',
    ),
    "a wrapper scalar becomes a nested block": (
        "data: eyJ4IjoxfQ==  # payload\nkind: ControllerRevision\n",
        _set(("data",), {"apiVersion": "a/v1beta1", "spec": {"cpu": {"guest": 1, "model": ""}}}),
        'data:  # payload\n  apiVersion: a/v1beta1\n  spec:\n    cpu:\n      guest: 1\n      model: ""\n'
        "kind: ControllerRevision\n",
    ),
    "a new list uses the file's dash offset": (
        "spec:\n  list:\n    - a\n  other: x\n",
        _set(("spec", "other"), {"items": ["b", "c"]}),
        "spec:\n  list:\n    - a\n  other:\n    items:\n      - b\n      - c\n",
    ),
    "a new list in kubectl style (dash at the key's column)": (
        "spec:\n  list:\n  - a\n  other: x\n",
        _set(("spec", "other"), {"items": ["b", {"x": 1, "n": 2}]}),
        'spec:\n  list:\n  - a\n  other:\n    items:\n    - b\n    - x: 1\n      "n": 2\n',  # `n:` is a bool key
    ),
    "single quotes when the file prefers them": (
        "a: 'x'\nb: 'y'\nc: z\n",
        _set(("c",), {"d": "true", "e": ""}),
        "a: 'x'\nb: 'y'\nc:\n  d: 'true'\n  e: ''\n",
    ),
    "CRLF stays CRLF": (
        "a: 1\r\nb:\r\n  c: 2\r\n",
        _set(("b", "d"), 3),
        "a: 1\r\nb:\r\n  c: 2\r\n  d: 3\r\n",
    ),
    "no final newline stays so": (
        "a: 1\nb: 2",
        _set(("c",), 3),
        "a: 1\nb: 2\nc: 3",
    ),
    "flow mapping stays flow": (
        "a: {b: 1, c: 2}\n",
        _set(("a", "c"), 3),
        "a: {b: 1, c: 3}\n",
    ),
    "sequence item": (
        "a:\n- x\n- y\n",
        _set(("a", 1), "z"),
        "a:\n- x\n- z\n",
    ),
    "compact JSON stays compact": (
        '{"a":1,"b":{"c":"x"}}',
        _set(("b", "d"), "y"),
        '{"a":1,"b":{"c":"x","d":"y"}}',
    ),
    "indented JSON keeps its indent": (
        '{\n  "a": 1,\n  "b": "x"\n}\n',
        _drop(("b",)),
        '{\n  "a": 1\n}\n',
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_edit(name: str, parser: str) -> None:
    text, change, expected = CASES[name]
    doc = nodes.parse(text)
    assert doc is not None
    new = copy.deepcopy(doc.value)
    change(new)
    source_newline = "\r\n" if "\r\n" in text else "\n"
    style = emit.detect_style(text, doc.root, source_newline)
    out = edits.apply(text, edits.plan(text, doc.root, doc.value, new, style))
    assert out == expected
    back = nodes.parse(out)
    assert back is not None and edits.same(back.value, new)
    assert yaml.safe_load(out) == new  # the independent reader agrees (no 1.1/Kubernetes ambiguity here)


def test_apply_refuses_overlapping_edits() -> None:
    with pytest.raises(edits.EditConflict):
        edits.apply("abcdef", [edits.Edit(0, 3, "x"), edits.Edit(2, 4, "y")])


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (1, 1, True),
        (1, 1.0, False),
        (True, 1, False),
        ({"a": [1]}, {"a": [1]}, True),
        ({"a": 1}, {"b": 1}, False),
        ({"a": [{"b": [1, None]}]}, {"a": [{"b": [1, None]}]}, True),
        ({"a": [{"b": [1, 0]}]}, {"a": [{"b": [1, False]}]}, False),
        ([[1.0]], [[1]], False),
        ({"a": 1, "b": "x"}, {"b": "x", "a": 1}, True),
        ([1, 2], [1, 2, 3], False),
        (float("nan"), float("nan"), False),
    ],
)
def test_same_tells_json_types_apart(a: Any, b: Any, same: bool) -> None:
    assert edits.same(a, b) is same
