"""`metadata` as the API server validates it on a create (apimachinery ObjectMeta validation, v0.34).

The structure is ObjectMeta's (unknown fields in metadata are unknown fields); the rules are those of
k8s.io/apimachinery/pkg/api/validation (ValidateObjectMetaAccessor) and pkg/util/validation, with the
API server's paths and words (`metadata.labels: Invalid value: "bad\n": a valid label must be ...`):
- the resource's own metadata (`root_node`), as apiextensions-apiserver's customResourceValidator calls
  it with NameIsDNSSubdomain: name or generateName is required; a name from generateName is generateName
  (cut to 58 characters) and 5 random characters, and must be a name too (`generateName: "-"` gives
  `-xxxxx`); generateName itself is checked with a final `-` masked as the Go code does;
- an embedded resource's metadata (`node`: a VM's template, a snapshot's copy), as
  schema/objectmeta.validateEmbeddedResource calls it: no name needed, names checked as path segments
  (not `.` or `..`, no `/` or `%`), the namespace only when set;
- namespace: a DNS-1123 label (a cluster-scoped kind's is cleared before, transform.validate.crds);
- labels: qualified-name keys and label values, each error at `metadata.labels`;
- annotations: qualified-name keys (case-insensitive) at `metadata.annotations`; at most 256 KiB in all;
- finalizers: qualified names (duplicates are fine); `orphan` and `foregroundDeletion` not both;
- ownerReferences: apiVersion (its version), kind, name and uid must not be empty, at
  `metadata.ownerReferences.<field>` (no index: the Go code's path); at most one controller.
Every match is of the whole text (Go's `^...$` does not match before a final newline).
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from transform.kubevirt.names import DNS1123_LABEL, MAX_NAME
from transform.model.findings import Finding, error
from transform.validate.structural import Node

Path = tuple[Any, ...]

DNS1123_SUBDOMAIN_MAX = MAX_NAME
DNS1123_LABEL_MAX = 63
QUALIFIED_NAME_MAX = 63
LABEL_VALUE_MAX = 63
ANNOTATIONS_MAX_BYTES = 256 * 1024

GENERATED_NAME_BASE_MAX = 58  # apiserver names.SimpleNameGenerator: base cut to 58, then 5 random characters
GENERATED_SUFFIX = "xxxxx"  # the random part is lower-case alphanumeric: which ones never changes a verdict

# apimachinery pkg/util/validation: the Go texts the messages quote
_QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = f"({_QUALIFIED_NAME_FMT})?"
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_LABEL_RE = re.compile(DNS1123_LABEL)
_SUBDOMAIN_RE = re.compile(rf"{DNS1123_LABEL}(?:\.{DNS1123_LABEL})*")
_QUALIFIED_NAME_RE = re.compile(_QUALIFIED_NAME_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)
_QUALIFIED_NAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)

_STRING = {"type": "string"}
_STRING_MAP = {"type": "object", "additionalProperties": _STRING}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": _STRING,
        "generateName": _STRING,
        "namespace": _STRING,
        "selfLink": _STRING,
        "uid": _STRING,
        "resourceVersion": _STRING,
        "generation": {"type": "integer", "format": "int64"},
        "creationTimestamp": {"type": "string", "format": "date-time"},
        "deletionTimestamp": {"type": "string", "format": "date-time"},
        "deletionGracePeriodSeconds": {"type": "integer", "format": "int64"},
        "labels": _STRING_MAP,
        "annotations": _STRING_MAP,
        "ownerReferences": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "apiVersion": _STRING,
                    "kind": _STRING,
                    "name": _STRING,
                    "uid": _STRING,
                    "controller": {"type": "boolean"},
                    "blockOwnerDeletion": {"type": "boolean"},
                },
                "required": ["apiVersion", "kind", "name", "uid"],
            },
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["uid"],
        },
        "finalizers": {"type": "array", "items": _STRING, "x-kubernetes-list-type": "set"},
        "managedFields": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "apiVersion": _STRING,
                    "fieldsType": _STRING,
                    "fieldsV1": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                    "manager": _STRING,
                    "operation": _STRING,
                    "subresource": _STRING,
                    "time": {"type": "string", "format": "date-time"},
                },
            },
        },
    },
}


def _regex_error(message: str, fmt: str, *examples: str) -> str:
    """apimachinery validation.RegexError."""
    if not examples:
        return f"{message} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{fmt}')"


def _subdomain_problems(value: str) -> list[str]:
    """validation.IsDNS1123Subdomain."""
    out = []
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        out.append(f"must be no more than {DNS1123_SUBDOMAIN_MAX} characters")
    if _SUBDOMAIN_RE.fullmatch(value) is None:
        out.append(
            _regex_error(
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                "and must start and end with an alphanumeric character",
                _DNS1123_SUBDOMAIN_FMT,
                "example.com",
            )
        )
    return out


def _label_problems(value: str) -> list[str]:
    """validation.IsDNS1123Label (a namespace)."""
    out = []
    if len(value) > DNS1123_LABEL_MAX:
        out.append(f"must be no more than {DNS1123_LABEL_MAX} characters")
    if _LABEL_RE.fullmatch(value) is None:
        if _SUBDOMAIN_RE.fullmatch(value) is not None:
            out.append("must not contain dots")
        else:
            out.append(
                _regex_error(
                    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                    "start and end with an alphanumeric character",
                    _DNS1123_LABEL_FMT,
                    "my-name",
                    "123-abc",
                )
            )
    return out


def qualified_name_problems(value: str) -> list[str]:
    """validation.IsQualifiedName."""
    out: list[str] = []
    parts = value.split("/")
    if len(parts) > 2:
        return [
            "a qualified name "
            + _regex_error(_QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        if not parts[0]:
            out.append("prefix part must be non-empty")
        else:
            out += ["prefix part " + m for m in _subdomain_problems(parts[0])]
    if not name:
        out.append("name part must be non-empty")
    elif len(name) > QUALIFIED_NAME_MAX:
        out.append(f"name part must be no more than {QUALIFIED_NAME_MAX} characters")
    if _QUALIFIED_NAME_RE.fullmatch(name) is None:
        examples = ("MyName", "my.name", "123-abc")
        out.append("name part " + _regex_error(_QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, *examples))
    return out


def label_value_problems(value: str) -> list[str]:
    """validation.IsValidLabelValue."""
    out = []
    if len(value) > LABEL_VALUE_MAX:
        out.append(f"must be no more than {LABEL_VALUE_MAX} characters")
    if _LABEL_VALUE_RE.fullmatch(value) is None:
        message = (
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
            "must start and end with an alphanumeric character"
        )
        out.append(_regex_error(message, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return out


def _path_segment_problems(value: str, prefix: bool) -> list[str]:
    """path.ValidatePathSegmentName: an embedded resource's names."""
    if not prefix and value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in value]


