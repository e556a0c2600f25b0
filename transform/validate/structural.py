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
  reports it: `unknown field "spec.template.spec.domain.cpuu"` (the API server prunes it). A mapping
  given where the schema has no properties (a list, a string) is pruned whole, so each of its keys is
  an unknown field as well as the type error (the pruning algorithm's walk, pruning/algorithm.go);
  so are the keys of the mappings in a list given where an object belongs.
- Numbers are what the API server receives: kubectl sends JSON through sigs.k8s.io/yaml, which writes
  an integral float (`2.0`, `1e3`) as an integer, and kube-openapi takes an integral float within 2^53
  for an integer besides: such a float is an integer here (transform.validate.structural.as_json_number).
  An integer beyond int64 (`9223372036854775808`) is a float64 to the API server (apimachinery util/json
  `convertNumber`: Int64 fails, Float64 wins), which the type check refuses wherever an integer belongs
  (an integer field, a quantity or int-or-string): `schema.type` at the field.
- `pattern` is a Go regular expression: `$` is the end of the text, `\\d` is ASCII (goregex.py).
- A missing required field is reported at the field (`spec.domain.devices`), as the API server does.
- `x-kubernetes-validations` (CEL) rules are evaluated (transform.validate.cel) after the schema, only
  when the schema found no blocking error (a type, required, enum or length one), as the API server does;
  transition rules (`oldSelf`) do not apply to a create.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable
from typing import Any

from transform.model.findings import Finding, Severity, error, format_path, info
from transform.validate import cel
from transform.validate.schemanode import Hook, Node

__all__ = ["Hook", "Node", "Validator", "as_json_number", "show"]

Path = tuple[Any, ...]

_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?", re.ASCII)
# Go's encoding/json writes an integral float64 below 1e21 as digits, which the API server's decoder reads
# as an int64 when it fits; kube-openapi's type check takes any integral float within 2^53 as an integer.
_INT64_MIN, _INT64_END = -(1 << 63), 1 << 63
# the schema checks whose errors stop the API server from evaluating CEL rules (hasBlockingErr)
_BLOCKING = frozenset({"schema.type", "schema.required", "schema.enum", "schema.maxLength", "schema.maxItems"})
_TYPE_WORDS = {"object": "mapping", "array": "list"}


def as_json_number(value: float) -> int | float:
    """A float as the API server sees it: an integer when it is integral and within int64 (see above)."""
    if value.is_integer() and _INT64_MIN <= value < _INT64_END:
        return int(value)
    return value


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

    def __init__(self, schema: dict[str, Any], meta: Node | None = None, root_meta: Node | None = None) -> None:
        """`meta`: the ObjectMeta node for every embedded resource's `metadata`, and the root's unless
        `root_meta` is given (a resource's own metadata has rules of its own: transform.validate.objectmeta)."""
        self.root = Node(schema, meta)
        root_meta = root_meta or meta
        if root_meta is not None and self.root.props is not None:
            self.root.props["metadata"] = root_meta

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
        walk = _Walk(out, partial, unknown, base)
        walk.check(self.root, instance, [])
        if walk.rules:
            out += _rules(walk.rules, out)
        return out


def _rules(pending: list[tuple[Node, Any, Path]], found: list[Finding]) -> list[Finding]:
    """The CEL rules met on the walk: evaluated only when the schema found no blocking error."""
    if any(f.code in _BLOCKING and f.severity is Severity.ERROR for f in found):
        where = pending[0][2]
        message = (
            "x-kubernetes-validations rules were not checked because the object is invalid (as the API "
            "server does): correct the errors above to have them checked"
        )
        return [info("schema.rules-unchecked", message, where)]
    out: list[Finding] = []
    for node, value, path in pending:
        assert node.rules is not None
        out += cel.check(node.rules, _cel_value(node, value), node.type or "object", path)
    return out


def _cel_value(node: Node | None, value: Any) -> Any:
    """The value a rule sees: pruned as the API server prunes (unknown fields, nulls of non-nullable
    fields), numbers as JSON carries them."""
    if isinstance(value, float):
        return as_json_number(value)
    if isinstance(value, dict):
        if node is None or node.preserve:
            return {str(k): _cel_value(None, v) for k, v in value.items()}
        out = {}
        for key, item in value.items():
            child = node.props.get(key) if node.props is not None else None
            if child is None and isinstance(node.additional, Node):
                child = node.additional
            if child is None or (item is None and not child.nullable):
                continue
            out[key] = _cel_value(child, item)
        return out
    if isinstance(value, list):
        return [_cel_value(node.items if node is not None else None, v) for v in value]
    if isinstance(value, datetime.date):
        return _timestamp_text(value)
    return value


class _Walk:
    __slots__ = ("out", "partial", "unknown", "base", "rules")

    def __init__(self, out: list[Finding], partial: bool, unknown: Severity, base: Path) -> None:
        self.out, self.partial, self.unknown, self.base = out, partial, unknown, base
        self.rules: list[tuple[Node, Any, Path]] = []

    def path(self, path: list[Any], *more: Any) -> Path:
        return (*self.base, *path, *more)

    def check(self, node: Node, value: Any, path: list[Any]) -> None:
        if isinstance(value, datetime.date):  # a YAML 1.1 timestamp: the API server reads the text
            value = _timestamp_text(value)
        elif type(value) is float:
            value = as_json_number(value)
        elif (
            type(value) is int
            and not _INT64_MIN <= value < _INT64_END
            and (node.int_or_string or node.type == "integer")
        ):
            message = (
                f"{value} is beyond int64: the API server reads it as a float (apimachinery util/json) and "
                f"refuses it: must be of type integer{' or string' if node.int_or_string else ''}"
            )
            self.out.append(error("schema.type", message, self.path(path)))
            return
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
                self._pruned(node, value, path)
                return
        elif node.type is not None and not _type_ok(node.type, value):
            self.out.append(
                error("schema.type", f"expected {self._expected(node)}, got {show(value)}", self.path(path))
            )
            self._pruned(node, value, path)
            return
        if isinstance(value, dict):
            self._object(node, value, path)
        elif isinstance(value, list):
            self._array(node, value, path)
        else:
            self._scalar(node, value, path)
        if node.hook is not None:
            node.hook(value, self.path(path), self.out, self.partial)
        if node.rules is not None:
            self.rules.append((node, value, self.path(path)))

    def _pruned(self, node: Node | None, value: Any, path: list[Any]) -> None:
        """What pruning reports of a value of the wrong type: the keys of a mapping where the schema has
        no properties, the keys of the mappings in a list where the schema has no items."""
        if node is not None and node.preserve:
            return
        if isinstance(value, dict):
            if node is not None and (node.props or node.additional is not None):
                return  # an object schema: the type was right (only a null or a scalar reach here)
            for key in value:
                self._unknown(path, key if isinstance(key, str) else str(key))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                path.append(i)
                self._pruned(node.items if node is not None else None, item, path)
                path.pop()

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
                    where = self.path(path, name)  # the API server's path: the field, not its parent
                    self.out.append(error("schema.required", f"required field missing: {name}", where))
        if node.embedded and not self.partial:
            for name in ("apiVersion", "kind"):
                if not value.get(name):
                    message = f"required field missing: {name} (an embedded object)"
                    self.out.append(error("schema.required", message, self.path(path, name)))
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
            if (
                child.leaf is not None
                and type(item) in child.leaf
                and child.hook is None
                and (type(item) is not int or _INT64_MIN <= item < _INT64_END)
            ):
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
        if items is not None and not (
            items.leaf is not None
            and all(type(v) in items.leaf and (type(v) is not int or _INT64_MIN <= v < _INT64_END) for v in value)
        ):
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
            if node.format == "date-time" and not _DATE_TIME.fullmatch(value):
                message = f"{show(value)} is not a date-time (RFC 3339, e.g. 2024-01-02T15:04:05Z)"
                self.out.append(error("schema.format", message, self.path(path)))
        elif not isinstance(value, bool) and isinstance(value, (int, float)):
            if node.minimum is not None and value < node.minimum:
                message = f"must be at least {node.minimum}, got {show(value)}"
                self.out.append(error("schema.minimum", message, self.path(path)))
            if node.maximum is not None and value > node.maximum:
                message = f"must be at most {node.maximum}, got {show(value)}"
                self.out.append(error("schema.maximum", message, self.path(path)))
