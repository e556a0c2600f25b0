"""Decompressing ahead and compressing behind on another core while the main thread works on the
tar stream. zlib releases the GIL while it (de)compresses, so a backup's gzip work overlaps with the
upgrade of its items: wall time falls, CPU time stays the same.

Both are bounded (a few chunks in flight: memory stays flat, and a gzip bomb is still stopped by the
reader's cap within a few MiB) and hand their errors to the main thread, where they are raised as
if the work had been done there.
"""

from __future__ import annotations

import queue
import threading
from types import TracebackType
from typing import IO, Any

CHUNK = 1 << 18
_DEPTH = 4  # chunks in flight
_END = b""


class ReadAhead:
    """A file-like `read(size)` over `src`, which a thread reads in CHUNK pieces ahead of the caller.
    Use as a context manager: leaving it stops the thread (also on an error or an early stop)."""

    def __init__(self, src: IO[bytes]) -> None:
        self.src = src
        self.chunks: queue.Queue[bytes | BaseException] = queue.Queue(_DEPTH)
        self.stop = threading.Event()
        self.buf = b""
        self.at = 0
        self.done = False
        self.thread = threading.Thread(target=self._run, name="read-ahead", daemon=True)

    def __enter__(self) -> ReadAhead:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        while self.thread.is_alive():
            _drain(self.chunks)
            self.thread.join(0.05)

    def _run(self) -> None:
        try:
            while not self.stop.is_set():
                chunk = self.src.read(CHUNK)
                _put(self.chunks, chunk, self.stop)
                if not chunk:
                    return
        except BaseException as exc:  # handed to the reader, raised there
            _put(self.chunks, exc, self.stop)

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            return b"".join(iter(lambda: self.read(CHUNK), b""))
        while len(self.buf) - self.at < size and not self.done:
            got = self.chunks.get()
            if isinstance(got, BaseException):
                self.done = True
                raise got
            if not got:
                self.done = True
            self.buf = self.buf[self.at :] + got
            self.at = 0
        data = self.buf[self.at : self.at + size]
        self.at += len(data)
        return data


class WriteBehind:
    """Collects writes into CHUNK pieces that a thread writes to `out` (a GzipFile: compressed there).
    `close()` waits for the last one; an error of the thread is raised by the next write or close.
    Leaving the context manager always stops the thread (before `out` may be closed)."""

    def __init__(self, out: Any) -> None:
        self.out = out
        self.chunks: queue.Queue[bytes] = queue.Queue(_DEPTH)
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.buf: list[bytes] = []
        self.size = 0
        self.thread = threading.Thread(target=self._run, name="write-behind", daemon=True)

    def __enter__(self) -> WriteBehind:
        self.thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop.set()
        while self.thread.is_alive():
            _drain(self.chunks)
            self.thread.join(0.05)

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                chunk = self.chunks.get(timeout=0.1)
            except queue.Empty:
                continue
            if chunk is _END:
                return
            try:
                self.out.write(chunk)
            except BaseException as exc:  # raised in the main thread
                self.error = exc
                self.stop.set()
                return

    def write(self, data: bytes) -> None:
        self.buf.append(data)
        self.size += len(data)
        if self.size >= CHUNK:
            self._hand_over()

    def close(self) -> None:
        """Write what is left and wait until it is written."""
        self._hand_over()
        self._check()
        _put(self.chunks, _END, self.stop)
        self.thread.join()
        self._check()

    def _hand_over(self) -> None:
        self._check()
        if self.buf:
            _put(self.chunks, b"".join(self.buf), self.stop)
            self.buf, self.size = [], 0

    def _check(self) -> None:
        if self.error is not None:
            raise self.error


def _put(q: queue.Queue[Any], item: Any, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            q.put(item, timeout=0.1)
            return
        except queue.Full:
            continue


def _drain(q: queue.Queue[Any]) -> None:
    try:
        while True:
            q.get_nowait()
    except queue.Empty:
        pass
