"""The command line as a test runs it, one runner each way.

- `invoke`: in process, with click's `CliRunner` (stdout and stderr apart; `Result.output` has both).
  An exception that escapes the command (anything but the `SystemExit` click raises for an exit code)
  is raised in the test, not turned into exit code 1: a test never passes on a crash.
- `run_module`: `python -m transform` in a child process, for what is about the process itself (signals,
  start-up, streams, exit status of the interpreter). The child imports this checkout (`PYTHONPATH` is
  the checkout's root, whatever the working directory), not an installed copy.

`tests/conftest.py` offers both as fixtures (`cli_runner`, `cli_process`); a module's own helper that shapes
the result for its assertions (a tuple, parsed JSON) calls these.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
from collections.abc import Callable, Mapping
from typing import Any

from click.testing import CliRunner, Result

from transform.cli import main as main_module

ROOT = pathlib.Path(__file__).resolve().parents[2]


def invoke(*args: str | os.PathLike[str], input: str | bytes | None = None) -> Result:
    """`instancetype-upgrade ARGS` in process: the click `Result` (exit_code, stdout, stderr, output)."""
    result = CliRunner().invoke(main_module.cli, [os.fspath(a) for a in args], input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def checkout_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a child that must import this checkout: ours, `PYTHONPATH` set to the root."""
    return {**os.environ, "PYTHONPATH": str(ROOT), **(extra or {})}


def run_module(
    *args: str | os.PathLike[str],
    input: str | bytes | None = None,
    cwd: str | os.PathLike[str] | None = ROOT,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
    text: bool = False,
    stdin: int | None = None,
    merge_stderr: bool = False,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[Any]:
    """`python -m transform ARGS` in a child process: stdout and stderr captured (`merge_stderr`: one stream,
    in the order written, in `stdout`), bytes unless `text`; `env` adds to the checkout environment."""
    streams: dict[str, Any] = (
        {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT} if merge_stderr else {"capture_output": True}
    )
    return subprocess.run(
        module_command(*args),
        input=input,
        stdin=stdin,
        cwd=cwd,
        env=checkout_env(env),
        timeout=timeout,
        text=text,
        preexec_fn=preexec_fn,
        check=False,
        **streams,
    )


def start_module(*args: str | os.PathLike[str], **popen: Any) -> subprocess.Popen[Any]:
    """`python -m transform ARGS` started and left running (a `Popen`; `cwd` the checkout unless given)."""
    popen.setdefault("cwd", ROOT)
    return subprocess.Popen(module_command(*args), env=checkout_env(popen.pop("env", None)), **popen)


def module_command(*args: str | os.PathLike[str]) -> list[str]:
    """The argv of `python -m transform ARGS` with this interpreter."""
    return [sys.executable, "-m", "transform", *(os.fspath(a) for a in args)]


def module_script(path: pathlib.Path, *before: str, after: str = "") -> pathlib.Path:
    """An executable shell script at `path` that runs `python -m transform BEFORE "$@" AFTER` on this checkout,
    for a tool that runs ours by path (a kustomize plugin, a KRM exec function, an Argo CD plugin)."""
    head = "".join(f"{word} " for word in before)
    tail = f" {after}" if after else ""
    path.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m transform {head}"$@"{tail}\n')
    path.chmod(0o755)
    return path
