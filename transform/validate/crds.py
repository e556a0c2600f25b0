"""KubeVirt's and CDI's real CRD schemas per release (bundled by scripts/bundle_schemas.py), compiled lazily.

`validate_object(doc, target)` judges one KubeVirt object (any group the bundle holds) against the schema
the target release's API server applies to it, with the API server's semantics (transform.validate.
structural). Nothing is read before the first KubeVirt document; each schema is decompressed and compiled
once per run (keyed by its content hash: releases sharing a schema share the compiled validator).

Which schema judges a document:
- the target release's schema of the document's CRD (KubeVirt attaches one schema to every served version);
- an instancetype.kubevirt.io v1alpha1/v1alpha2 object that the target does not serve: the schema generated
  from its own version's Go types (v0.57.0 / v0.59.0), as KubeVirt served it when it was the newest;
- a CRD the target does not have (newer or removed): the nearest release that has it.
Targets before v1.0 use v1.0's schemas, except instancetype.kubevirt.io (own-version schemas).
CDI objects (`cdi_schema_for`): the schema the CDI target release attaches to the object's version.

What a create does before and besides the schema (apiextensions-apiserver's customResourceStrategy, with
the CRD's scope and subresources of the target release, KubeVirt's or CDI's: transform.kubevirt.crdfacts):
`status` is dropped where the CRD has the status subresource (not validated), but its unknown fields are
still reported: the request's strict decoding prunes the whole object before PrepareForCreate drops
`status` (fieldValidation=Strict refuses the create, Warn warns); a cluster-scoped kind's
namespace is cleared (not checked); the resource's own metadata has a name (or generateName); with the
scale subresource, `spec.replicas` must fit an int32.
"""

from __future__ import annotations

import functools
import gzip
import json
from typing import Any

from transform.kubevirt import apis, crdfacts
from transform.model.findings import Finding, Severity, error, format_path
from transform.validate import objectmeta
from transform.validate.schemas import read_bundled
from transform.validate.structural import Node, Validator, as_json_number

Release = tuple[int, int]
INSTANCETYPE_GROUP = "instancetype.kubevirt.io"
MAX_INT32 = (1 << 31) - 1


@functools.cache
def index() -> dict[str, Any]:
    result: dict[str, Any] = json.loads(read_bundled("kubevirt", "index.json"))
    return result


@functools.cache
def _by_kind() -> dict[tuple[str, str], str]:
    return {(c["group"], c["kind"]): name for name, c in index()["crds"].items()}


@functools.cache
def kinds_by_group() -> dict[str, frozenset[str]]:
    """Every kind a bundled KubeVirt or CDI CRD defines, by group (over every bundled release)."""
    out: dict[str, set[str]] = {}
    for crd in (*index()["crds"].values(), *cdi_index()["crds"].values()):
        out.setdefault(crd["group"], set()).add(crd["kind"])
    return {group: frozenset(kinds) for group, kinds in out.items()}


def releases() -> list[Release]:
    return sorted(_parse(key) for key in index()["releases"])


def _parse(key: str) -> Release:
    major, minor = key.split(".")
    return int(major), int(minor)


def crd_of(api_version: Any, kind: Any) -> str | None:
    """The CRD (singular name) of a document, or None when it is no KubeVirt CRD kind."""
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    group = api_version.rpartition("/")[0]
    return _by_kind().get((group, kind))


def _own_version(version: str, target: Release) -> str | None:
    """The instancetype.kubevirt.io own-version schema judging `version` at `target`, if that is what applies
    (the bundle's own-version schemas; what the target serves: transform.kubevirt.apis)."""
    own = index()["own_version"]["schemas"]
    if version not in own:
        return None
    served = [r.version for r in apis.rows(INSTANCETYPE_GROUP) if r.serves(target)]
    if version not in served:
        return version  # not (or no longer) served: the schema of its own Go types
    # served: KubeVirt attaches its newest version's schema to every version (v0.58-v0.59: v1alpha2's;
    # v1.0-v1.5: the release's v1beta1 schema)
    return served[-1] if served[-1] in own else None


@functools.cache
def schema_for(api_version: str, kind: str, target: Release) -> tuple[str, str] | None:
    """(schema hash, what it is) judging `apiVersion`/`kind` at the target, or None (no KubeVirt CRD kind)."""
    crd = crd_of(api_version, kind)
    if crd is None:
        return None
    group, _, version = api_version.rpartition("/")
    own = _own_version(version, target) if group == INSTANCETYPE_GROUP else None
    if own is not None:
        source = index()["own_version_sources"][own]["tag"]
        return index()["own_version"]["schemas"][own][crd], f"{group}/{own} {kind} schema of KubeVirt {source}"
    by_release = index()["releases"]
    candidates = [r for r in releases() if crd in by_release[f"{r[0]}.{r[1]}"]]
    if not candidates:
        return None
    at_or_before = [r for r in candidates if r <= target]
    release = at_or_before[-1] if at_or_before else candidates[0]
    key = f"{release[0]}.{release[1]}"
    return by_release[key][crd], f"{kind} schema of KubeVirt v{key}"


