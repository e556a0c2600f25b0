"""Issue 21 §2 / issue 23 item 4: inline kustomize patches are parsed as YAML; only the patch object's own
apiVersion/kind (and a JSON6902 value that is a whole KubeVirt object) change, the rest of the text
stays byte for byte; a patch that does not parse is left as it is with a warning naming its line.

Each row: a kustomization's text, and the text `fix` must write (None: unchanged), and finding codes
that must be among the findings.
"""

from __future__ import annotations

import pytest

from transform.convert.index import Index
from transform.formats.kustomize.facts import KustomizeFacts
from transform.model.settings import Settings
from transform.pipeline.onefile import upgrade_file

NEW = "instancetype.kubevirt.io/v1beta1"
CM_PATCH = """\
resources: [cm.yaml]
patches:
- patch: |-
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: notes
    data:
      a: "we migrated from kubevirt.io/v1alpha3 and instancetype.kubevirt.io/v1alpha1"
      b: flavor.kubevirt.io/v1alpha1 VirtualMachineFlavor, VirtualMachineClusterFlavor
      c: |
        apiVersion: instancetype.kubevirt.io/v1alpha2
        kind: VirtualMachineInstancetype
"""
FLAVOR_PATCH = """\
resources: [f.yaml]
patches:
- target: {kind: VirtualMachineFlavor}
  patch: |-
    apiVersion: flavor.kubevirt.io/v1alpha1   # the flavor
    kind: VirtualMachineFlavor
    metadata:
      name: f
      annotations:
        note: "a VirtualMachineFlavor of flavor.kubevirt.io/v1alpha1"
"""
CDI_PATCH = """\
resources: [cdi.yaml]
patchesStrategicMerge:
- |-
  apiVersion: cdi.kubevirt.io/v1alpha1
  kind: CDI
  metadata:
    name: cdi
  spec:
    config: {featureGates: [HonorWaitForFirstConsumer]}
"""
JSON6902 = """\
resources: [t.yaml]
patches:
- target: {kind: Template}
  patch: |
    - op: add
      path: /objects/-
      value:
        apiVersion: instancetype.kubevirt.io/v1alpha1
        kind: VirtualMachineInstancetype
        metadata: {name: "x", annotations: {was: instancetype.kubevirt.io/v1alpha1}}
    - op: replace
      path: /metadata/annotations/note
      value: instancetype.kubevirt.io/v1alpha1
- target: {kind: Template}
  patch: '[{"op": "add", "path": "/objects/-", "value": {"apiVersion": "kubevirt.io/v1alpha3", "kind": "VirtualMachine"}}]'
"""
WRONG_GROUP = """\
resources: [it.yaml]
patches:
- target: {kind: VirtualMachineClusterInstancetype}
  patch: |-
    apiVersion: kubevirt.io/v1alpha2
    kind: VirtualMachineClusterInstancetype
    metadata: {name: x}
    spec: {cpu: {guest: 2}}
"""
UNPARSABLE = """\
resources: [it.yaml]
patches:
- target: {kind: VirtualMachineInstancetype}
  patch: |-
    apiVersion: instancetype.kubevirt.io/v1alpha1
    kind: VirtualMachineInstancetype
    spec: {cpu: [1, 2}
"""
MULTI = """\
resources: [a.yaml]
patchesStrategicMerge:
- |-
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: c}
  data: {v: instancetype.kubevirt.io/v1alpha2}
  ---
  apiVersion: 'instancetype.kubevirt.io/v1alpha2'
  kind: VirtualMachinePreference
  metadata: {name: p}
"""
TAGGED = """\
resources: [it.yaml]
patches:
- target: {kind: VirtualMachineInstancetype}
  patch: |-
    apiVersion: !!str instancetype.kubevirt.io/v1alpha1  # tagged
    kind: VirtualMachineInstancetype
"""

