"""The facts for the neighbouring tools (`instancetype-upgrade export FORMAT`), from the one API table
(transform.kubevirt.apis) and the bundled CRD schemas (transform.validate.crds). Pure: text and file
contents in, nothing written here (transform.cli.cmd_export writes).

- `mapkubeapis`: a helm-mapkubeapis Map file, `mappings: [{deprecatedAPI, newAPI, deprecatedInVersion,
  removedInVersion}]`, where `deprecatedAPI`/`newAPI` are the `apiVersion: ...\\nkind: ...\\n` header lines
  helm-mapkubeapis replaces in a release manifest: one mapping per kind whose version the targets
  deprecate or no longer serve, to the newest version the targets serve.
- `pluto`: a pluto versions file (`deprecated-versions:` entries with `version`, `kind`, `deprecated-in`,
  `removed-in`, `replacement-api`, `replacement-available-in`, `component`; and `target-versions:`),
  every version the table says is deprecated, unserved or removed, components `kubevirt` and `cdi`.
- `kubeconform-schemas`: the bundled schemas of the targets as standalone JSON Schema, one file per
  served group/version/kind at `<group>/<kind lowercased>_<version>.json` (the layout of the community
  CRD catalog that kubeconform's `-schema-location` template `{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json`
  reads), with `additionalProperties: false` on every object below the root that declares properties and
  keeps no unknown fields (where the API server prunes), as the catalog's openapi2jsonschema does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from transform.kubevirt import apis
from transform.validate import crds

FORMATS = ("mapkubeapis", "pluto", "kubeconform-schemas")
Release = tuple[int, int]


def _v(release: Release | None, patch: bool = True) -> str:
    if release is None:
        return ""
    return f"v{release[0]}.{release[1]}.0" if patch else f"v{release[0]}.{release[1]}"


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON's escapes are YAML's)."""
    return json.dumps(text)


def _old_rows() -> Iterator[apis.Api]:
    """Every row that some release deprecates, stops serving or removes."""
    for row in apis.TABLE:
        if row.deprecated is not None or row.unserved is not None or row.removed is not None:
            yield row


def _gone(row: apis.Api) -> Release | None:
    """When the API server stops taking the version (served: false, or removed)."""
    return row.unserved if row.unserved is not None else row.removed


def _header(api_version: str, kind: str) -> str:
    """The lines helm-mapkubeapis looks for in a release manifest."""
    return f"apiVersion: {api_version}\nkind: {kind}\n"


def mapkubeapis(targets: apis.Targets) -> str:
    lines = [
        "# helm-mapkubeapis Map file for the KubeVirt and CDI APIs, made by `instancetype-upgrade export mapkubeapis`",
        f"# for KubeVirt {targets.kubevirt[0]}.{targets.kubevirt[1]} and CDI {targets.cdi[0]}.{targets.cdi[1]}: "
        "each old version maps to the newest version these releases serve.",
        "# deprecatedInVersion/removedInVersion are KubeVirt's (or CDI's) releases; helm-mapkubeapis applies a",
        "# mapping only when that version is at most the cluster's Kubernetes version (docs/integrations.md).",
        "mappings:",
    ]
    for row in _old_rows():
        if row.legacy:
            continue
        state = apis.status(row, targets.of(row))
        if state not in ("deprecated", "unserved", "removed"):
            continue
        for kind in row.kinds:
            d = apis.decide(row.api_version, kind, targets)
            if d is None or d.to is None:
                continue  # no version the targets serve replaces it: nothing to map to
            new_kind = apis.renamed_kind(row, kind, d.to)
            lines.append(f"  - deprecatedAPI: {_q(_header(row.api_version, kind))}")
            lines.append(f"    newAPI: {_q(_header(d.to.api_version, new_kind))}")
            if row.deprecated is not None:
                lines.append(f"    deprecatedInVersion: {_q(_v(row.deprecated, patch=False))}")
            if _gone(row) is not None:
                lines.append(f"    removedInVersion: {_q(_v(_gone(row), patch=False))}")
    return "\n".join(lines) + "\n"


