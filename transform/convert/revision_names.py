"""The identity an old ControllerRevision's name carries: `<vm>-<object>-[<version>-]<uid>-<generation>`,
as every KubeVirt release named the revisions it wrote (the object's name, uid and generation)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from transform.kubevirt import releases
from transform.kubevirt.names import UUID
from transform.model.findings import Finding, info, warning

_VERSIONED = "|".join(re.escape(v) + "-" for v in releases.VERSIONS)
_OLD_NAME = re.compile(rf"^(?P<obj>.+?)-(?:{_VERSIONED})?(?P<uid>{UUID})-(?P<gen>\d+)$")


@dataclass
class Identity:
    name: str
    uid: str = ""
    generation: int = 0
    kind: str = ""


def identity_from_name(name: str, vm_name: str | None) -> Identity | None:
    """`<vm>-<object>-<uid>-<generation>` (any era) -> the object's name, uid and generation."""
    rest = name
    if vm_name:
        if not name.startswith(vm_name + "-"):
            return None
        rest = name[len(vm_name) + 1 :]
    m = _OLD_NAME.match(rest)
    if not m or (not vm_name):
        return None
    return Identity(m.group("obj"), m.group("uid"), int(m.group("gen")))


def name_kept(own: dict[str, Any] | None) -> Finding:
    """Why --rename keeps a revision's name: no VM owner, a snapshot's copy, or an owner without a name."""
    if own is None:
        return warning("revision.name-kept", "name kept: it has no VM owner", ("metadata", "name"))
    if not own.get("name"):
        # ValidateOwnerReferences (apimachinery): "name must not be empty"
        return warning(
            "revision.name-kept",
            f"name kept: its {own.get('kind')} ownerReference has an empty name, which the API server refuses "
            "(ownerReferences.name must not be empty): write the owner's name",
            ("metadata", "ownerReferences"),
        )
    return info(
        "revision.name-kept",
        "name kept: owned by a VirtualMachineSnapshot (restores derive names from it)",
        ("metadata", "name"),
    )
