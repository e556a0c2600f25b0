"""Find input files: paths, directories (recursive), include/exclude globs, symlink rules."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from dataclasses import dataclass

SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class Input:
    path: str  # where to read (and write)
    display: str  # how to name it in messages (as given, relative to the root argument)
    root: str  # the directory argument it was found under ("" for a file argument)
    rel: str  # path relative to root (for --output-dir)


@dataclass(frozen=True)
class Skipped:
    display: str
    reason: str


def _matches(rel: str, patterns: tuple[str, ...]) -> bool:
    base = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(base, p) for p in patterns)


def discover(
    paths: list[str], include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()
) -> Iterator[Input | Skipped]:
    """Files in a deterministic order. A symlink is followed only when its target stays inside
    the directory argument (and is then read and written through its real path)."""
    seen: set[str] = set()
    for arg in paths:
        if os.path.isdir(arg):
            root_real = os.path.realpath(arg)
            for dirpath, dirnames, filenames in os.walk(arg):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                kept = []
                for d in dirnames:
                    full = os.path.join(dirpath, d)
                    if os.path.islink(full):
                        continue  # never walk into linked directories (loops, escapes)
                    kept.append(d)
                dirnames[:] = kept
                for fn in sorted(filenames):
                    full = os.path.join(dirpath, fn)
                    rel = os.path.relpath(full, arg).replace(os.sep, "/")
                    if fn.startswith("."):
                        continue
                    if include:
                        if not _matches(rel, include):
                            continue
                    elif not fn.endswith(SUFFIXES):
                        continue
                    if exclude and _matches(rel, exclude):
                        continue
                    display = os.path.join(arg, rel) if arg not in (".", "./") else rel
                    if os.path.islink(full):
                        real = os.path.realpath(full)
                        if not real.startswith(root_real + os.sep) or not os.path.isfile(real):
                            yield Skipped(display, "symbolic link pointing outside the tree (not followed)")
                            continue
                        full = real
                    key = os.path.realpath(full)
                    if key in seen:
                        continue
                    seen.add(key)
                    yield Input(full, display, arg, rel)
        elif os.path.exists(arg) or os.path.islink(arg):
            if exclude and _matches(arg.replace(os.sep, "/"), exclude):
                continue
            real = os.path.realpath(arg)
            if real in seen:
                continue
            seen.add(real)
            yield Input(real if os.path.islink(arg) else arg, arg, "", os.path.basename(arg))
        else:
            yield Skipped(arg, "no such file or directory")
