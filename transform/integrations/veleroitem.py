"""One Velero item: which members are items, the upgrade that identical copies share, the notes
about its path. The archive passes are in transform.integrations.velero."""

from __future__ import annotations

import re
import tarfile
from dataclasses import dataclass
from typing import Any

from transform.convert.hints import NONE
from transform.formats import whole_file
from transform.formats.helm_release.record import NAME_PREFIX as HELM_RECORD
from transform.kubevirt import apis
from transform.model.findings import Finding, info, warning
from transform.pipeline.batch import Item
from transform.pipeline.upgrade import LazyPlan

ITEM = re.compile(
    r"^(?:\./)*resources/(?P<gr>[^/]+)/(?:(?P<ver>v\d+(?:(?:alpha|beta)\d+)?)(?P<pref>-preferredversion)?/)?"
    r"(?:namespaces/(?P<ns>[^/]+)|cluster)/(?P<name>[^/]+)\.json$"
)


class Recent:
    """What was done with the last few distinct items, by their bytes. Velero writes every item twice
    in a row (the classic path, then `<version>-preferredversion/`): the second copy reuses the work
    on the first. A handful of entries: memory stays flat."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self.entries: dict[bytes, Any] = {}

    def get(self, data: bytes) -> Any:
        return self.entries.get(data)

    def put(self, data: bytes, value: Any) -> None:
        self.entries[data] = value
        if len(self.entries) > self.size:
            del self.entries[next(iter(self.entries))]


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


@dataclass
class Upgrade:
    """What upgrading an item's bytes gave, whatever its path (see `upgrade_item`)."""

    name: str
    new: bytes | None
    findings: list[Finding]
    upgraded: int
    renames: list[tuple[str, str, str]]


def upgrade_item(item: Item, plan: LazyPlan, done: Recent) -> Upgrade:
    """One item's result from the pipeline's plan (`upgrade.LazyPlan`: a member read as every command's
    input, a `batch.Item`). The upgrade of an item depends on its path only if a format says something of it
    (a kustomization, a patch one lists: never so in a Velero backup, but checked), and on nothing else but its
    bytes: an identical copy takes the result of the first, its findings re-addressed."""
    name, data, index = item.name, item.data, plan.index
    path_free = not (whole_file(name) or index.said_of(name) != NONE)
    if path_free and (hit := done.get(data)) is not None:
        findings = [f.at(file=name) if f.file == hit.name else f for f in hit.findings]
        return Upgrade(name, hit.new, findings, hit.upgraded, hit.renames)
    r = plan.plan(item)
    changed = r.changed and not r.failed and r.source is not None and r.new_text is not None
    new = r.source.encode(r.new_text) if changed and r.source is not None and r.new_text is not None else None
    result = Upgrade(name, new, r.findings, r.upgraded, r.renames if changed else [])
    if path_free:
        done.put(data, result)
        result = Upgrade(name, new, list(r.findings), r.upgraded, result.renames)  # the cached one stays as it is
    return result


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
