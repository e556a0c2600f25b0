#!/usr/bin/env python3
"""Build the bundled CRD schemas (schemas/kubevirt/, schemas/cdi/, schemas/apps_v1_controllerrevision.json).

Input: the reference tree crd-schemas, from reference/crd-schemas.tar.xz (or --reference DIR, a new upstream
extraction not yet packed): KubeVirt's `openAPIV3Schema` of every CRD at every minor release v1.0.0-v1.9.0
in kubevirt-releases/, the instancetype.kubevirt.io v1alpha1 and v1alpha2 schemas of the last releases that
served them as newest, and apps/v1 ControllerRevision. reference/README.md says where each comes from.

Output, deterministic (a test re-runs this script and compares bytes):
  schemas/kubevirt/<sha256[:16]>.json.gz   one per distinct schema, descriptions stripped, keys sorted,
                                           compact JSON, gzip with mtime 0
  schemas/kubevirt/index.json              which schema each release attaches to each CRD, the CRD's
                                           group and kind, and the source (tag, commit, file) of each
  schemas/kubevirt/added.json              per CRD, the first release whose schema has each field path
                                           (paths every bundled release has are left out): where the
                                           "(added in 1.8)" hints come from
  schemas/cdi/<sha256[:16]>.json.gz        the same for CDI's CRDs of v1.56.0-v1.66.0 (cdi-releases/)
  schemas/cdi/index.json                   per release, CRD and version: the schema and the served/storage
                                           flags (CDI attaches a schema to each version); the CRDs' group,
                                           kind and scope; the source (tag, commit) of each release
  schemas/cdi/added.json                   per CRD and version, the first CDI release whose schema has each
                                           field path (as kubevirt/added.json)
  schemas/apps_v1_controllerrevision.json  apps/v1 ControllerRevision from kubectl's OpenAPI data, references
                                           inlined (a structural schema), descriptions stripped

Usage: python scripts/bundle_schemas.py [--reference DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import sys
from pathlib import Path
from typing import Any

# scripts/ is no package: a script is run by path, or loaded by path in tests
sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_tree import open_tree  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REFERENCE = open_tree("crd-schemas")  # reference/crd-schemas.tar.xz

# CRD singular name (the key of KubeVirt's CRDsValidation map) -> (group, kind).
# Source: pkg/virt-operator/resource/generate/components/crds.go and the API packages' register.go.
# `datavolumetemplatespec` is no CRD (a helper entry of the same map) and is left out.
CRDS: dict[str, tuple[str, str]] = {
    "kubevirt": ("kubevirt.io", "KubeVirt"),
    "virtualmachine": ("kubevirt.io", "VirtualMachine"),
    "virtualmachineinstance": ("kubevirt.io", "VirtualMachineInstance"),
    "virtualmachineinstancemigration": ("kubevirt.io", "VirtualMachineInstanceMigration"),
    "virtualmachineinstancepreset": ("kubevirt.io", "VirtualMachineInstancePreset"),
    "virtualmachineinstancereplicaset": ("kubevirt.io", "VirtualMachineInstanceReplicaSet"),
    "virtualmachinepool": ("pool.kubevirt.io", "VirtualMachinePool"),
    "virtualmachinesnapshot": ("snapshot.kubevirt.io", "VirtualMachineSnapshot"),
    "virtualmachinesnapshotcontent": ("snapshot.kubevirt.io", "VirtualMachineSnapshotContent"),
    "virtualmachinerestore": ("snapshot.kubevirt.io", "VirtualMachineRestore"),
    "virtualmachineexport": ("export.kubevirt.io", "VirtualMachineExport"),
    "virtualmachineclone": ("clone.kubevirt.io", "VirtualMachineClone"),
    "migrationpolicy": ("migrations.kubevirt.io", "MigrationPolicy"),
    "virtualmachineinstancetype": ("instancetype.kubevirt.io", "VirtualMachineInstancetype"),
    "virtualmachineclusterinstancetype": ("instancetype.kubevirt.io", "VirtualMachineClusterInstancetype"),
    "virtualmachinepreference": ("instancetype.kubevirt.io", "VirtualMachinePreference"),
    "virtualmachineclusterpreference": ("instancetype.kubevirt.io", "VirtualMachineClusterPreference"),
    "virtualmachinebackup": ("backup.kubevirt.io", "VirtualMachineBackup"),
    "virtualmachinebackuptracker": ("backup.kubevirt.io", "VirtualMachineBackupTracker"),
    "plugin": ("plugin.kubevirt.io", "Plugin"),
}
NOT_CRDS = {"datavolumetemplatespec"}

# instancetype.kubevirt.io versions that are no longer served: each judged against the schema generated
# from its own Go types (the last release in which it was the newest version; reference README).
OWN_VERSION = {
    "v1alpha1": ("v0.57.0", "30d8ed316ca093ee83fc632449f058b2f690696b"),
    "v1alpha2": ("v0.59.0", "78f5184d1794838c5fc5061f920273fb4e5283ed"),
}
INSTANCETYPE_CRDS = [c for c, (g, _k) in CRDS.items() if g == "instancetype.kubevirt.io"]
SOURCE_FILE = "kubevirt/kubevirt:pkg/virt-operator/resource/generate/components/validations_generated.go"
SCHEMA_KEYS_WITH_SUBSCHEMA = ("items", "additionalProperties", "not")
SCHEMA_KEYS_WITH_SUBSCHEMAS = ("anyOf", "allOf", "oneOf")


def strip(node: Any) -> Any:
    """A schema without `description` (a property *named* description is kept)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "description":
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: strip(sub) for name, sub in value.items()}
        elif key in SCHEMA_KEYS_WITH_SUBSCHEMA:
            out[key] = strip(value)
        elif key in SCHEMA_KEYS_WITH_SUBSCHEMAS and isinstance(value, list):
            out[key] = [strip(v) for v in value]
        elif key == "components" and isinstance(value, dict):  # the OpenAPI fragment
            out[key] = {"schemas": {n: strip(s) for n, s in value.get("schemas", {}).items()}}
        else:
            out[key] = value
    return out


