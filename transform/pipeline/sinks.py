"""Write results: atomic in-place replacement, --output-dir copies, unified diffs."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import IO


class WriteError(Exception):
    pass


@contextlib.contextmanager
def atomic_file(path: str, *, durable: bool = True) -> Iterator[IO[bytes]]:
    """A file that replaces `path` only when the block completes: a reader or a crash sees the old
    file or the new one, never half of it.

    A temp file in the same directory; on success flushed, fsynced (when `durable`: always for a
    user's own file), given the target's permission bits, renamed over it, and the directory synced.
    On an exception the temp file is removed and `path` is untouched. Raises OSError.
    """
    directory = os.path.dirname(os.path.abspath(path))
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o644
    import tempfile  # lazy, as difflib below: a run that writes nothing does not import them

    fd, tmp = tempfile.mkstemp(prefix=".instancetype-upgrade.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
        tmp = ""
        if durable:
            _sync_directory(directory)
    finally:
        if tmp:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _sync_directory(directory: str) -> None:
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def write_atomic(path: str, data: bytes, expect: bytes | None = None, *, durable: bool = True) -> None:
    """Replace `path` by `data` atomically (see `atomic_file`). When `expect` is given and the file no
    longer holds it (another run changed it meanwhile), nothing is written."""
    try:
        with atomic_file(path, durable=durable) as fh:
            fh.write(data)
            if expect is not None:
                with open(path, "rb") as current:
                    if current.read() != expect:
                        raise WriteError("file changed while it was being upgraded (another run?); left as it is")
    except OSError as exc:
        raise WriteError(f"cannot write: {exc.strerror or exc}") from None


def output_path(output_dir: str, rel: str) -> str:
    """The copy's path under output_dir; never outside it."""
    base = os.path.realpath(output_dir)
    target = os.path.realpath(os.path.join(base, rel))
    if target != base and not target.startswith(base + os.sep):
        raise WriteError(f"refusing to write outside --output-dir: {rel}")
    return target


class OutputDir:
    """--output-dir: every write lands inside it; each directory is checked and created once."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.ready: set[str] = set()

    def write(self, rel: str, data: bytes) -> str:
        parent_rel = os.path.dirname(rel)
        if parent_rel not in self.ready:
            target = output_path(self.root, rel)
            try:
                os.makedirs(os.path.dirname(target), exist_ok=True)
            except OSError as exc:  # a file where a directory should be, no permission, ...
                raise WriteError(f"cannot create {os.path.dirname(target)}: {exc.strerror or exc}") from None
            if output_path(self.root, rel) != target:  # a link planted while we created it
                raise WriteError(f"refusing to write outside --output-dir: {rel}")
            self.ready.add(parent_rel)
        target = os.path.join(os.path.realpath(self.root), os.path.normpath(rel))
        # copies are new files: a rename makes each appear whole; fsync is kept for in-place rewrites
        write_atomic(target, data, durable=False)
        return target


def output_names(inputs: list[tuple[str, str]], cwd: str | None = None) -> dict[str, str]:
    """--output-dir: each input's path under DIR, from (display path, the directory argument it was
    found under or "" for a file argument): relative to the common directory of the arguments (a
    directory argument counts as itself, a file argument as its directory). One directory argument
    keeps the paths under it (`fix repo --output-dir out`: `out/base/x.yaml`); `fix a/x.yaml
    b/x.yaml` gives `out/a/x.yaml` and `out/b/x.yaml`: two inputs never share a name unless they
    are the same path."""
    cwd = os.path.abspath(cwd or os.getcwd())
    absolute = {name: os.path.normpath(os.path.join(cwd, name)) for name, _ in inputs}
    anchors = [
        os.path.normpath(os.path.join(cwd, root)) if root else os.path.dirname(absolute[name]) for name, root in inputs
    ]
    base = os.path.commonpath(anchors) if anchors else cwd
    return {name: os.path.relpath(a, base) for name, a in absolute.items()}


def collisions(names: dict[str, str]) -> list[tuple[str, list[str]]]:
    """(output path, inputs) for every output path that two inputs would write."""
    by_out: dict[str, list[str]] = {}
    for name, rel in names.items():
        by_out.setdefault(os.path.normcase(os.path.normpath(rel)), []).append(name)
    return [(rel, names_) for rel, names_ in sorted(by_out.items()) if len(names_) > 1]


def write_copy(output_dir: str, rel: str, data: bytes) -> str:
    return OutputDir(output_dir).write(rel, data)


def unified_diff(name: str, old: str, new: str) -> str:
    """A unified diff whose header names the file as git does (quoted when it holds a newline, an escape...)."""
    import difflib

    from transform.model.findings import quote_name

    return "".join(
        difflib.unified_diff(
            old.splitlines(True),
            new.splitlines(True),
            fromfile=quote_name("a/" + name.lstrip("/")),
            tofile=quote_name("b/" + name.lstrip("/")),
        )
    )
