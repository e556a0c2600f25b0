"""The Helm chart as a container format (`formats.base.Format`): its templates and values files, read as text."""

from __future__ import annotations

import os

from transform.formats.base import Format, Held, Read
from transform.formats.helm_chart import ignores, roles, template
from transform.kubevirt import apis
from transform.model.findings import Finding, info


class HelmChart(Format):
    name = "helm-chart"
    undecided = ("helm.templated-apiversion",)

    def detect(self, path: str, data: bytes) -> Held | None:
        role, chart = roles.role_of(path, data)
        return Held(self.name, role, chart) if role else None

    def read(self, text: str, targets: apis.Targets, held: Held) -> Read:
        # a templated apiVersion is rendered from what the chart sets (`render`)
        chart = held.where if held.role == roles.TEMPLATE and "{{" in text else ""
        context = roles.chart_context(chart) if chart else None
        done = template.upgrade(text, targets, values=held.role == roles.VALUES, context=context)
        found = done.findings
        if held.role == roles.LOOSE:
            found.insert(0, info("input.template", roles.LOOSE_NOTE))
        return Read(found, done.text, done.upgraded, done.uses)

    def ignores(self, text: str, findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
        return ignores.apply(text, findings)  # the YAML reader of directives cannot read a template

    def label(self, held: Held) -> str:
        return "chart " + os.path.basename(held.where) if held.where else "template"


FORMAT = HelmChart()
