"""docs/codes.md is what scripts/gen_codes_doc.py makes of the registry: every code has a row and an anchor."""

from __future__ import annotations

import importlib.util
import pathlib
import re
from types import ModuleType

from transform.model import codes

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_codes_doc", ROOT / "scripts" / "gen_codes_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_codes_md_is_generated_from_the_registry() -> None:
    text = (ROOT / "docs" / "codes.md").read_text()
    assert text == _generator().render(), "docs/codes.md is out of date: run python scripts/gen_codes_doc.py"


def test_every_code_has_an_anchor() -> None:
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', (ROOT / "docs" / "codes.md").read_text()))
    assert anchors == {codes.anchor(c) for c in codes.KNOWN}


def test_the_docs_point_at_docs_codes_md() -> None:
    assert "codes" in (ROOT / "README.md").read_text().split("Main options")[1].split("### Exit codes")[0]
    for page in ("usage.md", "report-schema.md"):
        assert "codes.md" in (ROOT / "docs" / page).read_text(), page
