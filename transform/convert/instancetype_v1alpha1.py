"""instancetype.kubevirt.io/v1alpha1 -> v1alpha2 (KubeVirt v0.58).

The JSON field trees are identical but for v1alpha2's added `spec.volumes` on preferences,
so nothing changes but the version:

    apiVersion: instancetype.kubevirt.io/v1alpha1  -->  apiVersion: instancetype.kubevirt.io/v1alpha2
"""

from __future__ import annotations

from typing import Any

GROUP, VERSION = "instancetype.kubevirt.io", "v1alpha1"
TO_GROUP, TO_VERSION = "instancetype.kubevirt.io", "v1alpha2"


def convert_spec(spec: dict[str, Any], family: str) -> dict[str, Any]:
    return spec
