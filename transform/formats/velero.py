"""The Velero backup tarball as a container format: which of its members are items the engine may change
(`is_item`), where an item sits (`ITEM`: its resource, version directory, namespace, name), and what to
know about an upgraded item's path (`path_notes`). The archive's two passes, which drive the engine, are
the shell's (transform.integrations.velero)."""

from __future__ import annotations

import re
import tarfile

from transform.formats.helm_release.record import NAME_PREFIX as HELM_RECORD
from transform.kubevirt import apis
from transform.model.findings import Finding, info, warning

ITEM = re.compile(
    r"^(?:\./)*resources/(?P<gr>[^/]+)/(?:(?P<ver>v\d+(?:(?:alpha|beta)\d+)?)(?P<pref>-preferredversion)?/)?"
    r"(?:namespaces/(?P<ns>[^/]+)|cluster)/(?P<name>[^/]+)\.json$"
)


def is_item(m: tarfile.TarInfo) -> bool:
    """An item of a resource the engine may change: ControllerRevisions and the kubevirt.io groups.

    Everything else (pods, secrets, ...) is copied without being parsed, even when it mentions
    a VirtualMachine: faster, and its bytes are guaranteed to stay the same. Helm's release records
    (Secrets and ConfigMaps named `sh.helm.release.v1.<release>.v<N>`) are items too.
    """
    name = m.name
    while name.startswith("./"):  # a backup unpacked and repacked with `tar czf x.tar.gz .`
        name = name[2:]
    if not (m.isreg() and name.startswith("resources/") and name.endswith(".json")):
        return False
    resource = name.split("/", 2)[1]
    if resource in ("secrets", "configmaps"):  # Helm's release records only, by the name Helm gives them
        return name.rpartition("/")[2].startswith(HELM_RECORD)
    return resource == "controllerrevisions.apps" or resource.endswith("kubevirt.io")


def path_notes(name: str, upgraded: int) -> list[Finding]:
    """What to know about where an upgraded item stays (an old version's or the flavor group's directory)."""
    match = ITEM.match(name)
    if match is None:
        return []
    gr, ver = match["gr"], match["ver"]
    notes: list[Finding] = []
    group = gr.partition(".")[2]
    old = ver is not None and group in apis.GROUPS and f"{group}/{ver}" != apis.latest(group)
    if old and upgraded:
        notes.append(
            info(
                "backup.version-dir",
                f"the object is upgraded but stays under {ver}{match['pref'] or ''}/ (paths are kept): Velero "
                f"restores it from resources/{gr}/{'namespaces/…' if match['ns'] else 'cluster'}/ (upgraded too) "
                f"unless --features=EnableAPIGroupVersions picks this directory, which still works because "
                "Velero creates what the file holds",
                file=name,
            )
        )
    if gr.endswith(".flavor.kubevirt.io"):
        notes.append(
            warning(
                "backup.flavor-dir",
                f"upgraded to an instancetype.kubevirt.io kind, but the item stays under resources/{gr}/: "
                "Velero restores it as a flavor.kubevirt.io resource, which no current KubeVirt serves; apply "
                "the upgraded object by hand",
                file=name,
            )
        )
    return notes
