"""The Go encoding table is generated from KubeVirt's compiled types, never edited by hand."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
from types import ModuleType

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_gojson", ROOT / "scripts" / "gen_gojson.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_gojson"] = module
    spec.loader.exec_module(module)
    return module


def test_committed_table_is_the_generated_one() -> None:
    gen = _generator()
    committed = gen.target().read_text()
    assert gen.build(gen.DEFAULT_REFERENCE) == committed, "stale: python scripts/gen_gojson.py"


def test_every_referenced_type_is_described() -> None:
    from transform.kubevirt import gojson_v1_6 as table

    for name, fields in table.TYPES.items():
        for json_name, flags, kind, ref in fields:
            assert set(flags) <= set("opi"), (name, json_name)
            if kind == "struct":
                assert ref in table.TYPES, (name, json_name, ref)
            if kind in ("slice", "map"):
                assert ref in table.TYPES or ref in ("string", "uint8", "quantity"), (name, json_name, ref)
    assert set(table.ROOTS.values()) <= set(table.TYPES)
