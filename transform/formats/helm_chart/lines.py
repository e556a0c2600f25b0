"""The text of a Helm chart file read line by line (transform.formats.helm_chart.template): what a line says, which
lines structure the text, a literal (untemplated) scalar value, and the warning for a templated apiVersion."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from transform.formats.helm_chart import flow as helmflow
from transform.formats.helm_chart import render as helmrender
from transform.kubevirt import apis
from transform.model.findings import Finding, warning

KINDS: frozenset[str] = frozenset(k for r in apis.TABLE for k in (*r.kinds, *r.kind_renames))
_BLOCK = re.compile(r"[ \t]+(?:&\S+[ \t]+|![^ \t]*[ \t]+)*[|>][-+0-9]*[ \t]*(?:#.*)?$")
_COMMENT_OPEN = re.compile(r"\{\{-?[ \t]*/\*")
_COMMENT_CLOSE = re.compile(r"\*/[ \t]*-?\}\}")
_VALUE = re.compile(r"""[ \t]*(?P<q>["']?)(?P<v>[^"'#\s,][^"'#\s,]*)(?P=q)[ \t]*,?[ \t]*(?:#.*)?$""")


@dataclass(frozen=True)
class Line:
    number: int  # 0-based
    first: int  # column of the first character (a `-` of a sequence item, or the key)
    key_col: int
    key: str | None
    dash: bool
    value: str  # the text after `key:` (with any comment)
    value_at: int  # its offset in the line
    boundary: bool = False  # `---`: a new document


@dataclass
class Result:
    text: str
    findings: list[Finding] = field(default_factory=list)
    upgraded: int = 0  # objects (a document's own apiVersion, a values file's object); references are not counted
    uses: list[tuple[int, str, str]] = field(default_factory=list)  # (line, apiVersion, kind) of each literal one


def read_line(number: int, raw: str) -> Line | None:
    """None: a line that structures nothing (blank, comment, template actions only)."""
    text = raw.rstrip("\r")
    content = text.lstrip(" ")
    if not content or content.startswith("#"):
        return None
    first = len(text) - len(content)
    if content.startswith("{{") and not _masked(content, _actions(content), "").strip():
        return None
    if content.startswith("---") and content[3:4] in ("", " ", "\t"):
        return Line(number, first, first, None, False, "", 0, boundary=True)
    col, dash = first, False
    while content.startswith("-") and content[1:2] in ("", " ", "\t"):
        stripped = content[1:].lstrip(" \t")
        col += len(content) - len(stripped)
        content, dash = stripped, True
    m = helmflow.KEY.match(content)
    if m is None:
        return Line(number, first, col, None, dash, "", 0)
    return Line(number, first, col, helmflow.key_text(m), dash, content[m.end() :], col + m.end())


def structure(raw: list[str]) -> list[Line]:
    """The lines that structure the text: not blank, comment or action-only lines, nor a block scalar's
    (a template line inside one, `{{ include ... | indent 4 }}` at column 0, does not end it), nor the
    lines inside a quoted scalar or a template action (`{{/* ... */}}`, `{% %}`, `{# #}`) that spans
    lines: what they say is text, not a key."""
    out: list[Line] = []
    block = -1  # the key column of the block scalar being read
    inside: str | None = None  # the delimiter that closes the action or quoted scalar an earlier line opened
    for n, r in enumerate(raw):
        text = r.rstrip("\r")
        if inside is not None:
            at = _closing(text, 0, inside)
            if at < 0:
                continue
            inside = _opened(text, at)
            continue
        if block >= 0:
            if not text.strip() or len(text) - len(text.lstrip(" ")) > block:
                continue
            content = text.lstrip(" ")
            if content.startswith(_OPENERS) and _action_only(content):
                inside = _opened(text, 0)
                continue
            block = -1
        ln = read_line(n, r)
        inside = _opened(text, 0)
        if ln is None or (ln.key is None and text.lstrip(" ").startswith(_OPENERS) and _action_only(text)):
            continue
        out.append(ln)
        if ln.key is not None and _BLOCK.match(ln.value):
            block = ln.key_col
    return out


_OPENERS = ("{{", "{%", "{#")
_CLOSERS = {"{{": "}}", "{%": "%}", "{#": "#}"}
_OPEN_ANY = re.compile(r"\{[{%#]|[\"']")
_ACTION_OPEN = re.compile(r"\{[{%#]")


def _action_only(content: str) -> bool:
    """A line of template actions only (`{{ }}`, `{% %}`, `{# #}`; an unclosed one at its end included)."""
    pos = 0
    while True:
        m = _ACTION_OPEN.search(content, pos)
        if m is None:
            return not content[pos:].strip()
        at = m.start()
        if content[pos:at].strip():
            return False
        end = _closing(content, at + 2, _CLOSERS[content[at : at + 2]])
        if end < 0:
            return True
        pos = end


def _closing(text: str, start: int, delimiter: str) -> int:
    """Where the action or quoted scalar closed by `delimiter` ends in `text` (past the delimiter), or -1."""
    if delimiter == "'":
        at = start
        while True:
            at = text.find("'", at)
            if at < 0 or text[at + 1 : at + 2] != "'":
                return at + 1 if at >= 0 else -1
            at += 2  # '' is a quote inside
    if delimiter == '"':
        at = start
        while True:
            at = text.find('"', at)
            if at < 0:
                return -1
            slashes = 0
            while at - 1 - slashes >= start and text[at - 1 - slashes] == "\\":
                slashes += 1
            if slashes % 2 == 0:
                return at + 1
            at += 1
    at = text.find(delimiter, start)
    return at + len(delimiter) if at >= 0 else -1


def _opened(text: str, start: int) -> str | None:
    """The delimiter still awaited at the end of the line: an action or a quoted scalar opened from
    `start` and not closed on it (each scanned once: linear in the line)."""
    m = _OPEN_ANY.search(text, start)
    while m is not None:
        opener = m.group()
        if opener in _CLOSERS:
            comment = opener == "{{" and re.match(r"-?[ \t]*/\*", text[m.end() : m.end() + 64])
            delimiter = "*/" if comment else _CLOSERS[opener]
        elif _starts_scalar(text, start, m.start()):
            delimiter = opener
        else:  # a quote inside a plain scalar or a comment: a character like any other
            m = _OPEN_ANY.search(text, m.end())
            continue
        end = _closing(text, m.end(), delimiter)
        if end < 0:
            return delimiter
        m = _OPEN_ANY.search(text, end)
    return None


def _starts_scalar(text: str, start: int, at: int) -> bool:
    """Does a quote at `at` open a quoted scalar: first on its line, or after `key: ` or `- `?"""
    before = at
    while before > start and text[before - 1] in " \t":
        before -= 1
    if before == start:
        return start == 0  # first on its line (after a closed action or quote: part of a plain scalar)
    c = text[before - 1]
    if c == ":":
        return before < at  # `key: "...`, not `a:"b`
    return c == "-" and before < at and (before - 1 == 0 or text[before - 2] in " \t")


def literal(value: str) -> tuple[str, int, int] | None:
    """(value, start, end) of a one-line scalar value (quotes kept out of the span); None if templated. A
    template comment after it (`kubevirt.io/v1alpha3 {{- /* legacy */}}`) renders nothing: the value is literal."""
    value = _masked(value, _comment_actions(value), " ")
    if "{{" in value:
        return None
    m = _VALUE.match(value)
    if m is None:
        return None
    return m["v"], m.start("v"), m.end("v")


def newest_served(group: str, targets: apis.Targets) -> str | None:
    served = [r for r in apis.rows(group) if r.serves(targets.of(r))]
    return served[-1].api_version if served else None


def templated(
    out: Result,
    ln: Line,
    kind: str | None,
    targets: apis.Targets,
    where: dict[str, Any],
    context: Mapping[str, str] | None = None,
) -> None:
    """A templated apiVersion: rendered where it names only what the chart sets (`context`, helmrender),
    then judged as a literal one is (`uses`: scan judges it as an object's); else the tool cannot tell."""
    rows = [r for r in apis.TABLE if kind in r.kinds or kind in r.kind_renames] if kind else []
    group = rows[-1].group if rows else None
    newest = newest_served(group, targets) if group else None
    hint = f" ({newest} for {kind} on {targets.text(rows[-1])})" if newest and rows else ""
    written = without_comment(ln.value)
    rendered = helmrender.render(written, context) if context else None
    if rendered is not None:
        out.uses.append((ln.number + 1, rendered, kind or ""))
        if newest is None or newest == rendered or apis.group_of(rendered) is None:
            return  # renders to what the target serves (or to no version of ours): nothing to say
        message = (
            f"apiVersion is templated ({_clipped(written)}) and renders to {rendered} from what the chart sets: "
            f"change it where the chart sets it{hint}"
        )
    else:
        message = (
            f"apiVersion is templated ({_clipped(written)}): the tool cannot tell its value (it names what the chart "
            f"does not set); make sure it renders to a version the target serves{hint}, e.g. in values.yaml"
        )
    out.findings.append(warning("helm.templated-apiversion", message, **where))


def _clipped(text: str, most: int = 120) -> str:
    """A value quoted in a message, at most `most` characters (a 100 KB line is not repeated whole)."""
    return text if len(text) <= most else text[: most - 3] + "..."


def without_comment(value: str) -> str:
    """A templated value as written, less a trailing `# comment` outside its `{{ }}` actions."""
    at = _masked(value, _actions(value), "x").find(" #")
    return (value[:at] if at >= 0 else value).strip()


# Template actions found in one pass, never by a lazy regex tried at every `{{` (quadratic on a line of
# many unclosed `{{`): an action runs from `{{` to the first `}}` after it; once no `}}` follows, none does.


def _actions(text: str) -> list[tuple[int, int]]:
    """The spans of `{{ ... }}` actions, left to right (what `\\{\\{.*?\\}\\}` matches), in linear time."""
    out: list[tuple[int, int]] = []
    at = text.find("{{")
    while at >= 0:
        close = text.find("}}", at + 2)
        if close < 0:
            break
        out.append((at, close + 2))
        at = text.find("{{", close + 2)
    return out


def _comment_actions(text: str) -> list[tuple[int, int]]:
    """The spans of `{{/* ... */}}` comment actions (trim markers and the white space before them
    included), in linear time: a comment ends at its first `*/`, as Go's lexer reads it."""
    out: list[tuple[int, int]] = []
    seen = -1  # the `*/` a previous opening reached: a later opening before it reaches the same one
    m = _COMMENT_OPEN.search(text)
    while m is not None:
        body = m.end()
        if seen < body:
            seen = text.find("*/", body)
            if seen < 0:
                break
        close = _COMMENT_CLOSE.match(text, seen)
        if close is None:
            m = _COMMENT_OPEN.search(text, m.start() + 1)
            continue
        start = m.start()
        while start > 0 and text[start - 1] in " \t":
            start -= 1
        out.append((start, close.end()))
        m = _COMMENT_OPEN.search(text, close.end())
    return out


def _masked(text: str, spans: list[tuple[int, int]], fill: str) -> str:
    """`text` with each span replaced by `fill` repeated to its length (or removed: fill "")."""
    out, pos = [], 0
    for a, b in spans:
        out += [text[pos:a], fill * (b - a)]
        pos = b
    out.append(text[pos:])
    return "".join(out)
