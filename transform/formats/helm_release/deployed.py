"""Which revision of each Helm release is the latest deployed among the inputs: the release records'
cross-file fact (`convert.hints.Facts`), asked by `--helm-releases latest` (the default)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from transform.convert.hints import NONE, Hints
from transform.convert.index import Index
from transform.formats.helm_release import record

NAME = "helm-release"  # the format's name: its facts in `Index.facts`


@dataclass
class Deployed:
    latest: dict[tuple[str, str], int] = field(default_factory=dict)  # (ns, release) -> latest deployed

    def add(self, doc: dict[str, Any], *, base: str, name: str, where: str) -> bool:
        if doc.get("kind") in ("Secret", "ConfigMap") and record.driver(doc):
            ns, release, version, status = record.labels(doc)
            if status in ("deployed", "") and version is not None:
                key = (ns, release)
                self.latest[key] = max(version, self.latest.get(key, version))
        return False

    def merge(self, later: Deployed) -> None:
        for key, version in later.latest.items():
            self.latest[key] = max(version, self.latest.get(key, version))

    def settle(self, files: list[tuple[str, str, bool]]) -> None:
        return None

    def hints(self, file: str) -> Hints:
        return NONE


def latest_release(index: Index, ns: str, release: str, version: int | None, status: str) -> bool:
    """Is this Helm release record the latest deployed revision of its release among the inputs?"""
    if status not in ("deployed", ""):
        return False
    facts = index.facts.get(NAME)
    latest = facts.latest if isinstance(facts, Deployed) else {}
    return version is None or version >= latest.get((ns, release), version)
