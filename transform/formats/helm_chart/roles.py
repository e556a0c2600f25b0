"""Helm charts on disk: which files of a chart are templates, which are values (a directory holding
`Chart.yaml` is a chart; its `templates/` files and `*.tpl` are Go templates; `values*.yaml` beside
`Chart.yaml` are data). Asked only of files that passed the pre-filter: a stat per directory, cached."""

from __future__ import annotations

import functools
import os
from typing import Any

from transform.formats.helm_chart import ignores as helmignores
from transform.formats.helm_chart import template as helmtemplate
from transform.kubevirt import apis
from transform.model.findings import Finding, info
from transform.yamltext import textio

TEMPLATE, VALUES = "template", "values"
LOOSE = "template without chart"  # a template outside any chart (`role_of`): read as TEMPLATE is


@functools.lru_cache(maxsize=4096)
def is_chart(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "Chart.yaml"))


def role(path: str) -> tuple[str, str]:
    """(TEMPLATE or VALUES or "", the chart's directory) of a file."""
    name = os.path.basename(path)
    parts = path.replace(os.sep, "/").split("/")
    if "templates" not in parts[:-1] and not name.endswith(".tpl") and not name.startswith("values"):
        return "", ""
    here = os.path.dirname(os.path.abspath(path))
    if name.startswith("values") and name.endswith((".yaml", ".yml")) and is_chart(here):
        return VALUES, here
    chart, below = here, ""
    while True:
        if (os.path.basename(below) == "templates" or name.endswith(".tpl")) and is_chart(chart):
            return TEMPLATE, chart
        parent = os.path.dirname(chart)
        if parent == chart:
            return "", ""
        chart, below = parent, chart


def chart_of(path: str) -> str:
    """The directory of the chart holding a template (`role`), "" for none."""
    return role(path)[1]


_LOOSE_NOTE = (
    "not YAML, but a template ({{ }} or {% %}; no Chart.yaml above it): read as a Helm chart's template is, "
    "only its literal apiVersion lines are upgraded and nothing in it is validated"
)
_MARKERS = (b"{{", b"{%")


def role_of(path: str, data: bytes) -> tuple[str, str]:
    """`role`, and for a file outside a chart: TEMPLATE (chart "") when a document that holds a template
    marker (`{{ }}`, `{% %}`: Go or Jinja, as Ansible renders OpenShift templates) and a KubeVirt
    marker (one the engine would parse) does not read as YAML.
    Such a file is a template that Helm may never render: its literal apiVersion lines are upgraded
    as a chart's templates' are, and nothing refuses it as YAML. A file without a marker costs a scan."""
    found = role(path)
    if found[0] or not any(m in data for m in _MARKERS):
        return found
    return (LOOSE, "") if _template_text(data) else ("", "")


def _template_text(data: bytes) -> bool:
    # lazy: start-up: the parser only for a file that holds a template marker
    from transform.yamltext import nodes

    try:
        text = textio.decode(data).text
    except textio.ReadError:
        return False
    for chunk in textio.split_documents(text):
        body = text[chunk.start : chunk.end]
        if ("{{" not in body and "{%" not in body) or not textio.holds(body, textio.NEEDLES_STR):
            continue  # a document the engine never parses (no KubeVirt marker) cannot make the file a template
        try:
            nodes.parse(body)  # what the engine reads: a `{{ x }}` key parses, then is refused as a mapping key
        except nodes.ParseError:
            return True
    return False


_CHART_FIELDS = {"name": ".Chart.Name", "version": ".Chart.Version", "appVersion": ".Chart.AppVersion"}
_CONTEXT_MAX = 1 << 20  # a Chart.yaml or values.yaml larger than this is not read for a templated apiVersion


@functools.lru_cache(maxsize=256)
def chart_context(directory: str) -> dict[str, str]:
    """What a chart sets itself, for rendering a templated apiVersion (transform.formats.helm_chart.render):
    `.Chart.Name/Version/AppVersion` (Chart.yaml) and `.Values.a.b` (values.yaml), string and integer
    scalars as Helm prints them; {} for no chart or one that does not read."""
    out: dict[str, str] = {}
    chart, values = (_yaml_map(os.path.join(directory, n)) for n in ("Chart.yaml", "values.yaml"))
    for key, field in _CHART_FIELDS.items():
        if _printable(chart.get(key)):
            out[field] = str(chart[key])
    stack: list[tuple[str, Any]] = [(".Values", values)]
    while stack:
        prefix, node = stack.pop()
        for key, value in node.items():
            if isinstance(key, str) and isinstance(value, dict):
                stack.append((f"{prefix}.{key}", value))
            elif isinstance(key, str) and _printable(value):
                out[f"{prefix}.{key}"] = str(value)
    return out


def _printable(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _yaml_map(path: str) -> dict[str, Any]:
    # lazy: start-up: the parser only for a chart whose template has a templated KubeVirt apiVersion
    from transform.yamltext import nodes

    try:
        with open(path, "rb") as fh:
            data = fh.read(_CONTEXT_MAX + 1)
        doc = nodes.parse(textio.decode(data).text) if len(data) <= _CONTEXT_MAX else None
    except (OSError, textio.ReadError, nodes.ParseError, ValueError):
        return {}
    return doc.value if doc is not None and isinstance(doc.value, dict) else {}


def chart_text(
    text: str, targets: apis.Targets, role: str, inline_ignores: bool, context: dict[str, str] | None = None
) -> tuple[list[Finding], str, int]:
    """A chart's template or values file: (findings, new text, objects upgraded) of its literal apiVersion
    lines, as text (`helmtemplate`); a templated one rendered from what the chart sets (`context`:
    `chart_context`)."""
    done = helmtemplate.upgrade(text, targets, values=role == VALUES, context=context)
    found = done.findings
    if inline_ignores:
        found = helmignores.apply(text, found)[0]  # the YAML reader of directives cannot read a template
    if role == LOOSE:
        found.insert(0, info("input.template", _LOOSE_NOTE))
    return found, done.text, done.upgraded
