"""Conversion never calls the judge (issue 29 §2): what it wants judged of the input is data (`Ask`), answered
by the verify step (transform.pipeline.verify.answer), as each `Change` says how its object is judged."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path
from typing import Any

import pytest

from transform.convert.document import upgrade_document
from transform.convert.index import Index
from transform.model.settings import Settings

CONVERT = Path(__file__).resolve().parents[2] / "transform" / "convert"

OLD = {
    "apiVersion": "instancetype.kubevirt.io/v1alpha1",
    "kind": "VirtualMachineInstancetype",
    "metadata": {"name": "small"},
    "spec": {"cpu": {"guest": "two"}, "memory": {"guest": "1Gi"}},
}
CURRENT = {**OLD, "apiVersion": "instancetype.kubevirt.io/v1beta1"}
SNAPSHOT = {
    "apiVersion": "snapshot.kubevirt.io/v1alpha1",
    "kind": "VirtualMachineSnapshot",
    "metadata": {"name": "s"},
    "spec": {"source": {"apiGroup": "kubevirt.io", "kind": "VirtualMachine", "name": "vm"}},
}
EXPORT = {**SNAPSHOT, "apiVersion": "export.kubevirt.io/v1beta1", "kind": "VirtualMachineExport"}


def test_no_module_of_convert_imports_the_judge() -> None:
    """Only the revision decoder (`validate.decoding`, how a payload reads) and the bundled CRD kinds
    (`validate.crds.kinds_by_group`, a fact) and how apimachinery reads apiVersion/kind (`validate.typemeta`,
    a reading) are read from validate/; never `target`, `documents` or a schema
    walk that judges a document."""
    imported: dict[str, set[str]] = {}
    for path in sorted(CONVERT.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("transform.validate"):
                imported.setdefault(path.name, set()).add(f"{node.module}:{','.join(a.name for a in node.names)}")
    allowed = {"transform.validate.decoding", "transform.validate:crds", "transform.validate:typemeta"}
    assert {n: i for n, i in imported.items() if not all(any(a in x for a in allowed) for x in i)} == {}


@pytest.mark.parametrize("doc", [OLD, CURRENT, SNAPSHOT, EXPORT], ids=["upgraded", "current", "snapshot", "export"])
@pytest.mark.parametrize("settings", [Settings(), Settings(modernize=True), Settings(target=(1, 0))])
def test_conversion_asks_and_never_judges(monkeypatch: pytest.MonkeyPatch, doc: Any, settings: Settings) -> None:
    from transform.validate import documents, target

    def judged(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("conversion called the judge")

    for module, name in ((target, "judge"), (target, "target_findings"), (documents, "validate_document")):
        monkeypatch.setattr(module, name, judged)
    out = upgrade_document(doc, settings=settings, index=Index())
    assert out.asks  # what it wants judged, as data: it pickles and compares
    assert pickle.loads(pickle.dumps(out.asks)) == out.asks
    assert all(0 <= a.at <= len(out.findings) and all(0 <= n < len(out.changes) for n in a.carry) for a in out.asks)
