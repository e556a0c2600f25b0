"""Flow mappings over several lines in Helm templates: upgraded where every value read is literal and on
one line, a warning naming the line where they cannot be read; never skipped silently (hand-written
before/after snippets)."""

from __future__ import annotations

import pytest

from transform.formats.helm_chart import template as helmtemplate
from transform.kubevirt import apis

T19 = apis.Targets((1, 9))

HPA = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\nspec:\n"

REWRITE = [
    pytest.param(
        HPA + "  scaleTargetRef: {apiVersion: pool.kubevirt.io/v1alpha1,\n"
        "    kind: VirtualMachinePool, name: {{ .Release.Name }}}\n  minReplicas: 1\n",
        HPA + "  scaleTargetRef: {apiVersion: pool.kubevirt.io/v1beta1,\n"
        "    kind: VirtualMachinePool, name: {{ .Release.Name }}}\n  minReplicas: 1\n",
        0,
        id="reference-over-two-lines",
    ),
    pytest.param(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  ownerReferences:\n"
        "  - {kind: VirtualMachine,   # the VM owns it\n"
        '     apiVersion: kubevirt.io/v1alpha3, name: vm, uid: "1"}\n',
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  ownerReferences:\n"
        "  - {kind: VirtualMachine,   # the VM owns it\n"
        '     apiVersion: kubevirt.io/v1, name: vm, uid: "1"}\n',
        0,
        id="owner-reference-kind-first-with-comment",
    ),
    pytest.param(
        "{apiVersion: kubevirt.io/v1alpha3, kind: VirtualMachine,\n"
        " metadata: {name: {{ .Release.Name }}}, spec: {runStrategy: Halted}}\n",
        "{apiVersion: kubevirt.io/v1, kind: VirtualMachine,\n"
        " metadata: {name: {{ .Release.Name }}}, spec: {runStrategy: Halted}}\n",
        1,
        id="a-document-as-one-flow-mapping",
    ),
    pytest.param(
        '{\n  "apiVersion": "instancetype.kubevirt.io/v1alpha2",\n  "kind": "VirtualMachineInstancetype",\n'
        '  "metadata": {"name": "{{ .Release.Name }}"}\n}\n',
        '{\n  "apiVersion": "instancetype.kubevirt.io/v1beta1",\n  "kind": "VirtualMachineInstancetype",\n'
        '  "metadata": {"name": "{{ .Release.Name }}"}\n}\n',
        1,
        id="a-json-document-is-an-object-not-a-reference",
    ),
    pytest.param(
        "{apiVersion: flavor.kubevirt.io/v1alpha1,   # old {\n kind: VirtualMachineFlavor,\n metadata: {name: f}}\n",
        "{apiVersion: instancetype.kubevirt.io/v1beta1,   # old {\n kind: VirtualMachineInstancetype,\n"
        " metadata: {name: f}}\n",
        1,
        id="flavor-kind-renamed-on-its-own-line",
    ),
    pytest.param(
        HPA + "  scaleTargetRef: {apiVersion: pool.kubevirt.io/v1alpha1,\r\n    kind: VirtualMachinePool,\r\n"
        "    name: x}\r\n",
        HPA + "  scaleTargetRef: {apiVersion: pool.kubevirt.io/v1beta1,\r\n    kind: VirtualMachinePool,\r\n"
        "    name: x}\r\n",
        0,
        id="crlf",
    ),
]


@pytest.mark.parametrize(("before", "after", "objects"), REWRITE)
def test_a_flow_mapping_over_lines_is_upgraded_in_place(before: str, after: str, objects: int) -> None:
    done = helmtemplate.upgrade(before, T19)
    assert done.text == after
    assert done.upgraded == objects
    assert [f.code for f in done.findings if f.severity.value != "info"] == []
    assert helmtemplate.upgrade(done.text, T19).text == done.text  # a second run changes nothing


UNREAD = [
    pytest.param(
        HPA + "  scaleTargetRef: {apiVersion: pool.kubevirt.io/v1alpha1,\n{{- if .Values.kind }}\n"
        "    kind: VirtualMachinePool,\n{{- end }}\n    name: x}\n",
        6,
        "a template action splits an entry",
        id="template-action-splits-it",
    ),
    pytest.param(
        '{apiVersion: "kubevirt.io/\n   v1alpha3", kind: VirtualMachine}\n',
        1,
        "its apiVersion spans lines",
        id="value-over-lines",
    ),
    pytest.param(
        HPA + "  scaleTargetRef: {apiVersion: pool.kubevirt.io/v1alpha1,\n    kind: VirtualMachinePool, name: x\n",
        6,
        "it does not close",
        id="does-not-close",
    ),
]


@pytest.mark.parametrize(("text", "line", "why"), UNREAD)
def test_a_flow_mapping_that_cannot_be_read_is_said(text: str, line: int, why: str) -> None:
    done = helmtemplate.upgrade(text, T19)
    assert done.text == text
    assert [(f.code, f.line) for f in done.findings] == [("helm.flow-unread", line)]
    assert why in done.findings[0].message and "not upgraded" in done.findings[0].message


def test_a_templated_apiversion_over_lines_is_the_templated_warning() -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  ownerReferences:\n"
        '  - {apiVersion: {{ .Values.api }}, kind: VirtualMachine,\n     name: vm, uid: "1"}\n'
    )
    done = helmtemplate.upgrade(text, T19)
    assert done.text == text
    assert [(f.code, f.line, f.column) for f in done.findings] == [("helm.templated-apiversion", 5, 18)]


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: apps/v1\nkind: Deployment\nspec:\n  selector: {matchLabels: {app: x},\n    other: y}\n",
        "{apiVersion: apps/v1, kind: Deployment,\n metadata: {name: x}}\n",  # no KubeVirt group
        "labels: {app: x,\n  apiVersion: kubevirt.io/v1alpha3}\n",  # no kind beside it: not an object or reference
    ],
)
def test_other_flow_mappings_over_lines_are_left_alone(text: str) -> None:
    done = helmtemplate.upgrade(text, T19)
    assert done.text == text and done.findings == []


def test_values_files_get_the_object_rule_over_lines() -> None:
    text = "vm: {apiVersion: kubevirt.io/v1alpha3,\n  kind: VirtualMachine, metadata: {name: x}}\n"
    done = helmtemplate.upgrade(text, T19, values=True)
    assert done.text == text.replace("v1alpha3", "v1")
    assert done.upgraded == 1


def test_unclosed_mappings_are_said_once_per_document_and_read_once() -> None:
    """A broken template of thousands of unclosed flow mappings: one warning for the document, and each
    bracket read once (it took a quadratic time before the readings were shared)."""
    import time

    text = "".join(f"k{i}: {{apiVersion: kubevirt.io/v1alpha3,\n" for i in range(5000)) + "kind: VirtualMachine\n"
    began = time.monotonic()
    done = helmtemplate.upgrade(text + "---\n" + text, T19)
    assert time.monotonic() - began < 10
    assert done.text == text + "---\n" + text
    assert [(f.code, f.line) for f in done.findings] == [("helm.flow-unread", 1), ("helm.flow-unread", 5003)]
