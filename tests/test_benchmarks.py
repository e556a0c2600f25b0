"""The benchmark corpus generator and run.py's rows: deterministic, every part run.py times is written, every
row's command line parses and names existing inputs, every floor and ratio is there (no timings here)."""

from __future__ import annotations

import importlib.util
import json
import shlex
import subprocess
import sys
from argparse import Namespace
from pathlib import Path
from types import ModuleType

import click
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
MAKE = ROOT / "benchmarks" / "make_corpus.py"
FLOOR_LIBYAML = ROOT / "benchmarks" / "floor_libyaml.py"
ISSUE30_PARTS = "embeds,templates,vms"


def _make(out: Path, parts: str = "tree,dense") -> str:
    cmd = [sys.executable, str(MAKE), "--out", str(out), "--scale", "0.01", "--parts", parts, "--quiet"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return done.stdout.split()[1]


def test_corpus_is_deterministic_and_has_the_dense_part(tmp_path: Path) -> None:
    first = _make(tmp_path / "a")
    assert first == _make(tmp_path / "b")
    info = json.loads((tmp_path / "a" / "corpus.json").read_text())
    assert info["dense"]["files"] == 30 and info["dense"]["kubevirt_files"] == 5
    assert (tmp_path / "a" / "dense" / "export.yaml").stat().st_size > 10_000
    assert info["dense_export"]["documents"] > 1
    assert info["tree"]["files"] == 100


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench") / "corpus"
    _make(out, "tree,dense," + ISSUE30_PARTS)
    return out


def _info(corpus: Path) -> dict[str, dict[str, object]]:
    info: dict[str, dict[str, object]] = json.loads((corpus / "corpus.json").read_text())
    return info


def _walk(node: object, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every mapping path under node (the keys only)."""
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _walk(v, (*path, str(k)))
    return out


def test_issue30_parts_are_deterministic(corpus: Path, tmp_path: Path) -> None:
    again = _make(tmp_path / "again", "tree,dense," + ISSUE30_PARTS)
    assert again == _info(corpus)["digest"]


def test_crds_of_other_groups_embed_kubevirts_vm_fields(corpus: Path) -> None:
    files = _info(corpus)["embeds"]["files"]
    assert isinstance(files, list) and len(files) == 5
    for rel in files:
        text = (corpus / rel).read_text()
        assert "kubevirt.io" in text
        (crd,) = yaml.safe_load_all(text)
        assert crd["kind"] == "CustomResourceDefinition"
        assert "kubevirt.io" not in crd["spec"]["group"]  # another group: nothing in it can change
        schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
        # the VM's own spec subtree, somewhere under the CRD's spec: runStrategy, template.spec.domain.devices
        vm_specs = [p for p in _walk(schema) if p[-4:] == ("properties", "spec", "properties", "runStrategy")]
        assert vm_specs, rel
        assert any(
            p[: len(v) - 1] + ("template", "properties", "spec", "properties", "domain") == p[: len(v) + 4]
            for v in vm_specs
            for p in _walk(schema)
            if len(p) >= len(v) + 4
        )


def test_template_bundles_are_openshift_templates_of_vms(corpus: Path) -> None:
    templates = _info(corpus)["templates"]
    files = templates["files"]
    assert isinstance(files, list) and files
    docs = [d for rel in files for d in yaml.safe_load_all((corpus / rel).read_text()) if d is not None]
    assert len(docs) == templates["objects"] == 5  # 465 at --scale 1
    for doc in docs:
        assert (doc["apiVersion"], doc["kind"]) == ("template.openshift.io/v1", "Template")
        (vm,) = doc["objects"]
        assert (vm["apiVersion"], vm["kind"]) == ("kubevirt.io/v1", "VirtualMachine")
        assert vm["metadata"]["name"] == "${NAME}"
        assert {p["name"] for p in doc["parameters"]} >= {"NAME", "DATA_SOURCE_NAME"}


def test_vms_part_has_the_files_and_the_schema_check_jsonschema_reads(corpus: Path) -> None:
    vms = _info(corpus)["vms"]
    files = sorted((corpus / str(vms["dir"])).iterdir())
    assert len(files) == vms["files"] == 5  # 520 at --scale 1
    assert all(yaml.safe_load(p.read_text())["kind"] == "VirtualMachine" for p in files)
    schema = json.loads((corpus / str(vms["schema"])).read_text())
    assert "template" in schema["properties"]["spec"]["properties"]


def test_libyaml_floors_count_the_documents(corpus: Path) -> None:
    def floor(*args: str) -> list[int]:
        done = subprocess.run([sys.executable, str(FLOOR_LIBYAML), *args], capture_output=True, text=True, check=True)
        return [int(x) for x in done.stdout.split()]

    assert floor("load", str(corpus / "templates"))[:2] == [len(_info(corpus)["templates"]["files"]), 5]  # type: ignore[arg-type]
    files, docs, _ = floor("compose-marked", str(corpus / "dense" / "tree"))
    assert files == _info(corpus)["dense"]["kubevirt_files"] and docs >= files


def _run_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


ISSUE30 = {
    # figure of issue 30's table: (numerator row, floor row, cpu ratio)
    "pre-commit, 5 small irrelevant files": ("pre-irrelevant", "click", False),
    "pre-commit, 5 CRDs embedding VM fields": ("pre-embeds", "click", False),
    "check dense tree, CPU": ("check-dense", "scan-dense", True),
    "check dense tree, wall": ("check-dense", "scan-dense", False),
    "check dense tree -j 1 / libyaml": ("check-dense-j1", "compose-dense", False),
    "2 MB export -j 1 / default": ("check-dx-j1", "check-dx", False),
    "whole-VM validation / check-jsonschema": ("validate-vms", "cjs-vms", False),
    "Template bundles / libyaml": ("check-templates", "load-templates", True),
}


def test_every_row_is_well_formed_and_every_issue30_figure_has_a_ratio(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _run_module()
    monkeypatch.setattr(run.shutil, "which", lambda name: f"/opt/bin/{name}")
    tool = [sys.executable, "-m", "transform"]
    rows, ratios = run.main_rows(Namespace(corpus=corpus, rows=None), tool)
    by_key = {r.key: r for r in rows}
    assert len(by_key) == len(rows)
    for row in rows:
        assert row.floor is None or by_key[row.floor].is_floor, row.key
        assert row.status == "ok", row.key
        for arg in row.cmd:  # every input named is there
            if arg.startswith(str(corpus)):
                assert Path(arg).exists(), (row.key, arg)
        if row.cmd[: len(tool)] == tool:  # the tool's own command line parses (nothing runs)
            out = [str(corpus / "out.tar.gz" if row.out_kind == "file" else corpus)] if row.out_kind else []
            _parses([*row.cmd[len(tool) :], *out])  # run.py appends a fresh output path
    absent = {"check-big", "check-big-j1", "check-big-j2", "backup", "scan-tar"}  # parts big and velero
    for q in ratios:
        assert {q.num, q.den} <= set(by_key) | absent, q.label
    found = {(q.num, q.den, q.cpu) for q in ratios}
    for figure, (num, den, cpu) in ISSUE30.items():
        assert (num, den, cpu) in found and {num, den} <= set(by_key), figure
    assert by_key["cjs-vms"].cmd[:2] == ["/opt/bin/check-jsonschema", "--schemafile"]
    assert len([a for a in by_key["cjs-vms"].cmd if a.endswith(".yaml")]) == 5
    assert by_key["compose-dense"].is_floor and by_key["load-templates"].is_floor


def _parses(argv: list[str]) -> None:
    from transform.cli.main import cli

    ctx = click.Context(cli, info_name="instancetype-upgrade")
    sub = cli.get_command(ctx, argv[0])
    assert sub is not None, shlex.join(argv)
    try:
        sub.make_context(argv[0], argv[1:], parent=ctx)
    except click.UsageError as exc:  # pragma: no cover - the failure message
        raise AssertionError(f"{shlex.join(argv)}: {exc}") from exc


def test_without_check_jsonschema_its_floor_is_na(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = _run_module()
    monkeypatch.setattr(run.shutil, "which", lambda name: None)
    rows, _ = run.main_rows(Namespace(corpus=corpus, rows="validate-vms"), [sys.executable, "-m", "transform"])
    by_key = {r.key: r for r in rows}
    assert set(by_key) == {"validate-vms", "cjs-vms"}
    assert by_key["cjs-vms"].status == "n/a" and "not installed" in by_key["cjs-vms"].note
