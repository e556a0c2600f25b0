"""Command line: the click group and the file commands (fix, check, diff, validate). Options are
declared in cli/options.py, exit codes and the internal-error guard in cli/exits.py; the work is
done by cli/driver.py. backup, scan and krm live in their own modules, imported when named."""

from __future__ import annotations

import atexit
import gc
import os
import sys
from typing import Any

import click

from transform import __version__
from transform.cli import config
from transform.cli.exits import EXIT_CODES_HELP, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, guard
from transform.cli.options import ENGINE, INPUTS, REPORT, WHAT_IT_UPGRADES, options, settings

LIMITS_HELP = """\b
Limits: documents over --max-document-size (default 16 MiB) and files or stdin over 16 times
that are refused (checked while reading); nesting deeper than 200 levels (payloads too), alias
expansions over 2,000,000 nodes, tar headers over 1 MiB and archives expanding past
--max-archive-size (default 2 GiB) are rejected. See docs/limits.md.
"""

CONFIG_HELP = """\b
Configuration: [tool.instancetype-upgrade] in pyproject.toml (or .instancetype-upgrade.toml),
found from the working directory up to the project root (a VCS marker, a project file; never above
home; --debug names it), sets defaults for any long option
(target-kubevirt = "1.7", rename = true, exclude = ["exported"]); the command line wins.
"""

_PATHS = click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
_FILE_OPTIONS = (*INPUTS, *ENGINE, *REPORT)


