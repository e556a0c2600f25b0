"""Helm charts on disk: which files of a chart are templates, which are values (a directory holding
`Chart.yaml` is a chart; its `templates/` files and `*.tpl` are Go templates; `values*.yaml` beside
`Chart.yaml` are data). Asked only of files that passed the pre-filter: a stat per directory, cached."""

from __future__ import annotations

import functools
import os

TEMPLATE, VALUES = "template", "values"


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
