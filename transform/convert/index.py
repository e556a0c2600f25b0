"""What the whole input set knows: which VM references which revision, and new revision names.

Built in a first pass over the candidate documents, so that a revision in one file and the VM
referencing it in another are handled consistently. Lookups are dicts: linear in the input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from transform.convert import helmrelease, payloads, revisions
from transform.convert.kustomize import is_kustomization_file
from transform.convert.revisions import Decoding
from transform.kubevirt import releases
from transform.model.findings import Finding, warning
from transform.model.plain import get as _get

Hints = revisions.Hints

REF_PATHS = releases.REVISION_REFS  # where a VM names its revisions (transform.kubevirt.releases)


def namespace_of(doc: dict[str, Any]) -> str:
    meta = doc.get("metadata")
    return str(meta.get("namespace") or "") if isinstance(meta, dict) else ""


@dataclass
class Index:
    renames: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # old name -> [(ns, new)]
    refs: dict[str, list[tuple[str, Hints]]] = field(default_factory=dict)  # revision -> [(ns, hints)]
    revisions: dict[str, list[str]] = field(default_factory=dict)  # name -> [ns]
    patch_files: set[str] = field(default_factory=set)  # files a kustomization lists as patches
    # files listed as patches only with a `target` (kustomize ignores their own group/version/kind)
    target_patch_files: set[str] = field(default_factory=set)
    # files listed as patches without a `target` -> the kustomizations (display names) that list them
    untargeted_patch_files: dict[str, set[str]] = field(default_factory=dict)
    # partial trees: kustomization (display name) -> the absolute paths of its local resources
    # ("" for a remote one); `inputs`: the absolute paths of every input; see `partial()`
    kustomization_resources: dict[str, list[str]] = field(default_factory=dict)
    inputs: list[str] = field(default_factory=list)
    partial_kustomizations: set[str] = field(default_factory=set)
    remote_kustomizations: set[str] = field(default_factory=set)  # with a remote resource (a URL)
    claims: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (ns, new name) -> old names
    # the files (display names) that hold each revision --rename renames, and that reference each revision
    # (a VM's revisionName): what orders the stages of a run (`pipeline.upgrade.stages`)
    holders: dict[str, set[str]] = field(default_factory=dict)  # old name -> files
    referrers: dict[str, set[str]] = field(default_factory=dict)  # revision -> files
    # payloads decoded for --rename whose documents the upgrade reads in the same parse: id of `data` ->
    # (`data`, its decoding); taken by the upgrade (`take_decoded`), never merged across processes
    decoded: dict[int, tuple[Any, Decoding]] = field(default_factory=dict, repr=False, compare=False)
    helm_deployed: dict[tuple[str, str], int] = field(default_factory=dict)  # (ns, release) -> latest deployed
    # (ns, VM name, family, revision, path) of every VirtualMachine's revision reference (not a snapshot's)
    vm_refs: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    # references read from files outside the run (--context): revision -> [(ns, file)]; such a revision
    # keeps its name (renaming it would leave that file's reference dangling)
    outside_refs: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def add_document(
        self,
        doc: Any,
        *,
        rename: bool,
        base: str = "",
        name: str = "",
        where: str = "",
        outside: str = "",
        keep: bool = False,
    ) -> bool:
        """Index one document. `name`/`where`: the file's display name and absolute path, when it
        is a file (kustomization resources are resolved against it). `outside`: the display name of a
        file read for the index only (--context): its revisions are never renamed, its references keep
        the revisions they name from being renamed. Returns whether the path was used: if not, the same
        document indexed again, under any path, adds nothing new. `keep`: the upgrade reads this very
        value (the parse is kept): a payload decoded here is kept for it."""
        if not isinstance(doc, dict):
            return False
        kind = doc.get("kind")
        if isinstance(doc.get("items"), list) and str(kind).endswith("List"):
            used = [
                self.add_document(item, rename=rename, base=base, name=name, outside=outside, keep=keep)
                for item in doc["items"]
            ]
            return any(used)
        ns = namespace_of(doc)
        if kind == "VirtualMachine":
            self._add_vm(doc, ns, own=not outside, outside=outside, file=name)
        elif kind == "VirtualMachineSnapshotContent":
            vm = _get(doc, ("spec", "source", "virtualMachine"))
            if isinstance(vm, dict):
                self._add_vm(vm, namespace_of(vm) or ns, outside=outside, file=name)
        elif kind == "ControllerRevision" and payloads.is_ours(doc):
            old = str(_get(doc, ("metadata", "name")) or "")
            self.revisions.setdefault(old, []).append(ns)
            if rename:
                new, decoded = revisions.planned_name(doc)
                if keep:
                    self.decoded[id(doc.get("data"))] = (doc.get("data"), decoded)
                if new and new != old:
                    if not outside:  # a revision outside the run keeps its name in this run
                        self.renames.setdefault(old, []).append((ns, new))
                        self.holders.setdefault(old, set()).add(name)
                    self.claims.setdefault((ns, new), set()).add(old)
        elif kind in ("Secret", "ConfigMap") and helmrelease.driver(doc):
            ns, release, version, status = helmrelease.labels(doc)
            if status in ("deployed", "") and version is not None:
                rkey = (ns, release)
                self.helm_deployed[rkey] = max(version, self.helm_deployed.get(rkey, version))
        elif is_kustomization_kind(doc) or (kind is None and doc.get("apiVersion") is None):
            base = own_file(doc, base)  # an item of a ResourceList: its file
            if kind is not None or _is_kustomization(base):  # by its file name
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
        return False

    def merge(self, later: Index) -> None:
        """Add what `later` indexed: the documents that follow this index's in input order (worker
        processes index runs of documents; merged in order, the result is the index of them all)."""
        lists: list[tuple[dict[str, list[Any]], dict[str, list[Any]]]] = [
            (self.renames, later.renames),
            (self.refs, later.refs),
            (self.revisions, later.revisions),
        ]
        for mine, theirs in lists:
            for key, entries in theirs.items():
                mine.setdefault(key, []).extend(entries)
        for pair, olds in later.claims.items():
            self.claims.setdefault(pair, set()).update(olds)
        self.patch_files |= later.patch_files
        self.target_patch_files |= later.target_patch_files
        for patch, owners in later.untargeted_patch_files.items():
            self.untargeted_patch_files.setdefault(patch, set()).update(owners)
        self.kustomization_resources.update(later.kustomization_resources)
        self.partial_kustomizations |= later.partial_kustomizations
        self.remote_kustomizations |= later.remote_kustomizations
        self.inputs += later.inputs
        self.vm_refs += later.vm_refs
        for mine_by, theirs_by in ((self.holders, later.holders), (self.referrers, later.referrers)):
            for rev, names in theirs_by.items():
                mine_by.setdefault(rev, set()).update(names)
        for rev, files in later.outside_refs.items():
            self.outside_refs.setdefault(rev, []).extend(files)
        for rkey, version in later.helm_deployed.items():
            self.helm_deployed[rkey] = max(version, self.helm_deployed.get(rkey, version))

    def latest_release(self, ns: str, release: str, version: int | None, status: str) -> bool:
        """Is this Helm release record the latest deployed revision of its release among the inputs?"""
        if status not in ("deployed", ""):
            return False
        return version is None or version >= self.helm_deployed.get((ns, release), version)

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

    def _add_vm(self, vm: dict[str, Any], ns: str, own: bool = False, outside: str = "", file: str = "") -> None:
        name = str(_get(vm, ("metadata", "name")) or "")
        for family, paths in REF_PATHS.items():
            for path in paths:
                matcher = _get(vm, path[:2] if path[0] == "spec" else ("spec", family))
                kind = matcher.get("kind") if isinstance(matcher, dict) else None
                rev = _get(vm, path)
                if isinstance(rev, str) and rev:
                    hints = revisions.Hints(family, str(kind or ""), name)
                    self.refs.setdefault(rev, []).append((ns, hints))
                    if file and not outside:
                        self.referrers.setdefault(rev, set()).add(file)
                    if own:
                        self.vm_refs.append((ns, name, family, rev, ".".join(path)))
                    if outside:
                        self.outside_refs.setdefault(rev, []).append((ns, outside))

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

    @staticmethod
    def _match(entries: list[tuple[str, Any]], ns: str) -> Any:
        hits = [v for n, v in entries if n == ns or not n or not ns]
        return hits[0] if len(hits) == 1 or (hits and all(h == hits[0] for h in hits)) else None

    def new_name(self, name: str, ns: str) -> str | None:
        new: str | None = self._match(self.renames.get(name, []), ns)
        return None if new is None or self.collision(ns, new) or self.outside_run(name, ns) else new

    def outside_run(self, name: str, ns: str) -> list[str]:
        """The files outside the run (--context) that reference the revision `name` of namespace `ns`."""
        return sorted({f for n, f in self.outside_refs.get(name, []) if n == ns or not n or not ns})

    def collision(self, ns: str, new: str) -> str:
        """Why --rename must not give a revision the name `new` (another revision has or gets it), or ""."""
        olds = self.claims.get((ns, new), set())
        if len(olds) > 1:
            return f"revisions {', '.join(sorted(olds))} would all be renamed to {new}"
        if ns in self.revisions.get(new, []):
            return f"a revision named {new} is already in the inputs"
        return ""

    def collisions(self) -> list[str]:
        return [why for ns, new in sorted(self.claims) if (why := self.collision(ns, new))]

    def take_decoded(self, data: Any) -> Decoding | None:
        """The decoding of this very payload (`data`, by identity) the index made, once (see `add_document`)."""
        entry = self.decoded.pop(id(data), None)
        return entry[1] if entry is not None and entry[0] is data else None

    def about(self, revision: dict[str, Any], name: str, ns: str) -> dict[str, Any]:
        """What the index knows of a revision, as `revisions.upgrade_revision` takes it: the hints its
        references give, and (--rename) its payload's decoding, made by the index for this very document."""
        return {"hints": self.hints(name, ns), "decoded": self.take_decoded(revision.get("data"))}

    def hints(self, name: str, ns: str) -> Hints:
        return self._match(self.refs.get(name, []), ns) or revisions.Hints()

    def referenced(self, name: str) -> bool:
        return name in self.refs


