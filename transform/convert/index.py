"""What the whole input set knows: which VM references which revision, and new revision names.

Built in a first pass over the candidate documents, so that a revision in one file and the VM
referencing it in another are handled consistently. Lookups are dicts: linear in the input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from transform.convert import payloads, revisions
from transform.convert.hints import NONE, Facts
from transform.convert.hints import Hints as FileHints
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
    claims: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (ns, new name) -> old names
    # the files (display names) that hold each revision --rename renames, and that reference each revision
    # (a VM's revisionName): what orders the stages of a run (`pipeline.upgrade.stages`)
    holders: dict[str, set[str]] = field(default_factory=dict)  # old name -> files
    referrers: dict[str, set[str]] = field(default_factory=dict)  # revision -> files
    # payloads decoded for --rename whose documents the upgrade reads in the same parse: id of `data` ->
    # (`data`, its decoding); taken by the upgrade (`take_decoded`), never merged across processes
    decoded: dict[int, tuple[Any, Decoding]] = field(default_factory=dict, repr=False, compare=False)
    # (ns, VM name, family, revision, path) of every VirtualMachine's revision reference (not a snapshot's)
    vm_refs: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    # references read from files outside the run (--context): revision -> [(ns, file)]; such a revision
    # keeps its name (renaming it would leave that file's reference dangling)
    outside_refs: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # what each container format gathers across the inputs, by the format's name (`convert.hints`;
    # `formats.registry.facts()` gives the run's): the index passes every document to them, never reads them
    facts: dict[str, Facts] = field(default_factory=dict)
    said: dict[str, FileHints] = field(default_factory=dict, repr=False, compare=False)  # `said_of`, by file

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
        self.said.clear()
        return any([f.add(doc, base=base, name=name, where=where) for f in self.facts.values()])

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
        self.vm_refs += later.vm_refs
        for mine_by, theirs_by in ((self.holders, later.holders), (self.referrers, later.referrers)):
            for rev, names in theirs_by.items():
                mine_by.setdefault(rev, set()).update(names)
        for rev, files in later.outside_refs.items():
            self.outside_refs.setdefault(rev, []).extend(files)
        self.said.clear()
        for key, facts in later.facts.items():
            if key in self.facts:
                self.facts[key].merge(facts)
            else:
                self.facts[key] = facts

    def said_of(self, file: str) -> FileHints:
        """What the container formats say of the documents of `file` (`convert.hints`; asked once the index
        is built, remembered by file)."""
        out = self.said.get(file)
        if out is None:
            out = NONE
            for facts in self.facts.values():
                out = out | facts.hints(file)
            self.said[file] = out
        return out

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
