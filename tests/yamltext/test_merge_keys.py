"""`<<` merge keys as sigs.k8s.io/yaml reads them (go-yaml v2 decode.go, `(*decoder).mapping` and `merge`).

go-yaml v2 applies pairs and merges in document order into one Go map: a merge overwrites a key set before
it (`{guest: 8, <<: {guest: 2}}` reads `guest: 2`), a key after a merge overwrites the merged one, and a
sequence of maps is applied backwards so that the earlier map wins. The oracle (tests/oracles/k8s_scalars.py,
PyYAML's composer) says the same; the reader (`nodes.parse`), the node a field path finds
(`nodepath.source`, used to place edits and findings) and the planned edits all follow it: an edited value is
written where go-yaml reads it, and the result reads back as intended.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.oracles import k8s_scalars
from transform.pipeline import aliases
from transform.yamltext import edits, emit, nodepath
from transform.yamltext import nodes as yamlnodes

TABLE = [
    ("a: {guest: 8, <<: {guest: 2}}\n", {"a": {"guest": 2}}),
    ("a: {<<: {guest: 2}, guest: 8}\n", {"a": {"guest": 8}}),
    ("b: &b {x: 1, w: 2}\na:\n  w: 9\n  <<: *b\n", {"b": {"x": 1, "w": 2}, "a": {"w": 2, "x": 1}}),
    (
        "p: &p {x: 1}\nq: &q {x: 2, z: 3}\na:\n  <<: [*p, *q]\n",
        {"p": {"x": 1}, "q": {"x": 2, "z": 3}, "a": {"x": 1, "z": 3}},
    ),
    ("a: {x: 0, <<: [{x: 1}, {x: 2}], w: 5}\n", {"a": {"x": 1, "w": 5}}),
    ("a: {<<: {<<: {x: 1}, x: 2}, x: 3, <<: {w: 1}}\n", {"a": {"x": 3, "w": 1}}),
    ("a: {x: 1, <<: {x: 2}, x: 3}\n", {"a": {"x": 3}}),
]


@pytest.mark.parametrize(("text", "want"), TABLE)
def test_merges_read_in_go_yaml_v2_order(text: str, want: dict[str, Any], parser: str) -> None:
    assert k8s_scalars.load_all(text) == [want]  # the oracle, from go-yaml's decode.go
    doc = yamlnodes.parse(text)
    assert doc is not None and doc.value == want


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, (*path, k))]
    return [(path, value)]


@pytest.mark.parametrize(("text", "want"), TABLE)
def test_the_node_of_a_path_is_the_one_go_yaml_reads(text: str, want: dict[str, Any]) -> None:
    doc = yamlnodes.parse(text)
    assert doc is not None
    for path, value in _leaves(want):
        node = nodepath.node_at(doc.root, path)
        assert node is not None and yamlnodes.read_scalar(node.value) == value, (path, text)


# -- generated documents -------------------------------------------------------------------------------------
KEYS = st.sampled_from(["x", "w", "z", "guest"])
SCALARS = st.one_of(st.integers(-5, 5), st.sampled_from(["a", "b", "1Gi", "true"]))


@st.composite
def flow_map(draw: st.DrawFn, depth: int = 0) -> str:
    """A flow mapping with keys that collide and `<<` merges (inline maps or sequences of them)."""
    items = []
    for _ in range(draw(st.integers(0, 4))):
        if depth < 2 and draw(st.integers(0, 3)) == 0:
            if draw(st.booleans()):
                items.append("<<: " + draw(flow_map(depth + 1)))
            else:
                maps = draw(st.lists(flow_map(depth + 1), min_size=1, max_size=3))
                items.append("<<: [" + ", ".join(maps) + "]")
        else:
            items.append(f"{draw(KEYS)}: {draw(SCALARS)}")
    return "{" + ", ".join(items) + "}"


@st.composite
def merged_doc(draw: st.DrawFn) -> str:
    """A block document: anchored bases, then mappings merging them (by alias or inline) among own keys."""
    bases = draw(st.lists(flow_map(1), min_size=1, max_size=3))
    lines = [f"b{i}: &b{i} {m}" for i, m in enumerate(bases)]
    for j in range(draw(st.integers(1, 3))):
        lines.append(f"m{j}:")
        for _ in range(draw(st.integers(1, 4))):
            choice = draw(st.integers(0, 3))
            if choice == 0:
                lines.append(f"  <<: *b{draw(st.integers(0, len(bases) - 1))}")
            elif choice == 1:
                refs = draw(st.lists(st.integers(0, len(bases) - 1), min_size=1, max_size=3))
                lines.append("  <<: [" + ", ".join(f"*b{r}" for r in refs) + "]")
            elif choice == 2:
                lines.append(f"  <<: {draw(flow_map(1))}")
            else:
                lines.append(f"  {draw(KEYS)}: {draw(SCALARS)}")
    return "\n".join(lines) + "\n"


def _merge_settings(examples: int) -> Any:
    return settings(
        max_examples=examples, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
    )


def _agrees(text: str) -> None:
    doc = yamlnodes.parse(text)
    assert doc is not None
    assert [doc.value] == k8s_scalars.load_all(text), text
    for path, value in _leaves(doc.value):
        node = nodepath.node_at(doc.root, path)
        assert node is not None and yamlnodes.read_scalar(node.value) == value, (path, text)


def _edit_reads_back(text: str, data: st.DataObject) -> None:
    """Change one leaf of an unshared merged mapping (`m*`): the edit lands where go-yaml reads it."""
    doc = yamlnodes.parse(text)
    assert doc is not None
    leaves = [(p, v) for p, v in _leaves(doc.value) if p[0].startswith("m")]
    if not leaves:
        return
    path, _ = data.draw(st.sampled_from(leaves))
    new = {k: (dict(v) if isinstance(v, dict) else v) for k, v in doc.value.items()}
    target = new
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = "changed"
    if aliases.shared_edit(doc.root, doc.value, new) is not None:
        return  # the value is an anchor's, and every use would change with it: the pipeline's alias step
    style = emit.detect_style(text, doc.root, "\n")
    out = edits.apply(text, edits.plan(text, doc.root, doc.value, new, style))
    back = yamlnodes.parse(out)
    assert back is not None and edits.same(back.value, new), (text, out)


@_merge_settings(150)
@given(text=merged_doc(), data=st.data())
def test_generated_merges_agree_with_the_oracle(text: str, data: st.DataObject) -> None:
    _agrees(text)
    _edit_reads_back(text, data)


@pytest.mark.slow
@_merge_settings(3000)
@given(text=merged_doc(), data=st.data())
def test_generated_merges_agree_with_the_oracle_long(text: str, data: st.DataObject) -> None:
    _agrees(text)
    _edit_reads_back(text, data)
