"""The CDI part of the API table, held to CDI's own CRDs (schemas/cdi/index.json, made from CDI's
`crds_generated.go` of v1.56.0-v1.66.0 by scripts/extract_cdi_crds.py and scripts/bundle_schemas.py; issue 21 §4).

The index is read here as plain JSON: the oracle shares no code with transform/.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import invoke
from transform.kubevirt import apis

ROOT = Path(__file__).resolve().parents[2]
INDEX = json.loads((ROOT / "schemas" / "cdi" / "index.json").read_text())
RELEASES = sorted(tuple(int(x) for x in key.split(".")) for key in INDEX["releases"])


def _served() -> dict[tuple[int, ...], set[tuple[str, str, str]]]:
    """release -> {(group, version, kind)} served there, from CDI's CRDs."""
    out: dict[tuple[int, ...], set[tuple[str, str, str]]] = {}
    for key, crds in INDEX["releases"].items():
        release = tuple(int(x) for x in key.split("."))
        for crd, versions in crds.items():
            meta = INDEX["crds"][crd]
            for version, flags in versions.items():
                if flags["served"]:
                    out.setdefault(release, set()).add((meta["group"], version, meta["kind"]))
    return out


def test_the_default_cdi_target_is_the_newest_release_of_the_data() -> None:
    assert apis.CDI_DEFAULT == RELEASES[-1] == (1, 66)


def test_every_served_cdi_version_and_kind_is_served_by_the_table() -> None:
    for release, served in _served().items():
        for group, version, kind in served:
            row = apis.find(f"{group}/{version}", kind)
            assert row is not None and row.product == apis.CDI, (group, version, kind)
            assert row.serves(release), (release, group, version, kind)  # type: ignore[arg-type]


def test_the_table_serves_no_cdi_crd_version_the_data_does_not() -> None:
    # per CRD the release has (the table's rows are per group/version; a kind's CRD appears when it appears)
    served = _served()
    for key, crds in INDEX["releases"].items():
        release = tuple(int(x) for x in key.split("."))
        for crd in crds:
            group, kind = INDEX["crds"][crd]["group"], INDEX["crds"][crd]["kind"]
            for row in apis.TABLE:
                if row.group != group or apis.find(row.api_version, kind) is not row:
                    continue
                in_data = (group, row.version, kind) in served[release]
                assert row.serves(release) == in_data, (release, row.api_version, kind)  # type: ignore[arg-type]


def test_the_cdi_operator_cr_keeps_v1alpha1_where_it_is_served() -> None:
    # CDI's CRDs: cdis.cdi.kubevirt.io serves v1alpha1 (storage: false) and v1beta1 in every release v1.56-v1.66
    for key in INDEX["releases"]:
        assert {v: f["served"] for v, f in INDEX["releases"][key]["cdi"].items()} == {"v1alpha1": True, "v1beta1": True}
    for release in RELEASES:
        d = apis.decide("cdi.kubevirt.io/v1alpha1", "CDI", apis.Targets((1, 9), release))  # type: ignore[arg-type]
        assert d is not None and d.status == "kept" and d.to is None


def test_a_kept_version_is_upgraded_for_a_target_that_no_longer_serves_it(monkeypatch: pytest.MonkeyPatch) -> None:
    row = apis.find("cdi.kubevirt.io/v1alpha1", "CDI")
    assert row is not None
    unserved = apis.Api(**{**row.__dict__, "unserved": (1, 70)})
    monkeypatch.setattr(apis, "TABLE", tuple(unserved if r is row else r for r in apis.TABLE))
    kept = apis.decide("cdi.kubevirt.io/v1alpha1", "CDI", apis.Targets((1, 9), (1, 69)))
    moved = apis.decide("cdi.kubevirt.io/v1alpha1", "CDI", apis.Targets((1, 9), (1, 70)))
    assert kept is not None and kept.status == "kept"
    assert moved is not None and moved.new_api_version == "cdi.kubevirt.io/v1beta1"


def run(*args: str) -> tuple[int, list[dict[str, object]]]:
    result = invoke(*args, "--format", "json")
    return result.exit_code, json.loads(result.stdout)["findings"]


UPLOAD = """\
apiVersion: upload.cdi.kubevirt.io/v1beta1
kind: UploadTokenRequest
metadata:
  name: upload-datavolume
  namespace: default
spec:
  pvcName: upload-datavolume
"""


@pytest.mark.parametrize("command", ["check", "validate"])
def test_an_upload_token_request_is_current(tmp_path: Path, command: str) -> None:
    path = tmp_path / "upload.yaml"
    path.write_text(UPLOAD)
    assert run(command, str(path)) == (0, [])


DATAVOLUME = """\
apiVersion: cdi.kubevirt.io/v1beta1
kind: DataVolume
metadata:
  name: dv
spec:
  source:
    gcs:
      url: gs://bucket/disk.img
  storage:
    resources:
      requests:
        storage: 1Gi
"""


def test_cdi_objects_are_validated_against_the_target_cdi_release(tmp_path: Path) -> None:
    # spec.source.gcs is in CDI's DataVolume CRD from v1.57.0 on (not in v1.56.0's)
    path = tmp_path / "dv.yaml"
    path.write_text(DATAVOLUME)
    assert run("validate", str(path)) == (0, [])
    code, found = run("validate", "--target-cdi", "1.56", str(path))
    # a field a later CDI release has: the target's fact, as for KubeVirt objects (not a typo)
    assert [(f["path"], f["code"]) for f in found] == [("spec.source.gcs", "target.unknown-field")]
    path.write_text(DATAVOLUME.replace("storage: 1Gi", "storage: lots"))
    code, found = run("validate", str(path))
    assert code == 3 and [f["code"] for f in found] == ["schema.quantity"]
