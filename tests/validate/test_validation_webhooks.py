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


# KubeVirt's network admitter (pkg/network/admitter: slirp.go from v1.3, discontinued.go from v1.8), written
# out here: the binding, the first release refusing it on creation, the webhook's message.
DISCONTINUED = [
    ("slirp", (1, 3), "Slirp interface support has been discontinued since v1.3"),
    ("macvtap", (1, 8), "Macvtap network binding has been discontinued since v1.3"),
    ("passt", (1, 8), "Passt network binding has been discontinued since v1.3"),
]


def _vmi_spec(binding: str) -> dict[str, Any]:
    return {
        "domain": {"devices": {"interfaces": [{"name": "a", "masquerade": {}}, {"name": "b", binding: {}}]}},
        "networks": [{"name": "a", "pod": {}}, {"name": "b", "multus": {"networkName": "n"}}],
    }


@pytest.mark.parametrize(("binding", "since", "message"), DISCONTINUED)
def test_discontinued_bindings_are_refused_on_creation_from_their_release(
    binding: str, since: tuple[int, int], message: str
) -> None:
    """KubeVirt's own examples of v0.49-v1.0 (vmi-slirp.yaml, vmi-macvtap.yaml) are refused by 1.3/1.8 on
    create: the error names the field; a VMI replica set or pool is accepted but its VMIs are refused."""
    vmi = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstance", "metadata": {"name": "v"}}
    vmi["spec"] = _vmi_spec(binding)
    before = (since[0], since[1] - 1)
    assert [f for f in validate_document(vmi, target=before) if f.code == "webhook.discontinued-binding"] == []
    found = [f for f in validate_document(vmi, target=since) if f.code == "webhook.discontinued-binding"]
    assert [(f.severity.value, f.field_path) for f in found] == [
        ("error", f"spec.domain.devices.interfaces[1].{binding}")
    ]
    assert found[0].message.startswith(message)
    vm = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "vm"},
          "spec": {"runStrategy": "Halted", "template": {"spec": _vmi_spec(binding)}}}  # fmt: skip
    found = [f for f in validate_document(vm, target=(1, 9)) if f.code == "webhook.discontinued-binding"]
    assert [(f.severity.value, f.field_path) for f in found] == [
        ("error", f"spec.template.spec.domain.devices.interfaces[1].{binding}")
    ]
    pool = {"apiVersion": "pool.kubevirt.io/v1beta1", "kind": "VirtualMachinePool", "metadata": {"name": "p"},
            "spec": {"selector": {}, "virtualMachineTemplate": {"spec": {"template": {"spec": _vmi_spec(binding)}}}}}  # fmt: skip
    found = [f for f in validate_document(pool, target=(1, 9)) if f.code == "webhook.discontinued-binding"]
    assert [(f.severity.value, f.field_path) for f in found] == [
        ("warning", f"spec.virtualMachineTemplate.spec.template.spec.domain.devices.interfaces[1].{binding}")
    ]


@pytest.mark.parametrize(
    ("target", "warned"),
    [((1, 0), False), ((1, 3), False), ((1, 4), True), ((1, 6), True), ((1, 9), True)],
)
def test_deprecated_topology_is_said_only_where_the_target_has_the_replacement(
    target: tuple[int, int], warned: bool
) -> None:
    """KubeVirt v1.4.0 added both the preference admitter's warning (preference-admitter.go,
    checkForDeprecatedPreferredCPUTopology) and the `sockets` value it advises; v1.0-v1.3 admit
    preferSockets without a word, so neither a warning nor a --strict refusal there."""
    doc = pref("v1beta1", cpu={"preferredCPUTopology": "preferSockets"})
    found = [f.code for f in validate_document(doc, target=target, strict=True)]
    assert found == (["webhook.deprecated-topology"] if warned else [])