def _mask_trailing_dash(name: str) -> str:
    """validation.maskTrailingDash, exactly (it drops the character before the dash too)."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def go_quote(value: Any) -> str:
    """A bad value as field.Error shows it: strings quoted (%q), numbers and booleans plain, else JSON."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, ensure_ascii=False, default=str)


def _invalid(code: str, path: Path, value: Any, detail: str) -> Finding:
    return error(code, f"Invalid value: {go_quote(value)}: {detail}", path)


def _names(meta: dict[str, Any], path: Path, out: list[Finding], root: bool, partial: bool) -> None:
    """name and generateName: a root's are DNS subdomains (and one of them is needed), an embedded
    resource's path segments."""
    generate = meta.get("generateName")
    generate = generate if isinstance(generate, str) else ""
    name = meta.get("name")
    name = name if isinstance(name, str) else ""
    if generate:
        masked = _mask_trailing_dash(generate)
        problems = _subdomain_problems(masked) if root else _path_segment_problems(generate, True)
        out += [_invalid("metadata.name", (*path, "generateName"), generate, p) for p in problems]
    if not root:
        out += [_invalid("metadata.name", (*path, "name"), name, p) for p in _path_segment_problems(name, False)]
        return
    if not name and generate:
        generated = generate[:GENERATED_NAME_BASE_MAX] + GENERATED_SUFFIX
        for problem in _subdomain_problems(generated):
            detail = f"{problem} (the name generated from generateName {go_quote(generate)})"
            out.append(_invalid("metadata.name", (*path, "name"), generated, detail))
    elif not name:
        if not partial:
            out.append(error("metadata.name", "Required value: name or generateName is required", (*path, "name")))
    else:
        out += [_invalid("metadata.name", (*path, "name"), name, p) for p in _subdomain_problems(name)]


def _owners(owners: list[Any], path: Path, out: list[Finding]) -> None:
    where = (*path, "ownerReferences")
    controller = ""
    for ref in owners:
        if not isinstance(ref, dict):
            continue
        api_version = ref["apiVersion"] if isinstance(ref.get("apiVersion"), str) else ""
        group_version = api_version.split("/")
        version = "" if len(group_version) > 2 else group_version[-1]
        if not version:
            detail = "version must not be empty"
            out.append(_invalid("metadata.owner", (*where, "apiVersion"), api_version, detail))
        for field in ("kind", "name", "uid"):
            value = ref.get(field)
            if not isinstance(value, str) or not value:
                value = "" if value is None else value
                out.append(_invalid("metadata.owner", (*where, field), value, "must not be empty"))
        if version == "v1" and len(group_version) == 1 and ref.get("kind") == "Event":
            detail = "/v1, Kind=Event is disallowed from being an owner"
            out.append(_invalid("metadata.owner", where, ref, detail))
        if ref.get("controller") is True:
            current = f"{ref.get('kind', '')}/{ref.get('name', '')}"
            if controller:
                detail = (
                    'Only one reference can have Controller set to true. Found "true" in references for '
                    f"{controller} and {current}"
                )
                out.append(_invalid("metadata.owner", where, owners, detail))
            else:
                controller = current


