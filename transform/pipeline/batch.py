"""The inputs of a run: read everything once (the one source of the file commands: files and stdin), index."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from transform.convert.kustomize import is_kustomization_file
from transform.model.findings import Finding, error, warning
from transform.model.limits import DEFAULT_MAX_DOCUMENT_BYTES, file_limit
from transform.pipeline.sources import (
    Input,
    InputError,
    Pin,
    Skipped,
    discover,
    read_file,
    read_file_pinned,
    read_stream,
)
from transform.yamltext import textio

if TYPE_CHECKING:  # the engine imports PyYAML: only pay for it when a file needs parsing
    from transform.convert.index import Index
    from transform.model.settings import Settings
    from transform.pipeline.parts import FileResult, Reading, Span
    from transform.yamltext.nodes import Document

# What the index reads: VMs that reference revisions, kustomizations, and (for --rename) revisions.
# Helm's release records (`release.v1`: their type and name) for which revision is the latest deployed.
INDEX_NEEDLES = (
    "revisionName",
    "controllerRevisionRef",
    "Kustomization",
    "Component",
    textio.HELM_NEEDLE,
    "ControllerRevision",
)


def index_needles(settings: Settings) -> tuple[str, ...]:
    return INDEX_NEEDLES if settings.rename else INDEX_NEEDLES[:5]


@dataclass
class Item:
    """One input: a file, stdin, a tar member or a ResourceList item."""

    name: str  # display name
    data: bytes
    input: Input | None = None
    # documents the index pass parsed that the upgrade pass reads too, by (start, end) of their chunk
    parsed: dict[tuple[int, int], Document] | None = None
    role: str = ""  # a Helm chart's template or values file (charts.TEMPLATE, charts.VALUES): read as text
    chart: str = ""  # that chart's directory
    pin: Pin | None = None  # the directory and file it was read from (a rewrite goes there or nowhere)
    reading: Reading | None = None  # how its documents are read, when not as a file's (a KRM ResourceList's items)


@dataclass
class RunResult:
    results: list[FileResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # not tied to one processed file
    files_seen: int = 0
    names: list[str] = field(default_factory=list)  # every file seen, in order (a JUnit test case each)
    jobs_note: str = ""  # how many worker processes the upgrade used, and why (--debug)

    @property
    def all_findings(self) -> list[Finding]:
        return self.findings + [f for r in self.results for f in r.findings]

    @property
    def failed(self) -> bool:
        return any(f.severity.value == "error" for f in self.all_findings)

    @property
    def changed(self) -> list[FileResult]:
        return [r for r in self.results if r.changed]


def read_sources(paths: list[str], settings: Settings, run: RunResult, found: list[str]) -> list[Item]:
    """The inputs of a file command: stdin (`["-"]`) or the files under `paths`, each read once within
    the size limits (`read_inputs`); `found`: every file read, candidate or not."""
    limit = file_limit(settings.max_document_bytes)
    if paths == ["-"]:
        run.files_seen = 1
        try:
            data = read_stream(sys.stdin.buffer, limit)
        except InputError as exc:
            run.findings.append(error("input.refused", f"stdin: {exc}"))
            return []
        # lazy: start-up: chart roles are asked only of candidates (a run with none never imports it)
        from transform.formats.helm_chart import roles as charts

        return [Item("<stdin>", data, None, None, *charts.role_of("", data))]
    items = read_inputs(_noted(discover(paths, settings.include, settings.exclude), found), run, limit)
    if not run.files_seen and not run.findings:
        run.findings.append(
            warning(
                "input.no-files",
                f"no files matched in {', '.join(paths)} (*.yaml, *.yml, *.json, and as *.j2"
                + (f"; --include {' '.join(settings.include)}" if settings.include else "")
                + (f"; --exclude {' '.join(settings.exclude)}" if settings.exclude else "")
                + ")",
                file=", ".join(paths),
            )
        )
    return items


def context_needles(items: list[Item], settings: Settings) -> tuple[str, ...]:
    """The index needles worth reading in the context for these inputs: kustomizations always (any object
    may be a patch); VM references (and with --rename revisions) only for an input with a revision (its
    kind, whether it may be renamed); everything for an input with a Helm release record."""
    wanted = index_needles(settings)
    if any(textio.holds_bytes(i.data, (textio.HELM_NEEDLE,)) for i in items):
        return wanted
    if any(textio.holds_bytes(i.data, ("ControllerRevision",)) for i in items):
        return tuple(n for n in wanted if n != textio.HELM_NEEDLE)
    return ("Kustomization", "Component")


def read_context(paths: tuple[str, ...], settings: Settings, named: Iterable[str], inputs: list[Item]) -> list[Item]:
    """--context: the files under `paths` that the index would read of them as inputs (same discovery,
    --include/--exclude, size limit and needles: those the `inputs` need), for the index only:
    never upgraded, reported or written. `named`: the paths of the run's own inputs, not read again (by
    real path). A file that cannot be read is left out without a word: it is no input of this run."""
    limit = file_limit(settings.max_document_bytes)
    skip = {os.path.realpath(p) for p in named}
    names = {os.path.basename(p) for p in skip}  # realpath only for these: it costs a stat per directory
    needles = context_needles(inputs, settings)
    items: list[Item] = []
    for entry in discover(list(paths), settings.include, settings.exclude):
        if isinstance(entry, Skipped):
            continue
        if os.path.basename(entry.path) in names and os.path.realpath(entry.path) in skip:
            continue
        try:
            data = read_file(entry.path, limit)
        except (InputError, OSError):
            continue
        if not (textio.is_candidate(data) or is_kustomization_file(entry.display)):
            continue
        if not (is_kustomization_file(entry.display) or textio.holds_bytes(data, needles)):
            continue
        # lazy: start-up: chart roles are asked only of candidates (a run with none never imports it)
        from transform.formats.helm_chart import roles as charts

        item = Item(entry.display, data, entry, None, *charts.role_of(entry.path, data))
        if reads_for_index(item, settings):  # not a chart's templates and values: text, not objects
            items.append(item)
    return items


def _noted(found: Iterable[Input | Skipped], paths: list[str]) -> Iterator[Input | Skipped]:
    for entry in found:
        if isinstance(entry, Input):
            paths.append(entry.path)
        yield entry


def read_inputs(
    found: Iterable[Input | Skipped], run: RunResult, limit: int = file_limit(DEFAULT_MAX_DOCUMENT_BYTES)
) -> list[Item]:
    """Read every file once, at most `limit` bytes each. Non-candidates are only checked for being text,
    then dropped."""
    items: list[Item] = []
    for entry in found:
        if isinstance(entry, Skipped):
            run.findings.append((warning if entry.warn else error)("input.skipped", entry.reason, file=entry.display))
            continue
        run.files_seen += 1
        run.names.append(entry.display)
        try:
            data, pin = read_file_pinned(entry.path, limit)
        except InputError as exc:
            run.findings.append(error("input.refused", str(exc), file=entry.display))
            continue
        except OSError as exc:
            run.findings.append(error("input.unreadable", f"cannot read: {exc.strerror or exc}", file=entry.display))
            continue
        if not textio.is_candidate(data) and not is_kustomization_file(entry.display):
            try:
                textio.check_text(data)
            except textio.ReadError as exc:
                run.findings.append(error("input.encoding", str(exc), file=entry.display))
            continue
        # lazy: start-up: chart roles are asked only of candidates (a run with none never imports it)
        from transform.formats.helm_chart import roles as charts

        items.append(Item(entry.display, data, entry, None, *charts.role_of(entry.path, data), pin=pin))
    return items


# At most this much document text is kept parsed between the index pass and the upgrade pass
# (plain values only: a node tree is composed again only for a document that is edited or reported).
KEEP_PARSED_BYTES = 2 * 1024 * 1024


@dataclass
class IndexDoc:
    """A document the index reads, as the index pass found it (in this process or in a worker)."""

    key: tuple[int, int]  # (start, end) of its chunk
    value: Any
    text: str | None  # its text when the upgrade pass reads it too (see `build_index`'s `keep`)
    duplicates: bool = False  # duplicate keys: kept, its node tree is composed again when reported


def reads_for_index(item: Item, settings: Settings) -> bool:
    """Does the index read this input? Kustomizations, and files with a marker it looks for (not a chart's
    templates and values: text, not objects)."""
    if item.role:
        return False
    return is_kustomization_file(item.name) or textio.holds_bytes(item.data, index_needles(settings))


def index_documents(
    item: Item, settings: Settings, source: textio.Source | None = None, span: Span | None = None
) -> Iterator[IndexDoc]:
    """The documents of an input (of `span` of it) that the index reads, one at a time."""
    # lazy: start-up: the parsing stack is imported only once a file is a candidate
    from transform.pipeline.onefile import iter_documents

    kustomization = is_kustomization_file(item.name)
    if source is None and item.reading is not None:
        source, span = item.reading.source, item.reading.span
    if source is None:
        try:
            source = textio.decode(item.data)
        except textio.ReadError:
            return
    needles = ("",) if kustomization else index_needles(settings)
    known = dict(item.parsed) if item.parsed else None  # parsed by the caller (krm): not again
    for pd in iter_documents(item.name, source, settings, [], needles, known, span):
        if pd.doc is None:
            continue
        upgraded = kustomization or textio.holds(pd.text, textio.NEEDLES_STR)
        text = pd.text if upgraded else None
        yield IndexDoc((pd.chunk.start, pd.chunk.end), pd.doc.value, text, upgraded and bool(pd.doc.duplicates))


# Who indexes the documents of the wanted inputs (given their positions) when it is not this process:
# `parallel.Plan.index_pass` has worker processes do it and merges their indexes in input order.
Reader = Callable[[list[int]], "Index"]
Kept = dict[tuple[int, int], tuple[Any, str, bool]]  # chunk -> (value, text, duplicate keys)


def build_index(
    items: list[Item],
    settings: Settings,
    keep: bool = False,
    reader: Reader | None = None,
    context: Iterable[Item] = (),
) -> Index:
    """The cross-file index. `keep`: the upgrade pass follows; each document it would parse again
    is kept (`Item.parsed`, up to KEEP_PARSED_BYTES of text in all) so that it is parsed once.
    `reader`: who indexes the documents (the workers keep their share of the documents).
    `context`: files read for the index only (`read_context`), indexed here, after the inputs."""
    # lazy: start-up: the parsing stack is imported only once a file is a candidate
    from transform.convert.index import Index

    wanted = [n for n, item in enumerate(items) if reads_for_index(item, settings)]
    if reader is not None:
        index = reader(wanted)
    else:
        index = Index()
        budget = KEEP_PARSED_BYTES if keep else 0
        for n in wanted:
            kept: Kept = {}
            budget = add_documents(index, items[n], index_documents(items[n], settings), settings, budget, kept)
            if kept:
                items[n].parsed = {**(items[n].parsed or {}), **kept_documents(kept)}
    for item in context:
        add_documents(index, item, index_documents(item, settings), settings, 0, {}, outside=True)
    if index.kustomization_resources:
        index.inputs = [os.path.abspath(i.name) for i in items if i.input]
        index.resolve_partial()
    _patch_names(index, items)
    return index


def add_documents(
    index: Index,
    item: Item,
    docs: Iterable[IndexDoc],
    settings: Settings,
    budget: int,
    kept: Kept,
    outside: bool = False,
) -> int:
    """Index an input's documents, in order; put in `kept` those the upgrade reads too, while they fit
    in `budget` bytes of text. The budget left. `outside`: a --context file (its patches keyed by
    absolute path only: a path relative to another root could name an input by chance)."""
    kustomization = is_kustomization_file(item.name)
    base = item.input.rel if item.input and item.input.root else item.name
    where = os.path.abspath(item.name) if item.input and kustomization else ""
    if outside:
        base = os.path.abspath(item.name)
    context_file = item.name if outside else ""
    for d in docs:
        keep = d.text is not None and len(d.text) <= budget
        index.add_document(
            d.value,
            rename=settings.rename,
            base=base,
            name=item.name,
            where=where,
            outside=context_file,
            keep=keep and not outside,  # (a --context file is never upgraded: its decodings are not kept)
        )
        if d.text is not None and keep:
            budget -= len(d.text)
            kept[d.key] = (d.value, d.text, d.duplicates)
    return budget


def kept_documents(kept: Kept) -> dict[tuple[int, int], Document]:
    """The kept documents as the upgrade reads them: the value is all it needs until it edits or reports
    (then the node tree is composed again)."""
    # lazy: start-up: the parsing stack is imported only once a file is a candidate
    from transform.yamltext.nodes import Document

    return {key: Document(None, value, None if dup else [], text) for key, (value, text, dup) in kept.items()}


def _patch_names(index: Index, items: list[Item]) -> None:
    """Kustomizations name patches relative to themselves: key them by display name too."""
    if not index.patch_files:
        return
    for item in items:
        rel = item.input.rel if item.input and item.input.root else item.name
        for key in (rel.replace(os.sep, "/"), os.path.abspath(item.name).replace(os.sep, "/")):
            for names in (index.patch_files, index.target_patch_files):
                if key in names:
                    names.add(item.name)
            if key in index.untargeted_patch_files:
                index.untargeted_patch_files.setdefault(item.name, set()).update(index.untargeted_patch_files[key])
