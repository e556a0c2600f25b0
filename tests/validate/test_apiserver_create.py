"""`validate` against what the API server does on a create with fieldValidation=Strict (issue 22 §1).

Every expectation is read from the Kubernetes v0.34 Go code (apiextensions-apiserver's
customResourceStrategy and customResourceValidator, schema/pruning, schema/cel; apimachinery's
ValidateObjectMetaAccessor and util/validation) and KubeVirt's crds.go (which CRDs have the status and
scale subresources, which are cluster-scoped), never from transform/: the tables say what the API
server answers and at which path `kubectl apply` shows it. The documents are made here.
"""

from __future__ import annotations

import ast
import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from transform.validate.documents import validate_document

VMI_SPEC: dict[str, Any] = {"domain": {"devices": {}}}
MAX_INT32 = 2**31 - 1


def vm(**spec: Any) -> dict[str, Any]:
    template = {"spec": copy.deepcopy(VMI_SPEC)}
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "vm1"},
            "spec": {"template": template, **spec}}  # fmt: skip


def vmi(**extra: Any) -> dict[str, Any]:
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstance", "metadata": {"name": "vmi1"},
            "spec": copy.deepcopy(VMI_SPEC), **extra}  # fmt: skip


def pool(replicas: Any) -> dict[str, Any]:
    template = {"metadata": {"labels": {"a": "b"}}, "spec": {"template": {"spec": copy.deepcopy(VMI_SPEC)}}}
    return {"apiVersion": "pool.kubevirt.io/v1alpha1", "kind": "VirtualMachinePool", "metadata": {"name": "p"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"a": "b"}},
                     "virtualMachineTemplate": template}}  # fmt: skip


def replicaset(replicas: Any) -> dict[str, Any]:
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstanceReplicaSet", "metadata": {"name": "rs"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"a": "b"}},
                     "template": {"metadata": {"labels": {"a": "b"}}, "spec": copy.deepcopy(VMI_SPEC)}}}  # fmt: skip


def snapshot(**extra: Any) -> dict[str, Any]:
    return {"apiVersion": "snapshot.kubevirt.io/v1alpha1", "kind": "VirtualMachineSnapshot", "metadata": {"name": "s"},
            "spec": {"source": {"apiGroup": "kubevirt.io", "kind": "VirtualMachine", "name": "vm1"}}, **extra}  # fmt: skip


