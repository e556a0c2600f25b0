"""Comments in YAML text: every `#` that starts a comment, skipping those inside scalars (a quoted
`'x # y'`, a plain `e#f`, a block scalar's lines), for keeping them through an edit and for checking
that a written document lost none."""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

from ruamel.yaml.nodes import Node

from transform.yamltext.nodepath import iter_scalars

_COMMENT = re.compile(r"(?:^|(?<=[ \t]))#[^\r\n]*", re.M)


def comments(text: str, start: int, end: int, nodes: list[Node]) -> list[str]:
    """Comments in text[start:end], skipping `#` inside the scalars of `nodes`."""
    spans = sorted(
        (s.start_mark.index, s.end_mark.index) for n in nodes for s in iter_scalars(n) if s.end_mark.index > start
    )
    return comments_outside(text, start, end, spans)


def comments_outside(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> list[str]:
    """Comments in text[start:end], skipping `#` inside the (start, end) spans of scalars (sorted)."""
    starts = [a for a, _ in spans]
    reach = list(accumulate((b for _, b in spans), max))  # the furthest end of the spans up to each one
    found = []
    pos = start
    while (m := _COMMENT.search(text, pos, end)) is not None:
        p = m.start()
        i = bisect_right(starts, p) - 1  # the spans starting at or before p: is p before the end of one?
        if i < 0 or reach[i] <= p:
            found.append(m.group().rstrip("\r"))
            pos = m.end()
        else:  # a `#` inside a scalar: a real comment may follow it on the same line (`a: 'x # y' # c`)
            pos = reach[i]
    return found
