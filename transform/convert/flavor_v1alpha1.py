"""flavor.kubevirt.io/v1alpha1 -> instancetype.kubevirt.io/v1alpha1 (KubeVirt v0.48-v0.55 -> v0.56).

KubeVirt renamed the API group in v0.56 without a conversion path; the spec trees carried
over unchanged, so the step renames the group and the flavor kinds:

    apiVersion: flavor.kubevirt.io/v1alpha1        apiVersion: instancetype.kubevirt.io/v1alpha1
    kind: VirtualMachineFlavor                -->  kind: VirtualMachineInstancetype
"""

from __future__ import annotations

from typing import Any

from transform.kubevirt.apis import FLAVOR_KINDS

GROUP, VERSION = "flavor.kubevirt.io", "v1alpha1"
TO_GROUP, TO_VERSION = "instancetype.kubevirt.io", "v1alpha1"
KINDS = FLAVOR_KINDS  # the one table (transform.kubevirt.apis)


def convert_spec(spec: dict[str, Any], family: str) -> dict[str, Any]:
    return spec
