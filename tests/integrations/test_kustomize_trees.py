"""Issue 21 §2 (and issue 23 item 4): a kustomize tree laid out as kubevirt/common-instancetypes lays
its own out is upgraded so that every kustomization `kubectl kustomize` builds renders the same
objects after `fix`, except the instancetype apiVersion moved to v1beta1.

The tree: bases whose metadata.name is a placeholder, overlays, Components (one used by another),
patch files applied by `target` that name the kind under the wrong group (`kubevirt.io/v1alpha2`),
a patch file under `../`, inline patches (strategic merge and JSON6902, block and flow), a ConfigMap
patch whose values mention old versions and flavor kinds, and a CDI operator CR with its patch.
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest
import yaml

from transform.cli.main import main

KUBECTL = shutil.which("kubectl")
NEW = "instancetype.kubevirt.io/v1beta1"

TREE = {
    "kustomization.yaml": "resources:\n- instancetypes\n- configs\n- cdi\n",
    # a base: the name is a placeholder every overlay replaces
    "instancetypes/base/kustomization.yaml": "resources:\n- VirtualMachineClusterInstancetype.yaml\n",
    "instancetypes/base/VirtualMachineClusterInstancetype.yaml": """\
---
apiVersion: instancetype.kubevirt.io/v1alpha2
kind: VirtualMachineClusterInstancetype
metadata:
  name: VirtualMachineClusterInstancetype
spec:
  cpu:
    guest: 1
  memory:
    guest: 1Gi
""",
    "instancetypes/kustomization.yaml": "resources:\n- m\n- cx\n",
    # an overlay: an inline JSON6902 patch renames, a patch file in the wrong group sets the spec
    "instancetypes/m/kustomization.yaml": """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../base
patches:
  - patch: |-
      - op: replace
        path: /metadata/name
        value: m
    target:
      kind: VirtualMachineClusterInstancetype
  - path: m.yaml
    target:
      kind: VirtualMachineClusterInstancetype
components:
  - ../sizes/large
  - ../components/labelled
""",
    "instancetypes/m/m.yaml": """\
---
apiVersion: kubevirt.io/v1alpha2
kind: VirtualMachineClusterInstancetype
metadata:
  name: "m1"
  annotations:
    instancetype.kubevirt.io/class: "Memory Intensive"  # kept
spec:
  cpu:
    guest: 1
  memory:
    guest: 1Gi
    hugepages:
      pageSize: "2Mi"
""",
    "instancetypes/cx/kustomization.yaml": """\
resources:
  - ../base
patches:
  - patch: '[{"op": "replace", "path": "/metadata/name", "value": "cx"}]'
    target: {kind: VirtualMachineClusterInstancetype}
  - target:
      kind: VirtualMachineClusterInstancetype
    patch: |
      apiVersion: instancetype.kubevirt.io/v1alpha1
      kind: VirtualMachineClusterInstancetype
      metadata:
        name: ignored-under-target
        annotations:
          note: "was instancetype.kubevirt.io/v1alpha1, a VirtualMachineClusterFlavor before"
      spec:
        cpu:
          guest: 4
""",
    # a Component (kustomize reads its patches as a Kustomization's)
    "instancetypes/sizes/large/kustomization.yaml": """\
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
nameSuffix: .large
patches:
  - path: large.yaml
    target:
      kind: VirtualMachineClusterInstancetype
""",
    "instancetypes/sizes/large/large.yaml": """\
apiVersion: kubevirt.io/v1alpha2
kind: VirtualMachineClusterInstancetype
metadata:
  name: "m"
spec:
  cpu:
    guest: 2
  memory:
    guest: "16Gi"
""",
    # a Component used by a Component, with a patch file under ../
    "instancetypes/components/labelled/kustomization.yaml": """\
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
components:
  - ../annotated
patches:
  - path: ../../../common/labels.yaml
    target:
      group: instancetype.kubevirt.io
      version: v1alpha2
      kind: VirtualMachineClusterInstancetype
""",
    "instancetypes/components/annotated/kustomization.yaml": """\
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
patches:
  - path: annotations.yaml
    target:
      kind: VirtualMachineClusterInstancetype
""",
    "instancetypes/components/annotated/annotations.yaml": """\
