"""`instancetype-upgrade krm`: run as a KRM function (kustomize exec/container, kpt, Argo CD CMP)."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

EXIT_OK, EXIT_FAILED, EXIT_INTERNAL = 0, 1, 123

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
"""


@click.command(epilog=KRM_HELP)
@click.option("--target-kubevirt", "target", metavar="X.Y", help="Default for functionConfig target-kubevirt.")
@click.option("--strict", is_flag=True, help="Default for functionConfig strict.")
@click.option("--rename", is_flag=True, help="Default for functionConfig rename.")
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
def krm(target: str | None, strict: bool, rename: bool, debug: bool) -> None:
    """Read a ResourceList on stdin, write it upgraded (with `results`) on stdout.

    Items keep their comments, formatting and every config.kubernetes.io annotation; only the
    ResourceList goes to stdout, logs go to stderr.
    """
    sys.exit(_run(target, strict, rename, debug))


def _run(target: str | None, strict: bool, rename: bool, debug: bool) -> int:
    from transform.integrations import krm as core
    from transform.model.settings import Settings

    try:
        base = Settings(rename=rename, strict=strict)
        if target:
            from transform.kubevirt import releases

            try:
                base = Settings(rename=rename, strict=strict, target=releases.parse_release(target))
            except ValueError as exc:
                raise click.BadParameter(str(exc), param_hint="--target-kubevirt") from None
        try:
            out = core.process(sys.stdin.buffer.read(), base)
        except core.KrmError as exc:
            click.echo(f"instancetype-upgrade krm: error: {exc}", err=True)
            return EXIT_FAILED
        sys.stdout.buffer.write(out.data)
        sys.stdout.flush()
        _log(out)
        return EXIT_FAILED if out.failed else EXIT_OK
    except click.ClickException:
        raise
    except Exception as exc:  # a bug: one line, a distinct code
        if debug or os.environ.get("INSTANCETYPE_UPGRADE_DEBUG"):
            raise
        click.echo(
            f"instancetype-upgrade krm: internal error: {type(exc).__name__}: {exc} "
            "(please report this; --debug shows the traceback)",
            err=True,
        )
        return EXIT_INTERNAL


def _log(out: Any) -> None:
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
