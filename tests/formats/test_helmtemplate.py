"""Helm templates read as text: before/after tables of template snippets (hand-written expectations)."""

from __future__ import annotations

import pytest

from transform.formats.helm_chart import template as helmtemplate
from transform.kubevirt import apis

T19 = apis.Targets((1, 9))

REWRITE = [
    pytest.param(
        "{{- range .Values.vms }}\n---\napiVersion: kubevirt.io/v1alpha3  # old\nkind: VirtualMachine\n"
        "metadata:\n  name: {{ .name }}\n{{- end }}\n",
        "{{- range .Values.vms }}\n---\napiVersion: kubevirt.io/v1  # old\nkind: VirtualMachine\n"
        "metadata:\n  name: {{ .name }}\n{{- end }}\n",
        id="range-block",
    ),
    pytest.param(
        "{{- if .Values.it }}\n  apiVersion: instancetype.kubevirt.io/v1alpha2\n  kind: VirtualMachineInstancetype\n"
        "  spec: {{ toYaml .Values.spec | nindent 4 }}\n{{- end }}\n",
        "{{- if .Values.it }}\n  apiVersion: instancetype.kubevirt.io/v1beta1\n  kind: VirtualMachineInstancetype\n"
        "  spec: {{ toYaml .Values.spec | nindent 4 }}\n{{- end }}\n",
        id="indented",
    ),
    pytest.param(
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nspec:\n  scaleTargetRef:\n"
        '    apiVersion: "pool.kubevirt.io/v1alpha1"\n    kind: VirtualMachinePool\n    name: {{ .Release.Name }}\n',
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nspec:\n  scaleTargetRef:\n"
        '    apiVersion: "pool.kubevirt.io/v1beta1"\n    kind: VirtualMachinePool\n    name: {{ .Release.Name }}\n',
        id="hpa-scale-target",
    ),
    pytest.param(
        "apiVersion: v1\nkind: Service\nmetadata:\n  ownerReferences:\n  - apiVersion: v1\n    kind: Pod\n"
        "  - kind: VirtualMachine\n    apiVersion: kubevirt.io/v1alpha3\n    name: vm\n",
        "apiVersion: v1\nkind: Service\nmetadata:\n  ownerReferences:\n  - apiVersion: v1\n    kind: Pod\n"
        "  - kind: VirtualMachine\n    apiVersion: kubevirt.io/v1\n    name: vm\n",
        id="owner-reference-kind-first",
    ),
    pytest.param(
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nspec:\n"
        '  scaleTargetRef: {apiVersion: pool.kubevirt.io/v1alpha1, kind: VirtualMachinePool, name: "{{ .Release.Name }}"}\n',
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nspec:\n"
        '  scaleTargetRef: {apiVersion: pool.kubevirt.io/v1beta1, kind: VirtualMachinePool, name: "{{ .Release.Name }}"}\n',
        id="flow-scale-target",
    ),
    pytest.param(
        "kind: Service\nmetadata:\n  ownerReferences:\n  - {kind: Pod, apiVersion: v1, name: 'a,b'}\n"
        "  - {name: {{ .Values.vm | quote }}, kind: VirtualMachine, \"apiVersion\": 'kubevirt.io/v1alpha3', uid: u}\n",
        "kind: Service\nmetadata:\n  ownerReferences:\n  - {kind: Pod, apiVersion: v1, name: 'a,b'}\n"
        "  - {name: {{ .Values.vm | quote }}, kind: VirtualMachine, \"apiVersion\": 'kubevirt.io/v1', uid: u}\n",
        id="flow-owner-reference",
    ),
    pytest.param(
        "apiVersion: flavor.kubevirt.io/v1alpha1\nkind: VirtualMachineFlavor\nmetadata:\n  name: f\n",
        "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: f\n",
        id="flavor-renames-kind",
    ),
    pytest.param(
        "apiVersion: v1\nkind: List\nitems:\n- kind: VirtualMachineFlavor\n  metadata: {name: f}\n"
        "  apiVersion: flavor.kubevirt.io/v1alpha1\n",
        "apiVersion: v1\nkind: List\nitems:\n- kind: VirtualMachineInstancetype\n  metadata: {name: f}\n"
        "  apiVersion: instancetype.kubevirt.io/v1beta1\n",
        id="list-item-is-an-object",
    ),
    pytest.param(
        "apiVersion: v1\nkind: List\nitems:\n- kind: VirtualMachineFlavor\n  metadata:\n    ownerReferences:\n"
        "    - {name: x, uid: u}\n    - name: y\n      uid: v\n  apiVersion: flavor.kubevirt.io/v1alpha1\n",
        "apiVersion: v1\nkind: List\nitems:\n- kind: VirtualMachineInstancetype\n  metadata:\n    ownerReferences:\n"
        "    - {name: x, uid: u}\n    - name: y\n      uid: v\n  apiVersion: instancetype.kubevirt.io/v1beta1\n",
        id="list-item-after-nested-items",
    ),
    pytest.param(
        "apiVersion: kubevirt.io/v1alpha3 {{- /* the v0.x name */}}\nkind: VirtualMachine\n",
        "apiVersion: kubevirt.io/v1 {{- /* the v0.x name */}}\nkind: VirtualMachine\n",
        id="literal-before-a-template-comment",
    ),
    pytest.param(
        "apiVersion: v1\r\nkind: List\r\nitems:\r\n- apiVersion: export.kubevirt.io/v1alpha1\r\n"
        "  kind: VirtualMachineExport\r\n",
        "apiVersion: v1\r\nkind: List\r\nitems:\r\n- apiVersion: export.kubevirt.io/v1\r\n"
        "  kind: VirtualMachineExport\r\n",
        id="crlf-list-item",
    ),
]

