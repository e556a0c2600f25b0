"""Worker processes for a large run (`--jobs`), and how many.

A run is cut into shares: whole files, and runs of consecutive documents of a large file (documents
are found at the byte level, `textio.split_documents`, so cutting parses nothing). The index pass,
then the upgrade pass, map over the shares in `jobs` processes: the parent and `jobs - 1` forked
workers. A worker starts with the parent's modules, inputs, settings and (for the upgrade) the
index; a task names its shares by position, and only what a share produced comes back (plain values
for the index; findings and the new text of changed documents for the upgrade). Results are merged
in input order, so the output bytes, the findings and their order, and the exit code are those of one
process. Where the platform cannot fork, one process does the work (a spawned worker would import
everything again).
"""

from __future__ import annotations

import os
import pickle
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from transform.convert import dispatch
from transform.convert.index import Index
from transform.convert.kustomize import is_kustomization_file
from transform.model.settings import Settings
from transform.pipeline import forkpool
from transform.pipeline.batch import KEEP_PARSED_BYTES, Item, add_documents, index_documents, kept_documents
from transform.pipeline.onefile import has_documents, upgrade_documents, upgrade_file
from transform.pipeline.parts import FileResult, Part, Span, finish, spans
from transform.yamltext import nodes, textio

MB = 1024 * 1024
# Below this many bytes of candidate files, `-j 0` (the default) uses one process: forking the workers
# and handing the shares out and back costs about what sharing ~0.25 MB of document text saves.
PARALLEL_MIN_BYTES = 1 * MB
# The smallest share worth a task, also for an explicit `-j N`: `-j 2` on less than twice this is one
# process.
SHARE_MIN_BYTES = 128 * 1024
# Shares per worker: enough that the last ones to finish leave the other workers little to wait for.
SHARES_PER_WORKER = 8


@dataclass(frozen=True)
class Share:
    """A task's unit: a whole file, or chunks `lo` to `hi` of a split one."""

    item: int  # position in the run's items
    lo: int = 0
    hi: int = 0  # 0: the whole file


@dataclass
class Plan:
    """How a run is shared out: `jobs` workers (1: no worker at all) and the files cut into documents."""

    items: list[Item]
    settings: Settings
    jobs: int
    note: str  # the decision, for --debug
    # a split file's text and chunks (decoded once, here; read by every worker and by the merge)
    splits: dict[int, tuple[textio.Source, list[textio.Chunk]]] = field(default_factory=dict)
    tasks: list[list[Share]] = field(default_factory=list)  # both passes' tasks (the index's: some left out)
    spans: dict[Share, Span] = field(default_factory=dict)  # a split file's shares
    # the documents each share's index worker parsed that its upgrade worker reads too (`batch.Kept`,
    # pickled; each freed once its share is upgraded), within KEEP_PARSED_BYTES in all, shared by bytes
    kept: dict[Share, bytes] = field(default_factory=dict)
    index: Index | None = None
    preloaded: bool = False

    def preload(self) -> None:
        """Load here, once, what every upgrade worker would otherwise import and compile on its own
        (forked, they inherit it): the validators with their schemas, and the patterns compiled on first
        use. Done while the index workers run, else just before the upgrade workers fork; only a run
        with workers comes here (one process loads them as its documents need them)."""
        if self.preloaded:
            return
        self.preloaded = True
        # lazy: the validators and their schemas load only when a document is validated (here: workers follow)
        from transform.validate import documents
        from transform.validate import target as _judge  # noqa: F401  (imported for the workers to inherit)

        documents.preload(self.settings.target)
        dispatch.preload(self.settings)
        nodes.compile_patterns(non_ascii=not all(i.data.isascii() for i in self.items))

    def index_pass(self, wanted: list[int]) -> Index:
        """The index of the wanted items' documents (`batch.Reader`): each worker indexes its shares;
        their indexes are merged here in input order."""
        index = Index()
        for share, (partial, kept) in _map(self, _index_task, self.tasks_of(wanted), meanwhile=self.preload):
            index.merge(partial)
            if kept:
                self.kept[share] = kept
        return index

    def tasks_of(self, wanted: list[int]) -> list[list[Share]]:
        """The tasks, with only the shares of the wanted items (positions)."""
        chosen = set(wanted)
        return [t for t in ([s for s in task if s.item in chosen] for task in self.tasks) if t]

    def share_bytes(self, s: Share) -> int:
        if not s.hi:
            return len(self.items[s.item].data)
        chunks = self.splits[s.item][1]
        return chunks[s.hi - 1].end - chunks[s.lo].start

    def span(self, s: Share) -> tuple[textio.Source | None, Span | None]:
        return (self.splits[s.item][0], self.spans[s]) if s.hi else (None, None)


