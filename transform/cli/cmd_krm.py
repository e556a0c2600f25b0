"""`instancetype-upgrade krm`: run as a KRM function (kustomize exec/container, kpt, Argo CD CMP)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from transform.cli.exits import EXIT_CHANGED, EXIT_OK, guard
from transform.cli.options import ENGINE, WHAT_IT_UPGRADES, options, settings

if TYPE_CHECKING:
    from transform.model.settings import Settings

KRM_HELP = """\b
Exit codes:
  0    the ResourceList was processed; no result has severity error
  1    some result has severity error (the ResourceList is still printed, with `results`),
       or stdin is not a ResourceList (nothing is printed)
  2    usage error
  123  internal error (a bug: please report it; --debug shows the traceback)

\b
functionConfig (a ConfigMap's data, or any kind with the keys under spec):
  rename: "true"           give upgraded revisions KubeVirt's v1beta1 names
  strict: "true"           warnings become errors
  target-kubevirt: "1.7"   KubeVirt release to check against
  modernize: "true"        also rewrite deprecated spellings the target supports
  select: "webhook.,cdi"   report only these finding codes, prefixes or API families
  ignore: "schema.unknown-field"   do not report these (`instancetype-upgrade codes`)
"""


@click.command(
    epilog=KRM_HELP,
    short_help="Read a ResourceList on stdin, write it upgraded on stdout.",
    help=f"""Read a ResourceList on stdin, write it upgraded (with `results`) on stdout: {WHAT_IT_UPGRADES}.

    The options are defaults for the functionConfig's keys. Items keep their comments, formatting
    and every config.kubernetes.io annotation; only the ResourceList goes to stdout, logs go to stderr.
    """,
)
@options(*ENGINE, "debug")
def krm(**kw: Any) -> None:
    c = settings(kw)
    sys.exit(guard(lambda: _run(c.engine), c.debug, prog="instancetype-upgrade krm"))


def _run(base: Settings) -> int:
    # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
    from transform.integrations import krm as core
    from transform.model.limits import file_limit
    from transform.pipeline import sources

    try:
        out = core.process(sources.read_stream(sys.stdin.buffer, file_limit(base.max_document_bytes)), base)
    except (core.KrmError, sources.InputError) as exc:
        click.echo(f"instancetype-upgrade krm: error: {exc}", err=True)
        return EXIT_CHANGED
    sys.stdout.buffer.write(out.data)
    sys.stdout.flush()
    _log(out)
    return EXIT_CHANGED if out.failed else EXIT_OK


def _log(out: Any) -> None:
    # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
    from transform.model.findings import Severity

    errors = sum(1 for f in out.findings if f.severity is Severity.ERROR)
    warnings = sum(1 for f in out.findings if f.severity is Severity.WARNING)
    for f in out.findings:
        if f.severity is not Severity.INFO:
            click.echo(str(f), err=True)
    click.echo(
        f"instancetype-upgrade krm: {out.upgraded} object(s) upgraded, {errors} error(s), {warnings} warning(s)",
        err=True,
    )
