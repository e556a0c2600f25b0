"""The text of a Helm chart file read line by line (transform.convert.helmtemplate): what a line says, which
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
_ACTION = re.compile(r"\{\{.*?\}\}")
_COMMENT_ACTION = re.compile(r"[ \t]*\{\{-?[ \t]*/\*.*?\*/[ \t]*-?\}\}")
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
    if content.startswith("{{") and not _ACTION.sub("", content).strip():
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
    """The lines that structure the text: not blank, comment or action-only lines, nor a block scalar's."""
    out: list[Line] = []
    block = -1  # the key column of the block scalar being read
    for n, r in enumerate(raw):
        if block >= 0:
            text = r.rstrip("\r")
            if not text.strip() or len(text) - len(text.lstrip(" ")) > block:
                continue
            block = -1
        ln = read_line(n, r)
        if ln is None:
            continue
        out.append(ln)
        if ln.key is not None and _BLOCK.match(ln.value):
            block = ln.key_col
    return out


def literal(value: str) -> tuple[str, int, int] | None:
    """(value, start, end) of a one-line scalar value (quotes kept out of the span); None if templated. A
    template comment after it (`kubevirt.io/v1alpha3 {{- /* legacy */}}`) renders nothing: the value is literal."""
    value = _COMMENT_ACTION.sub(lambda m: " " * len(m.group()), value)
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
            f"apiVersion is templated ({written}) and renders to {rendered} from what the chart sets: "
            f"change it where the chart sets it{hint}"
        )
    else:
        message = (
            f"apiVersion is templated ({written}): the tool cannot tell its value (it names what the chart does "
            f"not set); make sure it renders to a version the target serves{hint}, e.g. in values.yaml"
        )
    out.findings.append(warning("helm.templated-apiversion", message, **where))


def without_comment(value: str) -> str:
    """A templated value as written, less a trailing `# comment` outside its `{{ }}` actions."""
    at = _ACTION.sub(lambda m: "x" * len(m.group()), value).find(" #")
    return (value[:at] if at >= 0 else value).strip()
