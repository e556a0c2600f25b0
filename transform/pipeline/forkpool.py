"""Forked worker processes mapping a function over a list of tasks, results in task order.

A worker is `os.fork()`ed: it starts with the parent's modules and data (nothing is imported again,
no input is pickled) and takes tasks by position from its pipe; only each task's result travels
back, pickled. Smaller and faster to start than `concurrent.futures.ProcessPoolExecutor` (~2 ms
against ~40 ms for two workers, paid by every pass of a run), and a worker never outlives its
parent: it exits at the end of its pipe, and on Linux with its parent (PR_SET_PDEATHSIG).
Where the platform has no fork, `available()` is false and the caller does the work itself.
"""

from __future__ import annotations

import gc
import os
import pickle
import select
import signal
import struct
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_INDEX = struct.Struct("!i")
_LENGTH = struct.Struct("!Q")
ROOMY_PIPE = 1024 * 1024
AHEAD = 2  # tasks a worker holds: the next is there when it finishes one (it never waits for the parent)


def available() -> bool:
    return hasattr(os, "fork")


class WorkerError(Exception):
    """A worker failed in a way its exception could not tell (it died, or the exception would not pickle)."""


def imap(
    fn: Callable[[T], R],
    tasks: Sequence[T],
    workers: int,
    meanwhile: Callable[[], object] | None = None,
    caller_works: bool = False,
) -> Iterator[R]:
    """fn(task) for every task, computed by `workers` forked processes, yielded in task order as soon
    as each is ready. An exception in a worker is raised here; the workers are gone when this ends.
    `meanwhile`: work of the parent's own, done once the workers have their first tasks (instead of
    waiting for their results), before the first result is yielded.
    `caller_works`: this process is one of the `workers` and takes tasks too, between handing out
    the others' (one fork fewer: no start-up, no copied pages, no result pickled for its tasks)."""
    _prepare_children()
    pool: list[_Worker] = []
    finished = False
    forks = max(0 if caller_works else 1, min(workers, len(tasks)) - (1 if caller_works else 0))
    gc.freeze()  # the parent's objects stay out of the workers' collections: fewer pages copied
    try:
        try:
            for _ in range(forks):
                pool.append(_Worker.fork(fn, tasks, pool, roomy=caller_works))
        finally:
            gc.unfreeze()
        todo = iter(range(len(tasks)))
        for _ in range(AHEAD):  # in turn: the first tasks are the largest (`parallel._Sizes`)
            for w in pool:
                w.send(next(todo, None))
        if meanwhile is not None:
            meanwhile()
        done: dict[int, R] = {}
        want, left = 0, caller_works
        while want < len(tasks):
            if want in done:
                yield done.pop(want)
                want += 1
                continue
            waiting = [w.results for w in pool if w.busy]
            assert waiting or left, "a task was never handed out"
            ready = select.select(waiting, [], [], 0 if left else None)[0] if waiting else []
            for w in pool:
                if w.results in ready:
                    i, value = w.receive()
                    done[i] = value
                    w.send(next(todo, None))
            if ready or not left:
                continue
            own = next(todo, None)
            if own is None:  # all handed out: the workers' pipes end (`_Worker.send`)
                left = False
                for w in pool:
                    w.send(None)
                continue
            done[own] = fn(tasks[own])
        finished = True
    finally:
        for w in pool:
            w.close(kill=not finished)
        for w in pool:  # closed first, all of them: the workers end together
            w.reap()


