"""Validate plain data against a Kubernetes structural schema (a CRD's openAPIV3Schema) as the API server does.

The schema is compiled once into a tree of `Node`s; `Validator.validate` walks the instance only.
Semantics (k8s.io/apiextensions-apiserver, kube-openapi):
- `nullable`: a null in a nullable field is a value; a null in any other field of an object (or map) is
  pruned before validation (PruneNonNullableNullsWithoutDefaults): absent, so a required one is missing.
- `x-kubernetes-int-or-string`: an integer or a string; the schema's `pattern` applies to strings only.
- `x-kubernetes-preserve-unknown-fields`: fields the schema does not declare are kept and not checked.
- `x-kubernetes-embedded-resource`: apiVersion and kind are required and metadata is an ObjectMeta.
- `x-kubernetes-list-type`: `set` items are unique; `map` items are unique by `x-kubernetes-list-map-keys`.
- `x-kubernetes-map-type`: atomic/granular matter to server-side apply merges only; nothing to validate.
- Any other field the schema does not declare is an unknown field, reported as strict field validation
  reports it: `unknown field "spec.template.spec.domain.cpuu"` (the API server prunes it).
- `x-kubernetes-validations` (CEL) rules are not evaluated.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable
from typing import Any

from transform.model.findings import Finding, Severity, error, format_path

Path = tuple[Any, ...]
Hook = Callable[[Any, Path, list[Finding], bool], None]  # (value, path, out, partial): extra rules of a node

_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$")
_TYPE_WORDS = {"object": "mapping", "array": "list"}
_LEAF_TYPES: dict[str, frozenset[type]] = {
    "string": frozenset({str}),
    "boolean": frozenset({bool}),
    "integer": frozenset({int}),
    "number": frozenset({int, float}),
}


class Node:
    """One compiled schema node. Attributes are None when the schema does not constrain them."""

    __slots__ = (
        "type",
        "nullable",
        "int_or_string",
        "preserve",
        "embedded",
        "props",
        "required",
        "items",
        "additional",
        "enum",
        "pattern",
        "pattern_text",
        "format",
        "minimum",
        "maximum",
        "min_length",
        "max_length",
        "min_items",
        "max_items",
        "list_type",
        "map_keys",
        "hook",
        "leaf",
    )

    def __init__(self, schema: dict[str, Any], meta: Node | None = None) -> None:
        self.type: str | None = schema.get("type")
        self.nullable = bool(schema.get("nullable"))
        self.int_or_string = bool(schema.get("x-kubernetes-int-or-string"))
        self.preserve = bool(schema.get("x-kubernetes-preserve-unknown-fields"))
        self.embedded = bool(schema.get("x-kubernetes-embedded-resource"))
        props = schema.get("properties")
        self.props: dict[str, Node] | None = (
            {k: Node(v, meta) for k, v in props.items()} if isinstance(props, dict) else None
        )
        self.required: tuple[str, ...] = tuple(schema.get("required") or ())
        self.items: Node | None = Node(schema["items"], meta) if isinstance(schema.get("items"), dict) else None
        additional = schema.get("additionalProperties")
        self.additional: Node | bool | None = (
            Node(additional, meta) if isinstance(additional, dict) else additional if additional is not None else None
        )
        enum = schema.get("enum")
        self.enum: tuple[Any, ...] | None = tuple(enum) if isinstance(enum, list) else None
        self.pattern_text: str | None = schema.get("pattern")
        self.pattern = re.compile(self.pattern_text) if self.pattern_text else None
        self.format: str | None = schema.get("format")
        self.minimum = schema.get("minimum")
        self.maximum = schema.get("maximum")
        self.min_length = schema.get("minLength")
        self.max_length = schema.get("maxLength")
        self.min_items = schema.get("minItems")
        self.max_items = schema.get("maxItems")
        self.list_type: str | None = schema.get("x-kubernetes-list-type")
        self.map_keys: tuple[str, ...] = tuple(schema.get("x-kubernetes-list-map-keys") or ())
        self.hook: Hook | None = None
        # A scalar without constraints: a value of one of these exact types needs no further look.
        self.leaf: frozenset[type] | None = None
        constrained = (self.enum, self.pattern, self.format, self.minimum, self.maximum, self.min_length)
        if self.type in _LEAF_TYPES and not self.int_or_string and all(c is None for c in constrained):
            self.leaf = _LEAF_TYPES[self.type] if self.max_length is None else None
        if self.embedded and meta is not None:
            self.props = {**(self.props or {}), "metadata": meta}


def show(value: Any) -> str:
    """A value as a message shows it: JSON for scalars, a word for containers."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return json.dumps(value)


