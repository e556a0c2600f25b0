"""The verify step re-reads every edited document as Kubernetes reads it and refuses anything that does
not read back as intended: an emitter that wrote the label value "1" plain (an int to Kubernetes) or a
quoted-looking `yes` plain would be caught, and the file left as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from transform.convert.index import Index
from transform.model.settings import Settings
from transform.pipeline.onefile import upgrade_file
from transform.yamltext import emit

ROOT = Path(__file__).resolve().parents[2]
WRAPPER = ROOT / "fixtures/revisions/f1-instancetype-wrapper.yaml"


def _naive_block(value: Any, indent: int, style: emit.Style) -> list[str]:
    """A careless emitter: every scalar plain, as str() writes it."""
    pad = " " * indent
    lines: list[str] = []
    for k, v in value.items() if isinstance(value, dict) else enumerate(value):
        head = f"{pad}{k}:" if isinstance(value, dict) else f"{pad}-"
        if isinstance(v, (dict, list)) and v:
            lines.append(head)
            lines.extend(_naive_block(v, indent + 2, style))
        else:
            lines.append(f"{head} {v}".rstrip())
    return lines


def test_the_real_emitter_quotes_the_generation_label() -> None:
    result = upgrade_file(WRAPPER.name, WRAPPER.read_bytes(), Settings(), Index())
    assert result.new_text is not None
    assert 'instancetype.kubevirt.io/object-generation: "1"' in result.new_text


def test_verify_refuses_what_does_not_read_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emit, "block", _naive_block)
    result = upgrade_file(WRAPPER.name, WRAPPER.read_bytes(), Settings(), Index())
    assert result.new_text is None  # the file is left as it is
    codes = [f.code for f in result.findings]
    assert "internal.verify" in codes, codes