def instancetype(kind: str = "VirtualMachineInstancetype", **metadata: Any) -> dict[str, Any]:
    return {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": kind, "metadata": {"name": "u1", **metadata},
            "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}}  # fmt: skip


def with_(doc: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """`doc` with `value` at a dotted path (`spec.template.spec.domain.cpu`), creating mappings on the way."""
    doc = copy.deepcopy(doc)
    node = doc
    *parents, last = path.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    return doc


def without(doc: dict[str, Any], path: str) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    node = doc
    *parents, last = path.split(".")
    for part in parents:
        node = node[part]
    del node[last]
    return doc


DOMAIN = "spec.template.spec.domain"
VOLUME_PATH = "spec.template.spec.volumes[0].containerPath"


def errors(doc: dict[str, Any], target: tuple[int, int] = (1, 9)) -> list[str]:
    return sorted(f.field_path for f in validate_document(doc, target=target) if f.severity.value == "error")


def everything(doc: dict[str, Any], target: tuple[int, int] = (1, 9)) -> list[tuple[str, str]]:
    return sorted((f.severity.value, f.field_path) for f in validate_document(doc, target=target))


# (document, target, the API server's error paths on a create); [] = created
CREATE = [
    # status is dropped on a create where the CRD has the status subresource (PrepareForCreate)
    pytest.param(with_(vm(), "status", {"printableStatus": 5, "bogus": {"x": 1}}), (1, 9), [], id="vm-status-dropped"),
    pytest.param(snapshot(status={"readyToUse": "yes"}), (1, 9), [], id="snapshot-status-dropped-1.9"),
    pytest.param(snapshot(status={"readyToUse": "yes"}), (1, 3), ["status.readyToUse"],
                 id="snapshot-status-validated-1.3 (no status subresource before 1.4)"),
    pytest.param(vmi(status={"phase": 3}), (1, 9), ["status.phase"], id="vmi-status-validated (no status subresource)"),
    # integral floats: kubectl's JSON has integers; kube-openapi takes integral floats for integers
    pytest.param(with_(vm(), f"{DOMAIN}.cpu", {"cores": 2.0, "sockets": 1e3}), (1, 9), [], id="integral-float-integer"),
    pytest.param(with_(vm(), f"{DOMAIN}.cpu", {"cores": 2.5}), (1, 9), [f"{DOMAIN}.cpu.cores"], id="fractional-float-integer"),
    pytest.param(with_(vm(), f"{DOMAIN}.resources", {"requests": {"memory": 1e9}}), (1, 9), [], id="integral-float-quantity"),
    pytest.param(with_(vm(), f"{DOMAIN}.resources", {"requests": {"memory": 0.5}}), (1, 9),
                 [f"{DOMAIN}.resources.requests.memory"], id="fractional-float-quantity"),
    pytest.param(pool(2.0), (1, 9), [], id="pool-replicas-2.0"),
    # Go's `$` is the end of the text: a final newline is refused
    pytest.param(with_(vm(), f"{DOMAIN}.resources", {"requests": {"memory": "1Gi\n"}}), (1, 9),
                 [f"{DOMAIN}.resources.requests.memory"], id="quantity-final-newline"),
    pytest.param(with_(vm(), "metadata.labels", {"app": "bad\n"}), (1, 9), ["metadata.labels"], id="label-value-final-newline"),
    pytest.param(with_(vm(), "metadata.labels", {"app\n": "x"}), (1, 9), ["metadata.labels"], id="label-key-final-newline"),
    pytest.param(with_(vm(), "metadata.name", "vm1\n"), (1, 9), ["metadata.name"], id="name-final-newline"),
    # CEL rules (KubeVirt 1.8+ containerPath volumes)
    pytest.param(with_(vm(), "spec.template.spec.volumes", [{"name": "v", "containerPath": {"path": "/a/b", "readOnly": True}}]),
                 (1, 9), [], id="cel-containerPath-valid"),
    pytest.param(with_(vm(), "spec.template.spec.volumes", [{"name": "v", "containerPath": {"path": "a/../b", "readOnly": False}}]),
                 (1, 9), [f"{VOLUME_PATH}.path", f"{VOLUME_PATH}.path", f"{VOLUME_PATH}.readOnly"], id="cel-containerPath-invalid"),
    # ObjectMeta on a create
    pytest.param(without(vm(), "metadata.name"), (1, 9), ["metadata.name"], id="name-absent"),
    pytest.param(with_(vm(), "metadata.name", None), (1, 9), ["metadata.name"], id="name-null"),
    pytest.param(without(vm(), "metadata"), (1, 9), ["metadata.name"], id="metadata-absent"),
    pytest.param(with_(without(vm(), "metadata.name"), "metadata.generateName", "vm-"), (1, 9), [], id="generateName"),
    pytest.param(with_(without(vm(), "metadata.name"), "metadata.generateName", "-"), (1, 9),
                 ["metadata.generateName", "metadata.name"], id="generateName-dash"),
    pytest.param(with_(without(vm(), "metadata.name"), "metadata.generateName", "a.-"), (1, 9),
                 ["metadata.name"], id="generateName-masked-but-generated-name-invalid"),
    pytest.param(with_(vm(), "metadata.finalizers", ["kubevirt.io/x", "kubevirt.io/x"]), (1, 9), [], id="finalizers-duplicate"),
    pytest.param(with_(vm(), "metadata.finalizers", ["a/b/c", "-x"]), (1, 9), ["metadata.finalizers", "metadata.finalizers"],
                 id="finalizers-not-qualified-names"),
    pytest.param(instancetype("VirtualMachineClusterInstancetype", namespace="Not_A_Label"), (1, 9), [], id="cluster-scoped-namespace-cleared"),
    pytest.param(instancetype(namespace="Not_A_Label"), (1, 9), ["metadata.namespace"], id="namespaced-namespace-checked"),
    # scale subresource: spec.replicas must fit an int32
    pytest.param(pool(MAX_INT32), (1, 9), [], id="pool-replicas-max"),
    pytest.param(pool(MAX_INT32 + 1), (1, 9), ["spec.replicas"], id="pool-replicas-over-int32"),
    pytest.param(replicaset(MAX_INT32 + 1), (1, 9), ["spec.replicas"], id="vmirs-replicas-over-int32"),
    pytest.param(replicaset(-1), (1, 9), ["spec.replicas"], id="vmirs-replicas-negative"),
    # paths
    pytest.param(without(vm(), f"{DOMAIN}.devices"), (1, 9), [f"{DOMAIN}.devices"], id="required-at-the-field"),
    pytest.param(with_(vm(), "metadata.ownerReferences", [{"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "name": "x"}]),
                 (1, 9), ["metadata.ownerReferences.uid"], id="owner-uid-empty"),
    pytest.param(with_(vm(), "metadata.ownerReferences", [{"apiVersion": "kubevirt.io/", "kind": "", "name": "x", "uid": "1"}]),
                 (1, 9), ["metadata.ownerReferences.apiVersion", "metadata.ownerReferences.kind"], id="owner-version-and-kind-empty"),
]  # fmt: skip


@pytest.mark.parametrize(("doc", "target", "expected"), CREATE)
def test_create_verdict_and_paths(doc: dict[str, Any], target: tuple[int, int], expected: list[str]) -> None:
    assert errors(doc, target) == sorted(expected)


def test_cel_messages_are_the_rules() -> None:
    doc = with_(
        vm(), "spec.template.spec.volumes", [{"name": "v", "containerPath": {"path": "x/..", "readOnly": True}}]
    )
    messages = sorted(f.message for f in validate_document(doc) if f.code == "schema.rule")
    assert messages == [
        "Invalid value: \"string\": path must be absolute (start with '/')",
        "Invalid value: \"string\": path must not contain '..'",
    ]


def test_cel_rules_wait_for_a_valid_object() -> None:
    """hasBlockingErr: with a type or required error the API server checks no rule, and says so."""
    doc = with_(vm(), "spec.template.spec.volumes", [{"name": "v", "containerPath": {"path": "x", "readOnly": True}}])
    doc = with_(doc, f"{DOMAIN}.cpu", {"cores": "two"})
    found = validate_document(doc)
    assert [f.code for f in found if f.severity.value == "error"] == ["schema.type"]
    assert any(f.code == "schema.rules-unchecked" for f in found)


def test_cel_transition_rules_do_not_apply_to_a_create() -> None:
    """VirtualMachineBackup's spec has `self == oldSelf`: there is no old object on a create."""
    doc: dict[str, Any] = {"apiVersion": "backup.kubevirt.io/v1alpha1", "kind": "VirtualMachineBackup",
                           "metadata": {"name": "b"},
                           "spec": {"source": {"apiGroup": "kubevirt.io", "kind": "VirtualMachine", "name": "vm1"}, "pvcName": "p"}}  # fmt: skip
    assert errors(doc) == []
    doc["spec"]["source"] = {"kind": "VirtualMachine", "name": "vm1"}
    found = [f for f in validate_document(doc) if f.severity.value == "error"]
    assert [(f.field_path, f.message) for f in found] == [
        ("spec.source", 'Invalid value: "object": apiGroup is required')
    ]


RULED = {"type": "object", "properties": {"src": {
    "type": "object", "properties": {"name": {"type": "string"}, "kind": {"type": "string"}},
    "x-kubernetes-validations": [
        {"rule": "self.name != ''", "message": "name is required"},
        {"rule": "self.kind == 'VM'", "messageExpression": "'kind ' + self.kind + ' is not VM'", "fieldPath": ".kind"},
        {"rule": "self.kind != 'Pod'", "reason": "FieldValueForbidden"},
        {"rule": "self == oldSelf", "message": "immutable"},
    ]}}}  # fmt: skip


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"name": "a", "kind": "VM"}, []),
        ({"kind": "VM"}, [("src", 'Invalid value: "object": no such key: name evaluating rule: name is required')]),
        ({"name": "a", "kind": "X"}, [("src.kind", 'Invalid value: "object": kind X is not VM')]),
        ({"name": "a", "kind": "Pod"}, [("src", "Forbidden: failed rule: self.kind != 'Pod'"),
                                        ("src.kind", 'Invalid value: "object": kind Pod is not VM')]),
    ],
)  # fmt: skip
def test_cel_message_expression_reason_field_path(value: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    from transform.validate.structural import Validator

    found = Validator(RULED).validate({"src": value})
    assert sorted((f.field_path, f.message) for f in found) == expected


def test_metadata_words_are_the_api_servers() -> None:
    found = validate_document(with_(vm(), "metadata.labels", {"app": "bad\n"}))
    [label] = [f for f in found if f.severity.value == "error"]
    assert label.message == (
        'Invalid value: "bad\\n": a valid label must be an empty string or consist of alphanumeric characters, '
        "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value', "
        " or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
    )
    [name] = validate_document(without(vm(), "metadata.name"))
    assert name.message == "Required value: name or generateName is required"
    [owner] = validate_document(
        with_(vm(), "metadata.ownerReferences", [{"apiVersion": "v1", "kind": "Pod", "name": "p"}])
    )
    assert (owner.field_path, owner.message) == ("metadata.ownerReferences.uid", 'Invalid value: "": must not be empty')
    [replicas] = validate_document(pool(MAX_INT32 + 1))
    assert replicas.message.startswith("Invalid value: 2147483648: should be less than or equal to 2147483647")


def test_unknown_fields_inside_a_list_given_for_an_object() -> None:
    """Pruning walks a list where an object belongs against no schema: each key of its mappings is unknown."""
    doc = with_(vm(), DOMAIN, [{"devices": {}, "cpuu": 1}])
    assert everything(doc) == [
        ("error", DOMAIN),
        ("warning", f"{DOMAIN}[0].cpuu"),
        ("warning", f"{DOMAIN}[0].devices"),
    ]
    assert everything(with_(vm(), f"{DOMAIN}.devices", "none")) == [("error", f"{DOMAIN}.devices")]
    assert everything(with_(vm(), "spec.template.spec.volumes", {"name": "v"})) == [
        ("error", "spec.template.spec.volumes"),
        ("warning", "spec.template.spec.volumes.name"),
    ]


def _modules_after(tmp_path: Path, text: str) -> list[str]:
    doc = tmp_path / "doc.yaml"
    doc.write_text(text)
    code = (
        "import sys\nfrom transform.cli.main import main\n"
        f"sys.argv = ['instancetype-upgrade', 'validate', '--exit-zero', {str(doc)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('cel_expr_python')))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return list(ast.literal_eval(run.stdout.strip().splitlines()[-1]))


def test_the_cel_engine_loads_only_for_a_value_with_rules(tmp_path: Path) -> None:
    it = "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineInstancetype\nmetadata: {name: u1}\n"
    assert _modules_after(tmp_path, it + "spec: {cpu: {guest: 1}, memory: {guest: 1Gi}}\n") == []
    plain_vm = "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {name: vm}\n"
    assert _modules_after(tmp_path, plain_vm + "spec: {template: {spec: {domain: {devices: {}}}}}\n") == []
    volume = "volumes: [{name: v, containerPath: {path: /a, readOnly: true}}]"
    with_rules = plain_vm + f"spec: {{template: {{spec: {{domain: {{devices: {{}}}}, {volume}}}}}}}\n"
    assert _modules_after(tmp_path, with_rules) != []


def test_a_rule_the_engine_cannot_compile_is_said_not_refused() -> None:
    """A Kubernetes CEL library function the engine lacks (`isURL`) is the tool's gap: an info, not an error."""
    from transform.validate.structural import Validator

    schema = {"type": "object", "properties": {"u": {"type": "string", "x-kubernetes-validations": [
        {"rule": "isURL(self)"}, {"rule": "self.size() < 3"}]}}}  # fmt: skip
    found = Validator(schema).validate({"u": "abcd"})
    assert sorted((f.severity.value, f.code) for f in found) == [
        ("error", "schema.rule"),
        ("info", "schema.rules-unchecked"),
    ]


def test_cdi_status_is_dropped_where_cdis_crd_has_the_status_subresource() -> None:
    """CDI's crds_generated.go: DataVolume gained the status subresource in 1.57 (reference/cdi-crds.json)."""
    dv = {"apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "DataVolume", "metadata": {"name": "dv"},
          "spec": {"source": {"http": {"url": "http://x"}},
                   "pvc": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
          "status": {"phase": 5}}  # fmt: skip
    found = validate_document(dv, target_cdi=(1, 56))
    assert [(f.severity.value, f.field_path) for f in found] == [("error", "status.phase")]
    assert validate_document(dv, target_cdi=(1, 66)) == []


def test_a_cdi_field_of_a_later_cdi_release_is_the_targets_fact() -> None:
    """CDI's own examples of v1.66 (a gcs source; http.insecureSkipVerify) judged at --target-cdi 1.56: the
    fields exist, in later CDI releases; said as for KubeVirt (target.unknown-field, with the CDI release
    that added them), not as a typo. A field no CDI release has stays schema.unknown-field."""
    dv: dict[str, Any] = {"apiVersion": "cdi.kubevirt.io/v1beta1", "kind": "DataVolume", "metadata": {"name": "dv"},
                          "spec": {"source": {"gcs": {"url": "gs://b/disk.img"}},
                                   "storage": {"resources": {"requests": {"storage": "1Gi"}}}}}  # fmt: skip
    found = validate_document(dv, target_cdi=(1, 56))
    assert [(f.code, f.field_path) for f in found] == [("target.unknown-field", "spec.source.gcs")]
    assert "CDI 1.56 does not know spec.source.gcs (added in 1.57)" in found[0].message
    assert validate_document(dv, target_cdi=(1, 57)) == []
    dv["spec"]["source"] = {"gcss": {"url": "gs://b/disk.img"}}
    assert [(f.code, f.field_path) for f in validate_document(dv, target_cdi=(1, 56))] == [
        ("schema.unknown-field", "spec.source.gcss")
    ]


REFERENCE = Path(__file__).resolve().parents[2] / "reference"
STATUS_KINDS = [  # (group/version, kind, product): kinds whose CRD has had the status subresource
    ("cdi.kubevirt.io/v1beta1", "DataVolume", "cdi"),
    ("cdi.kubevirt.io/v1beta1", "ObjectTransfer", "cdi"),
    ("migrations.kubevirt.io/v1alpha1", "MigrationPolicy", "kubevirt"),
    ("pool.kubevirt.io/v1alpha1", "VirtualMachinePool", "kubevirt"),
    ("snapshot.kubevirt.io/v1beta1", "VirtualMachineSnapshot", "kubevirt"),
    ("snapshot.kubevirt.io/v1beta1", "VirtualMachineRestore", "kubevirt"),
    ("export.kubevirt.io/v1beta1", "VirtualMachineExport", "kubevirt"),
]


def _status_subresource() -> list[Any]:
    """(api version, kind, product, release, status subresource?) from each release's CRDs as the reference
    files hold them (KubeVirt crds.go, CDI crds_generated.go)."""
    out = []
    for api_version, kind, product in STATUS_KINDS:
        releases = json.loads((REFERENCE / f"{product}-crds.json").read_text())["releases"]
        for key, release in sorted(releases.items()):
            crd = release["crds"].get(kind)
            served = [v["name"] for v in crd.get("versions", []) if v["served"]] if crd is not None else []
            if crd is not None and (product == "cdi" or api_version.split("/")[1] in served):
                major, minor = (int(p) for p in key.split("."))
                out.append(pytest.param(api_version, kind, product, (major, minor), crd["status"], id=f"{kind}-{key}"))
    return out


@pytest.mark.parametrize(("api_version", "kind", "product", "release", "subresource"), _status_subresource())
def test_unknown_status_fields_are_refused_under_strict_even_where_status_is_dropped(
    api_version: str, kind: str, product: str, release: tuple[int, int], subresource: bool
) -> None:
    """fieldValidation=Strict: the request's decoding prunes the whole object and reports what it prunes
    (apiextensions-apiserver's crdHandler, unstructuredSchemaCoercer with returnUnknownFieldPaths) before
    the strategy's PrepareForCreate drops `status`; the values of a dropped status are not validated.
    Where the CRD has no status subresource, status is validated like the rest."""
    status: dict[str, Any] = {"bogus": {"x": 1}}
    if kind != "MigrationPolicy":  # MigrationPolicyStatus has no fields
        status["conditions"] = 5
    doc = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}, "spec": {}, "status": status}
    kubevirt, cdi = (release, None) if product == "kubevirt" else ((1, 9), release)
    strict = validate_document(doc, strict=True, target=kubevirt, target_cdi=cdi)
    found = [f for f in strict if f.field_path.startswith("status")]
    expected = [("error", "status.bogus", "schema.unknown-field")]
    if not subresource and "conditions" in status:
        expected.append(("error", "status.conditions", "schema.type"))
    assert sorted((f.severity.value, f.field_path, f.code) for f in found) == sorted(expected)
    loose = [f for f in validate_document(doc, target=kubevirt, target_cdi=cdi) if f.code == "schema.unknown-field"]
    assert [(f.severity.value, f.field_path) for f in loose] == [("warning", "status.bogus")]
