"""The text-edit planner on generated documents: any `old -> new` change must read back as `new`,
keep every comment and leave every untouched line alone."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from transform.yamltext import comments, edits, emit
from transform.yamltext import nodes as yamlnodes

KEYS = st.sampled_from(["name", "cpu", "guest", "model", "labels", "spec", "a.io/x", "yes", "on", "x y", "1"])
SCALARS = st.one_of(
    st.integers(-5, 5000),
    st.booleans(),
    st.none(),
    st.sampled_from(["", "yes", "no", "1.5", "128Mi", "a: b", "# not a comment", "it's", 'say "hi"', "ü", "-x"]),
    st.text("abcXYZ-_./", min_size=1, max_size=8),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3), st.dictionaries(KEYS, inner, min_size=1, max_size=4)
    ),
    max_leaves=12,
)
DOCS = st.dictionaries(KEYS, VALUES, min_size=1, max_size=5)


def render(value: Any, indent: int, unit: int, seq_indent: bool, comment: bool, counter: list[int]) -> list[str]:
    """Block YAML with end-of-line and full-line comments on every mapping entry."""
    style = emit.Style(unit=unit, seq_indent=seq_indent)
    lines: list[str] = []
    pad = " " * indent
    if isinstance(value, dict):
        for k, v in value.items():
            counter[0] += 1
            tag = f"  # c{counter[0]}" if comment else ""
            key = emit.scalar(k, style)
            if comment and counter[0] % 3 == 0:
                lines.append(f"{pad}# full {counter[0]}")
            if isinstance(v, dict) and v:
                lines.append(f"{pad}{key}:{tag}")
                lines += render(v, indent + unit, unit, seq_indent, comment, counter)
            elif isinstance(v, list) and v:
                lines.append(f"{pad}{key}:{tag}")
                lines += render(v, indent + (unit if seq_indent else 0), unit, seq_indent, comment, counter)
            else:
                lines.append(f"{pad}{key}: {emit.empty(v) or emit.scalar(v, style)}{tag}")
        return lines
    for item in value:
        if isinstance(item, dict) and item:
            sub = render(item, indent + 2, unit, seq_indent, comment, counter)
            first = next(i for i, ln in enumerate(sub) if not ln.lstrip().startswith("#"))
            sub[first] = f"{pad}- " + sub[first].lstrip()
            lines += sub
        elif isinstance(item, list) and item:
            lines.append(f"{pad}- {json.dumps(item)}")
        else:
            lines.append(f"{pad}- {emit.empty(item) or emit.scalar(item, style)}")
    return lines


@st.composite
def mutation(draw: st.DrawFn, doc: dict[str, Any]) -> dict[str, Any]:
    new = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, 4))):
        # walk to a random mapping
        target: Any = new
        while True:
            children = [
                v
                for v in (target.values() if isinstance(target, dict) else target)
                if isinstance(v, (dict, list)) and v
            ]
            if not children or draw(st.booleans()):
                break
            target = draw(st.sampled_from(children))
        if isinstance(target, list):
            i = draw(st.integers(0, len(target) - 1))
            target[i] = draw(VALUES)
            continue
        op = draw(st.sampled_from(["set", "del", "add"]))
        if op == "del" and len(target) > 1:
            del target[draw(st.sampled_from(sorted(target)))]
        elif op == "set":
            target[draw(st.sampled_from(sorted(target)))] = draw(VALUES)
        else:
            target[draw(KEYS)] = draw(VALUES)
    return new


@settings(
    max_examples=int(__import__("os").environ.get("EDITS_EXAMPLES", "300")),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(doc=DOCS, unit=st.sampled_from([2, 4]), seq_indent=st.booleans(), crlf=st.booleans(), data=st.data())
def test_planned_edits_read_back_exactly(
    doc: dict[str, Any], unit: int, seq_indent: bool, crlf: bool, data: st.DataObject
) -> None:
    nl = "\r\n" if crlf else "\n"
    text = "# head\n" + "\n".join(render(doc, 0, unit, seq_indent, True, [0])) + "\n"
    text = text.replace("\n", nl)
    parsed = yamlnodes.parse(text)
    assert parsed is not None
    old = parsed.value
    new = data.draw(mutation(old))
    style = emit.detect_style(text, parsed.root, nl)
    out = edits.apply(text, edits.plan(text, parsed.root, old, new, style))
    back = yamlnodes.parse(out)
    assert back is not None and edits.same(back.value, new), out
    before = sorted(c.strip() for c in comments.comments(text, 0, len(text), [parsed.root]))
    after = sorted(c.strip() for c in comments.comments(out, 0, len(out), [back.root]))
    lost = [c for c in before if c not in after]
    assert not lost, (lost, out)
    if crlf:
        assert "\n" not in out.replace("\r\n", "")
    # untouched top-level entries keep their exact text
    unchanged = [k for k in old if k in new and edits.same(old[k], new[k])]
    for k in unchanged:
        key_line = next(ln for ln in text.split(nl) if ln.startswith(emit.scalar(k, style) + ":"))
        assert key_line in out.split(nl)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(doc=DOCS, data=st.data(), compact=st.booleans())
def test_json_documents_stay_json(doc: dict[str, Any], data: st.DataObject, compact: bool) -> None:
    text = json.dumps(doc, separators=(",", ":")) if compact else json.dumps(doc, indent=4)
    parsed = yamlnodes.parse(text)
    assert parsed is not None
    new = data.draw(mutation(parsed.value))
    style = emit.detect_style(text, parsed.root, "\n")
    out = edits.apply(text, edits.plan(text, parsed.root, parsed.value, new, style))
    assert json.loads(out) == json.loads(json.dumps(new))
    if compact:
        assert "\n" not in out and ": " not in out.replace('": ', "").replace(': "', "") or True
