"""One-line YAML flow mappings and block keys in a Helm template, read as text (transform.convert.helmtemplate).

`entries(text, start)` splits `{apiVersion: pool.kubevirt.io/v1alpha1, kind: VirtualMachinePool, name: "{{ .x }}"}`
into its top-level `key: value` entries, with offsets: template actions (`{{ ... }}`) and quoted scalars
are opaque text, a mapping that does not close on its line is none. `KEY` reads a key as YAML writes one
(plain, single- or double-quoted) before `: `.
"""

from __future__ import annotations

import re

KEY = re.compile(r"""(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<plain>[A-Za-z_][\w./-]*))[ \t]*:(?=[ \t]|$)""")


def key_text(m: re.Match[str]) -> str:
    return m.group("dq") if m.group("dq") is not None else m.group("sq") if m.group("sq") is not None else m["plain"]


def entries(text: str, start: int) -> list[tuple[str, int, int]] | None:
    """The top-level `key: value` entries of the one-line flow mapping opening at `text[start]` ("{"), each
    as (key, offset of its value, end of its value); None when it does not close on this line. Template
    actions (`{{ ... }}`) and quoted scalars are read as opaque text."""
    found = _scan(text, start, multiline=False)
    return None if found is None else found[0]


def entries_over_lines(
    text: str, start: int, stop: int, closes: dict[int, int | None] | None = None
) -> tuple[list[tuple[str, int, int]], int, int] | None:
    """`entries` of a flow mapping that may span lines (its entries, the offset of its closing "}", and how
    many entries it has, with or without a key this reader sees: a template action may hide one): line
    breaks are white space, a `#` after white space starts a comment to the end of its line. None when it
    does not close before `stop` (the end of its document), or a template action or quoted scalar does not.
    `closes` (offset of a `{` or `[` -> offset of its close, or None) records every bracket the reading
    passes, so that a nested mapping asked for later is not read again."""
    return _scan(text, start, multiline=True, stop=stop, closes=closes)


def _scan(
    text: str, start: int, *, multiline: bool, stop: int | None = None, closes: dict[int, int | None] | None = None
) -> tuple[list[tuple[str, int, int]], int, int] | None:
    entries: list[tuple[int, int]] = []
    depth, i, begin = 0, start, start + 1
    end = len(text) if stop is None else stop
    opened: list[int] = []

    def unclosed() -> None:
        if closes is not None:
            closes.update(dict.fromkeys(opened))

    while i < end:
        c = text[i]
        if text.startswith("{{", i):
            close = text.find("}}", i + 2, end)
            if close < 0:
                unclosed()
                return None
            i = close + 2
            continue
        if c in "\"'":
            close = text.find(c, i + 1, end)
            while c == '"' and close > 0 and text[close - 1] == "\\":
                close = text.find(c, close + 1, end)
            if close < 0 or (not multiline and "\n" in text[i:close]):
                unclosed()
                return None
            i = close + 1
            continue
        if multiline and c == "#" and text[i - 1 : i] in (" ", "\t", "\n", "\r"):
            eol = text.find("\n", i, end)
            i = end if eol < 0 else eol
            continue
        if c in "{[":
            depth += 1
            opened.append(i)
        elif c in "}]":
            depth -= 1
            if closes is not None and opened:
                closes[opened.pop()] = i
            if depth == 0:
                entries.append((begin, i))
                break
        elif c == "," and depth == 1:
            entries.append((begin, i))
            begin = i + 1
        i += 1
    else:
        unclosed()
        return None
    out = []
    for a, b in entries:
        m = KEY.match(text, _key_at(text, a, b, multiline))
        if m is not None and m.end() <= b:
            out.append((key_text(m), m.end(), b))
    return out, i, len([e for e in entries if text[e[0] : e[1]].strip()])


def _key_at(text: str, a: int, b: int, multiline: bool) -> int:
    """Where an entry's key starts: after white space (and, over lines, whole-line `# comments`)."""
    while True:
        a += len(text[a:b]) - len(text[a:b].lstrip(" \t\r\n"))
        if not (multiline and text.startswith("#", a)):
            return a
        end = text.find("\n", a, b)
        if end < 0:
            return b
        a = end
