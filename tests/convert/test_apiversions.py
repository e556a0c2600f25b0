"""apiVersion-only groups: where each group/version/kind goes on each target (before/after tables).

The expected versions are written out here from kubevirt-deprecated-apis.md §1 and §6, not computed
from transform.kubevirt.apis: this table is the oracle.
"""

from __future__ import annotations

from typing import Any

import pytest

from transform.convert.index import Index
from transform.model.settings import Settings
from transform.pipeline.onefile import upgrade_file

# (apiVersion, kind, KubeVirt target, CDI target, expected apiVersion or None = unchanged, codes expected)
CASES = [
    ("kubevirt.io/v1alpha3", "VirtualMachine", (1, 9), (1, 56), "kubevirt.io/v1", {"core.upgraded"}),
    ("kubevirt.io/v1alpha3", "VirtualMachineInstance", (0, 48), (1, 56), "kubevirt.io/v1", {"core.upgraded"}),
    ("kubevirt.io/v1alpha3", "VirtualMachineInstanceReplicaSet", (1, 0), (1, 56), "kubevirt.io/v1", set()),
    ("kubevirt.io/v1alpha3", "VirtualMachineInstanceMigration", (1, 5), (1, 56), "kubevirt.io/v1", set()),
    ("kubevirt.io/v1alpha3", "KubeVirt", (1, 9), (1, 56), "kubevirt.io/v1", set()),
    (
        "kubevirt.io/v1alpha3",
        "VirtualMachineInstancePreset",
        (1, 9),
        (1, 56),
        "kubevirt.io/v1",
        {"core.preset-deprecated"},
    ),
    ("kubevirt.io/v1", "VirtualMachine", (1, 9), (1, 56), None, set()),
    ("snapshot.kubevirt.io/v1alpha1", "VirtualMachineSnapshot", (1, 3), (1, 56), "snapshot.kubevirt.io/v1beta1", set()),
    (
        "snapshot.kubevirt.io/v1alpha1",
        "VirtualMachineSnapshotContent",
        (1, 9),
        (1, 56),
        "snapshot.kubevirt.io/v1beta1",
        set(),
    ),
    (
        "snapshot.kubevirt.io/v1alpha1",
        "VirtualMachineRestore",
        (1, 9),
        (1, 56),
        "snapshot.kubevirt.io/v1beta1",
        {"snapshot.action"},
    ),
    (
        "snapshot.kubevirt.io/v1alpha1",
        "VirtualMachineSnapshot",
        (1, 2),
        (1, 56),
        None,
        {"snapshot.replacement-not-served"},
    ),
    (
        "export.kubevirt.io/v1alpha1",
        "VirtualMachineExport",
        (1, 9),
        (1, 56),
        "export.kubevirt.io/v1",
        {"export.action"},
    ),
    ("export.kubevirt.io/v1alpha1", "VirtualMachineExport", (1, 8), (1, 56), "export.kubevirt.io/v1beta1", set()),
    ("export.kubevirt.io/v1alpha1", "VirtualMachineExport", (1, 3), (1, 56), "export.kubevirt.io/v1beta1", set()),
    ("export.kubevirt.io/v1alpha1", "VirtualMachineExport", (1, 2), (1, 56), None, set()),
    ("export.kubevirt.io/v1beta1", "VirtualMachineExport", (1, 9), (1, 56), "export.kubevirt.io/v1", set()),
    ("export.kubevirt.io/v1beta1", "VirtualMachineExport", (1, 8), (1, 56), None, set()),
    (
        "clone.kubevirt.io/v1alpha1",
        "VirtualMachineClone",
        (1, 5),
        (1, 56),
        "clone.kubevirt.io/v1beta1",
        {"clone.action"},
    ),
    ("clone.kubevirt.io/v1alpha1", "VirtualMachineClone", (1, 4), (1, 56), None, set()),
    ("pool.kubevirt.io/v1alpha1", "VirtualMachinePool", (1, 7), (1, 56), "pool.kubevirt.io/v1beta1", set()),
    ("pool.kubevirt.io/v1alpha1", "VirtualMachinePool", (1, 6), (1, 56), None, set()),
    ("template.kubevirt.io/v1alpha1", "VirtualMachineTemplate", (1, 9), (1, 56), "template.kubevirt.io/v1beta1", set()),
    ("template.kubevirt.io/v1alpha1", "VirtualMachineTemplateRequest", (1, 8), (1, 56), None, set()),
    ("cdi.kubevirt.io/v1alpha1", "DataVolume", (1, 9), (1, 56), "cdi.kubevirt.io/v1beta1", {"cdi.upgraded"}),
    ("cdi.kubevirt.io/v1alpha1", "CDIConfig", (1, 9), (1, 20), "cdi.kubevirt.io/v1beta1", set()),
    ("cdi.kubevirt.io/v1alpha1", "DataVolume", (1, 9), (1, 19), None, set()),
    ("cdi.kubevirt.io/v1alpha1", "CDI", (1, 9), (1, 56), None, set()),  # CDI keeps serving it
    ("migrations.kubevirt.io/v1alpha1", "MigrationPolicy", (1, 9), (1, 56), None, set()),
    ("backup.kubevirt.io/v1alpha1", "VirtualMachineBackup", (1, 9), (1, 56), None, set()),
    # CDI's upload API: v1alpha1 and v1beta1 UploadTokenRequest are the same (CDI upload/*/types.go), v1.56
    # serves only v1beta1 (uploadTokenVersions): a version hop like any other
    (
        "upload.cdi.kubevirt.io/v1alpha1",
        "UploadTokenRequest",
        (1, 9),
        (1, 56),
        "upload.cdi.kubevirt.io/v1beta1",
        {"cdi.upgraded"},
    ),
    ("upload.cdi.kubevirt.io/v1alpha1", "UploadTokenRequest", (1, 9), (1, 19), None, set()),
]


