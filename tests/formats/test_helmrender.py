"""A templated value rendered from what the chart sets, as Helm's text/template and fmt render it:
`{{ .Chart.AppVersion }}` is the field's value, `printf "kubevirt.io/%s" X` is fmt.Sprintf's; anything the
chart does not decide (a value it does not set, a pipeline, `default`, `include`) is not rendered."""

from __future__ import annotations

import pytest

from transform.formats.helm_chart.render import render

CONTEXT = {".Chart.AppVersion": "v1", ".Chart.Name": "kubevirt", ".Values.kubevirt.apiVersion": "kubevirt.io/v1"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('{{ printf "kubevirt.io/%s" .Chart.AppVersion }}', "kubevirt.io/v1"),  # Harvester v1.0.3
        ("kubevirt.io/{{ .Chart.AppVersion }}", "kubevirt.io/v1"),
        ('"kubevirt.io/{{ .Chart.AppVersion }}"', "kubevirt.io/v1"),  # quoted scalar
        ("{{- .Values.kubevirt.apiVersion -}}", "kubevirt.io/v1"),  # trim markers
        ('{{ printf "%s.io/%s" .Chart.Name .Chart.AppVersion }}', "kubevirt.io/v1"),
        ("{{ .Values.apiVersion }}", None),  # values.yaml does not set it: `--set` decides
        ('{{ .Values.apiVersion | default "kubevirt.io/v1" }}', None),  # a pipeline
        ('{{ include "kubevirt.apiVersion" . }}', None),
        ('{{ printf "kubevirt.io/%d" .Chart.AppVersion }}', None),  # another verb
        ('{{ printf "kubevirt.io/%s" }}', None),  # missing argument: fmt writes %!s(MISSING)
        ("{{ $version }}", None),  # a variable
    ],
)
def test_render(value: str, expected: str | None) -> None:
    assert render(value, CONTEXT) == expected
