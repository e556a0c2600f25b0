"""The API server's structural-schema semantics, one table per extension (valid and invalid instances)."""

from __future__ import annotations

from typing import Any

import pytest

from transform.model.findings import Severity
from transform.validate import objectmeta
from transform.validate.structural import Validator

QTY = {
    "anyOf": [{"type": "integer"}, {"type": "string"}],
    "pattern": "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$",
    "x-kubernetes-int-or-string": True,
}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "metadata": {"type": "object"},
        "qty": QTY,
        "port": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        "closed": {"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]},
        "maybe": {"type": "object", "nullable": True, "properties": {"b": {"type": "string"}}},
        "notnull": {"type": "string"},
        "embedded": {"type": "object", "x-kubernetes-embedded-resource": True,
                     "x-kubernetes-preserve-unknown-fields": True},
        "set": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
        "map": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}},
                          "required": ["name"]}},
        "atomic": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {"k": {"type": "string"}}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "choice": {"type": "string", "enum": ["A", "B"]},
        "ints": {"type": "array", "items": {"type": "integer", "format": "int64"}},
        "count": {"type": "integer", "format": "int64"},
        "ratio": {"type": "number"},
    },
}  # fmt: skip
V = Validator(SCHEMA, objectmeta.node(), objectmeta.root_node())

VALID = [
    pytest.param({"qty": 2}, id="int-or-string: integer"),
    pytest.param({"qty": "1.5Gi"}, id="int-or-string: quantity string"),
    pytest.param({"port": "http"}, id="int-or-string without pattern: any string"),
    pytest.param({"free": {"anything": [1, {"x": None}]}}, id="preserve-unknown-fields"),
    pytest.param({"maybe": None}, id="nullable: null is a value"),
    pytest.param({"notnull": None}, id="non-nullable null: pruned"),
    pytest.param({"closed": {"a": True, "x": None}}, id="null in an unknown field: only the unknown-field warning"),
    pytest.param({"embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}}}, id="embedded"),
    pytest.param({"set": ["a", "b"]}, id="list-type set"),
    pytest.param({"map": [{"name": "a", "v": 1}, {"name": "b", "v": 1}]}, id="list-type map"),
    pytest.param({"atomic": {"k": "v"}}, id="map-type atomic"),
    pytest.param({"labels": {"x": "y"}}, id="additionalProperties"),
    pytest.param({"choice": "B"}, id="enum"),
    pytest.param({"count": 2**63 - 1, "ints": [-(2**63)], "ratio": 2**64}, id="int64 edges; a number takes any"),
    pytest.param({"metadata": {"name": "a.b-c", "labels": {"example.com/Name_1": "v.1", "e": ""},
                               "annotations": {"Example.com/x": "any text"}}}, id="metadata"),
]  # fmt: skip

INVALID = [
    pytest.param({"qty": 0.5}, [("schema.type", ("qty",))], id="int-or-string: float"),
    pytest.param({"qty": "Gi"}, [("schema.quantity", ("qty",))], id="int-or-string: bad quantity"),
    pytest.param({"port": True}, [("schema.type", ("port",))], id="int-or-string: boolean"),
    pytest.param({"closed": {"x": 1}}, [("schema.required", ("closed", "a")), ("schema.unknown-field", ("closed", "x"))], id="closed object"),
    pytest.param({"closed": {"a": None}}, [("schema.required", ("closed", "a"))], id="pruned null in a required field"),
    pytest.param({"maybe": {"b": 1}}, [("schema.type", ("maybe", "b"))], id="nullable object still typed"),
    pytest.param({"embedded": {"spec": {}}}, [("schema.required", ("embedded", "apiVersion")), ("schema.required", ("embedded", "kind"))], id="embedded needs apiVersion and kind"),
    pytest.param({"embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a/b", "bogus": 1}}},
                 [("metadata.name", ("embedded", "metadata", "name")), ("schema.unknown-field", ("embedded", "metadata", "bogus"))],
                 id="embedded metadata is ObjectMeta"),
    pytest.param({"set": ["a", "a"]}, [("schema.duplicate", ("set", 1))], id="list-type set duplicate"),
    pytest.param({"map": [{"name": "a"}, {"name": "a", "v": 2}]}, [("schema.duplicate", ("map", 1))], id="list-type map duplicate key"),
    pytest.param({"atomic": {"k": 1}}, [("schema.type", ("atomic", "k"))], id="map-type atomic still typed"),
    pytest.param({"labels": {"x": 1}}, [("schema.type", ("labels", "x"))], id="additionalProperties typed"),
    pytest.param({"choice": "C"}, [("schema.enum", ("choice",))], id="enum"),
    # apimachinery util/json convertNumber: Int64 fails, so a float64, which an integer field refuses
    pytest.param({"count": 2**63}, [("schema.type", ("count",))], id="integer beyond int64"),
    pytest.param({"ints": [1, -(2**63) - 1]}, [("schema.type", ("ints", 1))], id="list item beyond int64"),
    pytest.param({"qty": 2**64, "port": -(2**63) - 1}, [("schema.type", ("qty",)), ("schema.type", ("port",))],
                 id="int-or-string beyond int64"),
    pytest.param({"metadata": {"name": "x" * 254}}, [("metadata.name", ("metadata", "name"))], id="name too long"),
    pytest.param({"metadata": {"name": "Bad_Name"}}, [("metadata.name", ("metadata", "name"))], id="name syntax"),
    pytest.param({"metadata": {"name": "n", "namespace": "a.b"}}, [("metadata.name", ("metadata", "namespace"))], id="namespace is a label"),
    pytest.param({"metadata": {"name": "n", "labels": {"-x": "v"}}}, [("metadata.label", ("metadata", "labels"))], id="label key syntax"),
    pytest.param({"metadata": {"name": "n", "labels": {"x": "v" * 64}}}, [("metadata.label", ("metadata", "labels"))], id="label value too long"),
    pytest.param({"metadata": {"name": "n", "labels": {"x": "a b"}}}, [("metadata.label", ("metadata", "labels"))], id="label value syntax"),
    pytest.param({"metadata": {"name": "n", "labels": {"x": 1}}}, [("schema.type", ("metadata", "labels", "x"))], id="label value type"),
    pytest.param({"metadata": {"name": "n", "annotations": {"a": "x" * 262144}}}, [("metadata.annotation", ("metadata", "annotations"))], id="annotations size"),
    pytest.param({"metadata": {"name": "n", "nam": "x"}}, [("schema.unknown-field", ("metadata", "nam"))], id="unknown metadata field"),
]  # fmt: skip


@pytest.mark.parametrize("instance", VALID)
def test_valid(instance: dict[str, Any]) -> None:
    assert [f for f in V.validate(instance) if f.code != "schema.unknown-field" or f.path != ("closed", "x")] == []


@pytest.mark.parametrize(("instance", "expected"), INVALID)
def test_invalid(instance: dict[str, Any], expected: list[tuple[str, tuple[Any, ...]]]) -> None:
    assert sorted((f.code, f.path) for f in V.validate(instance)) == sorted(expected)


def test_unknown_field_message_severity_and_partial() -> None:
    [found] = V.validate({"closed": {"a": True, "cpuu": 1}})
    assert (found.severity, found.message) == (Severity.WARNING, 'unknown field "closed.cpuu"')
    [found] = V.validate({"closed": {"a": True, "cpuu": 1}}, unknown=Severity.ERROR)
    assert found.severity is Severity.ERROR
    assert V.validate({"closed": {}}, partial=True) == []  # a kustomize patch: required fields not demanded
