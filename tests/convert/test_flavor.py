"""Flavor era (KubeVirt v0.48-v0.55): objects, VM matchers and F0 revisions, from fixtures/flavor."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from transform.cli.main import main
from transform.convert import flavor, payloads, revisions

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "flavor"


def load(name: str) -> Any:
    return yaml.safe_load((FIXTURES / name).read_text())


def test_flavor_object_with_memory_has_no_error() -> None:
    old = load("vmf-csmall.yaml")
    new = {**old, "apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": "VirtualMachineInstancetype"}
    found = flavor.object_findings(old, new)
    assert [f.code for f in found] == ["flavor.renamed"]


def test_flavor_without_memory_guest_is_an_error() -> None:
    old = load("vmcf-no-memory.yaml")
    found = flavor.object_findings(old, {**old, "kind": "VirtualMachineClusterInstancetype"})
    err = [f for f in found if f.code == "flavor.memory-guest"]
    assert err and err[0].severity.value == "error" and "Add spec.memory.guest" in err[0].message


@pytest.mark.parametrize(
    "kind,expected",
    [
        ("VirtualMachineFlavor", "VirtualMachineInstancetype"),
        ("VirtualMachineClusterFlavor", "VirtualMachineClusterInstancetype"),
        ("virtualmachineflavor", "virtualmachineinstancetype"),
        ("virtualmachineflavors", "virtualmachineinstancetypes"),
        ("virtualmachineclusterflavor", "virtualmachineclusterinstancetype"),
        ("virtualmachineclusterflavors", "virtualmachineclusterinstancetypes"),
        ("vmf", "virtualmachineinstancetype"),
        ("vmcfs", "virtualmachineclusterinstancetypes"),
    ],
)
def test_vm_matcher_kinds(kind: str, expected: str) -> None:
    vm: dict[str, Any] = {
        "kind": "VirtualMachine",
        "spec": {"running": False, "flavor": {"kind": kind, "name": "c", "revisionName": "r"}},
    }
    new, _found = flavor.upgrade_vm(vm)
    assert new is not None and "flavor" not in new["spec"]
    assert new["spec"]["instancetype"] == {"kind": expected, "name": "c", "revisionName": "r"}
    assert list(new["spec"]) == ["running", "instancetype"]  # the matcher keeps its place
    assert vm["spec"]["flavor"]["kind"] == kind  # input not mutated


def test_vm_matcher_without_kind_and_errors() -> None:
    new, _ = flavor.upgrade_vm({"spec": {"flavor": {"name": "c"}}})
    assert new == {"spec": {"instancetype": {"name": "c"}}}
    assert flavor.upgrade_vm({"spec": {}}) == (None, [])
    new, found = flavor.upgrade_vm({"spec": {"flavor": {"name": "c", "kind": "Deployment"}}})
    assert new is None and found[0].code == "flavor.kind-unknown"
    new, found = flavor.upgrade_vm({"spec": {"flavor": {"name": "c"}, "instancetype": {"name": "d"}}})
    assert new is None and found[0].code == "flavor.both-matchers"


def test_f0_wrapper_decodes_like_f1() -> None:
    cr = load("cr-f0.yaml")
    decoded = payloads.decode(cr["data"])
    assert decoded.fmt == "F1" and decoded.family == "instancetype"
    up = revisions.upgrade_revision(cr)
    assert up is not None and up.doc["data"]["apiVersion"] == "instancetype.kubevirt.io/v1beta1"
    assert up.doc["data"]["spec"]["memory"] == {"guest": "128Mi"}


def test_fix_on_flavor_fixtures(tmp_path: Path) -> None:
    work = tmp_path / "flavor"
    shutil.copytree(FIXTURES, work)
    (work / "vmcf-no-memory.yaml").unlink()
    assert main(["fix", str(work)]) == 1
    it = yaml.safe_load((work / "vmf-csmall.yaml").read_text())
    assert (it["apiVersion"], it["kind"]) == ("instancetype.kubevirt.io/v1beta1", "VirtualMachineInstancetype")
    assert "# one vCPU" in (work / "vmf-csmall.yaml").read_text()
    pref = yaml.safe_load((work / "vmp-flavor.yaml").read_text())
    assert (pref["apiVersion"], pref["kind"]) == ("instancetype.kubevirt.io/v1beta1", "VirtualMachinePreference")
    vm = yaml.safe_load((work / "vm-flavor.yaml").read_text())
    assert "flavor" not in vm["spec"]
    assert vm["spec"]["instancetype"] == {
        "kind": "VirtualMachineClusterInstancetype",
        "name": "csmall",
        "revisionName": "vm-flavor-csmall-6709b990-f717-44fe-a8ff-cb441d20b904-1",
    }
    assert "# cluster-wide" in (work / "vm-flavor.yaml").read_text()
    lower = yaml.safe_load((work / "vm-flavor-lowercase.yaml").read_text())
    assert lower["spec"]["instancetype"]["kind"] == "virtualmachineinstancetypes"
    cr = yaml.safe_load((work / "cr-f0.yaml").read_text())
    assert cr["data"]["apiVersion"] == "instancetype.kubevirt.io/v1beta1" and cr["data"]["metadata"]["name"] == "csmall"
    assert main(["check", str(work)]) == 0  # idempotent


def test_fix_refuses_flavor_without_memory(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    shutil.copy(FIXTURES / "vmcf-no-memory.yaml", path)
    before = path.read_text()
    assert main(["fix", str(path)]) == 3
    assert path.read_text() == before


def test_f0_revision_kind_from_flavor_matcher(tmp_path: Path) -> None:
    work = tmp_path / "flavor"
    shutil.copytree(FIXTURES, work)
    (work / "vmcf-no-memory.yaml").unlink()
    main(["fix", str(work)])
    cr = yaml.safe_load((work / "cr-f0.yaml").read_text())
    assert cr["data"]["kind"] == "VirtualMachineClusterInstancetype"


def test_one_flavor_kind_map() -> None:
    """The flavor -> instancetype kind rename is the API table's (kubevirt.apis), not a copy per module."""
    from transform.convert import flavor_v1alpha1
    from transform.formats.kustomize import kustomization as kustomize
    from transform.kubevirt import apis

    assert flavor.FLAVOR_KINDS is apis.FLAVOR_KINDS
    assert flavor_v1alpha1.KINDS is apis.FLAVOR_KINDS and kustomize.FLAVOR_KINDS is apis.FLAVOR_KINDS
    assert apis.FLAVOR_KINDS == {
        "VirtualMachineFlavor": "VirtualMachineInstancetype",
        "VirtualMachineClusterFlavor": "VirtualMachineClusterInstancetype",
    }


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("virtualmachineflavor", "virtualmachineinstancetype"),
        ("virtualmachineflavors", "virtualmachineinstancetypes"),
        ("virtualmachineclusterflavor", "virtualmachineclusterinstancetype"),
        ("virtualmachineclusterflavors", "virtualmachineclusterinstancetypes"),
        ("vmf", "virtualmachineinstancetype"),
        ("vmcfs", "virtualmachineclusterinstancetypes"),
    ],
)
def test_matcher_kinds_follow_the_kind_map(before: str, after: str) -> None:
    assert flavor.MATCHER_KINDS[before] == after
    assert set(flavor.CAMEL) == {k.lower() for k in flavor.FLAVOR_KINDS.values()}
