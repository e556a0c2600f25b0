"""A templated chart value rendered where the chart itself sets everything it names.

Harvester v1.0.3's KubeVirt chart writes `apiVersion: {{ printf "kubevirt.io/%s" .Chart.AppVersion }}` with
`appVersion: v1` in its Chart.yaml: the value is `kubevirt.io/v1`, whatever the release installs. The
context is what the chart sets (transform.pipeline.charts.chart_context): `.Chart.Name`, `.Chart.Version`,
`.Chart.AppVersion` from Chart.yaml and `.Values.a.b` from values.yaml (scalars, as text). The actions read
are a field (`{{ .Chart.AppVersion }}`, `{{ .Values.api.version }}`) and `printf` of a quoted format whose
only verbs are `%s`, with fields for arguments, as Go's text/template and fmt render them; anything else
(a pipeline, `default`, `include`, a variable, a field the chart does not set, which `--set` decides) is
not rendered: None, and the caller says it cannot tell.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_ACTION = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}")
_FIELD = r"\.(?:Chart|Values)(?:\.[A-Za-z_][A-Za-z0-9_]*)+"
_ONE_FIELD = re.compile(_FIELD)
_PRINTF = re.compile(rf'printf\s+"(?P<format>[^"\\]*)"(?P<args>(?:\s+{_FIELD})*)')


def _action(expr: str, context: Mapping[str, str]) -> str | None:
    if _ONE_FIELD.fullmatch(expr):
        return context.get(expr)
    m = _PRINTF.fullmatch(expr)
    if m is None:
        return None
    args = [context.get(a) for a in m["args"].split()]
    pieces = m["format"].split("%s")
    if "%" in "".join(pieces) or len(pieces) != len(args) + 1 or any(a is None for a in args):
        return None  # another verb, a count that does not match, or a value the chart does not set
    filled = [str(a) for a in args] + [""]
    return "".join(piece + arg for piece, arg in zip(pieces, filled, strict=True))


def render(value: str, context: Mapping[str, str]) -> str | None:
    """A one-line scalar with `{{ }}` actions (quotes around it dropped) rendered from `context`; None
    when an action is not one of those read, or names what the chart does not set."""
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    out, at = [], 0
    for m in _ACTION.finditer(text):
        done = _action(m[1], context)
        if done is None:
            return None
        out += [text[at : m.start()], done]
        at = m.end()
    rendered = "".join([*out, text[at:]]).strip()
    return rendered if rendered and "{{" not in rendered and not any(c.isspace() for c in rendered) else None