# Built-in types whose JSON is free-form: RawExtension (ControllerRevision.data holds any object) and
# FieldsV1 (managedFields). A Go decoder keeps them as they are, as preserve-unknown-fields does.
FREE_FORM = ("io.k8s.apimachinery.pkg.runtime.RawExtension", "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1")


def resolve(node: Any, components: dict[str, Any]) -> Any:
    """An OpenAPI v3 schema with `$ref` and single-element `allOf: [{$ref}]` inlined (structural form)."""
    if not isinstance(node, dict):
        return node
    node = dict(node)
    refs = [node.pop("$ref")] if "$ref" in node else []
    if isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1 and "$ref" in node["allOf"][0]:
        refs.append(node.pop("allOf")[0]["$ref"])
    for ref in refs:
        name = ref.rsplit("/", 1)[-1]
        if name in FREE_FORM:
            node.update({"type": "object", "x-kubernetes-preserve-unknown-fields": True})
        else:
            node = {**resolve(components[name], components), **node}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":
            out[key] = {k: resolve(v, components) for k, v in value.items()}
        elif key in SCHEMA_KEYS_WITH_SUBSCHEMA:
            out[key] = resolve(value, components)
        else:
            out[key] = value
    return out


def canonical(schema: Any) -> bytes:
    return json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def gz(data: bytes) -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as f:
        f.write(data)
    return buf.getvalue()


