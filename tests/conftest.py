"""Shared fixtures: `parser` runs a test with libyaml's C parser and with the pure one.

Every finding the tool makes under the suite, in this process and in the CLI processes it starts, must
carry a registered code (transform/model/codes.py): an unregistered one is an internal error.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

os.environ["INSTANCETYPE_UPGRADE_CHECK_CODES"] = "1"  # (before transform is imported: findings reads it once)

import pytest

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
