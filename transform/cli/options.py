"""Every command-line option, declared once, and the one `Settings` record they turn into.

A command picks its options by name (`@options("rename", "strict", ...)`); an option a command
does not take is a usage error there (click: "No such option"), never silently ignored. Values
come from the command line, else from the repo's configuration (`[tool.instancetype-upgrade]`,
see cli/config.py), else the defaults of `Settings`. Imports only click (start-up time).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

import click

from transform.model.limits import DEFAULT_MAX_ARCHIVE_BYTES
from transform.model.settings import DEFAULT_MAX_DOCUMENT_BYTES, Settings
from transform.report.formats import RENDERERS

# What every upgrading command's --help and the pre-commit hooks say it upgrades (docs/upgrades.md has the table).
WHAT_IT_UPGRADES = (
    "KubeVirt and CDI objects, to the newest API version the target release serves: instancetype.kubevirt.io "
    "v1alpha1/v1alpha2 instance types and preferences (and flavor.kubevirt.io flavors), their ControllerRevisions "
    "(every payload format a release wrote), and every other KubeVirt and CDI API version the target no longer "
    "serves or deprecates (kubevirt.io, snapshot, export, clone, pool, migrations, cdi.kubevirt.io, ...), wherever "
    "the object sits (lists, templates, owner references, kustomize patch targets)"
)
FORMATS = tuple(RENDERERS)  # --format: the report registry, in its order


def parse_target(ctx: click.Context | None, param: click.Parameter | None, value: Any) -> tuple[int, int] | None:
    """--target-kubevirt: the one place the command line parses a release (None: the Settings default)."""
    if value is None or isinstance(value, tuple):
        return value
    # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
    from transform.kubevirt import releases

    try:
        release, note = releases.parse_target(str(value))
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    if note:
        click.echo(f"instancetype-upgrade: note: {note}", err=True)
    return release


def parse_target_cdi(ctx: click.Context | None, param: click.Parameter | None, value: Any) -> tuple[int, int] | None:
    """--target-cdi (None: the Settings default)."""
    if value is None or isinstance(value, tuple):
        return value
    # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
    from transform.kubevirt import apis

    try:
        release, note = apis.parse_cdi_target(str(value))
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    if note:
        click.echo(f"instancetype-upgrade: note: {note}", err=True)
    return release


def parse_size(ctx: click.Context | None, param: click.Parameter | None, value: Any) -> int:
    """`16MiB`, `512k`, `1G`, `1048576` -> bytes; a size must be positive (command line and config alike)."""
    size = _size(value)
    if size <= 0:
        raise click.BadParameter(f"{value!r}: a size must be positive (e.g. 16MiB)")
    return size


def _size(value: Any) -> int:
    if isinstance(value, int):
        return value
    units = {"k": 1 << 10, "ki": 1 << 10, "m": 1 << 20, "mi": 1 << 20, "g": 1 << 30, "gi": 1 << 30}
    v = str(value).strip().lower().rstrip("b")
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


def _codes(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """--select/--ignore: repeatable and comma-separated (`--select upgraded,webhook.`)."""
    return tuple(p.strip() for v in value for p in str(v).split(",") if p.strip())


_OPTIONS: dict[str, Callable[[Any], Any]] = {
    "include": click.option(
        "--include",
        multiple=True,
        metavar="GLOB",
        help="Only files matching GLOB in directories (default *.yaml, *.yml, *.json and their *.j2).",
    ),
    "exclude": click.option(
        "--exclude",
        multiple=True,
        metavar="GLOB",
        help="Skip files matching GLOB; a bare name (`exported`) skips that directory or file anywhere.",
    ),
    "context": click.option(
        "--context",
        multiple=True,
        metavar="PATH",
        type=click.Path(exists=True),
        help="Also read the files under PATH (repeatable; same --include/--exclude) for what one file says of "
        "another (the kind and name of a VM's revision, --rename references, kustomize patches), without "
        "upgrading, reporting or writing them: a run on some files (pre-commit, a pull request's diff) then "
        "decides as a run on the whole tree would. A revision referenced from a file outside the run keeps its "
        "name under --rename. Read only when some input may need upgrading.",
    ),
    "fmt": click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS, case_sensitive=False),
        default="text",
        show_default=True,
        help="Report format (json: docs/report-schema.md; markdown: for pull-request comments).",
    ),
    "output_file": click.option(
        "--output-file",
        "output_file",
        type=click.Path(dir_okay=False, allow_dash=True),
        metavar="FILE",
        help="Write the report to FILE instead of stdout.",
    ),
    "target": click.option(
        "--target-kubevirt",
        "target",
        metavar="X.Y",
        callback=parse_target,
        help="KubeVirt release to check against (default: the newest known, 1.9).",
    ),
    "target_cdi": click.option(
        "--target-cdi",
        "target_cdi",
        metavar="X.Y",
        callback=parse_target_cdi,
        help="CDI release to check CDI objects against (default: the newest known, 1.66).",
    ),
    "drop_server_fields": click.option(
        "--drop-server-fields",
        is_flag=True,
        help="Remove metadata.managedFields and status that name an old API version (the API server owns "
        "and rewrites them); without it they are reported only.",
    ),
    "helm_releases": click.option(
        "--helm-releases",
        type=click.Choice(("latest", "all", "none")),
        default=None,
        help="Which Helm release records (Secrets of type helm.sh/release.v1, Helm's ConfigMaps) get the "
        "KubeVirt apiVersions in their manifest upgraded: the latest deployed revision of each release "
        "(default), every revision, or none.",
    ),
    "strict": click.option(
        "--strict",
        is_flag=True,
        help="Warnings (unknown fields, duplicate keys, ...) are errors: counted, shown and exiting as "
        "errors (exit 3), and a file with one is not written. This includes the tool's own warnings that "
        "no API server gives (deprecated presets, topology values, webhook rules), by design.",
    ),
    "max_document_bytes": click.option(
        "--max-document-size",
        "max_document_bytes",
        default=str(DEFAULT_MAX_DOCUMENT_BYTES),
        callback=parse_size,
        show_default="16MiB",
        help="Refuse larger documents.",
    ),
    "max_archive_bytes": click.option(
        "--max-archive-size",
        "max_archive_bytes",
        default=str(DEFAULT_MAX_ARCHIVE_BYTES),
        callback=parse_size,
        show_default="2GiB",
        help="Refuse a tarball that decompresses to more (checked while decompressing).",
    ),
    "rename": click.option(
        "--rename",
        is_flag=True,
        help="Give upgraded revisions KubeVirt's v1beta1 names and rewrite every VM reference to them in the inputs.",
    ),
    "modernize": click.option(
        "--modernize",
        is_flag=True,
        help="Also rewrite deprecated spellings to their current form, where the --target-kubevirt release "
        "supports it.",
    ),
    "modernize_revisions": click.option(
        "--modernize-revisions",
        is_flag=True,
        help="With --modernize, modernize revision payloads too (they are snapshots: off by default).",
    ),
    "quiet": click.option("-q", "--quiet", is_flag=True, help="Report only problems and the summary."),
    "debug": click.option("--debug", is_flag=True, help="Show tracebacks of internal errors."),
    "jobs": click.option(
        "-j",
        "--jobs",
        type=click.IntRange(min=0),
        default=0,
        show_default="0: decided per run",
        help="Processes, at most: this one and N - 1 forked workers (0: decided per run: one below 1 MB of "
        "candidate files, else one per CPU free now; a large file is shared by its documents). Results do not "
        "depend on it.",
    ),
    "output_dir": click.option(
        "--output-dir",
        type=click.Path(file_okay=False),
        help="Write the upgraded files under DIR, each at its path relative to the common directory of the "
        "PATH arguments (one directory: the paths under it); files that need no change are not copied; "
        "the inputs are untouched.",
    ),
    "force": click.option("--force", is_flag=True, help="Rewrite read-only files too."),
    "statistics": click.option("--statistics", is_flag=True, help="Count findings per code (after the report)."),
    "select": click.option(
        "--select",
        multiple=True,
        metavar="CODE",
        callback=_codes,
        help="Report only findings whose code starts with CODE (repeatable, comma-separated).",
    ),
    "ignore": click.option(
        "--ignore",
        multiple=True,
        metavar="CODE",
        callback=_codes,
        help="Do not report findings whose code starts with CODE (errors still set the exit code).",
    ),
    "inline_ignores": click.option(
        "--inline-ignores/--no-inline-ignores",
        default=None,
        help="Let `# instancetype-upgrade: ignore=CODE[,CODE...]` comments in the inputs suppress the warnings "
        "and infos they name, for the field they are written at (the apiVersion line: the whole object); on by "
        "default. Errors are never suppressed.",
    ),
    "exit_zero": click.option(
        "--exit-zero",
        is_flag=True,
        help="Exit 0 even when something would change or break (report-only runs); unreadable input still exits 3.",
    ),
    "exit_zero_even_if_changed": click.option(
        "--exit-zero-even-if-changed",
        is_flag=True,
        help="Exit 0 rather than 1 when files were rewritten (errors still exit 3).",
    ),
}

SETTINGS_FIELDS = frozenset(f.name for f in fields(Settings))
assert set(_OPTIONS) <= SETTINGS_FIELDS  # every option lands in the record

REPORT = ("fmt", "output_file", "quiet", "statistics", "select", "ignore", "inline_ignores", "debug")
ENGINE = (
    "target",
    "target_cdi",
    "strict",
    "max_document_bytes",
    "rename",
    "modernize",
    "modernize_revisions",
    "drop_server_fields",
    "helm_releases",
)
INPUTS = ("include", "exclude", "context", "jobs")


def options(*names: str) -> Callable[[Any], Any]:
    """Attach the named options, in a stable order (the order of _OPTIONS)."""
    unknown = set(names) - set(_OPTIONS)
    if unknown:
        raise ValueError(f"no such option: {sorted(unknown)}")

    def deco(f: Any) -> Any:
        for name in reversed([n for n in _OPTIONS if n in names]):
            f = _OPTIONS[name](f)
        return f

    return deco


def settings(kw: dict[str, Any], **fixed: Any) -> Settings:
    """Pop every option value out of a command's keyword arguments into one Settings record.
    An option left unset (None) takes the Settings default."""
    values = {k: kw.pop(k) for k in list(kw) if k in SETTINGS_FIELDS}
    values.update(fixed)
    return Settings(**{k: v for k, v in values.items() if v is not None})
