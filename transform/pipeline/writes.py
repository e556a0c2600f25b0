"""Write results: atomic in-place replacement, --output-dir copies, unified diffs."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from typing import IO

from transform.model.findings import quote_name
from transform.pipeline.sources import Pin


class WriteError(Exception):
    pass


TMP_PREFIX = ".instancetype-upgrade."
_swept: set[str] = set()
_live: set[str] = set()  # temp files of this run, removed by the signal handlers too (cli.exits)


def temp_name_pid(name: str) -> int | None:
    """The pid in `.instancetype-upgrade.<pid>.<random>.tmp`, or None (not ours, or an older run's name)."""
    parts = name.split(".")
    if name.startswith(TMP_PREFIX) and name.endswith(".tmp") and len(parts) >= 5 and parts[2].isdigit():
        return int(parts[2])
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: alive
    return True


def sweep_stale(directory: str) -> list[str]:
    """Remove the temp files that killed runs (their pid is gone) left in `directory`; once per run."""
    if directory in _swept:
        return []
    _swept.add(directory)
    removed = []
    try:
        names = [n for n in os.listdir(directory) if n.startswith(TMP_PREFIX) and n.endswith(".tmp")]
    except OSError:
        return []
    for name in names:
        pid = temp_name_pid(name)
        if pid is not None and pid != os.getpid() and not _alive(pid):
            try:
                os.unlink(os.path.join(directory, name))
                removed.append(name)
            except OSError:
                pass
    return removed


def remove_live_temp_files() -> None:
    """Called on SIGTERM/SIGINT: no temp file of this run is left behind."""
    for tmp in list(_live):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        _live.discard(tmp)


@contextlib.contextmanager
def atomic_file(path: str, *, durable: bool = True) -> Iterator[IO[bytes]]:
    """A file that replaces `path` only when the block completes: a reader or a crash sees the old
    file or the new one, never half of it.

    A temp file in the same directory (named with our pid: a later run removes it if we are killed);
    on success flushed, fsynced (when `durable`: always for a user's own file), given the target's
    owner, group and permission bits, renamed over it, and the directory synced. A file with several
    hard links is refused (a rename would split them: the other names would keep the old text), as is
    one whose owner cannot be kept. On an exception the temp file is removed and `path` is untouched.
    Raises OSError.
    """
    directory = os.path.dirname(os.path.abspath(path))
    sweep_stale(directory)
    try:
        st: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and st.st_nlink > 1 and stat.S_ISREG(st.st_mode):
        raise OSError(
            errno.EMLINK,
            f"the file has {st.st_nlink} hard links; replacing it would leave the other names with the old "
            "text: refused (upgrade a copy, or remove the extra links)",
        )
    mode = st.st_mode & 0o7777 if st is not None else 0o644
    import tempfile  # lazy, as difflib below: a run that writes nothing does not import them

    fd, tmp = tempfile.mkstemp(prefix=f"{TMP_PREFIX}{os.getpid()}.", suffix=".tmp", dir=directory)
    _live.add(tmp)
    try:
        with os.fdopen(fd, "wb") as fh:
            if st is not None:
                _keep_owner(fh.fileno(), st)
            yield fh
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
        _live.discard(tmp)
        tmp = ""
        if durable:
            _sync_directory(directory)
    finally:
        if tmp:
            _live.discard(tmp)
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _keep_owner(fd: int, st: os.stat_result) -> None:
    """The new file gets the old one's owner and group (a root run must not take a user's file)."""
    now = os.fstat(fd)
    if (now.st_uid, now.st_gid) == (st.st_uid, st.st_gid):
        return
    try:
        os.fchown(fd, st.st_uid, st.st_gid)
    except PermissionError:
        raise OSError(
            errno.EPERM,
            f"cannot keep the file's owner and group ({st.st_uid}:{st.st_gid}) on the rewritten file: refused "
            "(run as its owner)",
        ) from None


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


def write_atomic(
    path: str, data: bytes, expect: bytes | None = None, *, durable: bool = True, pin: Pin | None = None
) -> None:
    """Replace `path` by `data` atomically (see `atomic_file`). When `expect` is given and the file no
    longer holds it (another run changed it meanwhile), nothing is written. `pin`: where the file was
    read (`write_pinned`)."""
    if pin is not None:
        return write_pinned(path, data, expect, pin, durable=durable)
    try:
        with atomic_file(path, durable=durable) as fh:
            fh.write(data)
            if expect is not None:
                with open(path, "rb") as current:
                    if current.read() != expect:
                        raise WriteError("file changed while it was being upgraded (another run?); left as it is")
    except OSError as exc:
        raise WriteError(f"cannot write: {exc.strerror or exc}") from None


_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def write_pinned(path: str, data: bytes, expect: bytes | None, pin: Pin, *, durable: bool = True) -> None:
    """`write_atomic` into the very directory the file was read from: the directory opened once and
    checked to be that one (device and inode: a directory swapped for a link is refused, not followed),
    the name in it checked to still be the file that was read (not only its bytes), the temporary file
    created and renamed relative to it, with the owner, group and mode the file had when read."""
    directory, name = os.path.dirname(path) or ".", os.path.basename(path)
    try:
        dfd = os.open(directory, _DIR_FLAGS)
    except OSError as exc:
        raise WriteError(f"cannot write: {exc.strerror or exc}") from None
    tmp = ""
    try:
        d = os.fstat(dfd)
        if (d.st_dev, d.st_ino) != pin.directory:
            raise WriteError(
                "its directory was replaced (by a link?) since it was read: left as it is, nothing written"
            )
        if pin.file is not None:
            _same_file(dfd, name, pin.file)
        sweep_stale(directory)
        tmp = f"{TMP_PREFIX}{os.getpid()}.{os.urandom(6).hex()}.tmp"
        fd = os.open(tmp, _NEW_FLAGS, 0o600, dir_fd=dfd)
        _live.add(os.path.join(directory, tmp))
        with os.fdopen(fd, "wb") as fh:
            if (pin.uid, pin.gid) != (os.geteuid(), os.getegid()):
                try:
                    os.fchown(fh.fileno(), pin.uid, pin.gid)  # the file's owner when read, never a newcomer's
                except PermissionError:
                    raise WriteError(
                        f"cannot keep the file's owner and group ({pin.uid}:{pin.gid}) on the rewritten file: "
                        "refused (run as its owner)"
                    ) from None
            os.fchmod(fh.fileno(), pin.mode & 0o7777)
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        if expect is not None:
            cfd = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0), dir_fd=dfd)
            with os.fdopen(cfd, "rb") as current:
                if current.read() != expect:
                    raise WriteError("file changed while it was being upgraded (another run?); left as it is")
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        _live.discard(os.path.join(directory, tmp))
        tmp = ""
        if durable:
            with contextlib.suppress(OSError):
                os.fsync(dfd)
    except OSError as exc:
        raise WriteError(f"cannot write: {exc.strerror or exc}") from None
    finally:
        if tmp:
            _live.discard(os.path.join(directory, tmp))
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
        os.close(dfd)


