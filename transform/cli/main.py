"""Command line: parse options, run, render, map outcomes to exit codes. Nothing else."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click

from transform import __version__

EXIT_OK, EXIT_CHANGED, EXIT_USAGE, EXIT_ERROR, EXIT_INTERNAL = 0, 1, 2, 3, 123

EXIT_CODES_HELP = """\b
Exit codes:
  0    nothing to change (or stdin mode succeeded)
  1    files changed (fix) or would change (check, diff)
  2    usage error
  3    some input could not be read, parsed or upgraded, or its upgrade would be invalid
       (every other file is still processed; a failed file is never written)
  123  internal error (a bug: please report it; --debug shows the traceback)
"""

LIMITS_HELP = """\b
Limits: documents over --max-document-size (default 16 MiB) are refused; nesting deeper
than 200 levels and alias expansions over 2,000,000 nodes are rejected.
"""


@dataclass(frozen=True)
class Common:
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    fmt: str
    target: tuple[int, int]
    strict: bool
    max_document_bytes: int
    rename: bool
    quiet: bool
    debug: bool
    jobs: int = 0


def _target(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, int]:
    if value is None:
        from transform.model.settings import LATEST_RELEASE

        return LATEST_RELEASE  # without importing the release table: start-up time
    from transform.kubevirt import releases

    try:
        release = releases.parse_release(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    if release == releases.LATEST and not value.lstrip("v").startswith(releases.text(release)):
        click.echo(
            f"instancetype-upgrade: note: KubeVirt {value} is newer than the newest release this tool "
            f"knows ({releases.text(release)}); checking against {releases.text(release)}",
            err=True,
        )
    return release


def _size(ctx: click.Context, param: click.Parameter, value: str) -> int:
    units = {"k": 1 << 10, "ki": 1 << 10, "m": 1 << 20, "mi": 1 << 20, "g": 1 << 30, "gi": 1 << 30}
    v = value.strip().lower().rstrip("b")
    for u in sorted(units, key=len, reverse=True):
        if v.endswith(u):
            try:
                return int(float(v[: -len(u)]) * units[u])
            except ValueError:
                break
    try:
        return int(v)
    except ValueError:
        raise click.BadParameter(f"not a size: {value!r} (e.g. 16MiB)") from None


def common_options(formats: tuple[str, ...] = ("text", "json", "junit", "sarif")) -> Callable[[Any], Any]:
    def deco(f: Any) -> Any:
        opts = [
            click.option(
                "--include",
                multiple=True,
                metavar="GLOB",
                help="Only files matching GLOB in directories (default *.yaml, *.yml, *.json).",
            ),
            click.option("--exclude", multiple=True, metavar="GLOB", help="Skip files matching GLOB."),
            click.option(
                "--format",
                "fmt",
                type=click.Choice(formats, case_sensitive=False),
                default="text",
                show_default=True,
                help="Report format on stderr.",
            ),
            click.option(
                "--target-kubevirt",
                "target",
                metavar="X.Y",
                callback=_target,
                help="KubeVirt release to check against (default: the newest known, 1.9).",
            ),
            click.option(
                "--strict",
                is_flag=True,
                help="Unknown fields, duplicate keys and warnings become errors (exit 3).",
            ),
            click.option(
                "--max-document-size",
                "max_document_bytes",
                default="16MiB",
                callback=_size,
                show_default=True,
                help="Refuse larger documents.",
            ),
            click.option(
                "--rename",
                is_flag=True,
                help="Give upgraded revisions KubeVirt's v1beta1 names and "
                "rewrite every VM reference to them in the inputs.",
            ),
            click.option("-q", "--quiet", is_flag=True, help="Report only problems and the summary."),
            click.option("--debug", is_flag=True, help="Show tracebacks of internal errors."),
            click.option(
                "-j",
                "--jobs",
                type=click.IntRange(min=0),
                default=0,
                show_default="CPU count",
                help="Worker processes for large runs (small runs use one).",
            ),
        ]
        for opt in reversed(opts):
            f = opt(f)
        return f

    return deco


def _common(kw: dict[str, Any]) -> Common:
    return Common(
        *(
            kw.pop(k)
            for k in (
                "include",
                "exclude",
                "fmt",
                "target",
                "strict",
                "max_document_bytes",
                "rename",
                "quiet",
                "debug",
                "jobs",
            )
        )
    )


@click.group(
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=EXIT_CODES_HELP + "\n" + LIMITS_HELP,
)
@click.version_option(__version__, prog_name="instancetype-upgrade")
def cli() -> None:
    """Upgrade KubeVirt instancetype.kubevirt.io manifests and ControllerRevisions to v1beta1, offline.

    KubeVirt v1.7 removed instancetype.kubevirt.io v1alpha1/v1alpha2 and can no longer read the
    ControllerRevisions older releases stored. PATH is a file, a directory (searched recursively
    for *.yaml, *.yml, *.json; hidden directories skipped) or - for stdin.
    """


def _run(
    command: str,
    paths: tuple[str, ...],
    c: Common,
    *,
    output_dir: str | None = None,
    write: bool = False,
    extra: dict[str, Any] | None = None,
) -> int:
    from transform.cli import driver

    return driver.run(command, list(paths), c, output_dir=output_dir, write=write, extra=extra)


@cli.command(epilog=EXIT_CODES_HELP)
@click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False),
    help="Write the upgraded files under DIR (same relative paths; files that need no change are "
    "not copied); leave the inputs untouched.",
)
@click.option(
    "--modernize",
    is_flag=True,
    help="Also rewrite deprecated spellings to their current form, where the --target-kubevirt release supports it.",
)
@click.option(
    "--modernize-revisions",
    is_flag=True,
    help="With --modernize, modernize revision payloads too (they are snapshots: off by default).",
)
@click.option(
    "--exit-zero-even-if-changed",
    is_flag=True,
    help="Exit 0 rather than 1 when files were rewritten (errors still exit 3).",
)
@common_options()
def fix(
    paths: tuple[str, ...],
    output_dir: str | None,
    modernize: bool,
    modernize_revisions: bool,
    exit_zero_even_if_changed: bool,
    **kw: Any,
) -> None:
    """Rewrite files in place (exit 1 when a file changed). With -, read stdin, write stdout."""
    c = _common(kw)
    extra = {"modernize": modernize, "modernize_revisions": modernize_revisions}
    code = _guard(lambda c: _run("fix", paths, c, output_dir=output_dir, write=True, extra=extra), c)
    sys.exit(EXIT_OK if exit_zero_even_if_changed and code == EXIT_CHANGED else code)


@cli.command(epilog=EXIT_CODES_HELP)
@click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
@common_options()
def check(paths: tuple[str, ...], **kw: Any) -> None:
    """Write nothing; report what would change (exit 1 when something would)."""
    sys.exit(_guard(lambda c: _run("check", paths, c), _common(kw)))


@cli.command(epilog=EXIT_CODES_HELP)
@click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
@common_options()
def diff(paths: tuple[str, ...], **kw: Any) -> None:
    """Write nothing; print a unified diff of what would change on stdout."""
    sys.exit(_guard(lambda c: _run("diff", paths, c), _common(kw)))


@cli.command(
    epilog="""\b
