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

import copy
from typing import Any

GROUP, VERSION = "instancetype.kubevirt.io", "v1alpha2"
TO_GROUP, TO_VERSION = "instancetype.kubevirt.io", "v1beta1"

POINTER_ZERO_VALUES = {"model": "", "dedicatedCPUPlacement": False, "isolateEmulatorThread": False}


def convert_spec(spec: dict[str, Any], family: str) -> dict[str, Any]:
    spec = copy.deepcopy(spec)
    if family == "instancetype":
        cpu = spec.get("cpu")
        if isinstance(cpu, dict):
            for key, zero in POINTER_ZERO_VALUES.items():
                if cpu.get(key) is None:
                    cpu[key] = zero
    else:
        cpu = spec.get("cpu")
        if isinstance(cpu, dict) and cpu.get("preferredCPUTopology") == "":
            del cpu["preferredCPUTopology"]
    return spec
