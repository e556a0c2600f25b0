"""Upgrade a set of inputs into a plan: index them, upgrade every candidate (in one process or in forked
workers, `parallel`), settle the renames, results in input order. Nothing is written here: a sink
(`outputs.Sink`) writes the plan, revision files first, and asks it again (`Plan.settled`) for a file
whose references name a revision that could not be written. A source that streams its inputs past
an index built beforehand (backup's second pass) has them planned one at a time (`LazyPlan`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from transform.model.findings import warning
from transform.pipeline.inputs import Item, RunResult, build_index

if TYPE_CHECKING:
    from transform.convert.index import Index
    from transform.model.settings import Settings
    from transform.pipeline.results import FileResult


@dataclass
class Plan:
    """Every candidate's result (new text, findings, renames), in input order, the renames settled: a
    revision whose file failed keeps its old name, and every file referencing it says so."""

    items: list[Item]
    run: RunResult
    index: Index | None = None
    settings: Settings | None = None
    unwritten: set[str] = field(default_factory=set)  # old names of renamed revisions a sink could not write

    def write_order(self) -> Iterator[int]:
        """Positions in `run.results`, the files that rename revisions first (with --rename, a file whose
        references follow a rename is written only once the renamed revision is)."""
        yield from sorted(range(len(self.run.results)), key=lambda i: not self.run.results[i].renames)

    def settled(self, pos: int) -> FileResult:
        """The result at `pos`, planned again without the renames of `unwritten` if it follows one."""
        r = self.run.results[pos]
        if not self.unwritten or self.index is None or self.settings is None or not _follows_rename(r):
            return r
        for old in self.unwritten:
            self.index.renames.pop(old, None)
        item = next(i for i in self.items if i.name == r.name)
        r = _upgrade(item, self.settings, self.index, first=r)
        r.findings.append(
            warning(
                "reference.kept",
                f"references to {', '.join(sorted(self.unwritten))} keep the old name: the revision's file could "
                "not be written (see its error)",
                file=item.name,
            )
        )
        self.run.results[pos] = r
        return r


@dataclass
class LazyPlan:
    """A plan made one input at a time, as a source streams them (backup's second pass: one member in
    memory at a time), against an index built beforehand (its first pass): each input is planned as
    `upgrade_items` plans it (the same code), and nothing is kept (the caller keeps what its report
    needs). Its sink takes the inputs in the stream's order: no rename is undone after the fact."""

    settings: Settings
    index: Index

    def plan(self, item: Item, parsed: bool = False) -> FileResult:
        """One input's result: new text, findings, renames (`parsed`: use the documents the index kept)."""
        return _upgrade(item, self.settings, self.index, parsed)


def _follows_rename(r: FileResult) -> bool:
    return any(f.code == "reference.renamed" for f in r.findings)


def _upgrade(
    item: Item, settings: Settings, index: Index, parsed: bool = False, first: FileResult | None = None
) -> FileResult:
    """`first`: the item's first result, when it is planned again (its judgements are reused)."""
    # lazy: start-up: the parsing stack is imported only once a file is a candidate
    from transform.pipeline.onefile import upgrade_file

    kept, item.parsed = (item.parsed if parsed else None), None  # used once, then freed
    judged = first.judged if first is not None else None
    return upgrade_file(item.name, item.data, settings, index, kept, item.held, item.reading, judged)


def upgrade_items(
    items: list[Item],
    settings: Settings,
    run: RunResult,
    progress: Callable[[int, int], None] | None = None,
    jobs: int = 1,
    context: Sequence[Item] = (),
) -> Plan:
    """Index, then upgrade every item; results in input order (`run.results`), renames settled. `jobs`:
    worker processes (0: the default, `parallel.decide`), used only where the work is large enough to
    pay for them. `context`: files read for the index only (--context, `inputs.read_context`)."""
    plan = None
    if jobs != 1 and items and not any(i.reading for i in items):  # (a source's own reading: one process)
        # lazy: start-up: multiprocessing and the worker machinery only for a run that may use them
        from transform.pipeline import parallel

        plan = parallel.plan(items, settings, jobs)
        run.jobs_note = plan.note
        plan = plan if plan.jobs > 1 else None
    elif items:
        run.jobs_note = "one process (-j 1)"
    index = build_index(items, settings, keep=True, reader=plan.index_pass if plan else None, context=context)
    if plan is not None:
        results = parallel.upgrade_pass(plan, index, progress)
    else:
        results = []
        each = LazyPlan(settings, index)
        for n, item in enumerate(items):
            results.append(each.plan(item, parsed=True))
            if progress:
                progress(n + 1, len(items))
    if index.renames:
        # A revision whose file failed keeps its old name: VMs must keep pointing at it. A file that failed
        # itself is not written either: it is not upgraded again (its documents were judged once).
        done = {old for r in results if not r.failed for _, old, _ in r.renames}
        failed = {old for old in index.renames if old not in done}
        if failed:
            for old in failed:
                del index.renames[old]
            results = [
                _upgrade(item, settings, index, first=r) if not r.failed and _follows_rename(r) else r
                for item, r in zip(items, results, strict=False)
            ]
    run.results.extend(results)
    return Plan(items, run, index, settings)
