"""`instancetype-upgrade backup IN.tar.gz -o OUT.tar.gz`: upgrade a Velero backup tarball.

Imports only click and the standard library at module level (start-up time); the work is done
by transform.integrations.velero.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from transform.cli.exits import EXIT_CHANGED, EXIT_ERROR, EXIT_OK, EXIT_USAGE, guard
from transform.cli.options import ENGINE, REPORT, WHAT_IT_UPGRADES, options, settings
from transform.cli.progress import Progress

if TYPE_CHECKING:
    from transform.cli.options import RunOptions

EPILOG = """\b
Exit codes:
  0    nothing to change (OUT is still written: a byte copy of IN)
  1    some items were upgraded (or would be, with --check)
  2    usage error
  3    the archive is unreadable or unsafe (nothing written), or some item could not be
       upgraded (copied unchanged; the rest is still written)
  123  internal error (a bug: please report it; --debug shows the traceback)
"""


@click.command(
    epilog=EPILOG,
    short_help="Upgrade the KubeVirt items of a Velero backup tarball.",
    help=f"""Upgrade the KubeVirt items of a Velero backup tarball (ARCHIVE, a .tar.gz) into OUT.

    Items under resources/ are upgraded as in `fix`: {WHAT_IT_UPGRADES}. Every other entry is copied
    unchanged. ARCHIVE is never modified; OUT appears only once complete.
    """,
)
@click.argument("archive", type=click.Path(dir_okay=False))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    metavar="OUT.tar.gz",
    help="Where to write the upgraded backup (required unless --check).",
)
@click.option("--check", is_flag=True, help="Write nothing; report what would change (exit 1 when something would).")
@options(*ENGINE, "max_archive_bytes", *REPORT)
def backup(archive: str, output: str | None, check: bool, **kw: Any) -> None:
    c = settings(kw)
    if check and output:
        raise click.UsageError("--check writes nothing: drop -o/--output")
    if not check and not output:
        raise click.UsageError("missing -o/--output OUT.tar.gz (or use --check to only report)")
    if c.output_file:
        # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
        from transform.pipeline import reportfile

        clash = reportfile.clash(c.output_file, [archive], writes=[output] if output else [])
        if clash:
            raise click.UsageError(clash)
    sys.exit(guard(lambda: _run(archive, None if check else output, c), c.debug))


def _run(archive: str, output: str | None, c: RunOptions) -> int:
    # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
    from transform.cli.driver import report
    from transform.integrations import velero as core
    from transform.model.findings import Severity, quote_name

    command = "check" if output is None else "backup"
    progress = Progress(unit="entries")  # a terminal only
    try:
        try:
            outcome = core.upgrade_backup(archive, output, c.engine, progress)
        finally:
            progress.close()
    except core.UsageError as exc:
        click.echo(f"Error: {exc}", err=True)
        return EXIT_USAGE
    except core.BackupError as exc:
        outcome = core.error_outcome(str(exc), archive)
        report(command, outcome.run, c, archive=quote_name(archive))
        return EXIT_ERROR
    outcome.run.files_seen = outcome.members
    report(command, outcome.run, c, archive=quote_name(archive))
    findings = outcome.run.all_findings
    if outcome.run.failed or (c.engine.strict and any(f.severity is Severity.WARNING for f in findings)):
        return EXIT_ERROR
    return EXIT_CHANGED if outcome.changed else EXIT_OK