class _Group(click.Group):
    # The rarer subcommands are imported only when named (click's lazy-subcommand pattern): `fix` and
    # `check` under pre-commit do not pay for building `backup`, `krm` and `scan`.
    LAZY = {
        "backup": "transform.cli.cmd_backup",
        "export": "transform.cli.cmd_export",
        "krm": "transform.cli.cmd_krm",
        "scan": "transform.cli.cmd_scan",
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.LAZY:
            import importlib

            self.add_command(getattr(importlib.import_module(self.LAZY[cmd_name]), cmd_name))
        return super().get_command(ctx, cmd_name)

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> click.Context:
        if "default_map" not in extra:
            try:
                extra["default_map"] = config.default_map(self, debug="--debug" in args)
            except click.UsageError as exc:
                if args and not _HELP_FLAGS.intersection(args):
                    raise
                # help must stay reachable while the configuration is broken: say what is wrong, show help
                click.echo(f"Warning: {exc.format_message()} (ignored while showing help)", err=True)
        return super().make_context(info_name, args, parent=parent, **extra)


_HELP_FLAGS = frozenset({"-h", "--help", "--version"})


@click.group(
    cls=_Group,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=EXIT_CODES_HELP + "\n" + LIMITS_HELP + "\n" + CONFIG_HELP,
    help=f"""Upgrade, offline and keeping every untouched byte: {WHAT_IT_UPGRADES}.

    KubeVirt v1.7 removed instancetype.kubevirt.io v1alpha1/v1alpha2 and can no longer read the
    ControllerRevisions older releases stored. PATH is a file, a directory (searched recursively
    for *.yaml, *.yml, *.json and their Jinja *.j2; hidden directories skipped) or - for stdin.
    """,
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, _param, value: _show_version(ctx) if value and not ctx.resilient_parsing else None,
    help="Show the version and the KubeVirt and CDI releases the bundled data covers, and exit.",
)
def cli() -> None:
    pass


def _show_version(ctx: click.Context) -> None:
    click.echo(version_text())
    ctx.exit()


def version_text() -> str:
    """The tool's version, then the releases of each product that the bundled data was generated from."""
    # lazy: start-up: the bundled indexes are read for --version only
    from transform.kubevirt import gojson
    from transform.validate.schemas import bundled_releases

    lines = [f"instancetype-upgrade, version {__version__}"]
    names = {"kubevirt": "KubeVirt", "cdi": "CDI"}
    for product, tags in bundled_releases().items():
        what = "CRD schemas of every minor release"
        if product == "kubevirt":
            what += f"; revision payloads decoded as {gojson.RELEASE}'s Go types"
        lines.append(f"{names[product]} {tags[0]} to {tags[-1]} ({what})" if tags else f"{names[product]}: no releases")
    if "cdi" not in bundled_releases():
        lines.append("CDI: API versions only (no CDI schemas bundled)")
    return "\n".join(lines)


def _run(command: str, paths: tuple[str, ...], kw: dict[str, Any]) -> None:
    s = settings(kw)
    if "-" in paths and len(paths) > 1:
        raise click.UsageError("- (stdin) cannot be combined with other paths")
    if s.statistics and s.fmt.lower() != "text":
        raise click.UsageError("--statistics goes with --format text (the other formats list every finding)")
    if paths == ("-",) and s.output_dir:
        raise click.UsageError("--output-dir does not apply to - (stdin): the upgraded stream goes to stdout")
    if s.output_dir:
        # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
        from transform.pipeline.writes import output_dir_overlap

        overlap = output_dir_overlap(s.output_dir, list(paths))
        if overlap:
            raise click.UsageError(overlap)

    def body() -> int:
        # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
        from transform.cli import driver

        return driver.run(command, list(paths), s)

    sys.exit(guard(body, s.debug))


@cli.command(
    epilog=EXIT_CODES_HELP,
    short_help="Rewrite files in place (exit 1 when a file changed).",
    help=f"Rewrite files in place (exit 1 when a file changed); with -, read stdin, write stdout. Upgrades "
    f"{WHAT_IT_UPGRADES}.",
)
@_PATHS
@options(*_FILE_OPTIONS, "output_dir", "force", "exit_zero_even_if_changed")
def fix(paths: tuple[str, ...], **kw: Any) -> None:
    _run("fix", paths, kw)


@cli.command(
    epilog=EXIT_CODES_HELP,
    short_help="Write nothing; report what would change.",
    help=f"Write nothing; report what would change (exit 1 when something would), as `fix` upgrades "
    f"{WHAT_IT_UPGRADES}.",
)
@_PATHS
@options(*_FILE_OPTIONS, "exit_zero")
def check(paths: tuple[str, ...], **kw: Any) -> None:
    _run("check", paths, kw)


@cli.command(
    epilog=EXIT_CODES_HELP,
    short_help="Write nothing; print a unified diff of what would change.",
    help=f"Write nothing; print a unified diff of what would change on stdout (the report on stderr), as "
    f"`fix` upgrades {WHAT_IT_UPGRADES}.",
)
@_PATHS
@options(*_FILE_OPTIONS)
def diff(paths: tuple[str, ...], **kw: Any) -> None:
    _run("diff", paths, kw)


@cli.command(
    epilog="""\b
Exit codes:
  0    every document is valid for its own version (old versions get a warning)
  2    usage error
  3    some document is invalid or could not be read (under --strict, also a warning)
  123  internal error
"""
)
@_PATHS
@options(*INPUTS, "target", "target_cdi", "strict", "max_document_bytes", *REPORT, "exit_zero")
def validate(paths: tuple[str, ...], **kw: Any) -> None:
    """Validate every KubeVirt document against its own version's bundled schema and KubeVirt's
    webhook rules, and report what the --target-kubevirt release cannot read."""
    _run("validate", paths, kw)


# Python's cyclic collector runs a full collection each time the long-lived objects grow by a quarter:
# while a big document's node tree is alive (a 15 MB payload, a ResourceList of 4,000 items) that is
# most of the run (4x the work). Documents leave no cyclic garbage (tests/pipeline/test_scale.py), so a
# run keeps the young collections (700 allocations, x10) and never a full one; workers forked
# from this process inherit it.
NO_FULL_COLLECTIONS = 1 << 30


def entry() -> None:
    """The process's entry point (`python -m transform`, the console script): `main`, then the exit
    handlers, and the process ends without tearing the interpreter down. Freeing every module and
    object one by one was 8% of the instructions of a pre-commit run on one relevant file (40M of 521M,
    valgrind) and 49M after the 2 MB export (about 5 ms, serial, after the workers of `-j` are done);
    every file is closed by then, and the worker threads joined.
    Where flushing the output fails (a closed pipe), the interpreter's exit reports it, as before."""
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)
    atexit._run_exitfuncs()  # what the interpreter's exit would run first (none of ours)
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    previous = gc.get_threshold()
    gc.set_threshold(previous[0], previous[1], NO_FULL_COLLECTIONS)
    try:
        return _main(argv)
    finally:
        gc.set_threshold(*previous)


def _main(argv: list[str] | None) -> int:
    """The command line, inside the internal-error guard: reading the configuration too."""
    args = sys.argv[1:] if argv is None else argv
    return guard(lambda: _cli(args), "--debug" in args, announce=False)


def _cli(argv: list[str]) -> int:
    try:
        cli.main(args=argv, prog_name="instancetype-upgrade", standalone_mode=False)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    except click.UsageError as exc:
        exc.show()
        return EXIT_USAGE
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.Abort:
        click.echo("aborted", err=True)
        return EXIT_INTERRUPTED
    return EXIT_OK