NOOP = [
    pytest.param("apiVersion: kubevirt.io/v1\nkind: VirtualMachine\n", id="current"),
    pytest.param("apiVersion: apps/v1\nkind: Deployment\nspec: {{ .Values.x }}\n", id="foreign"),
    pytest.param(
        'apiVersion: {{ include "common.capabilities.deployment.apiVersion" . }}\nkind: Deployment\n',
        id="templated-foreign-silent",
    ),
    pytest.param(
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  note: |\n    apiVersion: kubevirt.io/v1alpha3\n"
        "    we moved away from it\n",
        id="block-scalar-without-kind",
    ),
    pytest.param("apiVersion: instancetype.kubevirt.io/v1alpha2\nkind: VirtualMachineInstancetype\n", id="0.59"),
]


# references: a changed line, but no object upgraded (as `fix` counts an owner reference in a file)
REFERENCES = {"hpa-scale-target", "owner-reference-kind-first", "flow-scale-target", "flow-owner-reference"}


@pytest.mark.parametrize(("before", "after"), REWRITE)
def test_rewrite(before: str, after: str, request: pytest.FixtureRequest) -> None:
    done = helmtemplate.upgrade(before, T19)
    assert done.text == after
    assert done.upgraded == (0 if request.node.callspec.id in REFERENCES else 1)
    assert all(f.line for f in done.findings)


@pytest.mark.parametrize("text", NOOP)
def test_noop(text: str) -> None:
    targets = apis.Targets((0, 59)) if "v1alpha2" in text else T19
    done = helmtemplate.upgrade(text, targets)
    assert done.text == text
    assert not [f for f in done.findings if f.severity.value != "info"]


def test_templated_api_version_is_a_warning_with_its_line() -> None:
    text = "---\napiVersion: {{ .Values.apiVersion }}\nkind: VirtualMachinePreference\n"
    done = helmtemplate.upgrade(text, T19)
    assert done.text == text
    (f,) = done.findings
    assert (f.severity.value, f.code, f.line) == ("warning", "helm.templated-apiversion", 2)
    assert "instancetype.kubevirt.io/v1beta1" in f.message