@functools.cache
def cdi_index() -> dict[str, Any]:
    result: dict[str, Any] = json.loads(read_bundled("cdi", "index.json"))
    return result


def cdi_releases() -> list[Release]:
    return sorted(_parse(key) for key in cdi_index()["releases"])


@functools.cache
def _cdi_by_kind() -> dict[tuple[str, str], str]:
    return {(c["group"], c["kind"]): name for name, c in cdi_index()["crds"].items()}


@functools.cache
def cdi_schema_for(api_version: str, kind: str, target: Release | None = None) -> tuple[str, str] | None:
    """(schema hash, what it is) judging a CDI object at the CDI target (default: the newest release
    bundled), or None (no CDI CRD kind). A release before or after the bundled ones: the nearest bundled;
    a version the release's CRD does not list (cdi.kubevirt.io/v1alpha1 DataVolume, removed in 1.56):
    the CRD's storage version, which the object becomes once its apiVersion is upgraded."""
    group, _, version = api_version.rpartition("/")
    crd = _cdi_by_kind().get((group, kind))
    if crd is None:
        return None
    by_release = cdi_index()["releases"]
    candidates = [r for r in cdi_releases() if crd in by_release[f"{r[0]}.{r[1]}"]]
    at_or_before = [r for r in candidates if target is None or r <= target]
    release = at_or_before[-1] if at_or_before else candidates[0]
    key = f"{release[0]}.{release[1]}"
    versions: dict[str, dict[str, Any]] = by_release[key][crd]
    if version not in versions:
        version = next(v for v, flags in versions.items() if flags["storage"])
    return versions[version]["schema"], f"{group}/{version} {kind} schema of CDI v{key}"


@functools.cache
def load(digest: str) -> dict[str, Any]:
    """The schema stored under `digest` (decompressed, parsed; cached, do not mutate)."""
    if not digest.isalnum():
        raise ValueError(f"not a schema digest: {digest!r}")
    try:
        data = read_bundled("kubevirt", f"{digest}.json.gz")
    except FileNotFoundError:
        data = read_bundled("cdi", f"{digest}.json.gz")
    result: dict[str, Any] = json.loads(gzip.decompress(data))
    return result


@functools.cache
def compiled(digest: str) -> Validator:
    """The validator of schema `digest`, compiled on first use and kept for the run."""
    return Validator(load(digest), objectmeta.node(), objectmeta.root_node())


def node_at(digest: str, path: tuple[Any, ...]) -> Node | None:
    """The compiled node of a field path (ints step into lists), or None when the schema has no such field."""
    node: Node | None = compiled(digest).root
    for part in path:
        if node is None:
            return None
        if isinstance(part, int):
            node = node.items
        elif node.props is not None and part in node.props:
            node = node.props[part]
        elif isinstance(node.additional, Node):
            node = node.additional
        else:
            return None
    return node


def validate_object(
    doc: dict[str, Any],
    target: Release,
    *,
    partial: bool = False,
    strict: bool = False,
    target_cdi: Release | None = None,
) -> list[Finding] | None:
    """Findings of the target's schema for one document; None when it is no KubeVirt or CDI CRD kind.

    Unknown fields are warnings (errors with `strict`), as kubectl's strict field validation reports them.
    """
    api_version, kind = str(doc.get("apiVersion")), str(doc.get("kind"))
    found = schema_for(api_version, kind, target)
    facts = crd_facts(kind, target)
    if found is None:
        found = cdi_schema_for(api_version, kind, target_cdi)
        facts = crd_facts(kind, target_cdi or cdi_releases()[-1], cdi=True)
    if found is None:
        return None
    unknown = Severity.ERROR if strict else Severity.WARNING
    created = as_created(doc, facts)
    out = compiled(found[0]).validate(created, partial=partial, unknown=unknown)
    if created is not doc and "status" in doc and "status" not in created:
        out += _status_unknown(found[0], doc["status"], unknown)
    doc = created
    out += objectmeta.missing(doc, partial)
    if facts is not None and facts[2]:
        out += _scale(doc, facts[2])
    return out


def _status_unknown(digest: str, status: Any, unknown: Severity) -> list[Finding]:
    """The unknown fields of a `status` the create drops (status subresource): the strict decoder reports
    them first (apiextensions-apiserver's request decoding prunes with the whole schema)."""
    root = compiled(digest).root
    node = root.props.get("status") if root.props is not None else None
    if node is None:
        if root.preserve:
            return []
        where = ("status",)
        return [Finding(unknown, "schema.unknown-field", f'unknown field "{format_path(where)}"', path=where)]
    found = Validator.of(node).validate(status, partial=True, unknown=unknown, base=("status",))
    return [f for f in found if f.code == "schema.unknown-field"]


