"""`-j`: one file's documents shared among forked workers give what one process gives (issue 14).

Same new text, the same findings in the same order (lines included), the same exit code, whatever
the cut: the fixtures' documents in one multi-document file (revisions of every era, VMs renamed
through the cross-file index, findings after edits that add lines), plus a YAML error, duplicate
keys and a tab-indented document. No timings here: benchmarks/ measures the speed.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys

import pytest

from tests.support import samples
from tests.support.cli import run_module
from transform.model.settings import Settings
from transform.pipeline import batch, forkpool, onefile, parallel, parts, upgrade
from transform.yamltext import textio

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
HANDMADE = [
    "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachinePreference\nmetadata:\n  name: dup\n"
    "  name: dup2\nspec: {}\n",  # duplicate keys
    "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\nmetadata: {name: broken\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: tabbed\n",  # a tab: libyaml refuses the stream
    samples.INSTANCETYPE_PATCH_V1ALPHA2,  # the upgraded object is invalid: found when it is read back
]


def _documents(errors: bool = True) -> list[str]:
    """The trees' documents (upgraded without error); `errors`: also every revision fixture (some
    refused) and the handmade documents, spread over the file."""
    files = sorted((FIXTURES / "trees").rglob("in/**/*.yaml"))
    files += sorted((FIXTURES / "revisions").glob("*.yaml")) if errors else []
    out = [
        t if t.endswith("\n") else t + "\n" for t in (f.read_text() for f in files if f.name != "kustomization.yaml")
    ]
    if errors:
        for n, extra in enumerate(HANDMADE):
            out.insert((n + 1) * len(out) // (len(HANDMADE) + 1), extra)
    return out


def _text(errors: bool = True) -> str:
    return "---\n".join(_documents(errors))


# (name, new text, documents upgraded, renames, findings) of one file
_Row = tuple[str, str | None, int, list[tuple[str, str, str]], list[str]]


def _results(items: list[batch.Item], settings: Settings, jobs: int) -> tuple[list[_Row], bool, str]:
    run = batch.RunResult()
    upgrade.upgrade_items(items, settings, run, jobs=jobs)
    return (
        [(r.name, r.new_text, r.upgraded, r.renames, [repr(f) for f in r.findings]) for r in run.results],
        run.failed,
        run.jobs_note,
    )


@pytest.fixture
def every_document_a_share(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "SHARE_MIN_BYTES", 0)
    monkeypatch.setattr(parallel, "SHARES_PER_WORKER", 10**9)  # a share per chunk: every boundary is cut


@pytest.mark.parametrize(
    "settings",
    [
        Settings(),
        Settings(rename=True),
        Settings(strict=True),
        Settings(modernize=True),
        Settings(select=("revision",)),
    ],
    ids=["default", "rename", "strict", "modernize", "select"],
)
@pytest.mark.usefixtures("every_document_a_share")
def test_a_file_shared_among_workers_gives_the_same_results(settings: Settings) -> None:
    def items() -> list[batch.Item]:
        return [
            batch.Item("all.yaml", _text().encode()),
            batch.Item("crlf.yaml", _text(False).replace("\n", "\r\n").encode()),
        ]

    serial, failed, note = _results(items(), settings, 1)
    shared, shared_failed, shared_note = _results(items(), settings, 2)
    assert note == "one process (-j 1)" and shared_note.startswith("2 workers")
    assert failed and (settings.strict or any(text for _, text, _, _, _ in serial))
    assert shared == serial and shared_failed == failed


@pytest.mark.usefixtures("every_document_a_share")
def test_two_processes_are_the_parent_and_one_worker_forked_per_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """`-j 2`: the parent takes shares too, so each pass forks one worker (it forked two: each one's
    start-up and copied pages, and its results pickled back); both do some of the work, and the
    results are those of one process. Counted, not timed."""
    forks: list[int] = []
    done_here: list[int] = []
    real_fork, real_task = os.fork, parallel._upgrade_task

    def fork() -> int:
        pid = real_fork()
        if pid:
            forks.append(pid)
        return pid

    def task(shares: list[parallel.Share]) -> list[parts.FileResult | parts.Part]:
        done_here.append(os.getpid())  # in a worker: its own copy, never seen here
        return real_task(shares)

    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setattr(parallel, "_upgrade_task", task)
    items = [batch.Item("all.yaml", _text().encode())]
    shared = _results(items, Settings(), 2)
    assert len(forks) == 2  # the index pass's worker, the upgrade pass's
    assert done_here and set(done_here) == {os.getpid()}
    p = parallel.plan([batch.Item("all.yaml", _text().encode())], Settings(), 2)
    assert 0 < len(done_here) < len(p.tasks)  # the worker did the others
    assert shared[:2] == _results([batch.Item("all.yaml", _text().encode())], Settings(), 1)[:2]


def test_any_cut_of_a_file_gives_the_same_result() -> None:
    """The merge in process, no worker: the file's documents in two parts, cut before each chunk."""
    settings = Settings(rename=True)
    data = _text().encode()
    index = batch.build_index([batch.Item("all.yaml", data)], settings)
    whole = onefile.upgrade_file("all.yaml", data, settings, index)
    source = textio.decode(data)
    chunks = textio.split_documents(source.text)
    moved = 0
    for cut in range(len(chunks) + 1):
        shares = [
            onefile.upgrade_documents("all.yaml", source, settings, index, span=span)
            for span in parts.spans(source.text, chunks, [0, cut, len(chunks)])
        ]
        moved += bool(shares[0].lines_added and shares[1].after_edits)
        got = parts.finish(parts.FileResult("all.yaml", source), shares, settings)
        assert (got.new_text, got.findings, got.renames, got.upgraded) == (
            whole.new_text,
            whole.findings,
            whole.renames,
            whole.upgraded,
        ), cut
    assert moved, "a finding after an edit that adds lines must be exercised"


