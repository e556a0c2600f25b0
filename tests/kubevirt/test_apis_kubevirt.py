"""The KubeVirt part of the API table, held to KubeVirt's own CRDs: reference/kubevirt-crds.json, the versions
virt-operator installs per release (crds.go and its bundled virt-template YAML of v1.0.0-v1.9.0, read by
scripts/gen_crd_facts.py --kubevirt-git).

The reference is read here as plain JSON: the oracle shares no code with transform/ beyond the table under test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from transform.kubevirt import apis

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = json.loads((ROOT / "reference" / "kubevirt-crds.json").read_text())
Release = tuple[int, int]
Key = tuple[str, str, str]  # group, version, kind


def _release(key: str) -> Release:
    major, minor = key.split(".")
    return int(major), int(minor)


RELEASES: list[Release] = sorted(_release(key) for key in REFERENCE["releases"])


def _versions() -> dict[Release, dict[Key, dict[str, bool]]]:
    """release -> {(group, version, kind): its flags} for every version a CRD of the release lists."""
    out: dict[Release, dict[Key, dict[str, bool]]] = {}
    for key, release in REFERENCE["releases"].items():
        crds = {**release["crds"], **release["virtTemplateCrds"]}
        out[_release(key)] = {
            (crd["group"], version["name"], kind): version for kind, crd in crds.items() for version in crd["versions"]
        }
    return out


VERSIONS = _versions()


def _row(group: str, version: str, kind: str) -> apis.Api | None:
    row = apis.find(f"{group}/{version}", kind)
    return row if row is not None and row.product == apis.KUBEVIRT and row.version == version else None


def test_the_data_covers_the_releases_the_table_judges_up_to_the_latest() -> None:
    assert RELEASES[-1] == apis.LATEST_KUBEVIRT
    assert RELEASES == [(1, minor) for minor in range(10)]


@pytest.mark.parametrize("release", RELEASES, ids=lambda r: f"{r[0]}.{r[1]}")
def test_every_version_a_release_serves_is_served_by_the_table(release: Release) -> None:
    for (group, version, kind), flags in VERSIONS[release].items():
        if flags["served"]:
            row = _row(group, version, kind)
            assert row is not None, (release, group, version, kind)
            assert row.serves(release), (release, row.api_version, kind)


@pytest.mark.parametrize("release", RELEASES, ids=lambda r: f"{r[0]}.{r[1]}")
def test_the_table_serves_no_version_of_a_crd_the_release_does_not(release: Release) -> None:
    # per CRD kind the release installs (the table's rows are per group/version; a kind appears with its CRD)
    kinds = {(group, kind) for group, _, kind in VERSIONS[release]}
    for group, kind in kinds:
        for row in apis.TABLE:
            if row.group != group or row.product != apis.KUBEVIRT or _row(group, row.version, kind) is not row:
                continue
            flags = VERSIONS[release].get((group, row.version, kind), {"served": False})
            assert row.serves(release) == flags["served"], (release, row.api_version, kind)


@pytest.mark.parametrize("release", RELEASES, ids=lambda r: f"{r[0]}.{r[1]}")
def test_deprecated_flags_agree_with_the_table(release: Release) -> None:
    for (group, version, kind), flags in VERSIONS[release].items():
        row = _row(group, version, kind)
        assert row is not None, (release, group, version, kind)
        deprecated = row.deprecated is not None and release >= row.deprecated
        assert deprecated == flags["deprecated"], (release, row.api_version, kind, flags)


def test_the_first_release_serving_a_version_agrees_where_the_data_covers_it() -> None:
    first: dict[Key, Release] = {}
    for release in RELEASES:
        for key, flags in VERSIONS[release].items():
            if flags["served"]:
                first.setdefault(key, release)
    for (group, version, kind), release in first.items():
        row = _row(group, version, kind)
        assert row is not None and row.served is not None, (group, version, kind)
        if release == RELEASES[0]:  # served by the first release of the data: since then or earlier
            assert row.served <= release, (row.api_version, kind, row.served)
        else:
            assert row.served == release, (row.api_version, kind, row.served, release)


def test_a_version_no_longer_listed_is_removed_in_the_table() -> None:
    # a version a CRD stops listing (not merely served: false) is removed from that release on
    for before, after in zip(RELEASES, RELEASES[1:], strict=False):
        for group, version, kind in set(VERSIONS[before]) - set(VERSIONS[after]):
            row = _row(group, version, kind)
            assert row is not None and row.removed == after, (row and row.api_version, kind, after)
