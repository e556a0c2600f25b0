"""Fixtures of the validation tests."""

from __future__ import annotations

import pytest

from tests.validate.validation_helpers import ENGINES


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """The JSON Schema engine the oracle uses (python-jsonschema, and jsonschema-rs when installed)."""
    return str(request.param)
