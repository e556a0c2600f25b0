"""One Velero item: the upgrade that identical copies share. Which members are items and the notes about
an item's path are the format's (transform.formats.velero); the archive passes are in
transform.integrations.velero."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transform.convert.hints import NONE
from transform.formats import whole_file
from transform.model.findings import Finding
from transform.pipeline.inputs import Item
from transform.pipeline.upgrade import LazyPlan


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
    input, a `inputs.Item`). The upgrade of an item depends on its path only if a format says something of it
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