def plan(items: list[Item], settings: Settings, jobs: int) -> Plan:
    """Decide the workers (`jobs` 0: the default, from the work and the free CPUs) and cut the files
    larger than a share into runs of documents."""
    jobs, note = decide(items, jobs)
    out = Plan(items, settings, jobs, note)
    if jobs > 1:
        target = _share_bytes(sum(len(i.data) for i in items), jobs)
        for n, item in enumerate(items):
            if (
                len(item.data) > target
                and not item.role
                and has_documents(item.name, item.data)
                and not is_kustomization_file(item.name)
            ):
                try:
                    source = textio.decode(item.data)
                except textio.ReadError:
                    continue  # the file's share reports it
                chunks = textio.split_documents(source.text)
                if len(chunks) > 1:
                    out.splits[n] = (source, chunks)
        out.tasks = _tasks(out, list(range(len(items))))
    return out


def decide(items: list[Item], jobs: int) -> tuple[int, str]:
    """Workers for this run, and why. `jobs` > 1 (`-j N`): at most N, never more than the run has
    shares of SHARE_MIN_BYTES. `jobs` 0 (the default): one process below PARALLEL_MIN_BYTES of
    candidate files; above, one per CPU that is free now (`usable_cpus` minus `busy_cpus`), so that
    on a machine where another job holds a CPU the default is one process, never slower than `-j 1`."""
    total = sum(len(i.data) for i in items)
    size = f"{total / MB:.1f} MB of candidate files"
    shares = max(1, total // max(1, SHARE_MIN_BYTES))
    if not forkpool.available():
        return 1, "one process: this platform cannot fork workers"
    if jobs > 1:
        n = min(jobs, shares)
        return (n, f"{n} workers (-j {jobs}; {size})") if n > 1 else (1, f"one process (-j {jobs}; only {size})")
    if total < PARALLEL_MIN_BYTES:
        return 1, f"one process (default: {size}, under {PARALLEL_MIN_BYTES / MB:.0f} MB)"
    cpus, busy = usable_cpus(), busy_cpus()
    n = max(1, min(cpus - busy, shares))
    why = f"default: {size}, {cpus} CPUs, {busy} busy with other work"
    return (n, f"{n} workers ({why})") if n > 1 else (1, f"one process ({why})")


def usable_cpus(quota_file: str = "/sys/fs/cgroup/cpu.max") -> int:
    """CPUs this process may run on: its affinity, capped by a cgroup CPU quota (a container's limit)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        with open(quota_file) as f:
            quota, period = f.read().split()[:2]
        if quota != "max":
            cpus = min(cpus, max(1, int(quota) // int(period)))
    except (OSError, ValueError):
        pass
    return cpus


def busy_cpus(samples: int = 3, loadavg: str = "/proc/loadavg") -> int:
    """CPUs that other work holds now: the tasks running or ready to run besides this one (Linux:
    /proc/loadavg's fourth field), the least of a few reads half a millisecond apart so that a process
    passing by does not count; elsewhere the one-minute load average (which lags by tens of seconds)."""
    try:
        counts = []
        for n in range(samples):
            with open(loadavg) as f:
                counts.append(int(f.read().split()[3].split("/")[0]))
            if n + 1 < samples:
                time.sleep(0.0005)
        return max(0, min(counts) - 1)
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.getloadavg()[0] + 0.5)
    except (AttributeError, OSError):
        return 0


def _share_bytes(total: int, jobs: int) -> int:
    return max(SHARE_MIN_BYTES, total // (jobs * SHARES_PER_WORKER))


def _tasks(p: Plan, wanted: list[int]) -> list[list[Share]]:
    """The shares of these items, in order, grouped into tasks; a split file's spans go to `p.spans`.
    Tasks shrink toward the end of the run (`_Sizes`): the workers take the large ones first and
    finish together on small ones."""
    sizes = _Sizes(sum(len(p.items[n].data) for n in wanted), p.jobs)
    tasks: list[list[Share]] = []
    task: list[Share] = []
    size = 0
    for n in wanted:
        if n in p.splits:
            if task:
                tasks.append(task)
                task, size = [], 0
            source, chunks = p.splits[n]
            cuts, acc, want = [0], 0, sizes.next()
            for pos, chunk in enumerate(chunks):
                acc += chunk.end - chunk.start
                if acc >= want or pos + 1 == len(chunks):
                    cuts.append(pos + 1)
                    sizes.done(acc)
                    acc, want = 0, sizes.next()
            for span in spans(source.text, chunks, cuts):
                share = Share(n, span.lo, span.hi)
                p.spans[share] = span
                tasks.append([share])
            continue
        if not task:
            want = sizes.next()
        task.append(Share(n))
        size += len(p.items[n].data)
        sizes.done(len(p.items[n].data))
        if size >= want:
            tasks.append(task)
            task, size = [], 0
    if task:
        tasks.append(task)
    return tasks


class _Sizes:
    """Task sizes in bytes, shrinking as the run is handed out (guided self-scheduling): a task is
    about the bytes still to hand out over twice the workers, between a quarter of the target share
    and twice it (`_share_bytes`). Large tasks first cost fewer hand-overs; small ones last mean that no
    worker is left with a large one when the others have none."""

    def __init__(self, total: int, jobs: int) -> None:
        self.left, self.jobs = total, jobs
        self.target = _share_bytes(total, jobs)

    def next(self) -> int:
        return min(2 * self.target, max(self.target // 4, self.left // (2 * self.jobs)))

    def done(self, n: int) -> None:
        self.left -= n


# The plan forked workers read (inherited, never pickled).
_PLAN: Plan | None = None


def _map(
    p: Plan,
    fn: Callable[[list[Share]], list[Any]],
    tasks: list[list[Share]],
    meanwhile: Callable[[], object] | None = None,
) -> Iterator[tuple[Share, Any]]:
    """(share, fn's result for it) for every share, in order, computed by `p.jobs` processes: this
    one and `p.jobs - 1` forked workers (`meanwhile`: the parent's work while they start, before it
    takes tasks of its own, `forkpool.imap`)."""
    if not tasks:
        return
    global _PLAN
    _PLAN = p
    try:
        results = forkpool.imap(fn, tasks, p.jobs, meanwhile, caller_works=True)
        for task, out in zip(tasks, results, strict=True):
            for share in task:
                if p.index is not None:
                    p.kept.pop(share, None)  # upgraded: the parent's copy is no longer needed
            yield from zip(task, out, strict=True)
    finally:
        _PLAN = None


def _index_task(shares: list[Share]) -> list[tuple[Index, bytes]]:
    """Each share's index, and the documents its upgrade reads too (pickled `batch.Kept`, with the
    payloads the index decoded in them: pickled together, each stays the very `data` of its document)."""
    assert _PLAN is not None
    p, out = _PLAN, []
    total = sum(len(i.data) for i in p.items)
    for s in shares:
        item = p.items[s.item]
        source, span = p.span(s)
        index, kept = Index(), dict[tuple[int, int], tuple[Any, str, bool]]()
        budget = KEEP_PARSED_BYTES * p.share_bytes(s) // max(1, total)
        add_documents(index, item, index_documents(item, p.settings, source, span), p.settings, budget, kept)
        decoded, index.decoded = list(index.decoded.values()), {}  # (ids are this process's)
        out.append((index, pickle.dumps((kept, decoded), pickle.HIGHEST_PROTOCOL) if kept else b""))
    return out


def upgrade_pass(
    p: Plan, index: Index, progress: Callable[[int, int], None] | None, wanted: list[int]
) -> list[FileResult]:
    """The result of each wanted item (positions, in input order: a stage of the run, `upgrade.stages`),
    upgraded by the workers (forked now: they inherit the index as the earlier stages settled it); a split
    file's parts joined."""
    p.index = index
    p.preload()  # done already unless the index pass had no work
    results: list[FileResult] = []
    parts: list[Part] = []
    total = len(wanted)
    for share, out in _map(p, _upgrade_task, p.tasks_of(wanted)):
        if isinstance(out, Part):
            parts.append(out)
            source, chunks = p.splits[share.item]
            if share.hi < len(chunks):
                continue
            out = finish(FileResult(p.items[share.item].name, source), parts, p.settings)
            parts = []
        results.append(out)
        if progress:
            progress(len(results), total)
    return results


def _upgrade_task(shares: list[Share]) -> list[FileResult | Part]:
    assert _PLAN is not None and _PLAN.index is not None
    p, index = _PLAN, _PLAN.index
    out: list[FileResult | Part] = []
    for s in shares:
        item = p.items[s.item]
        kept = p.kept.get(s)
        parsed = item.parsed
        if kept:
            documents, decoded = pickle.loads(kept)
            parsed = kept_documents(documents)
            index.decoded.update((id(data), (data, got)) for data, got in decoded)
        source, span = p.span(s)
        if source is not None:
            out.append(upgrade_documents(item.name, source, p.settings, index, parsed, span))
        else:
            out.append(upgrade_file(item.name, item.data, p.settings, index, parsed, item.role))
    return out
