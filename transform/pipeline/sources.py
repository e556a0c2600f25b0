"""Find input files: paths, directories (recursive), include/exclude globs, symlink rules."""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

# a directory's files read: YAML and JSON, and the same names as Jinja templates (Ansible's `*.yaml.j2`, read
# as a template when their markers leave them unreadable as YAML: transform.pipeline.charts.role_of)
SUFFIXES = (".yaml", ".yml", ".json", ".yaml.j2", ".yml.j2", ".json.j2")


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
    warn: bool = False  # a warning (a broken symbolic link), not an error


class InputError(Exception):
    """An input refused before (or while) it is read: not a regular file, too large, binary."""


_CHUNK = 1 << 20
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")  # UTF-16/32: NUL bytes, and their own message


def read_stream(fh: BinaryIO, limit: int) -> bytes:
    """Read at most `limit` bytes, in chunks: a larger input (`/dev/zero` on stdin) is refused as soon as
    it passes the limit, and a NUL byte (binary, never YAML) as soon as it is seen. Raises InputError."""
    chunks: list[bytes] = []
    total = 0
    while chunk := fh.read(min(_CHUNK, limit + 1 - total) or 1):
        if b"\x00" in chunk and not (chunks[0] if chunks else chunk).startswith(_WIDE_BOMS):
            raise InputError("contains NUL bytes: it looks binary, not YAML or JSON")
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise InputError(_too_large(limit))
    return b"".join(chunks)


def _too_large(limit: int) -> str:
    return (
        f"larger than {limit} bytes, the most read from one input (16 x --max-document-size; raise that to read "
        "it): refused without reading the rest"
    )


@dataclass(frozen=True)
class Pin:
    """Which directory and which file a read went to (device and inode of each), and the file's owner,
    group and mode then: a rewrite goes to that very directory and file, or nowhere (sinks)."""

    directory: tuple[int, int]
    file: tuple[int, int] | None  # None: a new file (an --output-dir copy), whatever is at the name now
    uid: int
    gid: int
    mode: int


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_file(path: str, limit: int) -> bytes:
    """A regular file's bytes (see read_stream). A FIFO, device or socket is refused without blocking:
    it is opened non-blocking and checked on the open descriptor. Raises InputError, OSError."""
    fd = os.open(path, _READ_FLAGS)
    try:
        return _read_open(fd, limit)[0]
    finally:
        os.close(fd)


def read_file_pinned(path: str, limit: int) -> tuple[bytes, Pin]:
    """read_file, through its directory opened once: the file opened in it without following a link,
    and the Pin of both (a later rewrite must find the same directory and file)."""
    dfd = os.open(os.path.dirname(path) or ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC)
    try:
        try:
            fd = os.open(os.path.basename(path), _READ_FLAGS | getattr(os, "O_NOFOLLOW", 0), dir_fd=dfd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise InputError("became a symbolic link while the tree was read: refused") from None
            raise
        try:
            data, st = _read_open(fd, limit)
        finally:
            os.close(fd)
        d = os.fstat(dfd)
    finally:
        os.close(dfd)
    return data, Pin((d.st_dev, d.st_ino), (st.st_dev, st.st_ino), st.st_uid, st.st_gid, st.st_mode)


def _read_open(fd: int, limit: int) -> tuple[bytes, os.stat_result]:
    st = os.fstat(fd)
    kind = not_regular(st.st_mode)
    if kind:
        raise InputError(f"{kind}, not a regular file: refused")
    if st.st_size > limit:
        raise InputError(_too_large(limit))
    return _read_regular(fd, st.st_size, limit), st


def _read_regular(fd: int, size: int, limit: int) -> bytes:
    """read_stream for a regular file of `size` bytes (by fstat), with os.read: one read for the data and
    one that finds the end (no buffered file object: most inputs are a few KB, and there are thousands)."""
    chunks: list[bytes] = []
    total = 0
    want = size + 1  # a file that grew since fstat is read on, in chunks, up to the limit
    while chunk := os.read(fd, min(want, limit + 1 - total)):
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise InputError(_too_large(limit))
        want = _CHUNK
    data = b"".join(chunks)  # one chunk: that very object, not a copy
    if b"\x00" in data and not data.startswith(_WIDE_BOMS):
        raise InputError("contains NUL bytes: it looks binary, not YAML or JSON")
    return data


def not_regular(mode: int) -> str:
    """What a non-regular file is ("a FIFO", ...), or "" for a regular file."""
    for test, what in (
        (stat.S_ISREG, ""),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return what
    return "a special file"


def broken_link(path: str) -> str:
    """Why the symbolic link `path` leads nowhere (dangling, a loop, itself), or ""."""
    try:
        os.stat(path)
        return ""
    except OSError as exc:
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        if exc.errno == errno.ELOOP:
            here = os.path.normpath(os.path.join(os.path.dirname(path), target))
            if here == os.path.normpath(path):
                return f"symbolic link pointing to itself ({target}): skipped"
            return f"symbolic link loop ({target} leads back to a link already followed): skipped"
        if exc.errno == errno.ENOENT:
            return f"dangling symbolic link (its target {target} does not exist): skipped"
        return f"symbolic link that cannot be followed ({exc.strerror or exc}): skipped"


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
            broken = broken_link(arg) if os.path.islink(arg) else ""
            if broken:
                yield Skipped(arg, broken, warn=True)
                continue
            try:
                st = os.stat(real)
            except OSError as exc:
                yield Skipped(arg, f"cannot read: {exc.strerror or exc}")
                continue
            kind = not_regular(st.st_mode)
            if kind:  # a FIFO would block the run forever; found while walking, it is skipped too
                yield Skipped(arg, f"{kind}, not a regular file: refused")
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
    stack: list[tuple[str, str, bool]] = [(arg, "", False)]
    while stack:
        directory, prefix, chart = stack.pop()
        try:
            dev = os.stat(directory).st_dev
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            yield Skipped(directory, f"cannot list directory: {exc.strerror or exc}")
            continue
        subdirs = []
        chart = chart or any(e.name == "Chart.yaml" for e in entries)  # a Helm chart: its *.tpl are templates
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue  # hidden files and directories, .git included
            rel = prefix + name
            if entry.is_dir(follow_symlinks=False):
                if not (exclude and _matches(rel, exclude)):
                    subdirs.append((entry.path, rel + "/", chart))
                continue
            if include:
                if not _matches(rel, include):
                    continue
            elif not name.endswith(SUFFIXES) and not (chart and name.endswith(".tpl")):
                continue
            if exclude and _matches(rel, exclude):
                continue
            display = os.path.join(arg, rel) if arg not in (".", "./") else rel
            full = entry.path
            if entry.is_symlink():
                broken = broken_link(full)
                if broken:
                    yield Skipped(display, broken, warn=True)
                    continue
                real = os.path.realpath(full)
                if not os.path.isfile(real):
                    yield Skipped(display, "symbolic link to a directory or a special file: not followed")
                    continue
                if not real.startswith(root_real + os.sep):
                    yield Skipped(display, "symbolic link pointing outside the tree: not followed", warn=True)
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