def run(text: str, **kw: Any) -> tuple[str | None, list[str], set[str]]:
    r = upgrade_file("t.yaml", text.encode(), Settings(**kw), Index())
    errors = [str(f) for f in r.findings if f.severity.value == "error"]
    return (r.new_text if r.changed else None), errors, {f.code for f in r.findings}


@pytest.mark.parametrize(("api", "kind", "kv", "cdi", "expected", "codes"), CASES)
def test_where_each_version_goes(
    api: str, kind: str, kv: tuple[int, int], cdi: tuple[int, int], expected: str | None, codes: set[str]
) -> None:
    before = f"# keep me\napiVersion: {api}  # and me\nkind: {kind}\nmetadata:\n  name: x\nspec: {{}}\n"
    after, errors, found = run(before, target=kv, target_cdi=cdi)
    assert not errors
    assert after == (before.replace(api, expected) if expected else None)
    assert codes <= found


@pytest.mark.parametrize(
    ("api", "kind", "code"),
    [
        ("kubevirt.io/v1alpha1", "OfflineVirtualMachine", "core.legacy"),
        ("kubevirt.io/v1alpha2", "VirtualMachineInstance", "core.legacy"),
        ("cdi.io/v1alpha1", "DataVolume", "cdi.legacy"),
        ("subresources.kubevirt.io/v1alpha3", "VirtualMachineInstance", "core.legacy"),
    ],
)
def test_legacy_groups_are_refused_with_the_reason(api: str, kind: str, code: str) -> None:
    after, errors, found = run(f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: x\n")
    assert after is None
    assert code in found and len(errors) == 1


def test_a_kind_no_kubevirt_release_had_in_a_2018_version_is_left() -> None:
    """kubevirt-ansible v0.13.0's KWebUI at kubevirt.io/v1alpha1 (with its own CRD): KubeVirt v0.1-v0.12
    never registered that kind (pkg/api/v1/types.go), so it is a third-party object: left, no finding."""
    after, errors, found = run("apiVersion: kubevirt.io/v1alpha1\nkind: KWebUI\nmetadata:\n  name: x\n")
    assert (after, errors, found) == (None, [], set())


def test_objects_inside_objects_and_references() -> None:
    before = """\
apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: t
objects:
- apiVersion: kubevirt.io/v1alpha3   # old template
  kind: VirtualMachine
  metadata:
    name: vm
  spec:
    dataVolumeTemplates:
    - apiVersion: cdi.kubevirt.io/v1alpha1
      kind: DataVolume
      metadata: {name: d}
    template: {spec: {}}
- apiVersion: v1
  kind: Service
  metadata:
    name: s
    ownerReferences:
    - {apiVersion: export.kubevirt.io/v1alpha1, kind: VirtualMachineExport, name: e, uid: u}
"""
    after, errors, _ = run(before)
    assert not errors
    assert after == before.replace("kubevirt.io/v1alpha3", "kubevirt.io/v1").replace(
        "cdi.kubevirt.io/v1alpha1", "cdi.kubevirt.io/v1beta1"
    ).replace("export.kubevirt.io/v1alpha1", "export.kubevirt.io/v1")


def test_autoscaler_scale_targets_name_the_upgraded_version() -> None:
    """An HPA on a pool (the user guide's example) or a VMI replica set, a KEDA ScaledObject, a VPA: the
    scale target names the version like an owner reference; the same rule as in a Helm template, so that
    `fix` on a chart and `fix` on its rendered output agree. Other groups and current versions stay."""
    before = """\
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: h}
spec:
  scaleTargetRef:
    kind: VirtualMachinePool
    name: p
    apiVersion: pool.kubevirt.io/v1alpha1   # pinned
  maxReplicas: 3
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: h2}
spec:
  scaleTargetRef: {apiVersion: "kubevirt.io/v1alpha3", kind: VirtualMachineInstanceReplicaSet, name: rs}
  maxReplicas: 3
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: k}
spec:
  scaleTargetRef: {apiVersion: pool.kubevirt.io/v1alpha1, kind: VirtualMachinePool, name: p}
---
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: v}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: d}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: h3}
spec:
  scaleTargetRef: {apiVersion: pool.kubevirt.io/v1beta1, kind: VirtualMachinePool, name: p}
"""
    after, errors, codes = run(before)
    assert not errors
    assert after == before.replace("pool.kubevirt.io/v1alpha1", "pool.kubevirt.io/v1beta1").replace(
        '"kubevirt.io/v1alpha3"', '"kubevirt.io/v1"'
    )
    assert {"pool.reference", "core.reference"} <= codes
    assert run(after)[0] is None  # a second run changes nothing


def test_vm_template_embeds_a_vm() -> None:
    before = """\
apiVersion: template.kubevirt.io/v1alpha1
kind: VirtualMachineTemplate
metadata: {name: t}
spec:
  virtualMachine:
    apiVersion: kubevirt.io/v1alpha3
    kind: VirtualMachine
    metadata: {name: vm}
    spec: {runStrategy: Always, template: {spec: {}}}
"""
    after, errors, _ = run(before)
    assert not errors
    assert after == before.replace("template.kubevirt.io/v1alpha1", "template.kubevirt.io/v1beta1").replace(
        "kubevirt.io/v1alpha3", "kubevirt.io/v1"
    )


def test_pool_template_data_volume_templates() -> None:
    before = """\
apiVersion: pool.kubevirt.io/v1alpha1
kind: VirtualMachinePool
metadata: {name: p}
spec:
  virtualMachineTemplate:
    spec:
      dataVolumeTemplates:
      - apiVersion: cdi.kubevirt.io/v1alpha1
        kind: DataVolume
        metadata: {name: d}
"""
    after, errors, _ = run(before, target=(1, 6))
    assert not errors
    assert after == before.replace("cdi.kubevirt.io/v1alpha1", "cdi.kubevirt.io/v1beta1")


@pytest.mark.parametrize(
    ("running", "strategy"),
    [("true", "Always"), ("false", "Halted")],
)
def test_modernize_running(running: str, strategy: str) -> None:
    before = f"apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {{name: v}}\nspec:\n  running: {running}  # c\n  template: {{}}\n"
    after, errors, found = run(before, modernize=True)
    assert not errors
    assert after == before.replace(f"running: {running}", f"runStrategy: {strategy}")
    _, _, found = run(before)
    assert "core.running-deprecated" in found


def test_running_and_run_strategy_is_an_error() -> None:
    before = "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {name: v}\nspec: {running: true, runStrategy: Always}\n"
    after, errors, found = run(before, modernize=True)
    assert after is None and "core.running-and-run-strategy" in found


def test_server_fields_reported_and_dropped_on_request() -> None:
    before = """\
apiVersion: export.kubevirt.io/v1alpha1
kind: VirtualMachineExport
metadata:
  name: e
  managedFields:
  - {apiVersion: export.kubevirt.io/v1alpha1, manager: m, operation: Update}
spec:
  source: {apiGroup: kubevirt.io, kind: VirtualMachine, name: vm}
status:
  links:
    external: {volumes: [{name: v, formats: [{url: "https://h/api/export.kubevirt.io/v1alpha1/namespaces/n/x"}]}]}
"""
    after, errors, found = run(before)
    assert not errors and {"export.managed-fields", "export.status"} <= found
    assert after is not None and "managedFields" in after and "status" in after
    after, errors, _ = run(before, drop_server_fields=True)
    assert not errors and after is not None
    assert "managedFields" not in after and "status:" not in after and "export.kubevirt.io/v1\n" in after


def test_kustomize_targets_and_inline_patches_of_other_groups() -> None:
    before = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [vm.yaml]
patches:
- target:
    group: export.kubevirt.io
    version: v1alpha1
    kind: VirtualMachineExport
  patch: |-
    - op: add
      path: /metadata/labels/x
      value: y
- patch: |-
    apiVersion: kubevirt.io/v1alpha3
    kind: VirtualMachine
    metadata: {name: vm}
"""
    after, errors, found = run(before)
    assert not errors
    assert after == before.replace("version: v1alpha1", "version: v1").replace("kubevirt.io/v1alpha3", "kubevirt.io/v1")
    assert {"export.kustomize-target", "core.kustomize-inline-patch"} <= found


def test_second_run_changes_nothing() -> None:
    before = "apiVersion: cdi.kubevirt.io/v1alpha1\nkind: DataVolume\nmetadata: {name: d}\nspec: {}\n"
    after, _, _ = run(before)
    assert after is not None
    assert run(after)[0] is None


def test_validate_judges_other_groups_and_names_the_family(tmp_path: object) -> None:
    import pathlib

    from click.testing import CliRunner

    from transform.cli.main import cli
    from transform.model.findings import Finding, Severity, matches

    path = pathlib.Path(str(tmp_path)) / "e.yaml"
    path.write_text(
        "apiVersion: export.kubevirt.io/v1alpha1\nkind: VirtualMachineExport\nmetadata: {name: e}\n"
        "spec:\n  source: {apiGroup: kubevirt.io, kind: VirtualMachine, name: vm}\n  bogus: 1\n"
    )
    r = CliRunner().invoke(cli, ["validate", "--format", "json", str(path)])
    import json

    found = json.loads(r.output)["findings"]
    codes = {f["code"] for f in found}
    # export.kubevirt.io/v1alpha1 is removed at the default target: one code for that fact in every
    # command, scan's export.not-served (it was export.not-latest here; issue 20 §2)
    assert "export.not-served" in codes and "export.not-latest" not in codes
    assert any(f["code"] == "schema.unknown-field" and f["extra"].get("family") == "export" for f in found)
    f = Finding(Severity.WARNING, "schema.required", "m", extra={"family": "export"})
    assert matches(f, "export") and matches(f, "schema.") and not matches(f, "cdi")


def test_kustomization_target_naming_a_group_only_is_read() -> None:
    from transform.convert.index import Index
    from transform.model.settings import Settings
    from transform.pipeline.onefile import upgrade_file

    before = "resources: [e.yaml]\npatches:\n- target: {group: pool.kubevirt.io, version: v1alpha1}\n  path: p.yaml\n"
    r = upgrade_file("app/kustomization.yaml", before.encode(), Settings(), Index())
    assert r.new_text == before.replace("v1alpha1", "v1beta1")


@pytest.mark.parametrize(
    ("target", "api", "codes"),
    [
        ("1.5", "instancetype.kubevirt.io/v1alpha2", {"instancetype.not-latest"}),  # served, deprecated
        ("1.5", "instancetype.kubevirt.io/v1alpha1", {"instancetype.not-latest"}),
        ("1.5", "instancetype.kubevirt.io/v1beta1", set()),
        ("1.9", "instancetype.kubevirt.io/v1alpha2", {"target.api-version"}),  # unserved: said once, not twice
        ("1.9", "instancetype.kubevirt.io/v1beta1", set()),
    ],
)
def test_validate_says_an_instancetype_is_not_the_latest_version(
    tmp_path: object, target: str, api: str, codes: set[str]
) -> None:
    import json
    import pathlib

    from click.testing import CliRunner

    from transform.cli.main import cli

    path = pathlib.Path(str(tmp_path)) / "it.yaml"
    path.write_text(
        f"apiVersion: {api}\nkind: VirtualMachineInstancetype\nmetadata: {{name: a}}\n"
        "spec:\n  cpu: {guest: 1}\n  memory: {guest: 1Gi}\n"
    )
    r = CliRunner().invoke(cli, ["validate", "--format", "json", "--target-kubevirt", target, str(path)])
    found = json.loads(r.output)["findings"]
    assert {f["code"] for f in found} == codes, found
    assert r.exit_code == 0  # a warning: the document is valid in its own version
    for f in found:
        assert f["severity"] == "warning" and f["line"] == 1


@pytest.mark.parametrize(("kv", "codes"), [((1, 9), {"core.preset-deprecated"}), ((0, 56), set())])
def test_a_v1_preset_is_deprecated_once(kv: tuple[int, int], codes: set[str]) -> None:
    # crds.go NewPresetCrd: kubevirt.io/v1 `Deprecated: true` from v0.57.0 (v0.56.0: false); nothing replaces it,
    # so the object stays and is warned about once (the preset warning, not also a generic core.deprecated)
    before = "apiVersion: kubevirt.io/v1\nkind: VirtualMachineInstancePreset\nmetadata:\n  name: x\nspec: {}\n"
    after, errors, found = run(before, target=kv, target_cdi=(1, 66))
    assert (after, errors) == (None, [])
    assert {code for code in found if code.startswith("core.")} == codes
