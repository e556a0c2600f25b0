"""One progress line on stderr for long runs, on a terminal only (nothing under CI, a dumb terminal
or when stderr is piped): `fix`/`check` of large trees, `backup` and `scan` of large archives."""

from __future__ import annotations

import os
import sys
import time


class Progress:
    def __init__(self, enabled: bool = True, unit: str = "files") -> None:
        self.enabled = enabled and stream_is_terminal()
        self.unit = unit
        self.start = self.last = time.monotonic()
        self.shown = False

    def __call__(self, done: int, total: int = 0) -> None:
        """`total` 0: unknown (an archive read as a stream)."""
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < 1.0 or (now - self.last < 0.2 and done != total):
            return
        self.last = now
        sys.stderr.write(f"\r{done}/{total} {self.unit}" if total else f"\r{done} {self.unit}")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self.shown = False


def stream_is_terminal() -> bool:
    return sys.stderr.isatty() and not os.environ.get("CI") and os.environ.get("TERM") != "dumb"
