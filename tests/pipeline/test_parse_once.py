"""A document read for the cross-file index is not parsed again for the upgrade (issue 14), and
reusing it changes nothing: the results are those of a run that parses everything twice."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from transform.model.settings import Settings
from transform.pipeline import inputs, upgrade
from transform.pipeline.sources import discover
from transform.yamltext import nodes

TREE = Path(__file__).resolve().parents[2] / "fixtures" / "trees" / "gitops" / "in"


def _run(settings: Settings) -> list[tuple[str, str | None, list[str]]]:
    run = inputs.RunResult()
    items = inputs.read_inputs(discover([str(TREE)]), run)
    upgrade.upgrade_items(items, settings, run)
    return [(r.name, r.new_text, [repr(f) for f in r.findings]) for r in run.results]


@pytest.mark.parametrize("rename", [False, True])
def test_each_document_is_parsed_once(monkeypatch: pytest.MonkeyPatch, rename: bool) -> None:
    original = nodes.parse
    texts: Counter[str] = Counter()

    def counting(text: str) -> Any:
        texts[text] += 1
        return original(text)

    monkeypatch.setattr(nodes, "parse", counting)
    _run(Settings(rename=rename))
    inputs = "".join(p.read_text() for p in TREE.rglob("*") if p.is_file())
    # an edited document is read back once to verify it: its text is not in the inputs
    twice = {t[:60] for t, n in texts.items() if n > 1 and t in inputs and t.strip()}
    assert any("revisionName" in t for t in texts), "the tree must exercise the index"
    assert not twice


@pytest.mark.parametrize("rename", [False, True])
def test_reusing_the_index_parse_changes_nothing(monkeypatch: pytest.MonkeyPatch, rename: bool) -> None:
    settings = Settings(rename=rename)
    reused = _run(settings)
    monkeypatch.setattr(inputs, "KEEP_PARSED_BYTES", 0)
    assert _run(settings) == reused
