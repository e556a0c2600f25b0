"""Generate the bundled JSON schemas (`schemas/*.json` and `schemas/index.json`) from transform.kubevirt.fields."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from transform.kubevirt import fields
from transform.kubevirt.fielddsl import Node, Release, children

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class SchemaFile:
    name: str
    group: str
    version: str
    kind: str
    releases: tuple[Release, Release]  # first and last KubeVirt release the file describes
    root: Node
    node_version: str  # which API version's fields to select from the tree
    node_release: Release  # at which release
    note: str = ""


def _release_text(release: Release) -> str:
    return f"{release[0]}.{release[1]}"


def to_schema(node: Node, version: str, release: Release) -> dict[str, Any]:
    """JSON Schema for one node at (version, release)."""
    out: dict[str, Any]
    if node.kind == "object":
        out = {"type": "object"}
        props = children(node, version, release)
        if props:
            out["properties"] = {name: to_schema(child, version, release) for name, child in props.items()}
            required = sorted(name for name, child in props.items() if child.is_required(release))
            if required:
                out["required"] = required
        if node.const_false_props:
            out["additionalProperties"] = False
    elif node.kind == "map":
        out = {"type": "object", "additionalProperties": {"type": "string"}}
    elif node.kind == "array":
        assert node.items is not None
        out = {"type": "array", "items": to_schema(node.items, version, release)}
        if node.list_type:
            out["x-kubernetes-list-type"] = node.list_type
    elif node.kind == "quantity":
        out = {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}
    elif node.kind == "any":
        out = {}
    else:
        out = {"type": node.kind}
    if node.fmt:
        out["format"] = node.fmt
    if node.pattern:
        out["pattern"] = node.pattern
    if node.minimum is not None:
        out["minimum"] = node.minimum
    if node.maximum is not None:
        out["maximum"] = node.maximum
    return out


def _kind_files() -> list[SchemaFile]:
    out = []
    for version in fields.VERSIONS:
        for kind, family in fields.FAMILY_OF_KIND.items():
            out.append(
                SchemaFile(
                    name=f"{fields.GROUP}_{version}_{kind.lower()}.json",
                    group=fields.GROUP,
                    version=version,
                    kind=kind,
                    releases=(fields.FIRST_RELEASE[version], fields.LAST_RELEASE[version]),
                    root=fields.envelope(fields.SPECS[family]),
                    node_version=version,
                    node_release=fields.SCHEMA_RELEASE[version],
                    note=f"fields of the {version} Go types as of KubeVirt "
                    f"v{_release_text(fields.SCHEMA_RELEASE[version])}.0",
                )
            )
    return out


F1_RELEASES: tuple[Release, Release] = ((0, 56), (0, 57))


def schema_files() -> list[SchemaFile]:
    """Every bundled schema file, in a stable order."""
    v1a1 = "v1alpha1"
    files = _kind_files()
    files.append(
        SchemaFile(
            "instancetype.kubevirt.io_v1alpha1_specrevision.json",
            fields.GROUP,
            v1a1,
            "VirtualMachineInstancetypeSpecRevision|VirtualMachinePreferenceSpecRevision",
            F1_RELEASES,
            fields.SPEC_REVISION,
            v1a1,
            (0, 57),
            "ControllerRevision.data written by KubeVirt v0.56-v0.57 (format F1); spec is base64 JSON",
        )
    )
    for family, kind in (
        ("instancetype", "VirtualMachineInstancetypeSpec"),
        ("preference", "VirtualMachinePreferenceSpec"),
    ):
        files.append(
            SchemaFile(
                f"instancetype.kubevirt.io_v1alpha1_{kind.lower()}.json",
                fields.GROUP,
                v1a1,
                kind,
                F1_RELEASES,
                fields.SPECS[family],
                v1a1,
                (0, 57),
                "the decoded `spec` of a v1alpha1 SpecRevision wrapper",
            )
        )
    files.append(
        SchemaFile(
            "kubevirt.io_v1_virtualmachine.json",
            "kubevirt.io",
            "v1",
            "VirtualMachine",
            fields.VIRTUAL_MACHINE_RANGE,
            fields.VIRTUAL_MACHINE,
            "v1beta1",
            fields.LATEST_RELEASE,
            "only spec.instancetype, spec.preference, status.instancetypeRef, status.preferenceRef; open elsewhere",
        )
    )
    files.append(
        SchemaFile(
            "apps_v1_controllerrevision.json",
            "apps",
            "v1",
            "ControllerRevision",
            ((0, 56), fields.LATEST_RELEASE),
            fields.CONTROLLER_REVISION,
            "v1beta1",
            fields.LATEST_RELEASE,
            "data is any object; see the specrevision and kind schemas for its contents",
        )
    )
    return files


def render(file: SchemaFile) -> bytes:
    body = to_schema(file.root, file.node_version, file.node_release)
    title = f"{file.group}/{file.version} {file.kind}"
    schema = {"$schema": SCHEMA_DIALECT, "title": title, **body}
    return (json.dumps(schema, indent=2, sort_keys=True) + "\n").encode()


def render_all() -> dict[str, bytes]:
    """File name -> bytes, index.json included."""
    out: dict[str, bytes] = {}
    index = []
    for file in schema_files():
        data = render(file)
        out[file.name] = data
        index.append(
            {
                "file": file.name,
                "group": file.group,
                "version": file.version,
                "kind": file.kind,
                "releases": {"from": _release_text(file.releases[0]), "to": _release_text(file.releases[1])},
                "note": file.note,
                "sha256": hashlib.sha256(data).hexdigest(),
            }
        )
    out["index.json"] = (json.dumps(index, indent=2, sort_keys=True) + "\n").encode()
    return out


def write_schemas(directory: str | Path) -> list[str]:
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in render_all().items():
        (target / name).write_bytes(data)
        written.append(name)
    return written
