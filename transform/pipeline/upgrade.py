"""Upgrade a set of inputs into a plan: index them, then upgrade every candidate (in one process or in
forked workers, `parallel`) in stages that run one way: with --rename, the files that rename revisions
are planned and given to the sink first, then the files that reference them are planned against the
renames that landed (`stages`). Each file is planned once; results in input order. A source that
streams its inputs past an index built beforehand (backup's second pass) has them planned one at a time
(`LazyPlan`): its sink takes them in the stream's order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from transform.model.findings import Finding, warning
from transform.pipeline.batch import Item, RunResult, build_index

if TYPE_CHECKING:
    from transform.convert.index import Index
    from transform.model.settings import Settings
    from transform.pipeline.parts import FileResult


@dataclass
class Plan:
    """Every candidate's result (new text, findings, renames), in input order, each file planned once: a
    file that references a renamed revision is planned after the revision's file was given to the sink,
    against the renames that landed (`upgrade_items`)."""

    items: list[Item]
    run: RunResult


# A run's sink, given each stage's planned files in input order as soon as the stage is planned: it
# writes each changed one, or refuses it (`FileResult.write_failed`); a refused file's renames do not land.
Land = Callable[[list[tuple[Item, "FileResult"]]], None]


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


def _upgrade(item: Item, settings: Settings, index: Index, parsed: bool = False) -> FileResult:
    # lazy: start-up: the parsing stack is imported only once a file is a candidate
    from transform.pipeline.onefile import upgrade_file

    kept, item.parsed = (item.parsed if parsed else None), None  # used once, then freed
    split, item.split = (item.split if parsed else None), None
    return upgrade_file(item.name, item.data, settings, index, kept, item.role, item.reading, split)


def stages(items: list[Item], index: Index) -> list[list[int]]:
    """The positions of the items in the order of their stages. Without a rename, one stage. With renames,
    the files that hold a renamed revision first (a file that references a revision another such file
    renames after that file: its stage follows), then every other file. Files that rename revisions the
    others reference in a circle share one stage (each planned as if the others' renames land)."""
    if not index.renames:
        return [list(range(len(items)))]
    holding = {f for old in index.renames for f in index.holders.get(old, ())}
    deps: dict[str, set[str]] = {f: set() for f in holding}
    for old in index.renames:
        for f in index.referrers.get(old, ()):
            if f in deps:
                deps[f] |= index.holders.get(old, set()) - {f}
    level: dict[str, int] = {}
    pending, depth = set(holding), 0
    while pending:
        ready = {f for f in pending if not deps[f] & pending} or pending  # (a circle: the rest together)
        level.update(dict.fromkeys(ready, depth))
        pending -= ready
        depth += 1
    out: list[list[int]] = [[] for _ in range(depth + 1)]
    for n, item in enumerate(items):
        out[level.get(item.name, depth)].append(n)
    return [s for s in out if s]


def _settle(index: Index, done: set[str], landed: set[tuple[str, str, str]]) -> None:
    """Once every file holding a revision was planned and given to the sink (`done`), the index renames it
    only if its rename landed: a revision whose file failed, or was refused, keeps its old name."""
    for old in list(index.renames):
        if index.holders.get(old, set()) <= done:
            kept = [(ns, new) for ns, new in index.renames[old] if (ns, old, new) in landed]
            if kept:
                index.renames[old] = kept
            else:
                del index.renames[old]


def _kept(item: Item, index: Index, unwritten: set[str]) -> Finding | None:
    """`reference.kept` for a file whose references name a revision whose file the sink refused."""
    refused = sorted(old for old in unwritten if item.name in index.referrers.get(old, ()))
    if not refused:
        return None
    return warning(
        "reference.kept",
        f"references to {', '.join(refused)} keep the old name: the revision's file could not be written "
        "(see its error)",
        file=item.name,
    )


def _offset(progress: Callable[[int, int], None] | None, base: int, total: int) -> Callable[[int, int], None] | None:
    """A stage's progress as the run's: `base` files planned before it, of `total`."""
    return (lambda done, _stage: progress(base + done, total)) if progress is not None else None


def upgrade_items(
    items: list[Item],
    settings: Settings,
    run: RunResult,
    progress: Callable[[int, int], None] | None = None,
    jobs: int = 1,
    context: Sequence[Item] = (),
    land: Land | None = None,
) -> Plan:
    """Index, then upgrade every item, stage by stage (`stages`): each stage planned, then given to the
    sink (`land`), before the next stage is planned against the renames that landed; results in input
    order (`run.results`), each file planned once. `jobs`: worker processes (0: the default,
    `parallel.decide`), used only where the work is large enough to pay for them. `context`: files read
    for the index only (--context, `batch.read_context`)."""
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
    results: list[FileResult | None] = [None] * len(items)
    done: set[str] = set()
    landed: set[tuple[str, str, str]] = set()
    unwritten: set[str] = set()  # old names of renamed revisions whose file the sink refused
    planned = 0
    for stage in stages(items, index):
        if done:
            _settle(index, done, landed)
        each = _offset(progress, planned, len(items))
        if plan is not None:
            got = parallel.upgrade_pass(plan, index, each, stage)
        else:
            got = []
            one = LazyPlan(settings, index)
            for n in stage:
                got.append(one.plan(items[n], parsed=True))
                if each:
                    each(len(got), len(stage))
        planned += len(stage)
        for n, r in zip(stage, got, strict=True):
            kept = _kept(items[n], index, unwritten) if unwritten else None
            if kept is not None:
                r.findings.append(kept)
            results[n] = r
        renames = {n: list(r.renames) for n, r in zip(stage, got, strict=True)}
        if land is not None:
            land([(items[n], r) for n, r in zip(stage, got, strict=True)])
        for n, r in zip(stage, got, strict=True):
            done.add(items[n].name)
            if r.write_failed:
                unwritten |= {old for _, old, _ in renames[n]}
            elif not r.failed:
                landed.update(r.renames)
    run.results.extend(r for r in results if r is not None)
    return Plan(items, run)
