"""Document work is linear with small constants (issue 15, items 8 and 9); no timed assertions.

- Processing a document leaves no cyclic garbage: everything it allocates is freed by reference
  counting when it is done, so the CLI can run without full cyclic collections (`cli/main.py`),
  which on a big document's node tree were most of the run.
- The KRM function parses its ResourceList a fixed number of times, whatever the number of items.
"""

from __future__ import annotations

import gc
import pathlib
from collections.abc import Iterator
from typing import Any

import pytest

from transform.cli import main as cli_main
from transform.integrations import krm
from transform.model.settings import Settings
from transform.pipeline.batch import Item, build_index
from transform.pipeline.onefile import upgrade_file
from transform.yamltext import nodes

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = sorted(
    p
    for d in ("fixtures/revisions", "fixtures/objects", "fixtures/flavor", "fixtures/trees/gitops/in")
    for p in (ROOT / d).rglob("*")
    if p.suffix in (".yaml", ".yml", ".json")
)


@pytest.fixture(params=["libyaml", "pure"])
def parser(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param not in nodes._LOADERS:  # pragma: no cover - no ruamel.yaml.clib wheel
        pytest.skip("ruamel.yaml.clib is not installed")
    previous = nodes.use_parser(request.param)
    yield request.param
    nodes.use_parser(previous)


def _cyclic_garbage(work: Any) -> list[str]:
    """What `work()` leaves for the cyclic collector, after a warm-up run (caches, lazy imports)."""
    work()
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        work()
        gc.collect()
        found = sorted({type(o).__name__ for o in gc.garbage})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    return found


def test_samples_found() -> None:
    assert len(SAMPLES) > 50
    assert any(p.suffix == ".json" for p in SAMPLES)


@pytest.mark.usefixtures("parser")
def test_upgrading_a_file_leaves_no_cyclic_garbage() -> None:
    # a loader that refers to itself kept its text and libyaml's buffers until a collection ran
    # (26 KB a document); json's indenting encoder and ruamel's Python dumper are cycles too
    settings = Settings(rename=True)
    leaks: dict[str, list[str]] = {}
    changed = 0
    for path in SAMPLES:
        data = path.read_bytes()
        index = build_index([Item(str(path), data)], settings)
        changed += upgrade_file(str(path), data, settings, index).changed

        def work(path: pathlib.Path = path, data: bytes = data, index: Any = index) -> None:
            upgrade_file(str(path), data, settings, index)

        found = _cyclic_garbage(work)
        if found:
            leaks[path.name] = found
    assert changed > 30  # the samples do exercise edits, payloads and JSON rewrites
    assert leaks == {}


@pytest.mark.usefixtures("parser")
def test_krm_leaves_no_cyclic_garbage() -> None:
    data = _resource_list(5).encode()
    assert _cyclic_garbage(lambda: krm.process(data)) == []


def _resource_list(n: int) -> str:
    items = "".join(
        f"- apiVersion: instancetype.kubevirt.io/v1alpha1\n  kind: VirtualMachineInstancetype\n"
        f"  metadata:\n    name: it{i}\n    annotations:\n      config.kubernetes.io/path: it{i}.yaml\n"
        f"  spec:\n    cpu: {{guest: 1}}\n    memory: {{guest: 128Mi}}\n"
        for i in range(n)
    )
    return f"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{items}"


def test_krm_parses_the_resource_list_a_fixed_number_of_times(monkeypatch: pytest.MonkeyPatch) -> None:
    # it was parsed 7 times (the index, the upgrade and the results each on their own)
    counts: list[int] = []
    for n in (10, 20):
        calls: list[int] = []
        real = nodes.compose
        monkeypatch.setattr(
            nodes, "compose", lambda text, real=real, calls=calls: calls.append(len(text)) or real(text)
        )
        out = krm.process(_resource_list(n).encode())
        assert out.upgraded == n
        counts.append(len(calls))
    # read, the upgraded list, the check after `results` is written (the engine's edits are scalar-only:
    # each new scalar is read alone, not the whole list again)
    assert counts == [3, 3]


def test_cli_runs_without_full_collections_and_restores(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, int, int]] = []
    monkeypatch.setattr(cli_main.cli, "main", lambda **_kw: seen.append(gc.get_threshold()))
    before = gc.get_threshold()
    assert cli_main.main(["--version"]) == 0
    assert seen == [(before[0], before[1], cli_main.NO_FULL_COLLECTIONS)]
    assert gc.get_threshold() == before
