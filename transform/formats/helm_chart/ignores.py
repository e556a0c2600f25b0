"""Inline ignores in a Helm chart's templates and values files, read by line.

A template is no YAML document, so the YAML reader of `# instancetype-upgrade: ignore=CODE[,CODE...]`
(transform.yamltext.ignores) cannot place a directive on a field. In a chart file a directive covers the
findings of its own line (at the end of a line) or of the next line holding anything but a comment (on a
line of its own), e.g. the `helm.templated-apiversion` warning of a chart that renders its apiVersion from
`.Chart.AppVersion` on purpose:

    apiVersion: {{ printf "kubevirt.io/%s" .Chart.AppVersion }}  # instancetype-upgrade: ignore=helm.templated

CODEs match as --ignore's do; an error is never suppressed.
"""

from __future__ import annotations

import re

from transform.model.findings import Finding, Severity, matches

MARKER = "instancetype-upgrade:"
_DIRECTIVE = re.compile(r"(?:^|(?<=[ \t]))#[ \t]*instancetype-upgrade:[ \t]*(?P<rest>[^\r\n]*)")
_IGNORE = re.compile(r"ignore[ \t]*=[ \t]*(?P<codes>[^\s#]*)")
_CODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")


def apply(text: str, findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """(findings kept, findings suppressed); lines are 1-based."""
    if MARKER not in text:
        return findings, []
    lines = text.split("\n")
    covers: dict[int, tuple[str, ...]] = {}
    for number, line in enumerate(lines, 1):
        m = _DIRECTIVE.search(line)
        if m is None:
            continue
        ignore = _IGNORE.match(m["rest"].strip())
        codes = tuple(c for c in ignore["codes"].split(",") if c) if ignore else ()
        if not codes or not all(_CODE.fullmatch(c) for c in codes):
            continue  # malformed: the YAML reader of directives says so (a template that parses is read by it too)
        target = number if line[: m.start()].strip() else _next_content(lines, number)
        if target is not None:
            covers[target] = covers.get(target, ()) + codes
    kept: list[Finding] = []
    suppressed: list[Finding] = []
    for f in findings:
        codes = covers.get(f.line or 0, ())
        hit = f.severity is not Severity.ERROR and any(matches(f, c) for c in codes)
        (suppressed if hit else kept).append(f)
    return kept, suppressed


def _next_content(lines: list[str], number: int) -> int | None:
    for later in range(number, len(lines)):
        stripped = lines[later].strip()
        if stripped and not stripped.startswith("#"):
            return later + 1
    return None
