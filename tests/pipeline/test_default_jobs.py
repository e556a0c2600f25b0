"""`-j 0` (the default) decides the worker count from the work and the CPUs free now; `-j N` is a
ceiling (no timings here: benchmarks/ measures whether the decision pays)."""

from __future__ import annotations

import os
import pathlib

import pytest

from transform.pipeline import inputs, parallel


def _items(*sizes: int) -> list[inputs.Item]:
    return [inputs.Item(f"f{i}.yaml", b"x" * n) for i, n in enumerate(sizes)]


class Machine:
    cpus = 2
    busy = 0


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch) -> type[Machine]:
    class M(Machine):
        pass

    monkeypatch.setattr(parallel, "usable_cpus", lambda: M.cpus)
    monkeypatch.setattr(parallel, "busy_cpus", lambda: M.busy)
    return M


MB = 1024 * 1024


def workers(items: list[inputs.Item], jobs: int = 0) -> int:
    return parallel.decide(items, jobs)[0]


def test_small_runs_use_one_process(machine: type[Machine]) -> None:
    assert workers(_items(1000, 1000)) == 1
    assert workers(_items(*[10_000] * 50)) == 1
    assert parallel.decide(_items(1000), 0)[1] == "one process (default: 0.0 MB of candidate files, under 1 MB)"


def test_a_large_run_over_many_files_uses_the_free_cpus(machine: type[Machine]) -> None:
    assert workers(_items(*[100_000] * 40)) == 2
    machine.cpus = 8
    assert workers(_items(*[100_000] * 40)) == 8


def test_a_busy_machine_gets_one_process(machine: type[Machine]) -> None:
    machine.busy = 1  # another job holds a CPU of two
    jobs, note = parallel.decide(_items(*[100_000] * 40), 0)
    assert jobs == 1 and note == "one process (default: 3.8 MB of candidate files, 2 CPUs, 1 busy with other work)"
    machine.cpus, machine.busy = 4, 1
    assert workers(_items(*[100_000] * 40)) == 3


def test_one_large_file_is_shared_by_its_documents(machine: type[Machine]) -> None:
    # before issue 14 a file was never split, so one file that was most of the work got one process
    assert workers(_items(3 * MB)) == 2
    assert workers(_items(3 * MB, 100_000)) == 2


def test_an_explicit_count_is_a_ceiling(machine: type[Machine]) -> None:
    machine.busy = 2  # -j N is the user's decision: the load does not lower it
    assert workers(_items(3 * MB), 4) == 4
    assert workers(_items(300_000), 4) == 2  # no share smaller than SHARE_MIN_BYTES
    assert parallel.decide(_items(200_000), 2) == (1, "one process (-j 2; only 0.2 MB of candidate files)")


def test_busy_cpus_counts_the_other_runnable_tasks(tmp_path: pathlib.Path) -> None:
    loadavg = tmp_path / "loadavg"
    loadavg.write_text("0.50 0.40 0.30 3/250 12345\n")  # this process and two others
    assert parallel.busy_cpus(loadavg=str(loadavg)) == 2
    loadavg.write_text("0.50 0.40 0.30 1/250 12345\n")
    assert parallel.busy_cpus(loadavg=str(loadavg)) == 0
    assert parallel.busy_cpus(loadavg=str(tmp_path / "absent")) >= 0  # the load average instead


def test_usable_cpus_honours_a_container_quota(tmp_path: pathlib.Path) -> None:
    quota = tmp_path / "cpu.max"
    quota.write_text("100000 100000\n")
    assert parallel.usable_cpus(str(quota)) == 1
    quota.write_text("max 100000\n")
    assert parallel.usable_cpus(str(quota)) == len(os.sched_getaffinity(0))