ROWS: list[tuple[str, str | None, set[str]]] = [
    (TAGGED, TAGGED.replace("v1alpha1", "v1beta1"), {"kustomize.inline-patch"}),  # the tag stays
    (CM_PATCH, None, set()),
    (
        FLAVOR_PATCH,
        FLAVOR_PATCH.replace(
            "apiVersion: flavor.kubevirt.io/v1alpha1   # the flavor\n    kind: VirtualMachineFlavor\n",
            "apiVersion: instancetype.kubevirt.io/v1beta1   # the flavor\n    kind: VirtualMachineInstancetype\n",
        ).replace("target: {kind: VirtualMachineFlavor}", "target: {kind: VirtualMachineInstancetype}"),
        {"kustomize.inline-patch"},
    ),
    (CDI_PATCH, None, set()),  # the CR stays where its resource stays (CDI serves v1alpha1 of it)
    (
        JSON6902,
        JSON6902.replace(
            "        apiVersion: instancetype.kubevirt.io/v1alpha1\n",
            "        apiVersion: instancetype.kubevirt.io/v1beta1\n",
        ).replace('"kubevirt.io/v1alpha3"', '"kubevirt.io/v1"'),
        {"kustomize.inline-patch", "core.kustomize-inline-patch"},
    ),
    (
        WRONG_GROUP,
        WRONG_GROUP.replace("apiVersion: kubevirt.io/v1alpha2", "apiVersion: instancetype.kubevirt.io/v1beta1"),
        {"kustomize.wrong-group"},
    ),
    (UNPARSABLE, None, {"kustomize.inline-patch-unparsable"}),
    (
        MULTI,
        MULTI.replace("'instancetype.kubevirt.io/v1alpha2'", "'instancetype.kubevirt.io/v1beta1'"),
        {"kustomize.inline-patch"},
    ),
]


@pytest.mark.parametrize(("before", "after", "codes"), ROWS)
def test_inline_patches_change_only_their_own_kind_and_version(before: str, after: str | None, codes: set[str]) -> None:
    r = upgrade_file("app/kustomization.yaml", before.encode(), Settings(target_cdi=(1, 59)), Index())
    assert not r.failed, [str(f) for f in r.findings]
    assert r.new_text == after
    assert codes <= {f.code for f in r.findings}, [str(f) for f in r.findings]
    if after is not None:
        again = upgrade_file("app/kustomization.yaml", after.encode(), Settings(target_cdi=(1, 59)), Index())
        assert again.new_text is None and not [f for f in again.findings if f.severity.value != "info"]


def test_an_unparsable_patch_names_its_line() -> None:
    r = upgrade_file("kustomization.yaml", UNPARSABLE.encode(), Settings(), Index())
    [f] = [f for f in r.findings if f.code == "kustomize.inline-patch-unparsable"]
    assert f.severity.value == "warning" and "inline patch line 3:" in f.message and f.line == 4, str(f)


def test_a_wrong_group_in_a_patch_without_target_is_an_error() -> None:
    """kustomize matches a strategic-merge patch without `target` by its group/version/kind: nothing takes it."""
    text = WRONG_GROUP.replace("- target: {kind: VirtualMachineClusterInstancetype}\n  patch", "- patch")
    r = upgrade_file("kustomization.yaml", text.encode(), Settings(), Index())
    assert r.failed and r.new_text is None
    [f] = [f for f in r.findings if f.severity.value == "error"]
    assert f.code == "input.wrong-group"
    assert "kind VirtualMachineClusterInstancetype belongs to instancetype.kubevirt.io; kubevirt.io/v1alpha2" in (
        f.message
    )


OPS_FILE = """\
- op: add
  path: /metadata/labels/instancetype.kubevirt.io~1vendor
  value: "see instancetype.kubevirt.io/v1alpha1"
- op: add
  path: /objects/-
  value:
    apiVersion: instancetype.kubevirt.io/v1alpha1   # keep
    kind: VirtualMachineInstancetype
    metadata: {name: x}
"""


def test_a_json6902_patch_file_is_a_patch_not_an_error() -> None:
    """A kustomization's JSON6902 patch file is an op list, not "a list, not a Kubernetes object": only a
    value that is a whole KubeVirt object changes (its apiVersion line)."""
    facts = KustomizeFacts()
    index = Index(facts={"kustomize": facts})
    facts.patch_files.add("ops.yaml")
    r = upgrade_file("ops.yaml", OPS_FILE.encode(), Settings(), index)
    assert not r.failed, [str(f) for f in r.findings]
    assert r.new_text == OPS_FILE.replace("apiVersion: instancetype.kubevirt.io/v1alpha1", "apiVersion: " + NEW)
    alone = upgrade_file("ops.yaml", OPS_FILE.encode(), Settings(), Index())  # not listed: not a manifest
    assert alone.failed and {f.code for f in alone.findings} == {"input.not-an-object"}
