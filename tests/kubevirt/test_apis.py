"""The one table of groups, versions and releases: facts checked against the spec, written out here."""

from __future__ import annotations

import pytest

from transform.kubevirt import apis, releases
from transform.model import settings
from transform.report import api_table
from transform.yamltext import textio

# group/version -> (first served, deprecated, removed), KubeVirt or CDI releases (kubevirt-deprecated-apis.md §1)
SPEC = {
    "kubevirt.io/v1alpha3": ((0, 13), (1, 0), None),
    "kubevirt.io/v1": ((0, 37), None, None),
    "snapshot.kubevirt.io/v1alpha1": ((0, 31), None, None),
    "snapshot.kubevirt.io/v1beta1": ((1, 3), None, None),
    "export.kubevirt.io/v1alpha1": ((0, 55), None, (1, 9)),
    "export.kubevirt.io/v1beta1": ((1, 3), (1, 9), None),
    "export.kubevirt.io/v1": ((1, 9), None, None),
    "clone.kubevirt.io/v1alpha1": ((0, 55), None, None),  # release notes only: its CRD is never deprecated
    "clone.kubevirt.io/v1beta1": ((1, 5), None, None),
    "pool.kubevirt.io/v1alpha1": ((0, 49), None, None),
    "pool.kubevirt.io/v1beta1": ((1, 7), None, None),
    "template.kubevirt.io/v1alpha1": ((1, 8), (1, 9), None),
    "template.kubevirt.io/v1beta1": ((1, 9), None, None),
    "instancetype.kubevirt.io/v1alpha1": ((0, 56), (1, 0), (1, 7)),
    "instancetype.kubevirt.io/v1alpha2": ((0, 58), (1, 0), (1, 7)),
    "instancetype.kubevirt.io/v1beta1": ((1, 0), None, None),
    "cdi.kubevirt.io/v1beta1": ((1, 20), None, None),
}


@pytest.mark.parametrize("api_version", sorted(SPEC))
def test_rows_match_the_spec(api_version: str) -> None:
    row = apis.find(api_version)
    assert row is not None
    assert (row.served, row.deprecated, row.removed) == SPEC[api_version]


def test_cdi_v1alpha1_removed_for_datavolumes_but_kept_for_the_cdi_cr() -> None:
    dv = apis.find("cdi.kubevirt.io/v1alpha1", "DataVolume")
    cr = apis.find("cdi.kubevirt.io/v1alpha1", "CDI")
    assert dv is not None and cr is not None
    assert dv.removed == (1, 56) and dv.product == "CDI"
    assert cr.removed is None and not cr.upgrade


def test_latest_versions() -> None:
    assert apis.latest("kubevirt.io") == "kubevirt.io/v1"
    assert apis.latest("export.kubevirt.io") == "export.kubevirt.io/v1"
    assert apis.latest("flavor.kubevirt.io") == "instancetype.kubevirt.io/v1beta1"
    assert apis.latest("cdi.kubevirt.io") == "cdi.kubevirt.io/v1beta1"


def test_release_table_reads_served_versions_from_the_api_table() -> None:
    assert releases.serves((1, 9), "export.kubevirt.io/v1")
    assert not releases.serves((1, 9), "export.kubevirt.io/v1alpha1")
    assert releases.serves((1, 8), "export.kubevirt.io/v1alpha1")
    assert not releases.serves((1, 6), "instancetype.kubevirt.io/v1alpha2")
    assert releases.serves((0, 55), "flavor.kubevirt.io/v1alpha1")
    assert not releases.serves((0, 56), "flavor.kubevirt.io/v1alpha1")


def test_settings_defaults_equal_the_table() -> None:
    assert settings.LATEST_RELEASE == apis.LATEST_KUBEVIRT == releases.LATEST
    assert settings.CDI_DEFAULT_RELEASE == apis.CDI_DEFAULT


def test_every_group_is_found_by_the_pre_filter() -> None:
    for row in apis.TABLE:
        marker = f"apiVersion: {row.api_version}\n".encode()
        assert textio.is_candidate(marker), row.api_version


def test_families_are_finding_prefixes() -> None:
    assert set(apis.FAMILIES) >= {"core", "instancetype", "snapshot", "export", "clone", "pool", "template", "cdi"}


def test_readme_table_is_the_table() -> None:
    import pathlib

    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "upgrades.md").read_text()
    assert api_table.markdown_table() in doc  # regenerate with: python -m transform.report.api_table
