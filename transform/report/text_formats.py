"""Reports for people: per-code statistics (as ruff --statistics) and Markdown for pull-request
comments (as pluto -o markdown)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from transform.model.findings import Finding, escape_controls
from transform.report.summary import TOOL_NAME, WOULD, Summary, rename_line, summary_line, would

__all__ = ["render_markdown", "render_statistics", "statistics", "would"]


# ---- statistics (ruff --statistics) ----------------------------------------------------------------


def statistics(findings: Sequence[Finding]) -> list[tuple[int, str, str]]:
    """(count, code, severity) per code, most frequent first."""
    counts: dict[tuple[str, str], int] = {}
    for f in findings:
        key = (f.code, f.severity.value)
        counts[key] = counts.get(key, 0) + 1
    return sorted(((n, code, sev) for (code, sev), n in counts.items()), key=lambda t: (-t[0], t[1]))


def render_statistics(findings: Sequence[Finding], summary: Summary) -> str:
    """A row per code and severity, then one per code suppressed by inline ignores, then the summary."""
    rows = [(n, code, sev) for n, code, sev in statistics(findings)]
    rows += [(n, code, f"{sev}, suppressed inline") for n, code, sev in statistics(summary.suppressed)]
    width = max((len(str(n)) for n, _, _ in rows), default=1)
    lines = [f"{n:>{width}}  {code}  ({sev})" for n, code, sev in rows]
    line = summary_line(findings, summary)
    if summary.suppressed:
        line += f"; {len(summary.suppressed)} suppressed by inline ignores"
    return "\n".join([*lines, line]) + "\n"


# ---- Markdown (pull-request comments, as pluto -o markdown) --------------------------------------


_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "`": "&#96;", "|": "&#124;"}
_MD_SPECIAL = re.compile(r"[&<>`|\\*_\[\]#!~]")


def _md_cell(text: str) -> str:
    """Text from the input as Markdown that shows it as it is: control characters (CR, LF, ESC) and
    bytes that are not UTF-8 as C escapes, what HTML interprets (`<`, `&`) and what ends a table
    cell or a code span (`|`, a backtick) as entities, Markdown's emphasis and link marks escaped."""
    return _MD_SPECIAL.sub(lambda m: _MD_ENTITIES.get(m.group(), "\\" + m.group()), escape_controls(text))


def render_markdown(findings: Sequence[Finding], summary: Summary) -> str:
    """A heading, the summary line, and one table row per finding (file:line, severity, code, object
    and field path, message): every field from the input escaped (`_md_cell`), none in a code span."""
    lines = [f"### {TOOL_NAME} {summary.command}", "", summary_line(findings, summary), ""]
    if findings:
        lines += ["| location | severity | code | object | message |", "| --- | --- | --- | --- | --- |"]
        for f in findings:
            where = _md_cell((f.file or "<stdin>") + (f":{f.line}" if f.line else ""))
            obj = " ".join(_md_cell(p) for p in (f.object, f.field_path) if p)
            lines.append(f"| {where} | {f.severity.value} | `{f.code}` | {obj} | {_md_cell(f.message)} |")
        lines.append("")
    if summary.renames:
        would = summary.command in WOULD
        lines += [f"- {_md_cell(rename_line(ns, old, new, would=would))}" for ns, old, new in summary.renames]
        lines.append("")
    return "\n".join(lines)
