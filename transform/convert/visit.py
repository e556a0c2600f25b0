"""What a per-object rule is handed (`Visit`) and the shape of the rules table (`Rules`: kind -> rule), shared by
convert's own rules (`kinds`) and the container formats' (`formats.registry.RULES`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from transform.convert.hints import Hints
    from transform.convert.index import Index
    from transform.convert.outcome import Outcome
    from transform.kubevirt import apis
    from transform.model.settings import Settings

Path = tuple[Any, ...]


@dataclass
class Visit:
    """One object the rules look at: the document's outcome, where the object is in it, what it is, and
    what the run and the container formats know (`index`, `hints`: see `convert.hints`)."""

    out: Outcome
    path: Path
    obj: dict[str, Any]
    api: Any
    group: str | None
    settings: Settings
    index: Index
    file: str
    hints: Hints
    targets: apis.Targets


Rule = Callable[[Visit], None]
# Keys of the rules table that are no kind: a document that is a list in a file read as a partial object
# (JSON6902 operations), and an object its format pins to its group/version/kind (`Hints.pinned`).
OPERATIONS, PINNED = "[operations]", "[pinned]"
Rules = Mapping[str, Rule]
