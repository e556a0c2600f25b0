"""Whole trees: `fix --output-dir` must reproduce the reviewed golden output byte for byte."""

from __future__ import annotations

import pathlib
import shutil

import pytest
import yaml

from transform.cli.main import main

TREES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "trees"
CASES = [("gitops", []), ("export", ["--rename"])]


def files(root: pathlib.Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix in (".yaml", ".yml", ".json")
    }


@pytest.mark.parametrize(("tree", "flags"), CASES, ids=[c[0] for c in CASES])
def test_tree_matches_golden(tree: str, flags: list[str], tmp_path: pathlib.Path) -> None:
    src, golden = TREES / tree / "in", TREES / tree / "out"
    before = files(src)
    assert main(["fix", "-q", *flags, str(src), "--output-dir", str(tmp_path)]) == 1
    assert files(src) == before  # inputs untouched
    # only upgraded files are written; every one of them equals the reviewed golden output
    assert files(tmp_path) == {k: v for k, v in files(golden).items() if before[k] != v}


@pytest.mark.parametrize(("tree", "flags"), CASES, ids=[c[0] for c in CASES])
def test_golden_is_stable_and_untouched_files_identical(tree: str, flags: list[str], tmp_path: pathlib.Path) -> None:
    work = tmp_path / "work"
    shutil.copytree(TREES / tree / "out", work)
    before = files(work)
    assert main(["fix", "-q", *flags, str(work)]) == 0  # a second run changes nothing
    assert files(work) == before
    src = files(TREES / tree / "in")
    for name, data in files(TREES / tree / "out").items():
        if data == src[name]:
            continue
        for doc in yaml.safe_load_all(data):  # every upgrade parses back to v1beta1 objects
            for obj in (doc.get("items") or [doc]) if isinstance(doc, dict) else []:
                api = str(obj.get("apiVersion", ""))
                assert "v1alpha" not in api, (name, api)
                payload = obj.get("data") if obj.get("kind") == "ControllerRevision" else None
                if isinstance(payload, dict) and "apiVersion" in payload:
                    assert payload["apiVersion"] == "instancetype.kubevirt.io/v1beta1", name
