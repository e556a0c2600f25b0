"""Shared fixtures: `parser` runs a test with libyaml's C parser and with the pure one; `cli_runner` and
`cli_process` run the command line in process and as `python -m transform` (tests/support/cli.py).

Every finding the tool makes under the suite, in this process and in the CLI processes it starts, must
carry a registered code (transform/model/codes.py): an unregistered one is an internal error.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

os.environ["INSTANCETYPE_UPGRADE_CHECK_CODES"] = "1"  # (before transform is imported: findings reads it once)

import pytest

from tests.support import cli
from transform.yamltext import nodes

PARSERS = ["libyaml", "pure"]


@pytest.fixture(params=PARSERS)
def parser(request: pytest.FixtureRequest) -> Iterator[str]:
    """Force one YAML parser for the test (the C extension is installed in the test environment)."""
    try:
        previous = nodes.use_parser(request.param)
    except ValueError as exc:  # a Python for which ruamel.yaml.clib has no wheel
        pytest.skip(str(exc))
    try:
        yield request.param
    finally:
        nodes.use_parser(previous)


@pytest.fixture
def cli_runner() -> Callable[..., Any]:
    """`cli_runner("check", path)`: the command in process (tests/support/cli.py `invoke`)."""
    return cli.invoke


@pytest.fixture
def cli_process() -> Callable[..., Any]:
    """`cli_process("fix", "-", input=b"...")`: `python -m transform` importing this checkout (`run_module`)."""
    return cli.run_module
