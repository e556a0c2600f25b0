"""`instancetype-upgrade backup IN.tar.gz -o OUT.tar.gz`: upgrade a Velero backup tarball.

Imports only click and the standard library at module level (start-up time); the work is done
by transform.integrations.velero.
"""

from __future__ import annotations

import sys
from typing import Any

import click

EPILOG = """\b
Exit codes:
  0    nothing to change (OUT is still written: a byte copy of IN)
  1    some items were upgraded (or would be, with --check)
  2    usage error
  3    the archive is unreadable or unsafe (nothing written), or some item could not be
       upgraded (copied unchanged; the rest is still written)
  123  internal error (a bug: please report it; --debug shows the traceback)
"""


def _target(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, int]:
    from transform.cli.main import _target as target

    return target(ctx, param, value)


def _size(ctx: click.Context, param: click.Parameter, value: str) -> int:
    from transform.cli.main import _size as size

    return size(ctx, param, value)


@click.command(epilog=EPILOG)
@click.argument("archive", type=click.Path(dir_okay=False))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    metavar="OUT.tar.gz",
    help="Where to write the upgraded backup (required unless --check).",
)
@click.option("--check", is_flag=True, help="Write nothing; report what would change (exit 1 when something would).")
@click.option(
    "--rename",
    is_flag=True,
    help="Give upgraded revisions KubeVirt's v1beta1 names (and file names) "
    "and rewrite every VM and snapshot reference to them in the backup.",
)
@click.option(
    "--target-kubevirt",
    "target",
    metavar="X.Y",
    callback=_target,
    help="KubeVirt release to check against (default: the newest known, 1.9).",
)
@click.option("--strict", is_flag=True, help="Unknown fields, duplicate keys and warnings become errors (exit 3).")
@click.option(
    "--max-document-size",
    "max_document_bytes",
    default="16MiB",
    callback=_size,
    show_default=True,
    help="Items over this size are copied without being looked at.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json", "junit", "sarif"), case_sensitive=False),
    default="text",
    show_default=True,
    help="Report format on stderr.",
)
@click.option("-q", "--quiet", is_flag=True, help="Report only problems and the summary.")
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
def backup(archive: str, output: str | None, check: bool, **kw: Any) -> None:
    """Upgrade the KubeVirt items of a Velero backup tarball (ARCHIVE, a .tar.gz) into OUT.

    Items under resources/ (VMs, snapshot contents, ControllerRevisions, instancetypes and
    preferences) are upgraded as in `fix`; every other entry is copied unchanged. ARCHIVE is
    never modified; OUT appears only once complete.
    """
    from transform.cli.main import Common, _guard

    c = Common(
        (), (), kw["fmt"], kw["target"], kw["strict"], kw["max_document_bytes"], kw["rename"], kw["quiet"], kw["debug"]
    )
    if check and output:
        raise click.UsageError("--check writes nothing: drop -o/--output")
    if not check and not output:
        raise click.UsageError("missing -o/--output OUT.tar.gz (or use --check to only report)")
    sys.exit(_guard(lambda c: _run(archive, None if check else output, c), c))


def _run(archive: str, output: str | None, c: Any) -> int:
    from transform.cli.driver import EXIT_CHANGED, EXIT_ERROR, EXIT_OK, EXIT_USAGE, _report, settings_of
    from transform.integrations import velero as core
    from transform.model.findings import Severity

    command = "check" if output is None else "backup"
    try:
        outcome = core.upgrade_backup(archive, output, settings_of(c))
    except core.UsageError as exc:
        click.echo(f"Error: {exc}", err=True)
        return EXIT_USAGE
    except core.BackupError as exc:
        outcome = core.error_outcome(str(exc))
        _report(command, outcome.run, c)
        return EXIT_ERROR
    outcome.run.files_seen = outcome.members
    _report(command, outcome.run, c)
    findings = outcome.run.all_findings
    if outcome.run.failed or (c.strict and any(f.severity is Severity.WARNING for f in findings)):
        return EXIT_ERROR
    return EXIT_CHANGED if outcome.changed else EXIT_OK
