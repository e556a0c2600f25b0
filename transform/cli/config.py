"""A repo's own defaults: `[tool.instancetype-upgrade]` in pyproject.toml, or `.instancetype-upgrade.toml`
(top-level keys), found from the working directory upwards: the first directory holding either file
ends the search (in one directory the dedicated file wins; a pyproject.toml without the table means
no configuration), as does a directory with a VCS marker (.git, .hg, .svn, .jj) and the user's home
(never above it). Keys are the long option names without dashes
(`target-kubevirt = "1.7"`, `rename = true`, `exclude = ["exported"]`); a per-command table
(`[tool.instancetype-upgrade.check]`) overrides the shared keys for that command. The command
line overrides both. pre-commit, CI and people then run the same thing.
"""

from __future__ import annotations

import os
from typing import Any

import click

FILE = ".instancetype-upgrade.toml"
TABLE = ("tool", "instancetype-upgrade")
VCS_MARKERS = (".git", ".hg", ".svn", ".jj")
_TEXT_KEYS = ("target-kubevirt", "target-cdi", "max-document-size", "max-archive-size")


def find(start: str | None = None) -> tuple[str, dict[str, Any]] | None:
    """(path, settings table) of the nearest configuration, or None (see the module's rules)."""
    try:
        directory = os.path.abspath(start or os.getcwd())
    except OSError as exc:
        raise click.UsageError(f"cannot read the working directory (was it deleted?): {exc.strerror or exc}") from None
    home = os.path.expanduser("~")
    while True:
        dedicated = os.path.join(directory, FILE)
        if os.path.isfile(dedicated):
            return dedicated, _load(dedicated)
        pyproject = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(pyproject):
            table: Any = _load(pyproject)
            for key in TABLE:
                table = table.get(key) if isinstance(table, dict) else None
            return (pyproject, table) if isinstance(table, dict) else None  # the project's own root
        if directory == home or any(os.path.exists(os.path.join(directory, m)) for m in VCS_MARKERS):
            return None  # the repository's root, or the user's home: look no further
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _load(path: str) -> dict[str, Any]:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef,unused-ignore]
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except (OSError, ValueError) as exc:
        raise click.UsageError(f"{path}: cannot read the configuration: {exc}") from None
    except RecursionError:
        raise click.UsageError(f"{path}: cannot read the configuration: nested too deeply") from None


def _value(path: str, key: str, param: click.Parameter, value: Any) -> Any:
    """A configured value checked against what its option takes (one line naming the key when not);
    its range is then checked by the option itself, as on the command line."""
    where = f"{path}: {key} = {value!r}"
    if isinstance(param, click.Option) and param.is_flag:
        if not isinstance(value, bool):
            raise click.UsageError(f"{where}: expected true or false")
        return value
    if param.multiple:
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise click.UsageError(f'{where}: expected a list of strings (["a", "b"])')
        _callback(where, param, tuple(values))  # (select, ignore: codes the registry knows)
        return values
    if isinstance(value, float) and key in ("target-kubevirt", "target-cdi"):
        raise click.UsageError(f'{where}: a TOML number drops zeros (1.10 reads as 1.1): quote it: {key} = "X.Y"')
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise click.UsageError(f"{where}: expected a string or a whole number")
    value = str(value) if key in _TEXT_KEYS else value
    if key not in ("target-kubevirt", "target-cdi"):  # (those are checked by their option, notes and all)
        try:  # the option's own type and range, as on the command line, said here in one line
            converted = param.type.convert(value, param, None)
        except click.BadParameter as exc:
            raise click.UsageError(f"{where}: {exc.message}") from None
        _callback(where, param, converted)
    return value


def _callback(where: str, param: click.Parameter, value: Any) -> None:
    """The option's own check of a configured value, as on the command line, said in one line."""
    try:
        if param.callback is not None:
            param.callback(None, param, value)  # type: ignore[arg-type]
    except click.BadParameter as exc:
        raise click.UsageError(f"{where}: {exc.message}") from None


def default_map(group: click.Group, start: str | None = None, *, debug: bool = False) -> dict[str, dict[str, Any]]:
    """click's default_map: for each command, the configured values of the options it takes.
    A key no command takes is a usage error (a typo must not be silently ignored). `debug`: say
    which configuration was read (stderr)."""
    found = find(start)
    if debug:
        click.echo(f"instancetype-upgrade: debug: configuration: {found[0] if found else 'none found'}", err=True)
    if found is None:
        return {}
    path, table = found
    shared = {k: v for k, v in table.items() if not isinstance(v, dict)}
    per_command = {k: v for k, v in table.items() if isinstance(v, dict)}
    out: dict[str, dict[str, Any]] = {}
    used: set[str] = set()
    unknown: list[str] = []
    for name, command in group.commands.items():
        by_flag = {opt.lstrip("-"): p for p in command.params for opt in getattr(p, "opts", ()) if opt.startswith("--")}
        values: dict[str, Any] = {}
        own = per_command.get(name, {})
        unknown += sorted(f"{name}.{k}" for k in own if k not in by_flag)
        for key, value in {**shared, **own}.items():
            param = by_flag.get(key)
            if param is not None:
                values[param.name or key] = _value(path, key, param, value)
                used.add(key)
        if values:
            out[name] = values
    unknown += sorted(set(shared) - used) + sorted(f"{cmd}.*" for cmd in per_command if cmd not in group.commands)
    if unknown:
        raise click.UsageError(f"{path}: unknown option(s) in the configuration: {', '.join(unknown)}")
    return out