def pluto(targets: apis.Targets) -> str:
    lines = [
        "# pluto versions file for the KubeVirt and CDI APIs, made by `instancetype-upgrade export pluto`:",
        "#   pluto detect-files -d DIR -f THIS_FILE   (target versions below; -t kubevirt=vX.Y.Z,cdi=vX.Y.Z overrides)",
        "deprecated-versions:",
    ]
    for row in _old_rows():
        chain = list(apis.later(row))
        replacement = chain[-1] if chain else None
        for kind in row.kinds:  # pluto matches a kind exactly (checkVersion): a row names its kinds
            lines += [
                f"  - version: {row.api_version}",
                f"    kind: {kind}",
                f"    deprecated-in: {_q(_v(row.deprecated))}",
                f"    removed-in: {_q(_v(_gone(row)))}",
                f"    replacement-api: {_q(replacement.api_version if replacement else '')}",
            ]
            if replacement is not None and replacement.served is not None:
                lines.append(f"    replacement-available-in: {_v(replacement.served)}")
            lines.append(f"    component: {row.product.lower()}")
    lines += [
        "target-versions:",
        f"  cdi: {_v(targets.cdi)}",
        f"  kubevirt: {_v(targets.kubevirt)}",
    ]
    return "\n".join(lines) + "\n"


def standalone(schema: Any, root: bool = True) -> Any:
    """A CRD's structural schema as a standalone JSON Schema for kubeconform: `additionalProperties: false`
    where the API server prunes unknown fields (an object with properties and no
    x-kubernetes-preserve-unknown-fields), the root excepted, as the catalog's converter leaves it."""
    if isinstance(schema, list):
        return [standalone(item, root=False) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: standalone(sub, root=False) for name, sub in value.items()}
        elif isinstance(value, (dict, list)):
            out[key] = standalone(value, root=False)
        else:
            out[key] = value
    if out.get("format") == "int-or-string":
        return {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    types = out.get("type")
    is_object = types == "object" or (isinstance(types, list) and "object" in types)
    if (
        not root
        and is_object
        and "properties" in out
        and "additionalProperties" not in out
        and not out.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    return out


def _served_kinds(targets: apis.Targets) -> Iterator[tuple[str, str, str]]:
    """(group, version, kind) of every CRD kind the targets serve, with a bundled schema."""
    kubevirt_kinds = [(c["group"], c["kind"]) for c in crds.index()["crds"].values()]
    cdi_kinds = [(c["group"], c["kind"]) for c in crds.cdi_index()["crds"].values()]
    for row in apis.TABLE:
        if row.legacy or not row.serves(targets.of(row)):
            continue
        known = kubevirt_kinds if row.product == apis.KUBEVIRT else cdi_kinds
        for group, kind in known:
            if group == row.group and (not row.kinds or kind in row.kinds) and apis.find(row.api_version, kind) is row:
                yield group, row.version, kind


def kubeconform_schemas(targets: apis.Targets) -> dict[str, str]:
    """Relative path -> file text (JSON, 2-space indent, keys sorted)."""
    out: dict[str, str] = {}
    for group, version, kind in _served_kinds(targets):
        api_version = f"{group}/{version}"
        if group.endswith("cdi.kubevirt.io"):
            found = crds.cdi_schema_for(api_version, kind, targets.cdi)
            if found is not None and not _cdi_serves(found, api_version, kind, targets.cdi):
                found = None
        else:
            found = crds.schema_for(api_version, kind, targets.kubevirt)
        if found is None:
            continue
        schema = standalone(crds.load(found[0]))
        out[f"{group}/{kind.lower()}_{version}.json"] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    return dict(sorted(out.items()))


def _cdi_serves(found: tuple[str, str], api_version: str, kind: str, target: Release) -> bool:
    """CDI's own flags: the nearest bundled release serves this version of the kind (the table's rows are
    per group/version; a kind's CRD lists its own versions)."""
    return found[1].startswith(f"{api_version} ")
