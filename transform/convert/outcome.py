"""The result of upgrading one document, on plain data: the new value, what changed where, findings."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from transform.model.findings import Finding, Severity
from transform.model.plain import as_map
from transform.model.plain import get as _get
from transform.model.policy import Stage

Path = tuple[Any, ...]


@dataclass
class Change:
    """What changed where in a document, as data: the verify step (transform.pipeline.verify) judges the
    object at `path` of the upgraded document as `verify` says, before anything is written."""

    path: Path  # where the changed object sits in the document ((), or ("items", 3))
    upgraded: bool = True
    replace: list[Path] = field(default_factory=list)  # nodes to write anew
    renames: list[tuple[str, str, str]] = field(default_factory=list)
    # how the changed object is judged (transform.model.policy): UPGRADED (an object), PAYLOAD (a
    # ControllerRevision's data) or None (nothing the judge knows changed: a reference, a kustomization)
    verify: Stage | None = None
    partial: bool = False  # judged as a partial object (a kustomize patch)
    carried: frozenset[tuple[str, Path]] = frozenset()  # (code, path) of the input's own errors: not blamed


@dataclass
class Ask:
    """A question for the judge, as data: conversion never calls it (the verify step asks it,
    transform.pipeline.verify.answer). The input's object at `path` is judged at `stage` (CURRENT: a document
    left as it is; INPUT: what an upgrade starts from), or with `stage` None only for the target's findings
    of `code` (as warnings). Its findings go among the outcome's at position `at`, about the object `ref`
    (`resource`: the report's details of it); the changes at positions `carry` carry the input's own errors
    over without blame (`Change.carried`)."""

    path: Path
    stage: Stage | None
    partial: bool = False
    code: str = ""
    at: int = 0
    carry: tuple[int, ...] = ()
    ref: str = ""
    resource: dict[str, Any] = field(default_factory=dict)


@dataclass
class Outcome:
    value: Any
    changes: list[Change] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    asks: list[Ask] = field(default_factory=list)  # what the judge is asked of the input (see `Ask`)

    _copied: bool = False

    def set(self, path: Path, value: Any) -> None:
        """Put `value` at `path` in the outcome, copying the input document first. A `value` that
        replaces the whole document needs no copy of it: every caller builds it from its own copy
        (it must never hold the input's containers)."""
        if not self._copied:
            self._copied = True
            if not path and value is not self.value:
                self.value = value
                return
            self.value = copy.deepcopy(self.value)
        self.value = _set(self.value, path, value)

    def delete(self, path: Path) -> None:
        """Remove the key at `path` (a mapping key) from the outcome, copying the input first."""
        if not self._copied:
            self.value = copy.deepcopy(self.value)
            self._copied = True
        parent = _get(self.value, path[:-1])
        if isinstance(parent, dict):
            parent.pop(path[-1], None)

    def ask(self, path: Path, stage: Stage | None, *, partial: bool = False, code: str = "", carry: int = 0) -> None:
        """Ask the judge about the input's object at `path`, its findings placed here, after those so far;
        the last `carry` changes carry the input's own errors over (see `Ask`)."""
        last = len(self.changes)
        self.asks.append(Ask(path, stage, partial, code, len(self.findings), tuple(range(last - carry, last))))

    @property
    def error(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)


def _set(doc: Any, path: Path, value: Any) -> Any:
    if not path:
        return value
    _get(doc, path[:-1])[path[-1]] = value
    return doc


def object_ref(obj: dict[str, Any]) -> str:
    meta = as_map(obj.get("metadata"))
    parts = [str(obj.get("kind") or ""), str(meta.get("namespace") or ""), str(meta.get("name") or "")]
    return "/".join(p for p in parts if p)