apiVersion: instancetype.kubevirt.io/v1alpha2
kind: VirtualMachineClusterInstancetype
metadata:
  name: annotations
  annotations:
    instancetype.kubevirt.io/displayName: "M"
""",
    "common/labels.yaml": """\
apiVersion: kubevirt.io/v1alpha2
kind: VirtualMachineClusterInstancetype
metadata:
  name: labels
  labels:
    instancetype.kubevirt.io/vendor: example.org
""",
    # ConfigMap values that mention old versions and flavor kinds: data, never rewritten
    "configs/kustomization.yaml": """\
resources:
- cm.yaml
patches:
- patch: |-
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: notes
    data:
      history: "we migrated from kubevirt.io/v1alpha3 and flavor.kubevirt.io/v1alpha1 VirtualMachineFlavor"
      next: instancetype.kubevirt.io/v1alpha2 VirtualMachineClusterFlavor
patchesStrategicMerge:
- |-
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: notes
  data:
    export: export.kubevirt.io/v1alpha1 is gone
""",
    "configs/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  a: b\n",
    # the CDI operator CR and a strategic-merge patch for it: they must stay in step
    "cdi/kustomization.yaml": """\
resources:
- cdi.yaml
patches:
- patch: |
    apiVersion: cdi.kubevirt.io/v1alpha1
    kind: CDI
    metadata:
      name: cdi
    spec:
      config:
        featureGates: [HonorWaitForFirstConsumer]