Exit codes:
  0    every document is valid for its own version (old versions get a warning)
  2    usage error
  3    some document is invalid or could not be read
  123  internal error
"""
)
@click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
@common_options()
def validate(paths: tuple[str, ...], **kw: Any) -> None:
    """Validate every KubeVirt document against its own version's bundled schema and KubeVirt's
    webhook rules, and report what the --target-kubevirt release cannot read."""
    sys.exit(_guard(lambda c: _run("validate", paths, c), _common(kw)))


def _guard(fn: Callable[[Common], int], c: Common) -> int:
    if c.debug:
        from transform.yamltext import nodes  # ruamel.yaml: loaded up front only with --debug

        click.echo(f"instancetype-upgrade: debug: {nodes.parser_description()}", err=True)
    try:
        return fn(c)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return 130
    except Exception as exc:  # a bug: one line, a distinct code
        if c.debug or os.environ.get("INSTANCETYPE_UPGRADE_DEBUG"):
            raise
        click.echo(
            f"instancetype-upgrade: internal error: {type(exc).__name__}: {exc} "
            "(please report this; --debug shows the traceback)",
            err=True,
        )
        return EXIT_INTERNAL


def main(argv: list[str] | None = None) -> int:
    try:
        cli.main(args=argv, prog_name="instancetype-upgrade", standalone_mode=False)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    except click.UsageError as exc:
        exc.show()
        return EXIT_USAGE
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.Abort:
        click.echo("aborted", err=True)
        return 130
    return EXIT_OK


# --- subcommands defined in their own modules (each imports only click at module level) ---
from transform.cli.cmd_krm import krm  # noqa: E402

cli.add_command(krm)
from transform.cli.cmd_backup import backup  # noqa: E402

cli.add_command(backup)
from transform.cli.cmd_scan import scan  # noqa: E402

cli.add_command(scan)