def kept_name(name: str, files: list[str]) -> Finding:
    """The warning of a revision --rename leaves as it is named: `files`, outside the run, reference it."""
    return warning(
        "reference.outside-run",
        f"upgraded, keeping the name {name}: {', '.join(files)} references it and is read for the index only "
        "(--context), not upgraded in this run, so --rename cannot rewrite its reference; to rename the revision "
        "and every reference together, restore this file and run `instancetype-upgrade fix --rename` on the whole "
        "tree (an upgraded revision is not renamed again)",
        ("metadata", "name"),
    )


def _list(value: Any) -> list[Any]:
    """A list field of a hand-written file: anything else (`patches: 5`) reads as empty here and is
    judged by the kustomization's own checks."""
    return value if isinstance(value, list) else []


def _remote(resource: str) -> bool:
    return "://" in resource or resource.startswith(("github.com/", "git@", "ssh:"))


def _is_kustomization(name: str) -> bool:

    return is_kustomization_file(name)


PATH_ANNOTATIONS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")


def own_file(doc: Any, name: str) -> str:
    """The file a document came from: `name`, or for an item of a ResourceList (`<ResourceList>`: kpt,
    kustomize functions) the file its orchestrator's path annotation names (kustomizations name their
    patches relative to it)."""
    if not name.startswith("<") or not isinstance(doc, dict):
        return name
    meta = doc.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if not isinstance(annotations, dict):
        return name
    path = next((str(annotations[k]) for k in PATH_ANNOTATIONS if annotations.get(k) not in (None, "")), "")
    return path or name


def is_kustomization_kind(doc: dict[str, Any]) -> bool:
    """A `Kustomization` or a `Component`: kustomize reads both's resources, patches and components alike."""
    return (
        doc.get("kind") in ("Kustomization", "Component")
        and str(doc.get("apiVersion") or "").startswith("kustomize.config.k8s.io/")
        or (doc.get("kind") == "Kustomization" and doc.get("apiVersion") is None)
    )


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
