"""modernize: each rule at its target boundary, and old/new spellings mean the same to KubeVirt.

The runtime model below follows KubeVirt's apply code (kubevirt-api-versions.md §2.4,
`pkg/instancetype/preference/apply/firmware.go`, `GetSpreadOptions`, the topology map) and
virt-launcher's `secureBoot := EFI.SecureBoot == nil || *EFI.SecureBoot`.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest

from transform.cli.main import main
from transform.convert import modernize
from transform.model.findings import Severity

PREF = "VirtualMachinePreference"


def pref(spec: dict[str, Any], kind: str = PREF) -> dict[str, Any]:
    return {"apiVersion": "instancetype.kubevirt.io/v1beta1", "kind": kind, "metadata": {"name": "p"}, "spec": spec}


def codes(found: list[Any]) -> list[str]:
    return [f.code for f in found]


# --- a small model of KubeVirt's runtime -------------------------------------------------------


def apply_firmware(vm_bootloader: dict[str, Any] | None, fw: dict[str, Any]) -> dict[str, Any]:
    """firmware.go: the VMI bootloader after the preference is applied."""
    bl = copy.deepcopy(vm_bootloader) if vm_bootloader else {}
    if fw.get("preferredUseBios") is True and "bios" not in bl and "efi" not in bl:
        bl["bios"] = {}
    if fw.get("preferredUseBiosSerial") is not None and "bios" in bl and bl["bios"].get("useSerial") is None:
        bl["bios"]["useSerial"] = fw["preferredUseBiosSerial"]
    if "efi" not in bl and "bios" not in bl and fw.get("preferredEfi") is not None:
        bl["efi"] = copy.deepcopy(fw["preferredEfi"])
        return bl
    if fw.get("preferredUseEfi") is True and "efi" not in bl and "bios" not in bl:
        bl["efi"] = {}
    if fw.get("preferredUseSecureBoot") is not None and "efi" in bl and bl["efi"].get("secureBoot") is None:
        bl["efi"]["secureBoot"] = fw["preferredUseSecureBoot"]
    return bl


def boots(bl: dict[str, Any]) -> tuple[str, bool | None]:
    """What the guest gets: firmware type and (for EFI) whether Secure Boot is on (virt-launcher)."""
    if "efi" in bl:
        sb = bl["efi"].get("secureBoot")
        return "efi", sb is None or sb
    return ("bios" if "bios" in bl else "default"), None


def topology(value: str | None) -> str:
    canon = {
        "preferSockets": "sockets",
        "preferCores": "cores",
        "preferThreads": "threads",
        "preferSpread": "spread",
        "preferAny": "any",
    }
    return canon.get(value or "sockets", value or "sockets")


def spread_ratio(spec: dict[str, Any]) -> int:
    ratio = 2
    if spec.get("preferSpreadSocketToCoreRatio"):
        ratio = spec["preferSpreadSocketToCoreRatio"]
    opts = (spec.get("cpu") or {}).get("spreadOptions") or {}
    if opts.get("ratio") is not None:
        ratio = opts["ratio"]
    return ratio


# --- topology ----------------------------------------------------------------------------------


@pytest.mark.parametrize("old,new", sorted(modernize.TOPOLOGY_RENAMES.items()))
def test_topology_boundary_and_meaning(old: str, new: str) -> None:
    obj = pref({"cpu": {"preferredCPUTopology": old}})
    below, found = modernize.modernize_object(obj, (1, 3))
    assert below == obj and codes(found) == ["modernize.needs-release"] and "1.4" in found[0].message
    at, found = modernize.modernize_object(obj, (1, 4))
    assert at["spec"]["cpu"]["preferredCPUTopology"] == new and codes(found) == ["modernize.topology"]
    assert topology(old) == topology(new)
    assert obj["spec"]["cpu"]["preferredCPUTopology"] == old  # input not mutated


def test_topology_current_value_untouched() -> None:
    obj = pref({"cpu": {"preferredCPUTopology": "spread"}})
    assert modernize.modernize_object(obj, (1, 9)) == (obj, [])


# --- firmware ----------------------------------------------------------------------------------

ABSENT = object()
FW_VALUES = [ABSENT, True, False]
VM_FIRMWARE: list[dict[str, Any] | None] = [
    None,
    {"efi": {}},
    {"efi": {"secureBoot": True}},
    {"efi": {"secureBoot": False}},
    {"bios": {}},
]


def _fw(use_efi: Any, secure: Any, efi: Any, bios: Any) -> dict[str, Any]:
    fw: dict[str, Any] = {}
    for key, value in (
        ("preferredUseBios", bios),
        ("preferredUseEfi", use_efi),
        ("preferredUseSecureBoot", secure),
        ("preferredEfi", efi),
    ):
        if value is not ABSENT:
            fw[key] = value
    return fw


@pytest.mark.parametrize(
    "use_efi,secure,efi,bios",
    list(
        itertools.product(
            FW_VALUES,
            FW_VALUES,
            [ABSENT, {}, {"secureBoot": False}, {"secureBoot": True, "persistent": True}],
            [ABSENT, True],
        )
    ),
)
def test_firmware_same_runtime_meaning(use_efi: Any, secure: Any, efi: Any, bios: Any) -> None:
    fw = _fw(use_efi, secure, efi, bios)
    if "preferredUseEfi" not in fw and "preferredUseSecureBoot" not in fw:
        return
    obj = pref({"firmware": fw})
    new, found = modernize.modernize_object(obj, (1, 5))
    new_fw = new["spec"]["firmware"]
    caveat = "modernize.secureboot-own-efi" in codes(found)
    for vm_bl in VM_FIRMWARE:
        before, after = boots(apply_firmware(vm_bl, fw)), boots(apply_firmware(vm_bl, new_fw))
        if before != after:
            # the one case preferredEfi cannot express: the VM's own EFI without secureBoot
            assert caveat and vm_bl == {"efi": {}} and secure is False, (fw, new_fw, vm_bl)
    if "preferredUseSecureBoot" in new_fw:  # only kept where it cannot be expressed
        assert use_efi is not True and fw.get("preferredEfi") is None
        assert codes(found) == ["modernize.efi-kept"]
    else:
        assert "preferredUseEfi" not in new_fw


def test_firmware_use_efi_alone_means_secure_boot_on() -> None:
    new, found = modernize.modernize_object(pref({"firmware": {"preferredUseEfi": True}}), (1, 5))
    assert new["spec"]["firmware"] == {"preferredEfi": {}}
    assert boots(apply_firmware(None, {"preferredUseEfi": True})) == ("efi", True)
    assert boots(apply_firmware(None, new["spec"]["firmware"])) == ("efi", True)
    assert codes(found) == ["modernize.efi"]


def test_firmware_secure_boot_pair_and_key_position() -> None:
    fw = {
        "preferredUseBios": False,
        "preferredUseEfi": True,
        "preferredUseSecureBoot": True,
        "preferredUseBiosSerial": False,
    }
    new, _ = modernize.modernize_object(pref({"firmware": fw}), (1, 5))
    assert list(new["spec"]["firmware"].items()) == [
        ("preferredUseBios", False),
        ("preferredEfi", {"secureBoot": True}),
        ("preferredUseBiosSerial", False),
    ]


def test_firmware_preferred_efi_set_drops_deprecated() -> None:
    fw = {"preferredEfi": {"persistent": True}, "preferredUseEfi": True, "preferredUseSecureBoot": True}
    new, found = modernize.modernize_object(pref({"firmware": fw}), (1, 9))
    assert new["spec"]["firmware"] == {"preferredEfi": {"persistent": True}}
    assert codes(found) == ["modernize.efi-ignored"] and found[0].severity is Severity.INFO


def test_firmware_boundary() -> None:
    obj = pref({"firmware": {"preferredUseEfi": True}})
    new, found = modernize.modernize_object(obj, (1, 4))
    assert new == obj and codes(found) == ["modernize.needs-release"] and "1.5" in found[0].message
    assert modernize.modernize_object(obj, (1, 5))[0] != obj


# --- spread ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        {"preferSpreadSocketToCoreRatio": 3},
        {"preferSpreadSocketToCoreRatio": 3, "cpu": {"preferredCPUTopology": "spread"}},
        {"preferSpreadSocketToCoreRatio": 4, "cpu": {"spreadOptions": {"across": "SocketsCoresThreads"}}},
        {"preferSpreadSocketToCoreRatio": 4, "cpu": {"spreadOptions": {"ratio": 3}}},
        {"preferSpreadSocketToCoreRatio": 0},
    ],
)
def test_spread_same_ratio(spec: dict[str, Any]) -> None:
    obj = pref(spec)
    below, found = modernize.modernize_object(obj, (1, 2))
    assert below == obj and codes(found) == ["modernize.needs-release"] and "1.3" in found[0].message
    new, found = modernize.modernize_object(obj, (1, 3))
    assert "preferSpreadSocketToCoreRatio" not in new["spec"]
    assert spread_ratio(new["spec"]) == spread_ratio(spec)
    assert (new["spec"].get("cpu") or {}).get("spreadOptions", {}).get("across") == (spec.get("cpu") or {}).get(
        "spreadOptions", {}
    ).get("across")
    assert len(found) == 1


# --- launchSecurity ----------------------------------------------------------------------------


def test_launch_security_warns_never_moves() -> None:
    it = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterInstancetype",
        "metadata": {"name": "sev"},
        "spec": {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}, "launchSecurity": {"sev": {}}},
    }
    new, found = modernize.modernize_object(it, (1, 9))
    assert new == it and codes(found) == ["modernize.launch-security"]
    assert found[0].severity is Severity.WARNING and "preferredLaunchSecurity" in found[0].message
    new, found = modernize.modernize_object(it, (1, 8))
    assert new == it and codes(found) == ["modernize.needs-release"] and "1.9" in found[0].message


# --- through the CLI: comments kept ------------------------------------------------------------

SOURCE = """\
# windows preference
apiVersion: instancetype.kubevirt.io/v1alpha2
kind: VirtualMachineClusterPreference
metadata:
  name: windows
