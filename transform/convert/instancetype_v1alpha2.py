"""instancetype.kubevirt.io/v1alpha2 -> v1beta1 (KubeVirt v1.0), as KubeVirt v1.6's Go conversion did it.

For a ControllerRevision payload (`Convert_v1alpha2_*_To_v1beta1_*`):
- instancetype `cpu.model`, `cpu.dedicatedCPUPlacement`, `cpu.isolateEmulatorThread` become
  always-set pointers, so they appear as `""`, `false`, `false` even when absent;
- preference `cpu.preferredCPUTopology` is copied verbatim (`preferSockets` stays), and an empty
  string makes it absent;
- `firmware.preferredUseEfi` / `preferredUseSecureBoot` keep their JSON names.

    spec:                       spec:
      cpu:                        cpu:
        guest: 1          -->       guest: 1
                                    model: ""
                                    dedicatedCPUPlacement: false
                                    isolateEmulatorThread: false
"""

from __future__ import annotations

from typing import Any

GROUP, VERSION = "instancetype.kubevirt.io", "v1alpha2"
TO_GROUP, TO_VERSION = "instancetype.kubevirt.io", "v1beta1"

POINTER_ZERO_VALUES = {"model": "", "dedicatedCPUPlacement": False, "isolateEmulatorThread": False}


def convert_spec(spec: dict[str, Any], family: str) -> dict[str, Any]:
    """The input is never changed; the result shares every part the conversion does not touch (only
    `cpu` changes: a deep copy of a 300,000-entry `gpus` list was a second of a 15 MB payload)."""
    spec = dict(spec)
    cpu = spec.get("cpu")
    if not isinstance(cpu, dict):
        return spec
    cpu = spec["cpu"] = dict(cpu)
    if family == "instancetype":
        for key, zero in POINTER_ZERO_VALUES.items():
            if cpu.get(key) is None:
                cpu[key] = zero
    elif cpu.get("preferredCPUTopology") == "":
        del cpu["preferredCPUTopology"]
    return spec