def field_paths(node: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every field path of a structural schema: "[]" steps into list items, "*" into map values."""
    out: list[tuple[str, ...]] = []
    if not isinstance(node, dict):
        return out
    for name, sub in sorted((node.get("properties") or {}).items()):
        if "." in name or name in ("[]", "*"):
            raise SystemExit(f"field name {name!r} at {'.'.join(prefix)} cannot be written as a path")
        out += [(*prefix, name), *field_paths(sub, (*prefix, name))]
    for key, step in (("items", "[]"), ("additionalProperties", "*")):
        if isinstance(node.get(key), dict):
            out += [(*prefix, step), *field_paths(node[key], (*prefix, step))]
    return out


def first_releases(history: list[tuple[str, Any]]) -> dict[str, str]:
    """Path -> the first release of `history` (oldest first) whose schema has it; paths the oldest has are
    left out (their first release is not known from the bundle)."""
    first: dict[str, str] = {}
    for release, schema in history:
        for path in field_paths(schema):
            first.setdefault(".".join(path), release)
    return {path: release for path, release in sorted(first.items()) if release != history[0][0]}


def release_key(tag: str) -> str:
    major, minor = tag.lstrip("v").split(".")[:2]
    return f"{major}.{minor}"


def build(reference: Any) -> dict[str, bytes]:
    """Relative output path -> bytes; `reference` is the crd-schemas tree (an ArchivePath or a directory)."""
    files: dict[str, bytes] = {}
    blobs: dict[str, bytes] = {}

    def add(schema: Any) -> str:
        data = canonical(strip(schema))
        digest = hashlib.sha256(data).hexdigest()[:16]
        if digest not in blobs:
            blobs[digest] = data
            files[f"kubevirt/{digest}.json.gz"] = gz(data)
        return digest

    releases_dir = reference / "kubevirt-releases"
    entries = json.loads((releases_dir / "index.json").read_text())
    releases: dict[str, dict[str, str]] = {}
    sources: dict[str, dict[str, str]] = {}
    for entry in sorted(entries, key=lambda e: (tuple(int(x) for x in e["tag"].lstrip("v").split(".")), e["crd"])):
        crd = entry["crd"]
        if crd in NOT_CRDS:
            continue
        if crd not in CRDS:
            raise SystemExit(f"unknown CRD {crd!r} in {releases_dir / 'index.json'}: add it to CRDS")
        raw = (releases_dir / entry["file"]).read_bytes()
        if hashlib.sha256(raw).hexdigest() != entry["sha256"]:
            raise SystemExit(f"{entry['file']}: sha256 differs from the reference index")
        key = release_key(entry["tag"])
        releases.setdefault(key, {})[crd] = add(json.loads(raw))
        sources[key] = {"tag": entry["tag"], "commit": entry["commit"]}
    own: dict[str, dict[str, str]] = {}
    for version in OWN_VERSION:
        for crd in INSTANCETYPE_CRDS:
            path = reference / f"instancetype.kubevirt.io_{version}_{crd}.json"
            own.setdefault(version, {})[crd] = add(json.loads(path.read_text()))
    index = {
        "about": "KubeVirt CRD openAPIV3Schema per release; built by scripts/bundle_schemas.py (see NOTICE)",
        "source_file": SOURCE_FILE,
        "crds": {crd: {"group": g, "kind": k} for crd, (g, k) in sorted(CRDS.items())},
        "releases": {key: dict(sorted(v.items())) for key, v in sorted(releases.items())},
        "release_sources": dict(sorted(sources.items())),
        "own_version": {"group": "instancetype.kubevirt.io", "schemas": own},
        "own_version_sources": {v: {"tag": t, "commit": c} for v, (t, c) in OWN_VERSION.items()},
    }
    files["kubevirt/index.json"] = (json.dumps(index, indent=1, sort_keys=True) + "\n").encode()
    order = sorted(releases, key=lambda key: tuple(int(x) for x in key.split(".")))
    added: dict[str, dict[str, str]] = {}
    for crd in sorted(CRDS):
        # instancetype.kubevirt.io: the own-version schemas come first (v1alpha1 of v0.57, v1alpha2 of v0.59)
        history = [(release_key(OWN_VERSION[v][0]), own[v][crd]) for v in OWN_VERSION if crd in own.get(v, {})]
        history += [(key, releases[key][crd]) for key in order if crd in releases[key]]
        added[crd] = first_releases([(key, json.loads(blobs[digest])) for key, digest in history])
    about = "per CRD, the first bundled release whose schema has a field path; built by scripts/bundle_schemas.py"
    files["kubevirt/added.json"] = (
        json.dumps({"about": about, "crds": added}, indent=1, sort_keys=True) + "\n"
    ).encode()
    build_cdi(reference / "cdi-releases", files)
    fragment = strip(json.loads((reference / "apps_v1_controllerrevision.json").read_text()))
    cr = resolve({"$ref": fragment["$ref"]}, fragment["components"]["schemas"])
    cr.pop("x-kubernetes-group-version-kind", None)
    files["apps_v1_controllerrevision.json"] = (json.dumps(cr, indent=1, sort_keys=True) + "\n").encode()
    return files


CDI_SOURCE_FILE = "kubevirt/containerized-data-importer:pkg/operator/resources/crds_generated.go"


def build_cdi(releases_dir: Any, files: dict[str, bytes]) -> None:
    """schemas/cdi/: CDI's CRD schemas per release and version, with the served/storage flags of each."""
    entries = json.loads((releases_dir / "index.json").read_text())
    releases: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
    sources: dict[str, dict[str, str]] = {}
    crds: dict[str, dict[str, str]] = {}
    for entry in sorted(entries, key=lambda e: (tuple(int(x) for x in e["tag"].lstrip("v").split(".")), e["crd"])):
        raw = (releases_dir / entry["file"]).read_bytes()
        if hashlib.sha256(raw).hexdigest() != entry["sha256"]:
            raise SystemExit(f"{entry['file']}: sha256 differs from the reference index")
        if b'` + \\"`\\" + `' in raw:  # an extraction that did not read the Go literal as Go does
            raise SystemExit(f"{entry['file']}: holds Go source text; re-extract (scripts/extract_cdi_crds.py)")
        data = canonical(strip(json.loads(raw)))
        digest = hashlib.sha256(data).hexdigest()[:16]
        files[f"cdi/{digest}.json.gz"] = gz(data)
        key = release_key(entry["tag"])
        flags = {"schema": digest, "served": entry["served"], "storage": entry["storage"]}
        releases.setdefault(key, {}).setdefault(entry["crd"], {})[entry["version"]] = flags
        sources[key] = {"tag": entry["tag"], "commit": entry["commit"]}
        crds[entry["crd"]] = {"group": entry["group"], "kind": entry["kind"], "scope": entry["scope"]}
    index = {
        "about": "CDI CRD openAPIV3Schema per release and version; built by scripts/bundle_schemas.py (see NOTICE)",
        "source_file": CDI_SOURCE_FILE,
        "crds": dict(sorted(crds.items())),
        "releases": {key: dict(sorted(v.items())) for key, v in sorted(releases.items())},
        "release_sources": dict(sorted(sources.items())),
    }
    files["cdi/index.json"] = (json.dumps(index, indent=1, sort_keys=True) + "\n").encode()
    order = sorted(releases, key=lambda key: tuple(int(x) for x in key.split(".")))
    added: dict[str, dict[str, dict[str, str]]] = {}
    for crd in sorted(crds):
        versions = sorted({v for key in order for v in releases[key].get(crd, {})})
        for version in versions:
            history = [
                (key, releases[key][crd][version]["schema"]) for key in order if version in releases[key].get(crd, {})
            ]
            blobs = [(key, json.loads(gzip.decompress(files[f"cdi/{digest}.json.gz"]))) for key, digest in history]
            first = first_releases(blobs)
            if first:
                added.setdefault(crd, {})[version] = first
    about = "per CRD and version, the first bundled CDI release whose schema has a field path; built by " + (
        "scripts/bundle_schemas.py"
    )
    files["cdi/added.json"] = (json.dumps({"about": about, "crds": added}, indent=1, sort_keys=True) + "\n").encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    parser.add_argument("--out", type=Path, default=ROOT / "schemas")
    args = parser.parse_args(argv)
    if not (args.reference / "kubevirt-releases" / "index.json").is_file():
        print(f"reference schemas not found under {args.reference}", file=sys.stderr)
        return 2
    files = build(args.reference)
    for product in ("kubevirt", "cdi"):
        stale = sorted((args.out / product).glob("*.json.gz")) if (args.out / product).is_dir() else []
        for path in stale:
            if f"{product}/{path.name}" not in files:
                path.unlink()
    for rel, data in files.items():
        target = args.out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_bytes() != data:
            target.write_bytes(data)
    total = sum(len(d) for r, d in files.items() if r.startswith(("kubevirt/", "cdi/")))
    print(f"{len(files)} files, {total} bytes under {args.out / 'kubevirt'} and {args.out / 'cdi'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
