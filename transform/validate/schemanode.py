"""One compiled node of a structural schema (transform.validate.structural walks a tree of them).

Compiling reads every constraint once: a `pattern` becomes a Python regex with Go's semantics
(transform.validate.goregex), `x-kubernetes-validations` become rules (transform.validate.cel, whose
engine is not loaded here), and a scalar without constraints is marked a leaf (a value of one of its
exact types needs no further look).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from transform.model.findings import Finding
from transform.validate import cel, goregex

Path = tuple[Any, ...]
Hook = Callable[[Any, Path, list[Finding], bool], None]  # (value, path, out, partial): extra rules of a node

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
        "rules",
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
        self.pattern = _go_pattern(self.pattern_text) if self.pattern_text else None
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
        rules = schema.get("x-kubernetes-validations")
        self.rules: tuple[cel.Rule, ...] | None = cel.rules_of(rules) if rules else None
        # A scalar without constraints: a value of one of these exact types needs no further look.
        self.leaf: frozenset[type] | None = None
        constrained = (self.enum, self.pattern, self.format, self.minimum, self.maximum, self.min_length)
        if (
            self.type in _LEAF_TYPES
            and not self.int_or_string
            and self.rules is None
            and all(c is None for c in constrained)
        ):
            self.leaf = _LEAF_TYPES[self.type] if self.max_length is None else None
        if self.embedded and meta is not None:
            self.props = {**(self.props or {}), "metadata": meta}


def _go_pattern(text: str) -> re.Pattern[str] | None:
    try:
        return goregex.compiled(text)
    except (ValueError, re.error):
        return None  # no Python equivalent (a Unicode class): not checked rather than checked wrongly
