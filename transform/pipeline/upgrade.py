"""Upgrade a set of inputs: index them, then upgrade every candidate, in one process or in forked
workers (`parallel`), results in input order."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from transform.pipeline.batch import Item, RunResult, build_index

if TYPE_CHECKING:
    from transform.convert.index import Index
    from transform.model.settings import Settings


def upgrade_items(
    items: list[Item],
    settings: Settings,
    run: RunResult,
    progress: Callable[[int, int], None] | None = None,
    jobs: int = 1,
) -> Index:
    """Index, then upgrade every item; results in input order. `jobs`: worker processes (0: the
    default, `parallel.decide`), used only where the work is large enough to pay for them."""
    # lazy: start-up: the parsing stack is imported only once a file is a candidate
    from transform.pipeline.onefile import upgrade_file

    plan = None
    if jobs != 1 and items:
        # lazy: start-up: multiprocessing and the worker machinery only for a run that may use them
        from transform.pipeline import parallel

        plan = parallel.plan(items, settings, jobs)
        run.jobs_note = plan.note
        plan = plan if plan.jobs > 1 else None
    elif items:
        run.jobs_note = "one process (-j 1)"
    index = build_index(items, settings, keep=True, reader=plan.index_pass if plan else None)
    if plan is not None:
        results = parallel.upgrade_pass(plan, index, progress)
    else:
        results = []
        for n, item in enumerate(items):
            parsed, item.parsed = item.parsed, None  # used once, then freed
            results.append(upgrade_file(item.name, item.data, settings, index, parsed, item.role))
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
                upgrade_file(item.name, item.data, settings, index, None, item.role)
                if not r.failed and any(f.code == "reference.renamed" for f in r.findings)
                else r
                for item, r in zip(items, results, strict=False)
            ]
    run.results.extend(results)
    return index
