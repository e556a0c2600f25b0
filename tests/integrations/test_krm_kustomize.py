"""Issue 21 §2: under kpt (`krm`), an item that a kustomization item lists as a patch is a patch (its
file is its path annotation): no false "partial object" warning, and a patch applied by `target` that
names its kind under the wrong group gets the kind's own group, as in a tree of files."""

from __future__ import annotations

import pytest
import yaml

from transform.integrations import krm

RL = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kustomize.config.k8s.io/v1beta1
  kind: Kustomization
  metadata:
    name: overlay
    annotations:
      {key}: overlay/kustomization.yaml
  resources: [../base]
  components: [../comp]
  patches:
  - path: sizes/large.yaml
    target: {{kind: VirtualMachineInstancetype}}
- apiVersion: instancetype.kubevirt.io/v1alpha2
  kind: VirtualMachineInstancetype
  metadata:
    name: large
    annotations:
      {key}: overlay/sizes/large.yaml
  spec:
    cpu: {{guest: 2}}
- apiVersion: kustomize.config.k8s.io/v1alpha1
  kind: Component
  metadata:
    name: comp
    annotations:
      {key}: comp/kustomization.yaml
  patches:
  - path: ../common/wrong.yaml
    target: {{kind: VirtualMachineInstancetype}}
- apiVersion: kubevirt.io/v1alpha2
  kind: VirtualMachineInstancetype
  metadata:
    name: wrong
    annotations:
      {key}: common/wrong.yaml
  spec:
    memory: {{guest: 2Gi}}
"""


@pytest.mark.parametrize("key", ["config.kubernetes.io/path", "internal.config.kubernetes.io/path"])
def test_a_patch_item_of_a_kustomization_item_is_a_patch(key: str) -> None:
    text = RL.format(key=key)
    out = krm.process(text.encode())
    assert not out.failed, out.results
    results = [(r["severity"], r["file"]["path"], r.get("tags", {}).get("code")) for r in out.results]
    assert ("warning", "common/wrong.yaml", "kustomize.wrong-group") in results, results
    assert not [r for r in results if r[0] != "info" and r[2] != "kustomize.wrong-group"], results
    items = yaml.safe_load(out.data)["items"]
    assert [i["apiVersion"] for i in items[1::2]] == ["instancetype.kubevirt.io/v1beta1"] * 2
    body = out.data.decode().partition("\nresults:\n")[0] + "\n"
    assert body == text.replace(
        "apiVersion: instancetype.kubevirt.io/v1alpha2", "apiVersion: instancetype.kubevirt.io/v1beta1"
    ).replace("apiVersion: kubevirt.io/v1alpha2", "apiVersion: instancetype.kubevirt.io/v1beta1")