class _Worker:
    def __init__(self, pid: int, tasks: int, results: int) -> None:
        self.pid, self.tasks, self.results = pid, tasks, results
        self.busy = 0

    @classmethod
    def fork(cls, fn: Callable[[T], R], tasks: Sequence[T], others: list[_Worker], roomy: bool = False) -> _Worker:
        """`roomy`: the results' pipe holds up to 1 MB (Linux), so that a worker does not wait, its
        result half written, while the parent works on a task of its own."""
        task_r, task_w = os.pipe()
        result_r, result_w = os.pipe()
        if roomy:
            try:
                import fcntl  # lazy: POSIX only, and F_SETPIPE_SZ Linux only (this module loads everywhere)

                fcntl.fcntl(result_w, fcntl.F_SETPIPE_SZ, ROOMY_PIPE)
            except (ImportError, AttributeError, OSError):
                pass  # the default size: slower, never wrong
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the worker
            for fd in [task_w, result_r] + [fd for o in others for fd in (o.tasks, o.results) if fd >= 0]:
                os.close(fd)
            _serve(fn, tasks, task_r, result_w, parent)
        os.close(task_r)
        os.close(result_w)
        return cls(pid, task_w, result_r)

    def send(self, index: int | None) -> None:
        """Hand the worker a task; None: there is none left, its pipe ends. It exits once it has answered
        the tasks it holds, while the parent still reads their results and the other workers' (a worker
        left waiting for more would end only when the parent is done, and the parent then waits for its
        exit: about 1.5 ms per worker, after every pass)."""
        if index is None:
            self._end_tasks()
            return
        os.write(self.tasks, _INDEX.pack(index))
        self.busy += 1

    def _end_tasks(self) -> None:
        if self.tasks >= 0:
            fd, self.tasks = self.tasks, -1
            os.close(fd)

    def receive(self) -> tuple[int, Any]:
        head = _read(self.results, _LENGTH.size)
        if len(head) < _LENGTH.size:
            raise WorkerError(f"worker process {self.pid} died (out of memory or killed?)")
        index, ok, value = pickle.loads(_read(self.results, _LENGTH.unpack(head)[0]))
        self.busy -= 1
        if not ok:
            exc, where = value
            raise exc from WorkerError(f"in worker process {self.pid}:\n{where}")
        return index, value

    def close(self, kill: bool) -> None:
        """End of its pipes: the worker exits (`kill`: at once, when the run failed or was stopped)."""
        if kill:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
        self._end_tasks()
        try:
            os.close(self.results)
        except OSError:
            pass

    def reap(self) -> None:
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _serve(fn: Callable[[Any], Any], tasks: Sequence[Any], task_r: int, result_w: int, parent: int) -> None:
    """A worker's life: take task positions until the pipe ends, answer each; never returns."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C reaches the whole process group:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent reports it, the workers just stop
        _die_with(parent)
        while True:
            head = _read(task_r, _INDEX.size)
            if len(head) < _INDEX.size:
                break
            (index,) = _INDEX.unpack(head)
            try:
                message = pickle.dumps((index, True, fn(tasks[index])), pickle.HIGHEST_PROTOCOL)
            except Exception as exc:  # noqa: BLE001 - raised again in the parent, with the worker's traceback
                message = _failure(index, exc)
            _write(result_w, _LENGTH.pack(len(message)) + message)
    except BaseException:  # noqa: BLE001 - the parent sees the pipe end and says so
        code = 1
    finally:
        os._exit(code)  # no atexit handler, no flush of the parent's buffered output


def _failure(index: int, exc: Exception) -> bytes:
    # lazy: only when a worker fails
    import traceback

    where = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    try:
        return pickle.dumps((index, False, (exc, where)), pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - an exception that does not pickle travels as text
        return pickle.dumps((index, False, (WorkerError(f"{type(exc).__name__}: {exc}"), where)))


def _prepare_children() -> None:
    """Load what a worker needs before forking, so that no worker imports it again."""
    if hasattr(signal, "SIGKILL") and os.path.exists("/proc/self"):
        # lazy: Linux only, for PR_SET_PDEATHSIG in the workers
        import ctypes  # noqa: F401


def _die_with(parent: int) -> None:
    """Linux: the kernel kills this worker when its parent dies (PR_SET_PDEATHSIG); elsewhere the
    worker notices at the end of its current task, when its pipe ends."""
    try:
        import ctypes  # lazy: imported by the parent before forking (`_prepare_children`)

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)
    except (ImportError, OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)


def _read(fd: int, n: int) -> bytes:
    """n bytes, fewer only at the end of the pipe."""
    chunks = []
    while n:
        chunk = os.read(fd, n)
        if not chunk:
            break
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
