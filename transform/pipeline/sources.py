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
    warning: bool = False  # skipped on purpose (a link leaving the tree): a warning, not an error


def _matches(rel: str, patterns: tuple[str, ...]) -> bool:
    """A pattern with a slash matches the whole relative path; one without matches any component
    (a bare name `exported` excludes that directory or file anywhere, as in ruff and black)."""
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if "/" in pattern:
            if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel.removeprefix("./"), pattern.removeprefix("./")):
                return True
        elif any(fnmatch.fnmatch(part, pattern) for part in parts):
            return True
    return False


def discover(
    paths: list[str], include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()
) -> Iterator[Input | Skipped]:
    """Files in a deterministic order. A symlink is followed only when its target stays inside
    the directory argument (and is then read and written through its real path)."""
    seen: set[tuple[int, int]] = set()
    for arg in paths:
        if os.path.isdir(arg):
            yield from _walk(arg, os.path.realpath(arg), include, exclude, seen)
        elif os.path.exists(arg) or os.path.islink(arg):
            if exclude and _matches(arg.replace(os.sep, "/"), exclude):
                continue
            real = os.path.realpath(arg)
            try:
                st = os.stat(real)
            except OSError:
                yield Skipped(arg, "dangling symbolic link")
                continue
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            yield Input(real if os.path.islink(arg) else arg, arg, "", os.path.basename(arg))
        else:
            yield Skipped(arg, "no such file or directory")


def _walk(
    arg: str, root_real: str, include: tuple[str, ...], exclude: tuple[str, ...], seen: set[tuple[int, int]]
) -> Iterator[Input | Skipped]:
    """os.scandir, depth first, sorted: one stat per file at most (walking is the floor of a scan)."""
    stack: list[tuple[str, str]] = [(arg, "")]
    while stack:
        directory, prefix = stack.pop()
        try:
            dev = os.stat(directory).st_dev
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            yield Skipped(directory, f"cannot list directory: {exc.strerror or exc}")
            continue
        subdirs = []
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue  # hidden files and directories, .git included
            rel = prefix + name
            if entry.is_dir(follow_symlinks=False):
                if not (exclude and _matches(rel, exclude)):
                    subdirs.append((entry.path, rel + "/"))
                continue
            if include:
                if not _matches(rel, include):
                    continue
            elif not name.endswith(SUFFIXES):
                continue
            if exclude and _matches(rel, exclude):
                continue
            display = os.path.join(arg, rel) if arg not in (".", "./") else rel
            full = entry.path
            if entry.is_symlink():
                real = os.path.realpath(full)
                if not os.path.isfile(real):
                    yield Skipped(display, "dangling symbolic link (or one to a directory)")
                    continue
                if not real.startswith(root_real + os.sep):
                    yield Skipped(display, "symbolic link pointing outside the tree: not followed", warning=True)
                    continue
                st = os.stat(real)
                key = (st.st_dev, st.st_ino)
                full = real
            elif entry.is_file(follow_symlinks=False):
                key = (dev, entry.inode())
            else:
                continue
            if key in seen:
                continue
            seen.add(key)
            yield Input(full, display, arg, rel)
        stack.extend(reversed(subdirs))  # linked directories are never entered: loops, escapes