spec:
  cpu:
    preferredCPUTopology: preferSockets  # keep me
  firmware:
    preferredUseEfi: true  # efi comment
    preferredUseSecureBoot: true
  preferSpreadSocketToCoreRatio: 3
"""


def test_fix_modernize_keeps_comments(tmp_path: Any) -> None:
    path = tmp_path / "windows.yaml"
    path.write_text(SOURCE)
    assert main(["fix", "--modernize", str(path)]) == 1
    text = path.read_text()
    for comment in ("# windows preference", "# keep me", "# efi comment"):
        assert comment in text
    assert "preferredCPUTopology: sockets  # keep me" in text
    assert "preferredUseEfi" not in text and "preferredUseSecureBoot" not in text
    assert "preferredEfi:" in text and "secureBoot: true" in text and "ratio: 3" in text
    assert "apiVersion: instancetype.kubevirt.io/v1beta1" in text


def test_fix_without_modernize_or_below_target(tmp_path: Any) -> None:
    plain, low = tmp_path / "a.yaml", tmp_path / "b.yaml"
    plain.write_text(SOURCE)
    low.write_text(SOURCE)
    main(["fix", str(plain)])
    main(["fix", "--modernize", "--target-kubevirt", "1.3", str(low)])
    assert "preferSockets" in plain.read_text() and "preferredUseEfi: true" in plain.read_text()
    assert "preferSockets" in low.read_text() and "preferredUseEfi: true" in low.read_text()
    assert "ratio: 3" in low.read_text()  # spreadOptions is known to 1.3


REVISION = """\
apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: vm-a-p-72c3a35b-6e18-487d-bebf-f73c7d4f4a40-1
  namespace: default
  ownerReferences:
  - {apiVersion: kubevirt.io/v1, controller: true, kind: VirtualMachine, name: vm-a, uid: u}
data:
  apiVersion: instancetype.kubevirt.io/v1alpha2
  kind: VirtualMachinePreference
  metadata:
    name: p
    namespace: default
    uid: 72c3a35b-6e18-487d-bebf-f73c7d4f4a40
    generation: 1
  spec:
    cpu:
      preferredCPUTopology: preferCores
revision: 0
"""


@pytest.mark.parametrize(
    "flags,expected", [(["--modernize"], "preferCores"), (["--modernize", "--modernize-revisions"], "cores")]
)
def test_revision_payload_only_with_modernize_revisions(tmp_path: Any, flags: list[str], expected: str) -> None:
    path = tmp_path / "cr.yaml"
    path.write_text(REVISION)
    assert main(["fix", *flags, str(path)]) == 1
    assert f"preferredCPUTopology: {expected}\n" in path.read_text()
