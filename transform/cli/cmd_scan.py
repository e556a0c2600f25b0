"""`instancetype-upgrade scan`: inventory and target check, writes nothing (click/stdlib only here)."""

from __future__ import annotations

import sys
from typing import Any

import click

SCAN_EPILOG = """\b
Exit codes:
  0    nothing in the inputs would break on the --target-kubevirt release
  1    something would (listed under "Would break")
  2    usage error
  3    some input could not be read (unreadable file, broken YAML, bad tarball)
  123  internal error
"""


def _target(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, int]:
    from transform.kubevirt import releases

    if value is None:
        return releases.LATEST
    try:
        return releases.parse_release(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command(epilog=SCAN_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json"), case_sensitive=False),
    default="text",
    show_default=True,
    help="Report format on stdout (json: see docs/scan-schema.md).",
)
@click.option(
    "--target-kubevirt",
    "target",
    metavar="X.Y",
    callback=_target,
    help="KubeVirt release to check against (default: the newest known).",
)
@click.option("--include", multiple=True, metavar="GLOB", help="Only files matching GLOB in directories.")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Skip files matching GLOB.")
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
def scan(
    paths: tuple[str, ...],
    fmt: str,
    target: tuple[int, int],
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    debug: bool,
) -> None:
    """Report every KubeVirt instancetype-related document (files, directories, Velero .tar.gz):
    objects per kind and version, ControllerRevisions per payload era, VMs and their revision
    references, dangling references, orphan revisions, object-name mismatches, and what the
    target release cannot read. Writes nothing."""
    sys.exit(_run(list(paths), fmt.lower(), target, include, exclude, debug))


def _run(
    paths: list[str], fmt: str, target: tuple[int, int], include: tuple[str, ...], exclude: tuple[str, ...], debug: bool
) -> int:
    try:
        from transform.integrations import scan_inputs
        from transform.pipeline import inventory as core
        from transform.report import scan_tables as scan_report

        errors: list[Any] = []
        result = core.scan_items(scan_inputs.iter_inputs(paths, include, exclude, errors), target)
        result.errors[:0] = errors
        sys.stdout.write(scan_report.render_json(result) if fmt == "json" else scan_report.render_text(result))
        return result.exit_code
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return 130
    except Exception as exc:
        if debug:
            raise
        click.echo(
            f"instancetype-upgrade: internal error: {type(exc).__name__}: {exc} "
            "(please report this; --debug shows the traceback)",
            err=True,
        )
        return 123
