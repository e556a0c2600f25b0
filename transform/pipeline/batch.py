"""Run the engine over a set of inputs: read everything once, index, upgrade candidates."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from transform.convert.kustomize import is_kustomization_file
from transform.model.findings import Finding, error, warning
from transform.model.limits import DEFAULT_MAX_DOCUMENT_BYTES, file_limit
from transform.pipeline.sources import Input, InputError, Skipped, read_file
from transform.yamltext import textio

if TYPE_CHECKING:  # the engine imports PyYAML: only pay for it when a file needs parsing
    from transform.convert.index import Index
    from transform.model.settings import Settings
    from transform.pipeline.onefile import FileResult
    from transform.yamltext.nodes import Document

# What the index reads: VMs that reference revisions, kustomizations, and (for --rename) revisions.
INDEX_NEEDLES = ("revisionName", "controllerRevisionRef", "Kustomization", "ControllerRevision")


def index_needles(settings: Settings) -> tuple[str, ...]:
    return INDEX_NEEDLES if settings.rename else INDEX_NEEDLES[:3]


@dataclass
class Item:
    """One input: a file, stdin, a tar member or a ResourceList item."""

    name: str  # display name
    data: bytes
    input: Input | None = None
    # documents the index pass parsed that the upgrade pass reads too, by (start, end) of their chunk
    parsed: dict[tuple[int, int], Document] | None = None


@dataclass
class RunResult:
    results: list[FileResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # not tied to one processed file
    files_seen: int = 0
    names: list[str] = field(default_factory=list)  # every file seen, in order (a JUnit test case each)

    @property
    def all_findings(self) -> list[Finding]:
        return self.findings + [f for r in self.results for f in r.findings]

    @property
    def failed(self) -> bool:
        return any(f.severity.value == "error" for f in self.all_findings)

    @property
    def changed(self) -> list[FileResult]:
        return [r for r in self.results if r.changed]


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
            data = read_file(entry.path, limit)
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
        items.append(Item(entry.display, data, entry))
    return items


# At most this much document text is kept parsed between the index pass and the upgrade pass
# (plain values only: a node tree is composed again only for a document that is edited or reported).
KEEP_PARSED_BYTES = 2 * 1024 * 1024


def build_index(items: list[Item], settings: Settings, keep: bool = False) -> Index:
    """The cross-file index. `keep`: the upgrade pass follows; each document it would parse again
    is kept (`Item.parsed`, up to KEEP_PARSED_BYTES of text in all) so that it is parsed once."""
    # lazy: start-up: the parsing stack is imported only once a file is a candidate
    from transform.convert.index import Index
    from transform.pipeline.onefile import iter_documents
    from transform.yamltext.nodes import Document

    index = Index()
    needles = index_needles(settings)
    raw = tuple(n.encode() for n in needles)
    budget = KEEP_PARSED_BYTES if keep else 0
    for item in items:
        kustomization = is_kustomization_file(item.name)
        if not kustomization and not any(n in item.data for n in raw):
            continue
        try:
            source = textio.decode(item.data)
        except textio.ReadError:
            continue
        base = item.input.rel if item.input and item.input.root else item.name
        where = os.path.abspath(item.name) if item.input and kustomization else ""
        known = dict(item.parsed) if item.parsed else None  # parsed by the caller (krm): not again
        for pd in iter_documents(item.name, source, settings, [], ("",) if kustomization else needles, known):
            if pd.doc is None:
                continue
            index.add_document(pd.doc.value, rename=settings.rename, base=base, name=item.name, where=where)
            if len(pd.text) <= budget and (kustomization or any(n in pd.text for n in textio.NEEDLES_STR)):
                budget -= len(pd.text)
                # without duplicate keys, the value is all the upgrade needs until it edits or reports
                doc = pd.doc if pd.doc.duplicates else Document(None, pd.doc.value, [], pd.text)
                item.parsed = item.parsed or {}
                item.parsed[(pd.chunk.start, pd.chunk.end)] = doc
    if index.kustomization_resources:
        index.inputs = [os.path.abspath(i.name) for i in items if i.input]
        index.resolve_partial()
    _patch_names(index, items)
    return index


def _patch_names(index: Index, items: list[Item]) -> None:
    """Kustomizations name patches relative to themselves: key them by display name too."""
    if not index.patch_files:
        return
    for item in items:
        rel = item.input.rel if item.input and item.input.root else item.name
        if rel.replace(os.sep, "/") in index.patch_files:
            index.patch_files.add(item.name)


def upgrade_items(
    items: list[Item],
    settings: Settings,
    run: RunResult,
    progress: Callable[[int, int], None] | None = None,
    jobs: int = 1,
) -> Index:
    # lazy: start-up: the parsing stack is imported only once a file is a candidate
    from transform.pipeline.onefile import upgrade_file

    index = build_index(items, settings, keep=True)
    results = _upgrade_all(items, settings, index, jobs, progress)
    if index.renames:
        # A revision whose file failed keeps its old name: VMs must keep pointing at it.
        done = {old for r in results if not r.failed for _, old, _ in r.renames}
        failed = {old for old in index.renames if old not in done}
        if failed:
            for old in failed:
                del index.renames[old]
            results = [
                upgrade_file(item.name, item.data, settings, index)
                if any(f.code == "reference.renamed" for f in r.findings)
                else r
                for item, r in zip(items, results, strict=False)
            ]
    run.results.extend(results)
    return index


PARALLEL_MIN_BYTES = 2 * 1024 * 1024  # below this, starting workers costs more than it saves


# What forked workers read (inherited, never pickled): the items, the settings and the index.
_SHARED: tuple[list[Item], Settings, Index] | None = None


def _work(args: int | tuple[str, bytes, Settings, Index]) -> FileResult:
    # lazy: start-up: the parsing stack is imported only once a file is a candidate
    from transform.pipeline.onefile import upgrade_file

    if isinstance(args, int):  # forked: the index of an item in _SHARED
        assert _SHARED is not None
        items, settings, index = _SHARED
        name, data, parsed = _take(items[args])
        return upgrade_file(name, data, settings, index, parsed)
    return upgrade_file(*args)


def _take(item: Item) -> tuple[str, bytes, dict[tuple[int, int], Document] | None]:
    """An item's name, bytes and parsed documents, dropped from the item: used once, then freed."""
    parsed, item.parsed = item.parsed, None
    return item.name, item.data, parsed