def crd_facts(kind: str, target: Release, cdi: bool = False) -> tuple[bool, bool, str] | None:
    """(cluster-scoped, status subresource, scale specReplicasPath or "") of a KubeVirt kind at `target`
    (a CDI kind at a CDI release with `cdi`), from the nearest release that has it; None for no such kind."""
    rows = (crdfacts.CDI_CRDS if cdi else crdfacts.CRDS).get(kind)
    if not rows:
        return None
    at_or_before = [row for row in rows if row[0] <= target]
    _, cluster, status, replicas = at_or_before[-1] if at_or_before else rows[0]
    return cluster, status, replicas


def as_created(doc: dict[str, Any], facts: tuple[bool, bool, str] | None) -> dict[str, Any]:
    """The object the API server validates on a create (PrepareForCreate, BeforeCreate): without
    `status` where the CRD has the status subresource, without a namespace on a cluster-scoped kind."""
    if facts is None:
        return doc
    cluster, status, _ = facts
    if status and "status" in doc:
        doc = {k: v for k, v in doc.items() if k != "status"}
    metadata = doc.get("metadata")
    if cluster and isinstance(metadata, dict) and "namespace" in metadata:
        doc = {**doc, "metadata": {k: v for k, v in metadata.items() if k != "namespace"}}
    return doc


def _scale(doc: dict[str, Any], replicas_path: str) -> list[Finding]:
    """customResourceValidator.ValidateScaleSpec: the replicas the scale subresource reads fit an int32."""
    path = tuple(replicas_path.lstrip(".").split("."))
    value: Any = doc
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    if isinstance(value, float):
        value = as_json_number(value)
    if not isinstance(value, int) or isinstance(value, bool):
        return []  # absent, or a type error the schema reports
    if value < 0:
        detail = "should be a non-negative integer"
    elif value > MAX_INT32:
        detail = f"should be less than or equal to {MAX_INT32}"
    else:
        return []
    return [error("schema.scale", f"Invalid value: {value}: {detail} (the scale subresource's {replicas_path})", path)]


@functools.cache
def _added() -> dict[str, dict[str, str]]:
    result: dict[str, dict[str, str]] = json.loads(read_bundled("kubevirt", "added.json"))["crds"]
    return result


def added_in(api_version: Any, kind: Any, path: tuple[Any, ...]) -> Release | None:
    """The first bundled release whose schema of the document's CRD has the field `path` (ints step into
    lists), from scripts/bundle_schemas.py; None when every bundled release has it, or none does. A CDI
    object: the first CDI release (of the CRD's version the object is judged by)."""
    crd = crd_of(api_version, kind)
    table = _added().get(crd) if crd is not None else _cdi_added(api_version, kind)
    if not table:
        return None
    key = ""
    for part in path:
        step = "[]" if isinstance(part, int) else str(part)
        nxt = f"{key}.{step}" if key else step
        star = f"{key}.*" if key else "*"
        key = star if nxt not in table and star in table else nxt
    found = table.get(key)
    return _parse(found) if found is not None else None


@functools.cache
def _cdi_added_all() -> dict[str, dict[str, dict[str, str]]]:
    result: dict[str, dict[str, dict[str, str]]] = json.loads(read_bundled("cdi", "added.json"))["crds"]
    return result


def _cdi_added(api_version: Any, kind: Any) -> dict[str, str] | None:
    """The CDI CRD's first releases per field path, for the version a document of `api_version` is judged by
    (a version the CRD no longer lists: its storage version, as `cdi_schema_for` judges it)."""
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    group, _, version = api_version.rpartition("/")
    crd = _cdi_by_kind().get((group, kind))
    tables = _cdi_added_all().get(crd, {}) if crd is not None else {}
    if version not in tables and crd is not None:
        newest = cdi_index()["releases"][max(cdi_index()["releases"], key=lambda k: _parse(k))].get(crd, {})
        version = next((v for v, flags in newest.items() if flags["storage"]), version)
    return tables.get(version)


def unknown_field(
    path: tuple[Any, ...], target: Release, added: Release, severity: Severity, product: str = "KubeVirt"
) -> Finding:
    return Finding(
        severity,
        "target.unknown-field",
        f"{product} {_text(target)} does not know {format_path(path)} (added in {_text(added)}): "
        "its API server drops the field silently",
        path=path,
    )


def dated(
    found: list[Finding], api_version: Any, kind: Any, target: Release, target_cdi: Release | None = None
) -> list[Finding]:
    """Schema findings of a document judged at `target` (a CDI object: at `target_cdi`, default the newest
    CDI release bundled): an unknown field that a later release of the kind's schema has is the target's
    fact (`target.unknown-field`, with that release), not a typo."""
    product = "KubeVirt"
    if crd_of(api_version, kind) is None and _cdi_added(api_version, kind) is not None:
        product, target = "CDI", target_cdi or cdi_releases()[-1]
    out = []
    for f in found:
        if f.code == "schema.unknown-field":
            added = added_in(api_version, kind, f.path)
            if added is not None and added > target:
                f = unknown_field(f.path, target, added, f.severity, product)
        out.append(f)
    return out


def _text(release: Release) -> str:
    return f"{release[0]}.{release[1]}"