def _type_ok(expected: str, value: Any) -> bool:
    if expected == "string":
        return isinstance(value, str)
    if expected == "object":
        return isinstance(value, dict)
    if expected == "array":
        return isinstance(value, list)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return True


def _timestamp_text(value: datetime.date) -> str:
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


class Validator:
    """A compiled structural schema. `validate(instance)` -> findings with paths from the instance root."""

    def __init__(self, schema: dict[str, Any], meta: Node | None = None) -> None:
        """`meta`: the ObjectMeta node for the root's and every embedded resource's `metadata`."""
        self.root = Node(schema, meta)
        if meta is not None and self.root.props is not None:
            self.root.props["metadata"] = meta

    @classmethod
    def of(cls, node: Node) -> Validator:
        """A validator of an already compiled node (a part of a schema)."""
        validator = cls.__new__(cls)
        validator.root = node
        return validator

    def validate(
        self, instance: Any, *, partial: bool = False, unknown: Severity = Severity.WARNING, base: Path = ()
    ) -> list[Finding]:
        out: list[Finding] = []
        _Walk(out, partial, unknown, base).check(self.root, instance, [])
        return out


class _Walk:
    __slots__ = ("out", "partial", "unknown", "base")

    def __init__(self, out: list[Finding], partial: bool, unknown: Severity, base: Path) -> None:
        self.out, self.partial, self.unknown, self.base = out, partial, unknown, base

    def path(self, path: list[Any], *more: Any) -> Path:
        return (*self.base, *path, *more)

    def check(self, node: Node, value: Any, path: list[Any]) -> None:
        if isinstance(value, datetime.date):  # a YAML 1.1 timestamp: the API server reads the text
            value = _timestamp_text(value)
        if value is None:
            if node.nullable:
                return
            self.out.append(error("schema.type", f"expected {self._expected(node)}, got null", self.path(path)))
            return
        if node.int_or_string:
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                self.out.append(
                    error(
                        "schema.type",
                        f"expected a quantity (integer or string like 2Gi), got {show(value)}",
                        self.path(path),
                    )
                    if node.pattern is not None
                    else error("schema.type", f"expected an integer or a string, got {show(value)}", self.path(path))
                )
                return
        elif node.type is not None and not _type_ok(node.type, value):
            self.out.append(
                error("schema.type", f"expected {self._expected(node)}, got {show(value)}", self.path(path))
            )
            return
        if isinstance(value, dict):
            self._object(node, value, path)
        elif isinstance(value, list):
            self._array(node, value, path)
        else:
            self._scalar(node, value, path)
        if node.hook is not None:
            node.hook(value, self.path(path), self.out, self.partial)

    @staticmethod
    def _expected(node: Node) -> str:
        if node.int_or_string:
            return "an integer or a string"
        return _TYPE_WORDS.get(node.type or "", node.type or "a value")

    def _object(self, node: Node, value: dict[str, Any], path: list[Any]) -> None:
        props = node.props
        if node.required and not self.partial:
            for name in node.required:
                if value.get(name) is None and not (name in value and props and props[name].nullable):
                    self.out.append(error("schema.required", f"required field missing: {name}", self.path(path)))
        if node.embedded and not self.partial:
            for name in ("apiVersion", "kind"):
                if not value.get(name):
                    self.out.append(
                        error(
                            "schema.required", f"required field missing: {name} (an embedded object)", self.path(path)
                        )
                    )
        additional = node.additional
        for key, item in value.items():
            if not isinstance(key, str):
                key = str(key)  # a YAML 1.1 key such as `1` or `on`: JSON has string keys only
            child = props.get(key) if props is not None else None
            if child is None:
                if isinstance(additional, Node):
                    child = additional
                elif node.preserve or additional is True:
                    continue
                else:
                    self._unknown(path, key)
                    continue
            if item is None and not child.nullable:
                continue  # pruned: a null in a non-nullable field is absent
            if child.leaf is not None and type(item) in child.leaf and child.hook is None:
                continue
            path.append(key)
            self.check(child, item, path)
            path.pop()

    def _unknown(self, path: list[Any], key: Any) -> None:
        where = self.path(path, key)
        self.out.append(
            Finding(self.unknown, "schema.unknown-field", f'unknown field "{format_path(where)}"', path=where)
        )

    def _array(self, node: Node, value: list[Any], path: list[Any]) -> None:
        if node.max_items is not None and len(value) > node.max_items:
            self.out.append(
                error("schema.maxItems", f"must have at most {node.max_items} items, got {len(value)}", self.path(path))
            )
        if node.min_items is not None and len(value) < node.min_items:
            self.out.append(
                error(
                    "schema.minItems", f"must have at least {node.min_items} items, got {len(value)}", self.path(path)
                )
            )
        items = node.items
        if items is not None and not (items.leaf is not None and all(type(v) in items.leaf for v in value)):
            for i, item in enumerate(value):
                path.append(i)
                self.check(items, item, path)
                path.pop()
        if node.list_type == "set":
            self._unique(value, path, lambda item: _key(item), "duplicate value {}")
        elif node.list_type == "map" and node.map_keys:
            keys = node.map_keys
            self._unique(
                value,
                path,
                lambda item: _key([item.get(k) for k in keys]) if isinstance(item, dict) else None,
                "duplicate entry: " + ", ".join(f"{k}" for k in keys) + " {} already used (x-kubernetes-list-map-keys)",
            )

    def _unique(self, value: list[Any], path: list[Any], key: Callable[[Any], str | None], message: str) -> None:
        seen: set[str] = set()
        for i, item in enumerate(value):
            k = key(item)
            if k is None:
                continue
            if k in seen:
                self.out.append(error("schema.duplicate", message.format(k), self.path(path, i)))
            seen.add(k)

    def _scalar(self, node: Node, value: Any, path: list[Any]) -> None:
        if node.enum is not None and value not in node.enum:
            choices = ", ".join(show(v) for v in node.enum)
            self.out.append(
                error("schema.enum", f"unsupported value {show(value)}: supported values: {choices}", self.path(path))
            )
        if isinstance(value, str):
            if node.pattern is not None and not node.pattern.search(value):
                if node.int_or_string:
                    message = f"{show(value)} is not a valid quantity (e.g. 128Mi, 2Gi, 1.5G, 1000)"
                    self.out.append(error("schema.quantity", message, self.path(path)))
                else:
                    message = f"{show(value)} does not match {node.pattern_text}"
                    self.out.append(error("schema.pattern", message, self.path(path)))
            if node.max_length is not None and len(value) > node.max_length:
                message = f"may not be longer than {node.max_length} characters, got {len(value)}"
                self.out.append(error("schema.maxLength", message, self.path(path)))
            if node.min_length is not None and len(value) < node.min_length:
                message = f"must be at least {node.min_length} characters long, got {len(value)}"
                self.out.append(error("schema.minLength", message, self.path(path)))
            if node.format == "date-time" and not _DATE_TIME.match(value):
                message = f"{show(value)} is not a date-time (RFC 3339, e.g. 2024-01-02T15:04:05Z)"
                self.out.append(error("schema.format", message, self.path(path)))
        elif not isinstance(value, bool) and isinstance(value, (int, float)):
            if node.minimum is not None and value < node.minimum:
                message = f"must be at least {node.minimum}, got {show(value)}"
                self.out.append(error("schema.minimum", message, self.path(path)))
            if node.maximum is not None and value > node.maximum:
                message = f"must be at most {node.maximum}, got {show(value)}"
                self.out.append(error("schema.maximum", message, self.path(path)))