def test_templated_api_version_in_a_flow_reference_is_a_warning() -> None:
    text = "spec:\n  scaleTargetRef: {apiVersion: {{ .Values.api }}, kind: VirtualMachinePool, name: p}\n"
    done = helmtemplate.upgrade(text, T19)
    assert done.text == text
    assert [(f.code, f.line, f.column) for f in done.findings] == [("helm.templated-apiversion", 2, 32)]


def test_revision_payload_in_a_template_is_left_with_a_warning() -> None:
    text = (
        "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: r\n"
        "data:\n  apiVersion: instancetype.kubevirt.io/v1alpha2\n  kind: VirtualMachineInstancetype\n"
    )
    done = helmtemplate.upgrade(text, T19)
    assert done.text == text
    assert [(f.code, f.line) for f in done.findings] == [("helm.revision-template", 2)]


def test_kind_dependent_version_without_a_literal_kind_is_a_warning() -> None:
    text = "apiVersion: cdi.kubevirt.io/v1alpha1\nkind: {{ .Values.kind }}\n"
    done = helmtemplate.upgrade(text, apis.Targets((1, 9), (1, 56)))
    assert done.text == text
    assert [f.code for f in done.findings] == ["helm.kind-unknown"]


def test_values_only_whole_api_versions_beside_a_kubevirt_kind() -> None:
    text = (
        "pool:\n  apiVersion: pool.kubevirt.io/v1alpha1\n  kind: VirtualMachinePool\n"
        "other:\n  apiVersion: kubevirt.io/v1alpha3\n"  # no kind beside it: data, left alone
        "legacy:\n  apiVersion: kubevirt.io/v1alpha1\n  kind: VirtualMachine\n"  # not upgradable: no word
        "templated:\n  apiVersion: '{{ .Values.x }}'\n  kind: VirtualMachine\n"
    )
    done = helmtemplate.upgrade(text, T19, values=True)
    assert done.text == text.replace("pool.kubevirt.io/v1alpha1", "pool.kubevirt.io/v1beta1")
    assert [(f.code, f.line) for f in done.findings] == [("pool.upgraded", 2)]


def test_values_flow_mappings_are_read_like_block_ones() -> None:
    """`extraObjects` as Bitnami-style charts take them: one-line flow items are whole objects of a values file
    (the object rule: a flavor's kind is renamed on the same line), CRLF kept; no kind or a templated value: data."""
    text = (
        "extraObjects:\r\n"
        "  - {apiVersion: pool.kubevirt.io/v1alpha1, kind: VirtualMachinePool, metadata: {name: p}}\r\n"
        "  - {kind: VirtualMachineFlavor, metadata: {name: f}, apiVersion: 'flavor.kubevirt.io/v1alpha1'}\r\n"
        "  - {apiVersion: kubevirt.io/v1alpha3, name: 'no kind, data'}\r\n"
        "  - {apiVersion: '{{ .Values.x }}', kind: VirtualMachine}\r\n"
    )
    done = helmtemplate.upgrade(text, T19, values=True)
    assert done.text == text.replace("pool.kubevirt.io/v1alpha1", "pool.kubevirt.io/v1beta1").replace(
        "kind: VirtualMachineFlavor, metadata: {name: f}, apiVersion: 'flavor.kubevirt.io/v1alpha1'",
        "kind: VirtualMachineInstancetype, metadata: {name: f}, apiVersion: 'instancetype.kubevirt.io/v1beta1'",
    )
    assert [(f.code, f.line) for f in done.findings] == [("pool.upgraded", 2), ("instancetype.upgraded", 3)]
    assert done.upgraded == 2
    assert helmtemplate.upgrade(done.text, T19, values=True).text == done.text


def test_second_run_changes_nothing() -> None:
    for before, _after in (p.values for p in REWRITE):
        assert isinstance(before, str)
        once = helmtemplate.upgrade(before, T19).text
        assert helmtemplate.upgrade(once, T19).text == once
