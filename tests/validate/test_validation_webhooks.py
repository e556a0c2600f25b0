"""KubeVirt webhook rules: topology values, spread options, launchSecurity."""

from __future__ import annotations

from typing import Any

import pytest

from tests.validate.validation_helpers import (
    it,
    pref,
)
from transform.validate.documents import validate_document

TOPOLOGY = [
    pytest.param("sockets", [], id="sockets"),
    pytest.param("any", [], id="any"),
    pytest.param(
        "preferSockets",
        [
            (
                "warning",
                "webhook.deprecated-topology",
                "PreferredCPUTopology preferSockets is deprecated for removal "
                "in a future release, please use sockets instead",
            )
        ],
        id="preferSockets",
    ),  # fmt: skip
    pytest.param(
        "Sockets",
        [
            (
                "error",
                "webhook.cpu-topology",
                'unknown preferredCPUTopology "Sockets": expected one of sockets, cores, '
                "threads, spread, any (or the deprecated preferSockets, preferCores, preferThreads, "
                "preferSpread, preferAny)",
            )
        ],
        id="unknown",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("value", "expected"), TOPOLOGY)
@pytest.mark.parametrize("version", ["v1alpha1", "v1beta1"])
def test_topology_values(value: str, expected: list[tuple[str, str, str]], version: str) -> None:
    found = validate_document(pref(version, cpu={"preferredCPUTopology": value}))
    assert [(f.severity.value, f.code, f.message) for f in found] == expected
    assert all(f.path == ("spec", "cpu", "preferredCPUTopology") for f in found)


SPREAD = [
    pytest.param({"across": "SocketsCores"}, {}, [], id="default-ok"),
    pytest.param({"across": "CoresThreads"}, {}, [], id="coresthreads-default-ratio"),
    pytest.param(
        {"across": "CoresThreads", "ratio": 4},
        {},
        [
            (
                "webhook.spread-ratio",
                ("spec", "cpu", "spreadOptions", "ratio"),
                "spreadOptions.across CoresThreads only supports a ratio of 2, got 4",
            )
        ],
        id="coresthreads-ratio",
    ),  # fmt: skip
    pytest.param(
        {"across": "CoresThreads"},
        {"preferSpreadSocketToCoreRatio": 3},
        [
            (
                "webhook.spread-ratio",
                ("spec", "preferSpreadSocketToCoreRatio"),
                "spreadOptions.across CoresThreads only supports a ratio of 2, got 3",
            )
        ],
        id="legacy-ratio",
    ),  # fmt: skip
    pytest.param(
        {"across": "Sockets"},
        {},
        [
            (
                "webhook.spread-across",
                ("spec", "cpu", "spreadOptions", "across"),
                'unsupported spreadOptions.across "Sockets": expected one of SocketsCoresThreads, '
                "SocketsCores, CoresThreads",
            )
        ],
        id="bad-across",
    ),  # fmt: skip
]


@pytest.mark.parametrize(("options", "extra", "expected"), SPREAD)
def test_spread_options(options: dict[str, Any], extra: dict[str, Any], expected: list[tuple[Any, ...]]) -> None:
    doc = pref(cpu={"preferredCPUTopology": "spread", "spreadOptions": options}, **extra)
    assert [(f.code, f.path, f.message) for f in validate_document(doc)] == expected
    doc["spec"]["cpu"]["preferredCPUTopology"] = "cores"  # rules only apply to spread
    assert validate_document(doc) == []


def test_launch_security_deprecation_warning() -> None:
    found = validate_document(it(launchSecurity={"sev": {}}))
    assert [(f.severity.value, f.code, f.path) for f in found] == [
        ("warning", "webhook.deprecated-launch-security", ("spec", "launchSecurity"))
    ]
    assert found[0].message.startswith("launchSecurity is deprecated and will be removed in a future release.")
