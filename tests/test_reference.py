"""The repository stands on its own: the upstream reference data is in reference/, whole, and read from there only."""

from __future__ import annotations

import hashlib
import json
import pathlib
import re
import tarfile

import pytest

from tests.oracles.reference import tree

ROOT = pathlib.Path(__file__).resolve().parents[1]
# what reaches for data beside the clone: the steering folder beside it (by a relative path, an absolute one
# or path segments), `parents[3]`
# (the directory holding the clone), an environment variable naming a reference tree
OUTSIDE = re.compile(
    r"\.\./" + "shared" + r"|/work/" + r"|shared/" + "reference" + r'|["\']' + "shared" + r'["\']\s*/'
    r"|parents\[3\]|" + "GO_JSON_" + "REFERENCE"
)
READERS = ["transform", "tests", "scripts", "benchmarks", ".ci", "pyproject.toml"]


def _sources() -> list[pathlib.Path]:
    out = []
    for name in READERS:
        path = ROOT / name
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
        out += [p for p in files if "__pycache__" not in p.parts and p.suffix not in (".gz", ".xz", ".pyc")]
    return [p for p in out if p != pathlib.Path(__file__)]  # this file spells out what it forbids


def test_nothing_reads_data_outside_the_repository() -> None:
    found = []
    for path in _sources():
        text = path.read_text(errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "read reference/ (tests/oracles/reference.py, scripts/reference_tree.py):\n" + "\n".join(found)


@pytest.mark.parametrize(
    "line",
    [
        'REFERENCE = ROOT.parent / "shared" / "reference" / "go-json"',
        'Path(__file__).resolve().parents[3] / "shared/' + 'reference/crd-schemas"',
        "Input: ../" + "shared/" + "reference/crd-schemas/",
        "Sources: /work/shared/docs/kubevirt-api-versions.md",
        'os.environ.get("GO_JSON_' + 'REFERENCE")',
    ],
)
def test_the_pattern_catches_what_the_suite_used_to_read(line: str) -> None:
    assert OUTSIDE.search(line)


@pytest.mark.parametrize("index", ["kubevirt-releases/index.json", "cdi-releases/index.json"])
def test_every_release_file_is_the_one_its_index_names(index: str) -> None:
    releases = tree("crd-schemas") / index.split("/")[0]
    entries = json.loads((tree("crd-schemas") / index).read_text())
    for entry in entries:
        data = (releases / entry["file"]).read_bytes()
        assert (hashlib.sha256(data).hexdigest(), len(data)) == (entry["sha256"], entry["bytes"]), entry["file"]
    listed = {e["file"] for e in entries}
    for release in {f.split("/")[0] for f in listed}:
        on_disk = {f"{release}/{e.name}" for e in (releases / release).glob("*.json")}
        assert on_disk == {f for f in listed if f.startswith(f"{release}/")}, release


def test_the_trees_the_generators_and_oracles_read_are_there() -> None:
    crd = tree("crd-schemas")
    for version in ("v1alpha1", "v1alpha2", "v1beta1"):
        assert (crd / f"instancetype.kubevirt.io_{version}_virtualmachineinstancetype.json").is_file()
    assert (crd / "apps_v1_controllerrevision.json").is_file()
    assert {e.name for e in crd.glob("*-releases")} == {"kubevirt-releases", "cdi-releases"}
    assert (tree("go-json") / "kubevirt-v1.6.0-instancetype-types.json").is_file()
    assert not (crd / "missing.json").is_file() and (crd / "kubevirt-releases").is_dir()


@pytest.mark.parametrize("name", ["crd-schemas", "go-json"])
def test_archives_are_normalised(name: str) -> None:
    """What scripts/pack_reference.py writes: sorted members, no owner, no time, so a repack changes nothing."""
    with tarfile.open(ROOT / "reference" / f"{name}.tar.xz") as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names == sorted(names) and names[0] == name
    assert {(m.uid, m.gid, m.uname, m.gname, m.mtime) for m in members} == {(0, 0, "", "", 0)}
    assert all(m.name.startswith(f"{name}/") or m.name == name for m in members)


def test_reference_readme_names_source_tag_and_licence() -> None:
    text = (ROOT / "reference" / "README.md").read_text()
    for needle in ("kubevirt/kubevirt", "kubevirt/containerized-data-importer", "v1.9.0", "v1.66.0", "Apache License"):
        assert needle in text, needle
    assert "scripts/pack_reference.py" in text
