"""The README documents what the tool does: its set-up commands work, every command, hook and exit code is in it."""

from __future__ import annotations

import pathlib
import re

import click
import yaml

from tests.support.cli import run_module
from transform.cli.main import cli

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def test_the_example_command_shows_a_diff() -> None:
    block = re.search(r"```sh\n(pip install -e \. && instancetype-upgrade [^\n]+)\n```", README)
    assert block, "the README's first set-up command"
    args = block.group(1).split("&& instancetype-upgrade ", 1)[1].split()
    out = run_module(*args, text=True)
    assert out.returncode == 1, out.stderr
    assert "+apiVersion: instancetype.kubevirt.io/v1beta1" in out.stdout


def test_the_test_command_is_what_ci_runs() -> None:
    block = re.search(r"```sh\n(pip install -e '\.\[test\]' && python -m pytest)\n```", README)
    assert block
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pip install -q -e '.[test]'" in ci and "python -m pytest" in ci


def test_every_command_and_exit_code_is_documented() -> None:
    for name in cli.list_commands(click.Context(cli)):  # with the lazily imported subcommands
        assert f"instancetype-upgrade {name}" in README, name
    for code in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "| 123 |"):
        assert code in README


def test_every_hook_is_documented() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    for hook in hooks:
        assert hook["id"] in README, hook["id"]


def test_every_option_of_every_command_is_documented() -> None:
    """The Usage section matches the tool command by command (issue 12)."""
    import click

    usage = README[README.index("## Usage") : README.index("## What it upgrades")]
    for name, command in cli.commands.items():
        for param in command.params:
            if not isinstance(param, click.Option):
                continue
            longs = [o for o in param.opts if o.startswith("--")]
            if name in ("backup",) and longs in (["--output"], ["--check"]):
                continue  # backup's own, in its usage line
            assert any(o in usage for o in longs), (name, longs)
