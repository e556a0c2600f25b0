"""`metadata` as the API server validates it for a custom resource (apimachinery ObjectMeta validation).

The structure is ObjectMeta's (unknown fields in metadata are unknown fields); the rules are those of
k8s.io/apimachinery/pkg/api/validation (ValidateObjectMetaAccessor with NameIsDNSSubdomain, as the
apiextensions-apiserver calls it for every custom resource) and pkg/util/validation:
- name and generateName: a DNS-1123 subdomain, at most 253 characters;
- namespace: a DNS-1123 label, at most 63 characters;
- label keys: qualified names (optional DNS-1123 subdomain prefix of at most 253 characters, `/`, a name of
  at most 63 characters); label values: at most 63 characters, alphanumeric at both ends, `-_.` inside;
- annotation keys: qualified names (case-insensitive); keys and values together at most 256 KiB;
- ownerReferences: apiVersion, kind, name and uid are required, unique by uid, at most one controller.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from transform.kubevirt.names import DNS1123_LABEL, MAX_NAME, is_subdomain
from transform.model.findings import Finding, error
from transform.validate.structural import Node

Path = tuple[Any, ...]

DNS1123_SUBDOMAIN_MAX = MAX_NAME
DNS1123_LABEL_MAX = 63
QUALIFIED_NAME_MAX = 63
LABEL_VALUE_MAX = 63
ANNOTATIONS_MAX_BYTES = 256 * 1024

_LABEL_RE = re.compile(rf"^{DNS1123_LABEL}$")
_QUALIFIED_NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE_RE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")

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


def subdomain_problem(value: str) -> str | None:
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        return f"must be no more than {DNS1123_SUBDOMAIN_MAX} characters (got {len(value)})"
    if not is_subdomain(value):
        return (
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
            "and must start and end with an alphanumeric character (e.g. 'example.com')"
        )
    return None


def label_problem(value: str) -> str | None:
    if len(value) > DNS1123_LABEL_MAX:
        return f"must be no more than {DNS1123_LABEL_MAX} characters (got {len(value)})"
    if not _LABEL_RE.match(value):
        return (
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
            "and must start and end with an alphanumeric character (e.g. 'my-name')"
        )
    return None


def qualified_name_problem(value: str) -> str | None:
    prefix, slash, name = value.rpartition("/")
    if slash and (not prefix or "/" in prefix):
        return "a qualified name is an optional DNS subdomain prefix, '/' and a name (e.g. 'example.com/MyName')"
    if slash:
        problem = subdomain_problem(prefix)
        if problem is not None:
            return f"prefix part {problem}"
    if not name:
        return "name part must be non-empty"
    if len(name) > QUALIFIED_NAME_MAX:
        return f"name part must be no more than {QUALIFIED_NAME_MAX} characters (got {len(name)})"
    if not _QUALIFIED_NAME_RE.match(name):
        return (
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyName', 'my.name' or '123-abc')"
        )
    return None


def label_value_problem(value: str) -> str | None:
    if len(value) > LABEL_VALUE_MAX:
        return f"must be no more than {LABEL_VALUE_MAX} characters (got {len(value)})"
    if not _LABEL_VALUE_RE.match(value):
        return (
            "a valid label value must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
            "and must start and end with an alphanumeric character"
        )
    return None


def _rules(meta: Any, path: Path, out: list[Finding], partial: bool) -> None:
    if not isinstance(meta, dict):
        return
    for field, check in (("name", subdomain_problem), ("namespace", label_problem)):
        value = meta.get(field)
        if isinstance(value, str) and value:
            problem = check(value)
            if problem is not None:
                out.append(error("metadata.name", f"invalid {field} {json.dumps(value)}: {problem}", (*path, field)))
    generate = meta.get("generateName")
    if isinstance(generate, str) and generate:
        problem = subdomain_problem(generate.rstrip("-") + ("a" if generate.endswith("-") else ""))
        if problem is not None:
            out.append(
                error(
                    "metadata.name", f"invalid generateName {json.dumps(generate)}: {problem}", (*path, "generateName")
                )
            )
    labels = meta.get("labels")
    if isinstance(labels, dict):
        for key, value in labels.items():
            problem = qualified_name_problem(str(key))
            if problem is not None:
                out.append(
                    error("metadata.label", f"invalid label key {json.dumps(key)}: {problem}", (*path, "labels", key))
                )
            if isinstance(value, str):
                problem = label_value_problem(value)
                if problem is not None:
                    message = f"invalid label value {json.dumps(value)}: {problem}"
                    out.append(error("metadata.label", message, (*path, "labels", key)))
    annotations = meta.get("annotations")
    if isinstance(annotations, dict):
        size = 0
        for key, value in annotations.items():
            problem = qualified_name_problem(str(key).lower())
            if problem is not None:
                message = f"invalid annotation key {json.dumps(key)}: {problem}"
                out.append(error("metadata.annotation", message, (*path, "annotations", key)))
            size += len(str(key).encode()) + (len(value.encode()) if isinstance(value, str) else 0)
        if size > ANNOTATIONS_MAX_BYTES:
            message = f"annotations may not be larger than {ANNOTATIONS_MAX_BYTES} bytes in total (got {size})"
            out.append(error("metadata.annotation", message, (*path, "annotations")))
    owners = meta.get("ownerReferences")
    if isinstance(owners, list):
        controllers = [i for i, o in enumerate(owners) if isinstance(o, dict) and o.get("controller") is True]
        for i in controllers[1:]:
            message = "only one reference can have controller set to true"
            out.append(error("metadata.owner", message, (*path, "ownerReferences", i, "controller")))


@functools.cache
def node() -> Node:
    """The compiled ObjectMeta node (shared by every schema)."""
    built = Node(SCHEMA)
    built.hook = _rules
    return built