def default_jobs(items: list[Item]) -> int:
    """Workers for `-j 0` (the default): one process unless the work is large, spread over several
    files, and CPUs are actually free (affinity, minus the load average: another job on the machine,
    as in CI or beside pre-commit, takes its share). Never more than the candidates can use."""
    sizes = [len(i.data) for i in items]
    total = sum(sizes)
    if len(items) < 2 or total < PARALLEL_MIN_BYTES:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):
        busy = 0.0
    free = int(cpus - busy + 0.5)
    # a file is not split: when one file is most of the work, a second process mostly waits
    useful = max(1, int(total / max(sizes)))
    return max(1, min(cpus, free, useful))


def _worker_init(parent: int) -> None:
    """A worker exits when its parent dies (killed mid-run), rather than outliving it."""
    import signal
    import threading

    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        import time

        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _upgrade_all(
    items: list[Item],
    settings: Settings,
    index: Index,
    jobs: int,
    progress: Callable[[int, int], None] | None,
) -> list[FileResult]:
    """Results in input order whatever the scheduling; worker processes only for large runs."""
    # lazy: start-up: the parsing stack is imported only once a file is a candidate
    from transform.pipeline.onefile import upgrade_file

    total = sum(len(i.data) for i in items)
    if jobs == 0:
        jobs = default_jobs(items)
    if jobs <= 1 or len(items) < 2 or total < PARALLEL_MIN_BYTES:
        out = []
        for n, item in enumerate(items):
            name, data, parsed = _take(item)
            out.append(upgrade_file(name, data, settings, index, parsed))
            if progress:
                progress(n + 1, len(items))
        return out
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    global _SHARED
    # fork where the platform has it: a worker starts with the parent's modules, items and index
    # (no re-import, no pickling of the inputs); elsewhere the arguments travel to spawned workers.
    fork = "fork" in multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if fork else None)
    tasks: list[Any] = list(range(len(items))) if fork else [(i.name, i.data, settings, index) for i in items]
    _SHARED = (items, settings, index) if fork else None
    try:
        with ProcessPoolExecutor(
            max_workers=jobs, mp_context=context, initializer=_worker_init, initargs=(os.getpid(),)
        ) as pool:
            out = []
            for n, res in enumerate(pool.map(_work, tasks, chunksize=8)):
                out.append(res)
                if progress:
                    progress(n + 1, len(items))
            return out
    finally:
        _SHARED = None
