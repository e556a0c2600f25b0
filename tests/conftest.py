"""Shared fixtures: `parser` runs a test with libyaml's C parser and with the pure one."""

from __future__ import annotations

from collections.abc import Iterator

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
