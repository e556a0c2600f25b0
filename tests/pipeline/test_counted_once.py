"""Each input is decoded once and split once, each of its documents composed at most once (only one that is
edited or reported), and the run's policy applied once, at the report (issue 29 §2). Counted by the code
each call runs, whichever name a module imported it under.

Before: one ControllerRevision file (`check --rename -j 1`) was decoded twice, split three times,
composed twice, and the policy ran four times; on examples/gitops-repo the policy ran 46 times."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from tests.support.cli import invoke
from transform.model import policy
from transform.yamltext import nodes, textio

ROOT = Path(__file__).resolve().parents[2]
REPO = ROOT / "examples" / "gitops-repo"
REVISIONS = REPO / "exported" / "controllerrevisions" / "vm-db-u1.large.yaml"


class Calls:
    def __init__(self) -> None:
        self.decoded: Counter[bytes] = Counter()  # by the bytes decoded
        self.split: Counter[str] = Counter()  # by the text split
        self.composed: Counter[str] = Counter()  # by the text composed
        self.decided = 0  # the run's policy applied to a list of findings
        self.policed = 0  # run_policy calls (each applies the policy to one list)


@contextmanager
def counted() -> Iterator[Calls]:
    calls = Calls()
    codes = {
        textio.decode.__code__: lambda f: calls.decoded.update([f.f_locals["data"]]),
        textio.split_documents.__code__: lambda f: calls.split.update([f.f_locals["text"]]),
        nodes.compose.__code__: lambda f: calls.composed.update([f.f_locals["text"]]),
        policy.decide.__code__: lambda f: setattr(calls, "decided", calls.decided + 1),
        policy.run_policy.__code__: lambda f: setattr(calls, "policed", calls.policed + 1),
    }

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and (count := codes.get(frame.f_code)) is not None:
            count(frame)

    before = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield calls
    finally:
        sys.setprofile(before)


def _inputs(path: Path) -> dict[Path, bytes]:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    return {p: p.read_bytes() for p in files}


def _documents(text: str) -> list[str]:
    return [text[c.start : c.end] for c in textio.split_documents(text)]


@pytest.mark.parametrize("path", [REVISIONS, REPO], ids=["one-revision-file", "gitops-repo"])
def test_each_input_is_decoded_split_and_composed_once_and_the_policy_runs_once(path: Path) -> None:
    inputs = _inputs(path)
    with counted() as calls:
        result = invoke("check", "--rename", "-j", "1", "--format", "json", str(path))
    assert result.exit_code in (0, 1), result.output
    texts = {p: textio.decode(data).text for p, data in inputs.items()}
    candidates = {p for p, data in inputs.items() if textio.is_candidate(data) or p.name == "kustomization.yaml"}
    assert candidates
    for p in candidates:
        assert calls.decoded[inputs[p]] == 1, p
        assert calls.split[texts[p]] == 1, p  # (an edited document is split again: its own text, once)
    documents = Counter(d for p in candidates for d in _documents(texts[p]))
    again = {d[:60]: n for d, n in calls.composed.items() if d in documents and n > documents[d]}
    assert again == {}
    assert calls.decided == 1 and calls.policed == 0


def test_a_revision_file_composes_only_its_edited_document() -> None:
    """The revision file's one candidate document is edited: composed once (the index pass's tree is
    kept); the verify step reads its edits back without composing the document again."""
    text = REVISIONS.read_text()
    with counted() as calls:
        result = invoke("check", "--rename", "-j", "1", str(REVISIONS))
    assert result.exit_code == 1, result.output
    composed = {t: n for t, n in calls.composed.items() if t in _documents(text)}
    assert list(composed.values()) == [1]
