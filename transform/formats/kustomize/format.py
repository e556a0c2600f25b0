"""kustomize as a container format (`formats.base.Format`): the rules for Kustomizations and Components,
a patch file's JSON6902 operations and a pinned patch (`kinds`), and the facts its kustomizations give
(`facts.KustomizeFacts`). Its files are plain YAML streams: nothing is read as text."""

from __future__ import annotations

from typing import ClassVar

from transform.convert.hints import Facts
from transform.convert.outcome import Change
from transform.convert.visit import OPERATIONS, PINNED, Rules, Visit
from transform.formats.base import Format
from transform.formats.kustomize import kustomization
from transform.formats.kustomize.facts import PARTIAL_TREE, REMOTE, KustomizeFacts, is_kustomization_kind


def _kustomization(v: Visit) -> None:
    """A Kustomization or a Component (or, by its file name, a kustomization without kind and apiVersion):
    its patch targets and inline patches."""
    if v.obj.get("kind") is not None and not (is_kustomization_kind(v.obj) and v.api is not None):
        return
    partial, remote = PARTIAL_TREE in v.hints.owned, REMOTE in v.hints.owned
    result = kustomization.upgrade_kustomization(v.obj, v.targets, partial=partial, remote=remote)
    if result is None:
        return
    new, found = result
    v.out.findings.extend(found)
    if new != v.obj:
        v.out.set(v.path, new)
        v.out.changes.append(Change(v.path))


def _operations(v: Visit) -> None:
    """A JSON6902 patch file that a kustomization lists: its ops' whole-object values."""
    kustomization.json6902_file(v.out, v.out.value, v.targets)


def _pinned(v: Visit) -> None:
    v.out.findings.extend(kustomization.pinned_patch(str(v.api), str(v.obj.get("kind")), v.targets))


class Kustomize(Format):
    name = "kustomize"
    index_needles = ("Kustomization", "Component")
    always = True
    kinds: ClassVar[Rules] = {
        "Kustomization": _kustomization,
        "Component": _kustomization,
        OPERATIONS: _operations,
        PINNED: _pinned,
    }

    def facts(self) -> Facts:
        return KustomizeFacts()


FORMAT = Kustomize()
