"""The bundled CDI schemas (schemas/cdi/) equal CDI's own CRDs of the reference tree cdi-releases/, and
that tree is CDI's CRDs as the Go compiler reads crds_generated.go (issue 21 §4, issue 22 §1).

Reads the tree through tests/oracles/reference.py; shares no code with the scripts or transform/.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from tests.oracles.reference import tree

ROOT = Path(__file__).resolve().parents[2]
RELEASES = tree("crd-schemas") / "cdi-releases"
BUNDLE = ROOT / "schemas" / "cdi"


def _without_descriptions(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: ({n: _without_descriptions(s) for n, s in v.items()} if k == "properties" else _without_descriptions(v))
            for k, v in node.items()
            if not (k == "description" and isinstance(v, str))
        }
    if isinstance(node, list):
        return [_without_descriptions(v) for v in node]
    return node


def test_every_cdi_reference_schema_is_bundled_with_its_flags() -> None:
    index = json.loads((RELEASES / "index.json").read_text())
    bundle = json.loads((BUNDLE / "index.json").read_text())
    assert sorted(bundle["releases"]) == sorted({e["tag"].lstrip("v").rsplit(".", 1)[0] for e in index})
    for e in index:
        key = e["tag"].lstrip("v").rsplit(".", 1)[0]
        entry = bundle["releases"][key][e["crd"]][e["version"]]
        assert (entry["served"], entry["storage"]) == (e["served"], e["storage"]), e["file"]
        stored = json.loads(gzip.decompress((BUNDLE / f"{entry['schema']}.json.gz").read_bytes()))
        assert stored == _without_descriptions(json.loads((RELEASES / e["file"]).read_text())), e["file"]
        assert bundle["crds"][e["crd"]] == {"group": e["group"], "kind": e["kind"], "scope": e["scope"]}
    assert len(index) == sum(len(v) for crds in bundle["releases"].values() for v in crds.values())


def test_the_tree_is_read_as_go_reads_the_literals() -> None:
    index = json.loads((RELEASES / "index.json").read_text())
    for e in index:
        assert '` + "`" + `' not in (RELEASES / e["file"]).read_text(), e["file"]  # Go source text, not CDI's
    # every release's CDI operator CRD has both versions, each served, v1beta1 stored (as crds_generated.go says)
    cdi = {(e["tag"], e["version"]): (e["served"], e["storage"]) for e in index if e["crd"] == "cdi"}
    tags = sorted({e["tag"] for e in index}, key=lambda t: tuple(int(x) for x in t.lstrip("v").split(".")))
    assert tags == [f"v1.{minor}.0" for minor in range(56, 67)]
    for tag in tags:
        assert (cdi[(tag, "v1alpha1")], cdi[(tag, "v1beta1")]) == ((True, False), (True, True)), tag
    schema = json.loads((RELEASES / "v1.66.0" / "cdi.v1beta1.json").read_text())
    assert {"spec", "status"} <= set(schema["properties"]) and schema["required"] == ["spec"]
