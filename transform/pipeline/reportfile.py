"""--output-file: the report's own file. It must not be any input or any file the run writes (a
usage error, before anything is written), and it is replaced atomically: a temporary file in its
directory renamed over it, so a failed write leaves the old report (or none), never an empty or
half one, and a symbolic link at the target is replaced, never followed."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

from transform.pipeline.writes import TMP_PREFIX


def clash(
    output_file: str | None, inputs: Iterable[str], *, output_dir: str | None = None, writes: Iterable[str] = ()
) -> str:
    """Why the report must not go to `output_file`: it is (or resolves to, or is a hard link of)
    one of `inputs`, resolves to a file the run `writes`, or lies under --output-dir; "" when it may."""
    if not output_file or output_file == "-":
        return ""
    for path in writes:
        if os.path.realpath(path) == os.path.realpath(output_file):
            return f"--output-file {output_file} is the output {path}: the report would replace it"
    if output_dir:
        base = os.path.realpath(output_dir)
        if os.path.realpath(output_file).startswith(base.rstrip(os.sep) + os.sep):
            return f"--output-file {output_file} is under --output-dir {output_dir}: it would be among the copies"
    try:
        st = os.stat(output_file)
    except OSError:
        return ""  # nothing there (or a dangling link): no input can be it
    for path in inputs:
        try:
            other = os.stat(path)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            return f"--output-file {output_file} is the input {path}: the report would replace it"
    return ""


def replace(path: str, data: bytes) -> None:
    """Write `data` to a new file next to `path` and rename it over `path` (a regular file keeps its
    permission bits; a link is replaced by the report, its target untouched). Raises OSError."""
    try:
        st: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(21, "is a directory")
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, f"{TMP_PREFIX}{os.getpid()}.{os.urandom(4).hex()}.report.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            if st is not None and stat.S_ISREG(st.st_mode):
                os.fchmod(fh.fileno(), st.st_mode & 0o7777)
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