@pytest.mark.usefixtures("every_document_a_share")
def test_many_files_and_a_split_one_keep_their_order(tmp_path: pathlib.Path) -> None:
    for n, doc in enumerate(_documents(errors=False)):
        (tmp_path / f"f{n:03}.yaml").write_text(doc)
    (tmp_path / "z-all.yaml").write_text(_text())

    def items() -> list[batch.Item]:
        from transform.pipeline.sources import discover

        return batch.read_inputs(discover([str(tmp_path)]), batch.RunResult())

    assert _results(items(), Settings(rename=True), 3)[:2] == _results(items(), Settings(rename=True), 1)[:2]


def _cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    return run_module(*args)


def test_the_command_gives_the_same_bytes_and_exit_code_with_two_workers(tmp_path: pathlib.Path) -> None:
    """A real run: a 0.3 MB export is cut into documents for `-j 2`; check, then fix, as with `-j 1`."""
    docs = _documents(errors=False)
    text = "".join(f"# copy {n}\n" + "---\n".join(docs) + "---\n" for n in range(20))
    assert len(text) > 2 * parallel.SHARE_MIN_BYTES
    for errors in (False, True):
        data = (text + (HANDMADE[1] if errors else "")).encode()
        runs: dict[str, tuple[int, bytes, int, bytes]] = {}
        for jobs in ("1", "2"):
            path = tmp_path / f"j{jobs}" / "export.yaml"
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(data)
            check = _cli("check", "--debug", "-j", jobs, str(path))
            fixed = _cli("fix", "-j", jobs, str(path))
            assert ("2 workers" in check.stderr.decode()) == (jobs == "2"), check.stderr
            stdout = check.stdout.replace(b"/j" + jobs.encode() + b"/", b"/")
            runs[jobs] = (check.returncode, stdout, fixed.returncode, path.read_bytes())
            shutil.rmtree(path.parent)
        assert runs["1"] == runs["2"]
        assert runs["1"][0] == (3 if errors else 1) and (runs["1"][3] == data) == errors


def test_a_worker_failure_is_raised_in_the_parent_and_no_worker_is_left() -> None:
    tasks = list(range(6))
    with pytest.raises(ZeroDivisionError) as exc:
        list(forkpool.imap(_fails_at_three, tasks, 2))
    assert "in worker process" in str(exc.value.__cause__)
    assert list(forkpool.imap(_square, tasks, 2)) == [n * n for n in tasks]
    with pytest.raises(ChildProcessError):
        os.wait()  # every worker was reaped


def test_a_worker_with_no_task_left_exits_before_the_last_result_is_read() -> None:
    """A worker's pipe ends as soon as no task is left for it: it exits while the parent still reads
    results, instead of when the parent is done and then waits for each exit in turn (issue 14).
    Structural: when the last result arrives, every worker has exited or will without the parent (a
    wait for it returns; the alarm only turns a hang into a failure)."""
    results = forkpool.imap(_pid, list(range(6)), 2)
    pids = [next(results) for _ in range(6)]
    assert len(set(pids)) == 2
    previous = signal.signal(signal.SIGALRM, _hung)
    signal.alarm(60)
    try:
        for pid in set(pids):
            os.waitpid(pid, 0)  # before the generator ends: its pipes are still open
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert list(results) == []
    with pytest.raises(ChildProcessError):
        os.wait()


