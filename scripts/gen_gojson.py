"""Derive the project's table of Go encoding facts from KubeVirt's compiled types.

Reads `kubevirt-v<release>-instancetype-types.json` (every Go struct reachable from the
instancetype.kubevirt.io API types, read by reflection from KubeVirt's compiled types; see the
README next to it) and writes `transform/kubevirt/gojson_v<major>_<minor>.py`: per Go type, each
field's JSON name, omitempty/pointer/inline flags, Go kind and element type. The three
k8s.io/apimachinery types the reference lists by name only (TypeMeta, ObjectMeta, Quantity) are
described below from apimachinery's types.go, so the codec needs no other table.

    python scripts/gen_gojson.py [--reference DIR] [--check]

Input: the go-json tree of reference/ (go-json.tar.xz), or DIR, a new upstream extraction.

A new KubeVirt release is a new reference file and a regeneration, never an edit by hand;
tests/kubevirt/test_gojson_table.py regenerates the table and compares it with the committed one.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys
from typing import Any

# scripts/ is no package: a script is run by path, or loaded by path in tests
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reference_tree import open_tree  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_REFERENCE = open_tree("go-json")  # reference/go-json.tar.xz
RELEASE = "v1.6.0"

_PREFIXES = (
    ("kubevirt.io/api/", ""),
    ("k8s.io/apimachinery/pkg/api/resource.", "resource."),
    ("k8s.io/apimachinery/pkg/apis/meta/v1.", "metav1."),
)
BASIC = {"string", "bool", "int", "int32", "int64", "uint", "uint8", "uint32", "uint64", "float64"}

# k8s.io/apimachinery/pkg/apis/meta/v1 types.go (listed by name only in the reference).
# (json name, flags, kind, type) as in the generated table; "time" is metav1.Time (RFC 3339 text,
# null when zero), "raw" is a value kept as given (FieldsV1: raw JSON).
APIMACHINERY: dict[str, tuple[tuple[str, str, str, str], ...]] = {
    "metav1.TypeMeta": (("apiVersion", "o", "string", ""), ("kind", "o", "string", "")),
    "metav1.ObjectMeta": (
        ("name", "o", "string", ""),
        ("generateName", "o", "string", ""),
        ("namespace", "o", "string", ""),
        ("selfLink", "o", "string", ""),
        ("uid", "o", "string", ""),
        ("resourceVersion", "o", "string", ""),
        ("generation", "o", "int64", ""),
        ("creationTimestamp", "o", "time", ""),
        ("deletionTimestamp", "op", "time", ""),
        ("deletionGracePeriodSeconds", "op", "int64", ""),
        ("labels", "o", "map", "string"),
        ("annotations", "o", "map", "string"),
        ("ownerReferences", "o", "slice", "metav1.OwnerReference"),
        ("finalizers", "o", "slice", "string"),
        ("managedFields", "o", "slice", "metav1.ManagedFieldsEntry"),
    ),
    "metav1.OwnerReference": (
        ("apiVersion", "", "string", ""),
        ("kind", "", "string", ""),
        ("name", "", "string", ""),
        ("uid", "", "string", ""),
        ("controller", "op", "bool", ""),
        ("blockOwnerDeletion", "op", "bool", ""),
    ),
    "metav1.ManagedFieldsEntry": (
        ("manager", "o", "string", ""),
        ("operation", "o", "string", ""),
        ("apiVersion", "o", "string", ""),
        ("time", "op", "time", ""),
        ("fieldsType", "o", "string", ""),
        ("fieldsV1", "op", "raw", ""),
        ("subresource", "o", "string", ""),
    ),
}
# resource.Quantity has its own codec (transform.kubevirt.quantity): a leaf, no fields.
LEAF_STRUCTS = {"resource.Quantity": "quantity"}


def short(name: str) -> str:
    for prefix, repl in _PREFIXES:
        if name.startswith(prefix):
            return repl + name[len(prefix) :]
    return name


def _field(f: dict[str, Any]) -> tuple[str, str, str, str]:
    flags = ("o" if f["omitempty"] else "") + ("p" if f["pointer"] else "") + ("i" if f.get("inline") else "")
    kind, gotype = f["kind"], short(f["type"])
    if kind == "struct":
        if gotype in LEAF_STRUCTS:
            return f["json"], flags, LEAF_STRUCTS[gotype], ""
        return f["json"], flags, "struct", gotype
    if kind in ("slice", "map"):
        elem = short(f["elem"])
        return f["json"], flags, kind, LEAF_STRUCTS.get(elem, elem)
    if kind not in BASIC:
        raise SystemExit(f"unsupported Go kind {kind!r} in field {f['goName']}")
    return f["json"], flags, kind, ""


def _tuple(field: tuple[str, ...]) -> str:
    return f"({', '.join(json.dumps(x) for x in field)})"


def build(reference: Any) -> str:
    """The table module's text; `reference` is the go-json tree (an ArchivePath or a directory)."""
    path = reference / f"kubevirt-{RELEASE}-instancetype-types.json"
    data = json.loads(path.read_text())
    readme = (reference / "README.md").read_text() if (reference / "README.md").exists() else ""
    commit = re.search(r"commit ([0-9a-f]{40})", readme)
    types: dict[str, tuple[tuple[str, str, str, str], ...]] = {}
    for t in sorted(data["types"], key=lambda t: short(t["name"])):
        name = short(t["name"])
        if name in APIMACHINERY or name in LEAF_STRUCTS:
            continue
        if t["kind"] != "struct":
            raise SystemExit(f"unsupported type kind {t['kind']!r} for {name}")
        types[name] = tuple(_field(f) for f in t.get("fields", []))
    types.update(APIMACHINERY)
    roots = {k: short(v) for k, v in sorted(data["roots"].items())}
    refs = {ref for fields in types.values() for _, _, kind, ref in fields if kind in ("struct", "slice", "map")}
    missing = refs - set(types) - BASIC - set(LEAF_STRUCTS.values())
    if missing:
        raise SystemExit(f"types referenced but not described: {sorted(missing)}")
    head = f'''# Generated by scripts/gen_gojson.py from {path.name}: do not edit, regenerate.
"""How Go's encoding/json reads and writes KubeVirt {RELEASE}'s instancetype.kubevirt.io types.

TYPES maps each Go struct type (kubevirt.io/api/ prefix dropped) to its fields in declaration order:
(json name, flags, kind, type). Flags: o = omitempty, p = pointer, i = inline (embedded struct whose
fields are read and written at this level). Kind is the Go kind after dereferencing (struct, string,
bool, uint32, int64, slice, map, ...) or one of: quantity (resource.Quantity), time (metav1.Time),
raw (kept as given). Type is the struct type for struct, the element for slice and map, else "".
The k8s.io/apimachinery metav1 types come from the generator (apimachinery types.go); the rest from
KubeVirt's compiled types, read by reflection{f" (commit {commit.group(1)})" if commit else ""}.
"""

from __future__ import annotations

RELEASE = "{RELEASE}"
'''
    lines = ["ROOTS: dict[str, str] = {"]
    lines += [f"    {json.dumps(k)}: {json.dumps(v)}," for k, v in roots.items()]
    lines += ["}", "", "TYPES: dict[str, tuple[tuple[str, str, str, str], ...]] = {"]
    for name, fields in types.items():
        one = f"    {json.dumps(name)}: ({''.join(_tuple(f) + ',' for f in fields)}),"
        if len(fields) <= 1 and len(one) <= 120:  # what ruff format writes
            lines.append(one)
            continue
        lines.append(f"    {json.dumps(name)}: (")
        lines += [f"        {_tuple(f)}," for f in fields]
        lines.append("    ),")
    lines.append("}")
    return head + "\n" + "\n".join(lines) + "\n"


def target() -> pathlib.Path:
    major, minor = RELEASE[1:].split(".")[:2]
    return ROOT / "transform" / "kubevirt" / f"gojson_v{major}_{minor}.py"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=pathlib.Path, default=DEFAULT_REFERENCE)
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed table is stale")
    args = parser.parse_args(argv)
    text = build(args.reference)
    out = target()
    if args.check:
        if not out.exists() or out.read_text() != text:
            print(f"{out.relative_to(ROOT)} is stale: python scripts/gen_gojson.py", file=sys.stderr)
            return 1
        return 0
    out.write_text(text)
    print(out.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
