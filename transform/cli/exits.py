"""Exit codes (defined once), the one internal-error guard, and where reports and messages go.

Reports (text, json, junit, sarif, markdown) go to stdout, or to --output-file, unless stdout
carries the data (`fix -`, `diff`, `krm`): then to stderr. Human messages (progress, "Rewriting
x", notes) always go to stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import click

EXIT_OK = 0  # nothing to change; validate: everything valid
EXIT_CHANGED = 1  # fix: files changed; check/diff: would change; scan: something would break; krm: an error result
EXIT_USAGE = 2
EXIT_ERROR = 3  # some input could not be read or upgraded (or, under --strict, had a warning)
EXIT_INTERNAL = 123  # a bug
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM

EXIT_CODES_HELP = """\b
Exit codes:
  0    nothing to change (or stdin mode succeeded)
  1    files changed (fix) or would change (check, diff)
  2    usage error
  3    some input could not be read, parsed or upgraded, or its upgrade would be invalid
       (every other file is still processed; a failed file is never written);
       under --strict, also a warning
  123  internal error (a bug: please report it; --debug shows the traceback)
"""


def guard(
    fn: Callable[[], int], debug: bool = False, *, prog: str = "instancetype-upgrade", announce: bool = True
) -> int:
    """Run a command body: an exception is a bug, reported in one line with a distinct exit code.
    `announce`: with `debug`, first say which YAML parser runs (the command's own guard does)."""
    if debug and announce:
        # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
        from transform.yamltext import nodes  # ruamel.yaml, loaded up front only with --debug

        click.echo(f"{prog}: debug: {nodes.parser_description()}", err=True)
    previous = _on_sigterm(_terminate)
    try:
        return fn()
    except KeyboardInterrupt as exc:  # SIGINT, and SIGTERM through _terminate: no temp file stays behind
        # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
        from transform.pipeline import writes

        writes.remove_live_temp_files()
        terminated = isinstance(exc, Terminated)
        click.echo("terminated" if terminated else "interrupted", err=True)
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    except click.ClickException:
        raise
    except Exception as exc:
        if debug or os.environ.get("INSTANCETYPE_UPGRADE_DEBUG"):
            raise
        click.echo(
            f"{prog}: internal error: {type(exc).__name__}: {exc} (please report this; --debug shows the traceback)",
            err=True,
        )
        return EXIT_INTERNAL
    finally:
        _on_sigterm(previous)


class Terminated(KeyboardInterrupt):
    """SIGTERM, turned into an exception so that every `finally` (temp files) runs."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated


def _on_sigterm(handler: Any) -> Any:
    """Install `handler` for SIGTERM (main thread only); the previous one."""
    import signal
    import threading

    if handler is None or threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler)


def write_report(text: str, output_file: str | None, *, stdout_is_data: bool = False, done: str = "") -> None:
    """The report to --output-file (replaced atomically, pipeline/reportfile), else stdout, else
    (stdout carrying data) stderr. `done`: what the run already wrote, said if the report fails."""
    if not text:
        return
    if not text.endswith("\n"):
        text += "\n"
    # lazy: start-up: the helpers of names and report files are needed only here
    from transform.model.findings import utf8_text

    text = utf8_text(text)  # every renderer escapes undecodable names; this is the last net
    if output_file and output_file != "-":
        from transform.pipeline import reportfile  # lazy: start-up (see above)

        try:
            reportfile.replace(output_file, text.encode("utf-8", "backslashreplace"))
        except OSError as exc:
            raise _ReportFileError(output_file, (exc.strerror or str(exc)) + done) from None
        return
    stream = sys.stderr if stdout_is_data and not output_file else sys.stdout
    try:
        stream.write(text)
        stream.flush()
    except OSError as exc:
        if done:
            raise click.ClickException(f"cannot write the report: {exc.strerror or exc}{done}") from None
        raise


class _ReportFileError(click.FileError):
    exit_code = EXIT_ERROR


def note(message: str) -> None:
    """A human message: stderr, always."""
    sys.stderr.write(message + "\n")
