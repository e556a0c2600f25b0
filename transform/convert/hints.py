"""What a container format says of a document (`Hints`) and what it gathers across the inputs (`Facts`).

The rules read hints, never a format: a kustomize patch file is a partial object, a patch that kustomize
matches by its `target` ignores its own group/version/kind, a patch of a remote resource keeps its version,
a file kustomize finds by its name is a Kustomization whatever it says. A format gathers its facts in the
index pass (`Facts.add` on every document the index reads) and answers `Facts.hints` for a file; the index
holds them by the format's name (`convert.index.Index.facts`) and never reads them itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Hints:
    """`partial`: a partial object (judged as one); `target_patch`: matched by a target, its own group,
    version and kind ignored; `pinned`: must keep its group, version and kind (the `PINNED` rule says
    why); `kind`: the kind its format reads it as when it names none; `owned`: flags only the format's own
    rules read."""

    partial: bool = False
    target_patch: bool = False
    pinned: bool = False
    kind: str | None = None
    owned: frozenset[str] = frozenset()

    def __or__(self, other: Hints) -> Hints:
        return Hints(
            self.partial or other.partial,
            self.target_patch or other.target_patch,
            self.pinned or other.pinned,
            self.kind or other.kind,
            self.owned | other.owned,
        )


NONE = Hints()


class Facts(Protocol):
    """A format's cross-file facts, gathered by the index pass and merged across worker processes."""

    def add(self, doc: dict[str, Any], *, base: str, name: str, where: str) -> bool:
        """Read one document (`base`: its file as kustomizations name it, `name`: its display name,
        `where`: its absolute path, "" when not a file); whether it was one of mine."""

    def merge(self, later: Any) -> None:
        """Add what the same format gathered from the documents that follow, in input order."""

    def settle(self, files: list[tuple[str, str, bool]]) -> None:
        """Once every input is read: (display name, name relative to its root, read from a file) of each."""

    def hints(self, file: str) -> Hints:
        """What this format says of the documents of `file`."""
