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
"""

from __future__ import annotations

import functools
import gzip
import json
from typing import Any

from transform.kubevirt import apis
from transform.model.findings import Finding, Severity
from transform.validate import objectmeta
from transform.validate.schemas import read_bundled
from transform.validate.structural import Node, Validator

Release = tuple[int, int]
INSTANCETYPE_GROUP = "instancetype.kubevirt.io"
OWN_VERSIONS = ("v1alpha1", "v1alpha2")  # the versions bundled with a schema of their own Go types


def _newest_range(version: str) -> tuple[Release, Release]:
    api = apis.find(f"{INSTANCETYPE_GROUP}/{version}")
    nxt = apis.successor(api) if api is not None else None
    assert api is not None and api.served is not None and nxt is not None and nxt.served is not None
    return api.served, nxt.served


# served as the newest version in [from, to): from its first release to its successor's (transform.kubevirt.apis)
OWN_VERSION_SERVED: dict[str, tuple[Release, Release]] = {v: _newest_range(v) for v in OWN_VERSIONS}


@functools.cache
def index() -> dict[str, Any]:
    result: dict[str, Any] = json.loads(read_bundled("kubevirt", "index.json"))
    return result


@functools.cache
def _by_kind() -> dict[tuple[str, str], str]:
    return {(c["group"], c["kind"]): name for name, c in index()["crds"].items()}


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
    """The instancetype.kubevirt.io own-version schema judging `version` at `target`, if that is what applies."""
    if version not in OWN_VERSION_SERVED or (1, 0) <= target < (1, 6):
        return None  # v1.0-v1.5 serve v1alpha1 and v1alpha2 with the v1beta1 schema of the release
    if OWN_VERSION_SERVED["v1alpha2"][0] <= target < (1, 0):
        return "v1alpha2"  # v0.58-v0.59 attach the v1alpha2 schema to both versions
    return version  # served as the newest (v0.56-v0.57 v1alpha1) or no longer served


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
    return Validator(load(digest), objectmeta.node())


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
    found = schema_for(api_version, kind, target) or cdi_schema_for(api_version, kind, target_cdi)
    if found is None:
        return None
    unknown = Severity.ERROR if strict else Severity.WARNING
    return compiled(found[0]).validate(doc, partial=partial, unknown=unknown)
