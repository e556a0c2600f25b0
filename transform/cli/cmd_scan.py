"""`instancetype-upgrade scan`: inventory and target check, writes nothing (click/stdlib only here)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import click

from transform.cli.exits import EXIT_CHANGED, EXIT_ERROR, EXIT_OK, guard, write_report
from transform.cli.options import REPORT, options, settings
from transform.cli.progress import Progress

if TYPE_CHECKING:
    from transform.cli.options import RunOptions

SCAN_EPILOG = """\b
Exit codes:
  0    nothing in the inputs would break on the --target-kubevirt release (or --exit-zero)
  1    something would (listed under "Would break")
  2    usage error
  3    some input could not be read (unreadable file, broken YAML, bad tarball);
       under --strict, also a warning
  123  internal error
"""


@click.command(epilog=SCAN_EPILOG)
@click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
@options(
    "include",
    "exclude",
    "target",
    "target_cdi",
    "strict",
    "max_document_bytes",
    "max_archive_bytes",
    *REPORT,
    "exit_zero",
)
def scan(paths: tuple[str, ...], **kw: Any) -> None:
    """Report every KubeVirt and CDI document (files, directories, Velero backups): objects per kind
    and version (every API version the target no longer serves or deprecates), ControllerRevisions per
    payload era, VMs and their revision references, dangling references, orphan revisions, object-name
    mismatches, and what the target release cannot read or refuses (a kind its API does not have, an
    interface binding it dropped). Writes nothing."""
    c = settings(kw)
    if c.output_file and os.path.exists(c.output_file):
        # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
        from transform.pipeline import reportfile, sources

        found = [i.path for i in sources.discover(list(paths), c.include, c.exclude) if isinstance(i, sources.Input)]
        clash = reportfile.clash(c.output_file, [*paths, *found])
        if clash:
            raise click.UsageError(clash)
    sys.exit(guard(lambda: _run(list(paths), c), c.debug))


def _run(paths: list[str], c: RunOptions) -> int:
    # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
    from transform.integrations import scan_inputs
    from transform.model.findings import Finding, Severity
    from transform.model.policy import run_policy
    from transform.pipeline import inventory as core
    from transform.pipeline import scan_links
    from transform.pipeline.batch import Item
    from transform.report import formats
    from transform.report import scan_tables as scan_report

    errors: list[Finding] = []
    progress = Progress(unit="files")  # a terminal only

    def counted(items: Iterator[Item]) -> Iterator[Item]:
        for n, item in enumerate(items, 1):
            progress(n)
            yield item

    try:
        inputs = scan_inputs.iter_inputs(paths, c.include, c.exclude, errors, c.engine)
        result = core.scan_items(counted(inputs), c.engine.target, c.engine)
    finally:
        progress.close()
    result.errors[:0] = errors
    result.breaking += scan_links.missing_in_backups(result.dangling, [p for p in paths if scan_inputs.is_tarball(p)])
    fmt = c.fmt.lower()
    e = c.engine
    result.errors = run_policy(result.errors, strict=e.strict, select=e.select, ignore=e.ignore)
    result.breaking = run_policy(result.breaking, strict=False, select=e.select, ignore=e.ignore)
    findings = result.errors + result.breaking
    if c.statistics:
        summary = formats.Summary(
            command="scan", files_seen=result.files_seen, files=sorted(result.files), suppressed=result.suppressed
        )
        out = formats.render_statistics(findings, summary)
    elif fmt == "json":
        out = scan_report.render_json(result)
    elif fmt == "text" and c.quiet:  # the problems and the verdict only
        out = "\n".join([*(str(f) for f in findings), scan_report.render_text(result).rstrip().splitlines()[-1]])
    elif fmt == "text":
        out = scan_report.render_text(result)
    else:
        summary = formats.Summary(command="scan", files_seen=result.files_seen, files=sorted(result.files))
        out = formats.RENDERERS[fmt](findings, summary)
    write_report(out, c.output_file)
    if any(f.severity is Severity.ERROR for f in result.errors) or (
        e.strict and any(f.severity is Severity.WARNING for f in findings)
    ):
        return EXIT_ERROR
    if c.exit_zero:
        return EXIT_OK
    return EXIT_CHANGED if result.breaking else EXIT_OK