def _pid(n: int) -> int:
    return os.getpid()


def _hung(signum: int, frame: object) -> None:
    raise AssertionError("a worker with no task left did not exit")


def _fails_at_three(n: int) -> int:
    return 1 // (n - 3)


def _square(n: int) -> int:
    return n * n


def test_indexes_merged_in_order_are_the_index_of_the_whole() -> None:
    from transform.convert.index import Index

    settings = Settings(rename=True)
    data = _text().encode()
    item = batch.Item("all.yaml", data)
    whole = batch.build_index([item], settings)
    source = textio.decode(data)
    chunks = textio.split_documents(source.text)
    for cut in range(0, len(chunks) + 1, 7):
        merged = Index()
        for span in parts.spans(source.text, chunks, [0, cut, len(chunks)]):
            partial = Index()
            batch.add_documents(partial, item, batch.index_documents(item, settings, source, span), settings, 0, {})
            merged.merge(partial)
        assert merged == whole, cut


# Run in a fresh interpreter: what a forked upgrade worker imports and compiles on its own, counted
# from the worker's side (its modules and the misses of transform's functools caches, before and after
# each task), appended to a log as JSON lines.
WORKER_PROBE = """
import functools, json, sys
from transform.model.settings import Settings
from transform.pipeline import batch, parallel, upgrade

def caches():
    return [v for name, m in list(sys.modules.items()) if name.startswith("transform") and m
            for v in vars(m).values() if isinstance(v, functools._lru_cache_wrapper)]

def misses():
    return {f"{c.__module__}.{c.__qualname__}": c.cache_info().misses for c in caches()}

def probed(shares):
    modules, before = set(sys.modules), misses()
    out = real(shares)
    after = misses()
    loaded = [k for k, n in after.items() if n > before.get(k, 0)]
    with open(sys.argv[2], "a") as log:
        log.write(json.dumps([sorted(m for m in set(sys.modules) - modules if m.startswith("transform")), loaded]))
        log.write("\\n")
    return out

real, parallel._upgrade_task = parallel._upgrade_task, probed
small = batch.Item("small.yaml", b"kind: ConfigMap\\ndata: {note: kubevirt.io}\\n")
upgrade.upgrade_items([small], Settings(), batch.RunResult(), jobs=0)
lean = "transform.validate.documents" not in sys.modules  # one process: nothing loaded ahead
run = batch.RunResult()
upgrade.upgrade_items([batch.Item("export.yaml", open(sys.argv[1], "rb").read())], Settings(), run, jobs=2)
print(json.dumps([lean, run.jobs_note]))
"""


def test_a_forked_worker_imports_and_compiles_nothing_the_parent_could_have(tmp_path: pathlib.Path) -> None:
    """Every upgrade worker would import the validators and compile the same schemas on its own
    (about 8 ms each, issue 14): the parent loads them once, while the index workers run, and the
    workers inherit them. Counted, not timed. A run of one process loads nothing ahead."""
    docs = _documents(errors=False)
    export = tmp_path / "export.yaml"
    export.write_text("".join(f"# copy {n}\n" + "---\n".join(docs) + "---\n" for n in range(20)))
    log = tmp_path / "log"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    probe = [sys.executable, "-c", WORKER_PROBE, str(export), str(log)]
    done = subprocess.run(probe, capture_output=True, text=True, cwd=ROOT, env=env, check=True)
    lean, note = json.loads(done.stdout)
    assert lean and note.startswith("2 workers")
    tasks = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(tasks) > 2
    assert [t for t in tasks if t != [[], []]] == []


def test_tasks_shrink_toward_the_end_of_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers take large shares first and small ones last, so that they finish together: no
    worker is left with a large share when the other has none (guided self-scheduling)."""
    monkeypatch.setattr(parallel, "SHARE_MIN_BYTES", 1024)
    data = "".join(f"# copy {n}\n" + _text(False) + "---\n" for n in range(20)).encode()
    p = parallel.plan([batch.Item("all.yaml", data)], Settings(), 2)
    sizes = [p.share_bytes(task[0]) for task in p.tasks]
    assert len(sizes) > 8 and sum(sizes) == len(textio.decode(data).text)
    assert max(sizes[-3:]) * 4 <= min(sizes[:3])
