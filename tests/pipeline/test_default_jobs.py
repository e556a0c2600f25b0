"""`-j 0` (the default) decides the worker count from the work and the free CPUs (no timings here)."""

from __future__ import annotations

import os

import pytest

from transform.pipeline import batch


def _items(*sizes: int) -> list[batch.Item]:
    return [batch.Item(f"f{i}.yaml", b"x" * n) for i, n in enumerate(sizes)]


class Machine:
    cpus = 2
    load = 0.0


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch) -> type[Machine]:
    class M(Machine):
        pass

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(M.cpus)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (M.load, M.load, M.load))
    return M


MB = 1024 * 1024


def test_small_runs_use_one_process(machine: type[Machine]) -> None:
    assert batch.default_jobs(_items(1000, 1000)) == 1
    assert batch.default_jobs(_items(3 * MB)) == 1


def test_a_large_run_over_many_files_uses_the_free_cpus(machine: type[Machine]) -> None:
    assert batch.default_jobs(_items(*[100_000] * 40)) == 2


def test_a_busy_machine_gets_one_process(machine: type[Machine]) -> None:
    machine.load = 1.6  # another job holds a CPU of two
    assert batch.default_jobs(_items(*[100_000] * 40)) == 1


def test_one_file_that_is_most_of_the_work_is_not_worth_a_second_process(machine: type[Machine]) -> None:
    assert batch.default_jobs(_items(3 * MB, 100_000)) == 1
