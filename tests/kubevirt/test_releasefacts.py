"""The release facts of preference and VM fields (transform/kubevirt/releasefacts.py) are generated from
KubeVirt's sources (reference/kubevirt-topologies.json) and CRD schemas (reference/crd-schemas.tar.xz), never
typed; the VM's revision reference paths (transform.kubevirt.releases.REVISION_REFS) are the VM schema's."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys
from typing import Any

import pytest

from tests.oracles.reference import tree
from transform.kubevirt import releasefacts, releases, webhookfacts

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "reference" / "kubevirt-topologies.json"


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("gen_release_facts", ROOT / "scripts" / "gen_release_facts.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_release_facts"] = module
    spec.loader.exec_module(module)
    return module


def test_committed_module_is_the_generated_one() -> None:
    gen = _generator()
    committed = (ROOT / "transform" / "kubevirt" / "releasefacts.py").read_text()
    assert gen.render(json.loads(REFERENCE.read_text()), gen.field_releases()) == committed, (
        "stale: python scripts/gen_release_facts.py"
    )


def test_reference_names_its_source_per_release() -> None:
    reference = json.loads(REFERENCE.read_text())
    assert list(reference["releases"]) == sorted(reference["releases"], key=lambda k: tuple(map(int, k.split("."))))
    assert {"0.56", "1.0", "1.9"} <= set(reference["releases"])
    for release in reference["releases"].values():
        assert len(release["commit"]) == 40 and release["tag"].startswith("v")
        assert isinstance(release["matches_object_name_label"], bool)


def test_extraction_reads_go_constants_and_the_webhook_map() -> None:
    gen = _generator()
    types = """
const (
	// Deprecated: use Sockets
	DeprecatedPreferSockets PreferredCPUTopology = "preferSockets"
	Sockets PreferredCPUTopology = "sockets"
)
"""
    admitter = """
var deprecatedTopologies = map[instancetypeapiv1beta1.PreferredCPUTopology]instancetypeapiv1beta1.PreferredCPUTopology{
	instancetypeapiv1beta1.DeprecatedPreferSockets: instancetypeapiv1beta1.Sockets,
}
"""
    names = gen.constants([types])
    assert names == {"DeprecatedPreferSockets": "preferSockets", "Sockets": "sockets"}
    assert gen.deprecated_map([admitter], names) == [["preferSockets", "sockets"]]


def _field(schema: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any] | None:
    node: dict[str, Any] | None = schema
    for part in path:
        node = (node.get("properties") or {}).get(part) if node is not None else None
    return node


@pytest.mark.parametrize(
    ("release", "crd", "path"),
    [
        (releasefacts.RUNNING_DEPRECATED, "virtualmachine", ("spec", "running")),
        (releasefacts.SPREAD_OPTIONS_ADDED, "virtualmachinepreference", ("spec", "cpu", "spreadOptions")),
        (releasefacts.PREFERRED_EFI_ADDED, "virtualmachinepreference", ("spec", "firmware", "preferredEfi")),
        (releasefacts.USE_EFI_DEPRECATED, "virtualmachinepreference", ("spec", "firmware", "preferredUseEfi")),
        (releasefacts.LAUNCH_SECURITY_DEPRECATED, "virtualmachineinstancetype", ("spec", "launchSecurity")),
        (releasefacts.PREFERRED_LAUNCH_SECURITY_ADDED, "virtualmachinepreference", ("spec", "preferredLaunchSecurity")),
    ],
)
def test_field_releases_as_the_schemas_say(release: tuple[int, int], crd: str, path: tuple[str, ...]) -> None:
    """The oracle's own reading of the CRD schemas: the release before has no such field (or no deprecation)."""

    def state(rel: tuple[int, int]) -> str:
        where = tree("crd-schemas") / "kubevirt-releases" / f"v{rel[0]}.{rel[1]}.0" / f"{crd}.json"
        schema = json.loads(where.read_text())
        node = _field(schema, path)
        return "absent" if node is None else "deprecated" if "Deprecated" in node.get("description", "") else "present"

    assert state((release[0], release[1] - 1)) in ("absent", "present")
    assert state(release) in ("present", "deprecated")
    assert state((release[0], release[1] - 1)) != state(release)


def test_release_vocabulary() -> None:
    """What each release applies: v0.56's three, v1.1's preferSpread/preferAny, v1.4's short spellings."""
    assert releases.RELEASES[(0, 55)].topologies == frozenset()
    assert releases.RELEASES[(0, 56)].topologies == {"preferSockets", "preferCores", "preferThreads"}
    assert releases.RELEASES[(1, 1)].topologies - releases.RELEASES[(1, 0)].topologies == {"preferSpread", "preferAny"}
    assert releases.RELEASES[(1, 4)].topologies - releases.RELEASES[(1, 3)].topologies == {
        "sockets",
        "cores",
        "threads",
        "spread",
        "any",
    }
    assert releases.TOPOLOGY_RENAMES["preferSockets"] == "sockets"


def test_revision_refs_are_the_vm_schemas_fields() -> None:
    """Every path a VM names its revisions by is a string field of the VM CRD (the flavor era's predates the
    bundled schemas: it is the one VM_FIELDS dates)."""
    schema = json.loads((tree("crd-schemas") / "kubevirt-releases" / "v1.9.0" / "virtualmachine.json").read_text())
    for family, paths in releases.REVISION_REFS.items():
        for path in paths:
            if path[:2] == ("spec", "flavor"):
                assert ("spec", "flavor") in releases.VM_FIELDS
                continue
            node = _field(schema, path)
            assert node is not None and node.get("type") == "string", (family, path)
            assert family in path[1].lower(), (family, path)


def test_the_two_readings_of_the_deprecated_topologies_agree() -> None:
    """webhookfacts reads the same admitter map per release (with the warning's format): one fact, two
    generators, held equal here."""
    assert {old: new for old, (_, new) in webhookfacts.DEPRECATED_TOPOLOGIES.items()} == (
        releasefacts.DEPRECATED_TOPOLOGIES
    )
    assert {since for since, _ in webhookfacts.DEPRECATED_TOPOLOGIES.values()} == {releasefacts.TOPOLOGIES_DEPRECATED}
