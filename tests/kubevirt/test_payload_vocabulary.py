"""Issue 20 §1: the payload formats and eras are one vocabulary, written once (transform/kubevirt/releases.py):
what decoding finds (Decoded.fmt), what a release reads (PAYLOAD_FORMATS) and the eras scan counts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from transform.kubevirt import releases
from transform.validate import decoding

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "fixtures" / "revisions").glob("*.yaml"))
FORMAT_LITERAL = re.compile(r"""["'](?:F1(?::empty-apiVersion)?|flavor/v1alpha1)["']""")
ERA_LITERAL = re.compile(r"""["']F[0-9]["']""")


def test_every_format_has_one_description() -> None:
    assert set(releases.PAYLOAD_FORMATS) <= set(releases.FORMAT_TEXT)
    assert {releases.WRAPPER, releases.FLAVOR_OBJECT, *releases.VERSIONS} <= set(releases.FORMAT_TEXT)
    assert releases.WRAPPER in releases.ERAS and releases.FLAVOR_WRAPPER_ERA in releases.ERAS


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_decoding_speaks_the_same_vocabulary(path: Path) -> None:
    for doc in yaml.safe_load_all(path.read_text()):
        if not isinstance(doc, dict) or doc.get("kind") != "ControllerRevision":
            continue
        try:
            decoded = decoding.decode(doc.get("data"))
        except decoding.RevisionError:
            continue
        assert decoded.fmt in releases.FORMAT_TEXT, decoded.fmt
        found = releases.payload_format(doc.get("data"))
        if found is not None and decoded.fmt != releases.FLAVOR_OBJECT:
            assert found in (decoded.fmt, releases.WRAPPER_EMPTY_API)


def test_the_literals_are_written_once() -> None:
    """No module but releases.py spells a payload format; era keys only there and in the one era classifier."""
    for path in sorted((ROOT / "transform").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "transform/kubevirt/releases.py":
            continue
        text = path.read_text()
        assert not FORMAT_LITERAL.search(text), rel
        if rel != "transform/convert/revisions.py":
            assert not ERA_LITERAL.search(text), rel