def _same_file(dfd: int, name: str, file: tuple[int, int]) -> None:
    try:
        now = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        raise WriteError("removed while it was being upgraded: nothing written") from None
    if (now.st_dev, now.st_ino) != file:
        raise WriteError("the path no longer leads to the file that was read (replaced meanwhile): left as it is")
    if now.st_nlink > 1:
        raise WriteError(
            f"cannot write: the file has {now.st_nlink} hard links; replacing it would leave the other names "
            "with the old text: refused (upgrade a copy, or remove the extra links)"
        )


def output_dir_overlap(output_dir: str, paths: list[str]) -> str:
    """Why --output-dir must not be used with these inputs (it is, is inside, or contains one), or ""."""
    out = os.path.realpath(output_dir)
    for p in paths:
        real = os.path.realpath(p)
        if out == real:
            return f"--output-dir {output_dir} is the input {p}: the inputs are never written with --output-dir"
        if out.startswith(real.rstrip(os.sep) + os.sep):
            return f"--output-dir {output_dir} is inside the input {p}: a later run would read its own copies"
        if real.startswith(out.rstrip(os.sep) + os.sep):
            return f"--output-dir {output_dir} contains the input {p}: copies would overwrite the inputs"
    return ""


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
        self.ready: dict[str, tuple[int, int]] = {}  # each directory checked once, then pinned

    def write(self, rel: str, data: bytes) -> str:
        parent_rel = os.path.dirname(rel)
        if parent_rel not in self.ready:
            target = output_path(self.root, rel)
            try:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                st = os.stat(os.path.dirname(target))
            except OSError as exc:  # a file where a directory should be, no permission, ...
                raise WriteError(f"cannot create {os.path.dirname(target)}: {exc.strerror or exc}") from None
            if output_path(self.root, rel) != target:  # a link planted while we created it
                raise WriteError(f"refusing to write outside --output-dir: {rel}")
            self.ready[parent_rel] = (st.st_dev, st.st_ino)
        target = os.path.join(os.path.realpath(self.root), os.path.normpath(rel))
        # copies are new files: a rename makes each appear whole; fsync is kept for in-place rewrites;
        # written in the directory checked above, whatever a link planted later says (write_pinned)
        pin = Pin(self.ready[parent_rel], None, os.geteuid(), os.getegid(), 0o644)
        write_atomic(target, data, durable=False, pin=pin)
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


def unified_diff(name: str, old: str, new: str) -> str:
    """A unified diff whose header names the file as git does (quoted when it holds a newline, an escape...)."""
    import difflib

    return "".join(
        difflib.unified_diff(
            old.splitlines(True),
            new.splitlines(True),
            fromfile=quote_name("a/" + name.lstrip("/")),
            tofile=quote_name("b/" + name.lstrip("/")),
        )
    )