def _maps(meta: dict[str, Any], path: Path, out: list[Finding]) -> None:
    labels = meta.get("labels")
    if isinstance(labels, dict):
        where = (*path, "labels")
        for key, value in labels.items():
            key = str(key)
            out += [_invalid("metadata.label", where, key, p) for p in qualified_name_problems(key)]
            if isinstance(value, str):
                problems = label_value_problems(value)
                out += [_invalid("metadata.label", where, value, p) for p in problems]
    annotations = meta.get("annotations")
    if isinstance(annotations, dict):
        where = (*path, "annotations")
        size = 0
        for key, value in annotations.items():
            key = str(key)
            problems = qualified_name_problems(key.lower())
            out += [_invalid("metadata.annotation", where, key, p) for p in problems]
            size += len(key.encode()) + (len(value.encode()) if isinstance(value, str) else 0)
        if size > ANNOTATIONS_MAX_BYTES:
            message = f"Too long: may not be more than {ANNOTATIONS_MAX_BYTES} bytes (these are {size})"
            out.append(error("metadata.annotation", message, where))


def _finalizers(finalizers: list[Any], path: Path, out: list[Finding]) -> None:
    where = (*path, "finalizers")
    for name in finalizers:
        if isinstance(name, str):
            out += [_invalid("metadata.finalizer", where, name, p) for p in qualified_name_problems(name)]
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        detail = "finalizer orphan and foregroundDeletion cannot be both set"
        out.append(_invalid("metadata.finalizer", where, finalizers, detail))


def _rules(meta: Any, path: Path, out: list[Finding], partial: bool, root: bool = False) -> None:
    if not isinstance(meta, dict):
        return
    _names(meta, path, out, root, partial)
    namespace = meta.get("namespace")
    if isinstance(namespace, str) and namespace:
        out += [_invalid("metadata.name", (*path, "namespace"), namespace, p) for p in _label_problems(namespace)]
    if not root:
        generation = meta.get("generation")
        if isinstance(generation, int) and not isinstance(generation, bool) and generation < 0:
            detail = "must be greater than or equal to 0"
            out.append(_invalid("metadata.name", (*path, "generation"), generation, detail))
    _maps(meta, path, out)
    if isinstance(meta.get("ownerReferences"), list):
        _owners(meta["ownerReferences"], path, out)
    if isinstance(meta.get("finalizers"), list):
        _finalizers(meta["finalizers"], path, out)


def _root_rules(meta: Any, path: Path, out: list[Finding], partial: bool) -> None:
    _rules(meta, path, out, partial, root=True)


def _decoded(schema: dict[str, Any]) -> dict[str, Any]:
    """ObjectMeta as the API server decodes it into Go types: OpenAPI's `required` owner reference fields
    and its list types (ownerReferences by uid, finalizers a set) are not checked on a create (empty
    fields are the Go rules' errors above; duplicate finalizers are kept)."""
    props = dict(schema["properties"])
    owners = dict(props["ownerReferences"])
    owners["items"] = {k: v for k, v in owners["items"].items() if k != "required"}
    props["ownerReferences"] = {k: v for k, v in owners.items() if not k.startswith("x-kubernetes-list")}
    props["finalizers"] = {k: v for k, v in props["finalizers"].items() if k != "x-kubernetes-list-type"}
    return {**schema, "properties": props}


@functools.cache
def node() -> Node:
    """The compiled ObjectMeta node of an embedded resource (shared by every schema)."""
    built = Node(_decoded(SCHEMA))
    built.hook = _rules
    return built


@functools.cache
def root_node() -> Node:
    """The compiled ObjectMeta node of a resource's own metadata (what `kubectl apply` creates)."""
    built = Node(_decoded(SCHEMA))
    built.hook = _root_rules
    return built


def missing(doc: dict[str, Any], partial: bool) -> list[Finding]:
    """A resource without metadata (or `metadata: null`): its name is missing all the same."""
    if partial or isinstance(doc.get("metadata"), dict):
        return []
    return [error("metadata.name", "Required value: name or generateName is required", ("metadata", "name"))]