""",
    "cdi/cdi.yaml": "apiVersion: cdi.kubevirt.io/v1alpha1\nkind: CDI\nmetadata:\n  name: cdi\nspec:\n  imagePullPolicy: IfNotPresent\n",
}


def _write(root: pathlib.Path) -> None:
    for name, text in TREE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _build(path: pathlib.Path) -> list[dict]:
    out = subprocess.run(
        [KUBECTL or "kubectl", "kustomize", "--load-restrictor", "LoadRestrictionsNone", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, f"{path}: {out.stderr}"
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def _key(o: dict) -> tuple[str, str, str]:
    return (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])


def _kustomizations(root: pathlib.Path) -> list[pathlib.Path]:
    return sorted(p.parent for p in root.rglob("kustomization.yaml") if "kind: Component" not in p.read_text())


@pytest.mark.integration
@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
@pytest.mark.parametrize("options", [[], ["--rename"], ["--target-kubevirt", "1.6"]])
def test_every_kustomization_renders_the_same_objects_after_fix(tmp_path: pathlib.Path, options: list[str]) -> None:
    root = tmp_path / "tree"
    _write(root)
    options = [*options, "--target-cdi", "1.59"]  # a CDI that serves its CR's v1alpha1
    before = {k: _build(k) for k in _kustomizations(root)}
    assert len(before) == 7 and sum(map(len, before.values())) == 11
    assert main(["fix", "-q", *options, str(root)]) == 1
    for where, olds in before.items():
        news = {_key(o): o for o in _build(where)}
        assert news.keys() == {_key(o) for o in olds}, where
        for old in olds:
            new = news[_key(old)]
            if old["apiVersion"].startswith("instancetype.kubevirt.io/"):
                assert new["apiVersion"] == NEW, where
                old = {**old, "apiVersion": NEW}
            assert new == old, where  # every patch applied as before: values, labels, names, sizes
    assert main(["check", "-q", *options, str(root)]) == 0
    everything = _build(root)
    assert {o["apiVersion"] for o in everything} == {NEW, "v1", "cdi.kubevirt.io/v1alpha1"}
    notes = next(o for o in everything if o["kind"] == "ConfigMap")["data"]
    assert (
        notes["history"] == "we migrated from kubevirt.io/v1alpha3 and flavor.kubevirt.io/v1alpha1 VirtualMachineFlavor"
    )
    assert notes["next"] == "instancetype.kubevirt.io/v1alpha2 VirtualMachineClusterFlavor"
    assert notes["export"] == "export.kubevirt.io/v1alpha1 is gone"


@pytest.mark.integration
@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
def test_only_the_patch_objects_own_fields_change(tmp_path: pathlib.Path) -> None:
    """Byte for byte: the wrong-group patch files get their kind's group/version, inline patches only their
    own apiVersion line; the data, the CDI CR and its patch stay as they were."""
    root = tmp_path / "tree"
    _write(root)
    report = tmp_path / "report.json"
    assert main(["check", "--target-cdi", "1.59", "--format", "json", "--output-file", str(report), str(root)]) == 1
    found = json.loads(report.read_text())["findings"]
    # the patch files of Components, of Components used by Components and under ../ are partial objects
    assert not [f for f in found if f["code"] == "schema.required"], found
    wrong = sorted(f["file"].rpartition("tree/")[2] for f in found if f["code"] == "kustomize.wrong-group")
    assert wrong == ["common/labels.yaml", "instancetypes/m/m.yaml", "instancetypes/sizes/large/large.yaml"]
    assert all(
        "kind VirtualMachineClusterInstancetype belongs to instancetype.kubevirt.io; kubevirt.io/v1alpha2 never had it"
        in f["message"]
        for f in found
        if f["code"] == "kustomize.wrong-group"
    )
    assert main(["fix", "-q", "--target-cdi", "1.59", str(root)]) == 1
    after = {name: (root / name).read_text() for name in TREE}
    changed = {name for name in TREE if after[name] != TREE[name]}
    assert changed == {
        "instancetypes/base/VirtualMachineClusterInstancetype.yaml",
        "instancetypes/m/m.yaml",
        "instancetypes/cx/kustomization.yaml",
        "instancetypes/sizes/large/large.yaml",
        "instancetypes/components/annotated/annotations.yaml",
        "common/labels.yaml",
        "instancetypes/components/labelled/kustomization.yaml",  # its target's version
    }
    for name in ("instancetypes/m/m.yaml", "instancetypes/sizes/large/large.yaml", "common/labels.yaml"):
        assert after[name] == TREE[name].replace("apiVersion: kubevirt.io/v1alpha2", f"apiVersion: {NEW}", 1)
    n = TREE["instancetypes/cx/kustomization.yaml"]
    assert after["instancetypes/cx/kustomization.yaml"] == n.replace(
        "      apiVersion: instancetype.kubevirt.io/v1alpha1\n", f"      apiVersion: {NEW}\n"
    )
    labelled = TREE["instancetypes/components/labelled/kustomization.yaml"]
    assert after["instancetypes/components/labelled/kustomization.yaml"] == labelled.replace(
        "version: v1alpha2", "version: v1beta1"
    )


def test_a_wrong_group_outside_a_target_patch_is_an_error(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not a patch applied by `target`: no API server takes the object; the error names the kind's group."""
    path = tmp_path / "it.yaml"
    text = TREE["instancetypes/sizes/large/large.yaml"]
    path.write_text(text)
    assert main(["fix", str(path)]) == 3
    out = capsys.readouterr().out
    assert (
        "error: doc 0 VirtualMachineClusterInstancetype/m: apiVersion: kind VirtualMachineClusterInstancetype "
        "belongs to instancetype.kubevirt.io; kubevirt.io/v1alpha2 never had it" in out
    )
    assert "did you mean apiVersion: instancetype.kubevirt.io/v1beta1?" in out and "2018" not in out
    assert path.read_text() == text


def test_a_patch_without_target_of_a_remote_resource_keeps_its_version(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CDI operator CR comes from a release URL (it stays as it is): its strategic-merge patches, in a
    file or inline, must keep matching it by group/version/kind, so they are left with a warning."""
    root = tmp_path / "cdi"
    root.mkdir()
    kustomization = (
        "resources:\n- https://github.com/kubevirt/containerized-data-importer/releases/download/v1.57.0/cdi-cr.yaml\n"
        "patchesStrategicMerge:\n- cr-patch.yaml\n- |-\n  apiVersion: instancetype.kubevirt.io/v1alpha2\n"
        "  kind: VirtualMachineClusterPreference\n  metadata: {name: p}\n"
    )
    patch = (
        "apiVersion: instancetype.kubevirt.io/v1alpha2\nkind: VirtualMachineClusterInstancetype\nmetadata:\n  name: m\n"
    )
    (root / "kustomization.yaml").write_text(kustomization)
    (root / "cr-patch.yaml").write_text(patch)
    assert main(["fix", str(root)]) == 0
    out = capsys.readouterr().out
    assert out.count("[kustomize.partial-tree]") == 2, out
    assert (root / "kustomization.yaml").read_text() == kustomization and (root / "cr-patch.yaml").read_text() == patch
