"""Line numbers as editors, diffs and the rest of this tool count them: a parsed tree's marks renumbered by
LF, CRLF and CR only (ruamel and libyaml, reading YAML 1.1, also end a line at NEL, U+2028 and U+2029)."""

from __future__ import annotations

import bisect
import re
from typing import Any

from ruamel.yaml.error import StreamMark
from ruamel.yaml.nodes import MappingNode, Node, SequenceNode

# NEL, U+2028 and U+2029 end a line for ruamel and libyaml (YAML 1.1); for YAML 1.2, editors, diffs and
# the rest of this tool (textio.count_lines: the inline ignores, the edits) only LF, CRLF and CR do
OTHER_BREAKS = re.compile("[\x85\u2028\u2029]")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    return [m.end() for m in _LINE_BREAK.finditer(text)]


def renumbered(mark: Any, starts: list[int]) -> Any:
    """The mark with the line and column its index has (a new one: libyaml's marks are read-only)."""
    line = bisect.bisect_right(starts, mark.index)
    return StreamMark(mark.name, mark.index, line, mark.index - (starts[line - 1] if line else 0))


def renumber(root: Node, text: str) -> None:
    """Every mark of the tree numbered by LF, CRLF and CR only, from its index: a finding and the
    inline ignore on its line then agree however many U+2028 a quoted string holds before it."""
    starts = line_starts(text)
    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.start_mark is not None:
            node.start_mark = renumbered(node.start_mark, starts)
        if node.end_mark is not None:
            node.end_mark = renumbered(node.end_mark, starts)
        if isinstance(node, MappingNode):
            stack.extend(n for pair in node.value for n in pair)
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
