"""KubeVirt objects in the inline Helm values of Flux's HelmRelease (`spec.values`) and Argo CD's Application
(`spec.source.helm.valuesObject`, `spec.sources[].helm.valuesObject`): upgraded as a chart's values file is
(a whole literal apiVersion beside a KubeVirt kind, in place), counted, and listed by scan. Hand-written
before/after texts."""

from __future__ import annotations

import json
import pathlib

from tests.support.cli import invoke

FLUX = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: vms
  namespace: flux-system
spec:
  interval: 10m
  chart:
    spec: {chart: vms, sourceRef: {kind: HelmRepository, name: charts}}
  values:
    # the VMs this release renders
    vms:
    - apiVersion: kubevirt.io/v1alpha3   # old
      kind: VirtualMachine
      metadata: {name: a}
    instancetype:
      apiVersion: "flavor.kubevirt.io/v1alpha1"
      kind: VirtualMachineFlavor
      spec: {cpu: {guest: 2}}
    note: kubevirt.io/v1alpha3 stays
    config: {apiVersion: kubevirt.io/v1alpha3, kind: ConfigMap}
"""
FLUX_AFTER = (
    FLUX.replace("kubevirt.io/v1alpha3   # old", "kubevirt.io/v1   # old")
    .replace('"flavor.kubevirt.io/v1alpha1"', '"instancetype.kubevirt.io/v1beta1"')
    .replace("kind: VirtualMachineFlavor", "kind: VirtualMachineInstancetype")
)
ARGO = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: vms
spec:
  project: default
  source:
    repoURL: https://example.com/charts
    chart: vms
    helm:
      values: |
        vm: {apiVersion: kubevirt.io/v1alpha3, kind: VirtualMachine}
      valuesObject:
        pool: {apiVersion: pool.kubevirt.io/v1alpha1, kind: VirtualMachinePool, metadata: {name: p}}
  sources:
  - repoURL: https://example.com/charts
    helm:
      valuesObject:
        export:
          apiVersion: export.kubevirt.io/v1alpha1
          kind: VirtualMachineExport
"""
ARGO_AFTER = ARGO.replace("pool.kubevirt.io/v1alpha1", "pool.kubevirt.io/v1beta1").replace(
    "export.kubevirt.io/v1alpha1", "export.kubevirt.io/v1"
)


def _run(*args: str) -> tuple[int, str]:
    r = invoke(*args)
    return r.exit_code, r.stdout


def test_flux_helmrelease_values_are_upgraded_in_place(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "hr.yaml"
    path.write_text(FLUX)
    code, out = _run("fix", str(path))
    assert code == 1, out
    assert path.read_text() == FLUX_AFTER  # comments, quotes, the note and the ConfigMap-kind mapping kept
    assert "2 objects upgraded" in out, out
    assert "spec.values.vms[0].apiVersion" in out and "[core.upgraded]" in out
    assert _run("fix", str(path))[0] == 0 and path.read_text() == FLUX_AFTER  # a second run changes nothing


def test_flux_v1_helmrelease_too(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "hr.yaml"
    path.write_text(FLUX.replace("helm.toolkit.fluxcd.io/v2", "helm.fluxcd.io/v1"))
    assert _run("fix", str(path))[0] == 1
    assert path.read_text() == FLUX_AFTER.replace("helm.toolkit.fluxcd.io/v2", "helm.fluxcd.io/v1")


def test_argo_application_values_objects_are_upgraded_not_the_values_string(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "app.yaml"
    path.write_text(ARGO)
    code, out = _run("fix", str(path))
    assert code == 1, out
    assert path.read_text() == ARGO_AFTER
    assert "spec.sources[0].helm.valuesObject.export.apiVersion" in out


def test_current_values_change_nothing_and_other_kinds_are_left_alone(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "hr.yaml"
    path.write_text(FLUX_AFTER)
    assert _run("fix", str(path))[0] == 0
    assert path.read_text() == FLUX_AFTER
    other = FLUX.replace(
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease", "apiVersion: v1\nkind: HelmRelease"
    )
    (tmp_path / "hr.yaml").write_text(other)  # not Flux's group: its spec is no Helm values
    assert _run("fix", str(path))[0] == 0 and path.read_text() == other


def test_scan_lists_the_values_objects(tmp_path: pathlib.Path) -> None:
    (tmp_path / "hr.yaml").write_text(FLUX)
    (tmp_path / "app.yaml").write_text(ARGO)
    code, out = _run("scan", "--format", "json", str(tmp_path))
    assert code == 1  # the flavor and export.kubevirt.io/v1alpha1 are not served by 1.9
    report = json.loads(out)
    kinds = sorted((g["kind"], g["apiVersion"]) for g in report["apis"])
    assert kinds == [
        ("VirtualMachine", "kubevirt.io/v1alpha3"),
        ("VirtualMachineExport", "export.kubevirt.io/v1alpha1"),
        ("VirtualMachineFlavor", "flavor.kubevirt.io/v1alpha1"),
        ("VirtualMachinePool", "pool.kubevirt.io/v1alpha1"),
    ]
    assert sorted(f["path"] for f in report["breaking"]) == [
        "spec.sources[0].helm.valuesObject.export.apiVersion",
        "spec.values.instancetype.apiVersion",
    ]
