"""What kustomize says across the inputs: the files its kustomizations and Components list as patches (read
as partial objects), those matched only by a `target`, and which kustomizations are partial trees (a
resource with no input at or under it) or have a remote resource. Gathered by the index pass
(`convert.hints.Facts`), answered per file as `Hints`."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from transform.convert.hints import NONE, Hints
from transform.convert.index import own_file
from transform.formats.kustomize.kustomization import is_kustomization_file

PARTIAL_TREE, REMOTE = "kustomize.partial-tree", "kustomize.remote"  # Hints.owned flags of a kustomization


@dataclass
class KustomizeFacts:
    patch_files: set[str] = field(default_factory=set)  # files a kustomization lists as patches
    # files listed as patches only with a `target` (kustomize ignores their own group/version/kind)
    target_patch_files: set[str] = field(default_factory=set)
    # files listed as patches without a `target` -> the kustomizations (display names) that list them
    untargeted_patch_files: dict[str, set[str]] = field(default_factory=dict)
    # partial trees: kustomization (display name) -> the absolute paths of its local resources
    # ("" for a remote one); `inputs`: the absolute paths of every input; see `resolve_partial()`
    kustomization_resources: dict[str, list[str]] = field(default_factory=dict)
    inputs: list[str] = field(default_factory=list)
    partial_kustomizations: set[str] = field(default_factory=set)
    remote_kustomizations: set[str] = field(default_factory=set)  # with a remote resource (a URL)

    def add(self, doc: dict[str, Any], *, base: str, name: str, where: str) -> bool:
        kind = doc.get("kind")
        if not (is_kustomization_kind(doc) or (kind is None and doc.get("apiVersion") is None)):
            return False
        base = own_file(doc, base)  # an item of a ResourceList: its file
        if kind is None and not is_kustomization_file(base):  # by its file name
            return True
        self._add_kustomization(doc, base, name)
        if where:  # the patches by absolute path too: a `../` path out of the input's root
            self._add_kustomization(doc, where, name)
        if name and where:
            directory = where.replace("\\", "/").rsplit("/", 1)[0]
            self.kustomization_resources[name] = [
                "" if _remote(r) else _norm(directory + "/" + r)
                for r in _list(doc.get("resources")) + _list(doc.get("bases"))
                if isinstance(r, str)
            ]
        return True

    def merge(self, later: KustomizeFacts) -> None:
        self.patch_files |= later.patch_files
        self.target_patch_files |= later.target_patch_files
        for patch, owners in later.untargeted_patch_files.items():
            self.untargeted_patch_files.setdefault(patch, set()).update(owners)
        self.kustomization_resources.update(later.kustomization_resources)
        self.partial_kustomizations |= later.partial_kustomizations
        self.remote_kustomizations |= later.remote_kustomizations
        self.inputs += later.inputs

    def settle(self, files: list[tuple[str, str, bool]]) -> None:
        if self.kustomization_resources:
            self.inputs = [os.path.abspath(name) for name, _, read in files if read]
            self.resolve_partial()
        self._patch_names(files)

    def hints(self, file: str) -> Hints:
        named = is_kustomization_file(file)
        if not (named or file in self.patch_files or file in self.kustomization_resources):
            return NONE
        owned = frozenset(
            flag
            for flag, names in ((PARTIAL_TREE, self.partial_kustomizations), (REMOTE, self.remote_kustomizations))
            if file in names
        )
        return Hints(
            partial=file in self.patch_files,
            target_patch=self.is_target_patch(file),
            pinned=self.pinned_patch(file),
            kind="Kustomization" if named else None,
            owned=owned,
        )

    def resolve_partial(self) -> None:
        """A kustomization is partial when one of its resources has no input at or under it (a
        pre-commit run that staged only an overlay): its patch targets must keep matching the
        resources both before and after they are upgraded."""
        covered: set[str] = set()  # every input and every directory above one
        for p in self.inputs:
            p = _norm(p)
            covered.add(p)
            cut = p.find("/")
            while cut >= 0:
                covered.add(p[:cut])
                cut = p.find("/", cut + 1)
        for name, resources in self.kustomization_resources.items():
            if "" in resources:
                self.remote_kustomizations.add(name)
            for r in resources:
                if not r or r not in covered:
                    self.partial_kustomizations.add(name)
                    break

    def _add_kustomization(self, doc: dict[str, Any], base: str, owner: str = "") -> None:
        """The patch files of a Kustomization or a Component, relative to `base` (the kustomization's
        own file name or path): kustomize reads each as a partial object, wherever it sits."""
        prefix = base.replace("\\", "/").rsplit("/", 1)[0] + "/" if "/" in base.replace("\\", "/") else ""
        absolute = prefix.startswith("/")
        for entry in _list(doc.get("patchesStrategicMerge")):
            if isinstance(entry, str) and "\n" not in entry:
                self.patch_files.add(_norm(prefix + entry, absolute))
                self.untargeted_patch_files.setdefault(_norm(prefix + entry, absolute), set()).add(owner)
        for key in ("patches", "patchesJson6902"):
            for entry in _list(doc.get(key)):
                if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                    name = _norm(prefix + entry["path"], absolute)
                    self.patch_files.add(name)
                    targeted = isinstance(entry.get("target"), dict) and bool(entry["target"])
                    if targeted:
                        self.target_patch_files.add(name)
                    else:
                        self.untargeted_patch_files.setdefault(name, set()).add(owner)

    def is_target_patch(self, name: str) -> bool:
        """Is the file listed as a patch only with a `target` (its own group/version/kind ignored)?"""
        return name in self.target_patch_files and name not in self.untargeted_patch_files

    def pinned_patch(self, name: str) -> bool:
        """Is the file a patch without `target` of a kustomization with a remote resource? kustomize matches
        it by group/version/kind, and the resource it patches stays at its version: it must keep it too."""
        return any(o in self.remote_kustomizations for o in self.untargeted_patch_files.get(name, ()))

    def _patch_names(self, files: list[tuple[str, str, bool]]) -> None:
        """Kustomizations name patches relative to themselves: key them by display name too."""
        if not self.patch_files:
            return
        for name, rel, _ in files:
            for key in (rel.replace(os.sep, "/"), os.path.abspath(name).replace(os.sep, "/")):
                for names in (self.patch_files, self.target_patch_files):
                    if key in names:
                        names.add(name)
                if key in self.untargeted_patch_files:
                    self.untargeted_patch_files.setdefault(name, set()).update(self.untargeted_patch_files[key])


def is_kustomization_kind(doc: dict[str, Any]) -> bool:
    """A `Kustomization` or a `Component`: kustomize reads both's resources, patches and components alike."""
    return (
        doc.get("kind") in ("Kustomization", "Component")
        and str(doc.get("apiVersion") or "").startswith("kustomize.config.k8s.io/")
        or (doc.get("kind") == "Kustomization" and doc.get("apiVersion") is None)
    )


def _list(value: Any) -> list[Any]:
    """A list field of a hand-written file: anything else (`patches: 5`) reads as empty here and is
    judged by the kustomization's own checks."""
    return value if isinstance(value, list) else []


def _remote(resource: str) -> bool:
    return "://" in resource or resource.startswith(("github.com/", "git@", "ssh:"))


def _norm(path: str, absolute: bool = False) -> str:
    parts: list[str] = []
    for p in path.replace("\\", "/").split("/"):
        if p in ("", "."):
            continue
        if p == ".." and parts and parts[-1] != "..":
            parts.pop()
        else:
            parts.append(p)
    return ("/" if absolute else "") + "/".join(parts)
