"""A repo's own defaults: `[tool.instancetype-upgrade]` in pyproject.toml, or `.instancetype-upgrade.toml`
(top-level keys), found from the working directory upwards (the first directory holding either
wins; in one directory the dedicated file wins). Keys are the long option names without dashes
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


def find(start: str | None = None) -> tuple[str, dict[str, Any]] | None:
    """(path, settings table) of the nearest configuration, or None."""
    directory = os.path.abspath(start or os.getcwd())
    while True:
        dedicated = os.path.join(directory, FILE)
        if os.path.isfile(dedicated):
            return dedicated, _load(dedicated)
        pyproject = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(pyproject):
            table: Any = _load(pyproject)
            for key in TABLE:
                table = table.get(key) if isinstance(table, dict) else None
            if isinstance(table, dict):
                return pyproject, table
        if os.path.exists(os.path.join(directory, ".git")):
            return None  # the repository's root: look no further
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


def default_map(group: click.Group, start: str | None = None) -> dict[str, dict[str, Any]]:
    """click's default_map: for each command, the configured values of the options it takes.
    A key no command takes is a usage error (a typo must not be silently ignored)."""
    found = find(start)
    if found is None:
        return {}
    path, table = found
    shared = {k: v for k, v in table.items() if not isinstance(v, dict)}
    per_command = {k: v for k, v in table.items() if isinstance(v, dict)}
    out: dict[str, dict[str, Any]] = {}
    used: set[str] = set()
    unknown: list[str] = []
    for name, command in group.commands.items():
        by_flag = {
            opt.lstrip("-"): p.name for p in command.params for opt in getattr(p, "opts", ()) if opt.startswith("--")
        }
        values: dict[str, Any] = {}
        own = per_command.get(name, {})
        unknown += sorted(f"{name}.{k}" for k in own if k not in by_flag)
        for key, value in {**shared, **own}.items():
            param = by_flag.get(key)
            if param is not None:
                values[param] = str(value) if key in ("target-kubevirt", "target-cdi", "max-document-size") else value
                used.add(key)
        if values:
            out[name] = values
    unknown += sorted(set(shared) - used) + sorted(f"{cmd}.*" for cmd in per_command if cmd not in group.commands)
    if unknown:
        raise click.UsageError(f"{path}: unknown option(s) in the configuration: {', '.join(unknown)}")
    return out
