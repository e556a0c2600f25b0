"""Write plain values as YAML or JSON text in a file's own style (only for new nodes)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from transform.yamltext.nodes import resolve_tag


@dataclass(frozen=True)
class Style:
    """How a document is written, detected once per document."""

    json: bool = False  # the document is JSON (flow everywhere, double quotes)
    unit: int = 2  # indentation step of nested mappings (or JSON indent)
    seq_indent: bool = False  # `key:\n  - a` (True) or `key:\n- a` (kubectl's style)
    compact_json: bool = False  # JSON written on one line (Velero items)
    newline: str = "\n"


def detect_style(text: str, root: Node, newline: str) -> Style:
    is_json = text.lstrip().startswith("{") and isinstance(root, MappingNode) and root.flow_style
    if is_json:
        first_nl = text.find("\n", root.start_mark.index)
        compact = first_nl < 0 or first_nl >= root.end_mark.index - 1
        unit = 2
        if not compact:
            m = re.search(r"\{\s*\n([ \t]+)\S", text[root.start_mark.index :])
            if m:
                unit = len(m.group(1).expandtabs()) - root.start_mark.column or 2
        return Style(json=True, unit=unit, compact_json=compact, newline=newline)
    unit, seq_indent = 0, None
    stack: list[Node] = [root]
    while stack and (not unit or seq_indent is None):
        node = stack.pop()
        if isinstance(node, MappingNode) and not node.flow_style:
            for k, v in node.value:
                if isinstance(v, MappingNode) and not v.flow_style and v.value and not unit:
                    d = v.start_mark.column - k.start_mark.column
                    if d > 0:
                        unit = d
                if isinstance(v, SequenceNode) and not v.flow_style and v.value and seq_indent is None:
                    seq_indent = v.start_mark.column > k.start_mark.column
                stack.append(v)
        elif isinstance(node, SequenceNode) and not node.flow_style:
            stack.extend(node.value)
    return Style(unit=unit or 2, seq_indent=bool(seq_indent), newline=newline)


_INDICATORS = set("-?:,[]{}#&*!|>'\"%@`")


def plain_ok(s: str) -> bool:
    """True when `s` written plain reads back as the same string in YAML 1.1 (Kubernetes)."""
    if not s or s != s.strip() or s[0] in _INDICATORS or s.endswith(":"):
        return False
    if ": " in s or " #" in s or "\t" in s or not s.isprintable():
        return False
    return resolve_tag(s) == "tag:yaml.org,2002:str"


def scalar(value: Any, style: Style, quote: str | None = None) -> str:
    if style.json:
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    s = str(value)
    if quote == "'" and "\n" not in s and s.isprintable():
        return "'" + s.replace("'", "''") + "'"
    if quote != '"' and plain_ok(s):
        return s
    return json.dumps(s, ensure_ascii=False)


def empty(value: Any) -> str | None:
    if value == {} and isinstance(value, dict):
        return "{}"
    if value == [] and isinstance(value, list):
        return "[]"
    return None


def block(value: Any, indent: int, style: Style) -> list[str]:
    """Lines (no newlines) for a non-empty mapping or sequence at column `indent`."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            key = scalar(str(k), style)
            if isinstance(v, dict) and v:
                lines.append(f"{pad}{key}:")
                lines.extend(block(v, indent + style.unit, style))
            elif isinstance(v, list) and v:
                lines.append(f"{pad}{key}:")
                lines.extend(block(v, indent + (style.unit if style.seq_indent else 0), style))
            else:
                lines.append(f"{pad}{key}: {empty(v) or scalar(v, style)}")
        return lines
    for item in value:
        if isinstance(item, dict) and item:
            sub = block(item, indent + 2, style)
            lines.append(f"{pad}- {sub[0].lstrip()}")
            lines.extend(sub[1:])
        elif isinstance(item, list) and item:
            lines.append(f"{pad}- {json.dumps(item, ensure_ascii=False)}")
        else:
            lines.append(f"{pad}- {empty(item) or scalar(item, style)}")
    return lines


def flow(value: Any, style: Style, indent: int = 0) -> str:
    """JSON text for a flow context; multi-line in the document's own indent when not compact."""
    if style.json and not style.compact_json and isinstance(value, (dict, list)) and value:
        text = json.dumps(value, ensure_ascii=False, indent=style.unit)
        return text.replace("\n", style.newline + " " * indent)
    if style.json:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(value, ensure_ascii=False)


def is_block(node: Node) -> bool:
    return isinstance(node, (MappingNode, SequenceNode)) and not node.flow_style


def quote_of(node: Node) -> str | None:
    return node.style if isinstance(node, ScalarNode) and node.style in ("'", '"') else None
