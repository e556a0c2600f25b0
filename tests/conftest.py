"""Suite-wide: tests named test_slow_* (real tools building venvs, long runs) carry the `slow` marker,
so `pytest -m "not slow"` is the fast inner loop; CI runs everything."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.name.startswith("test_slow_"):
            item.add_marker(pytest.mark.slow)
