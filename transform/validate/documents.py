"""Validate plain-data documents against the bundled schemas and KubeVirt's webhook rules.

Validators are compiled once per schema, lazily; jsonschema (or jsonschema_rs) is imported only then.
`INSTANCETYPE_UPGRADE_VALIDATOR=jsonschema|jsonschema-rs` forces an engine (default: jsonschema-rs
when importable). Both engines give the same findings: messages are built here from the failing
keyword, the instance and the schema, never from an engine's own text.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import functools
import json
import os
from collections.abc import Callable, Iterable
from typing import Any

from transform.kubevirt import fields, releases
from transform.kubevirt.fielddsl import iter_unknown
from transform.model.findings import Finding, Severity, error, format_path, warning
from transform.model.plain import PayloadError, loads_json
from transform.validate import webhooks
from transform.validate.schemas import load_schema, schema_name

ENGINE_ENV = "INSTANCETYPE_UPGRADE_VALIDATOR"
ENGINES = ("jsonschema", "jsonschema-rs")

# A raw problem: (instance path, failing keyword, schema path of the keyword's parent).
Raw = tuple[tuple[Any, ...], str, tuple[Any, ...]]


def engine() -> str:
    forced = os.environ.get(ENGINE_ENV, "").strip()
    if forced:
        if forced not in ENGINES:
            raise ValueError(f"{ENGINE_ENV}={forced!r}: expected one of {', '.join(ENGINES)}")
        return forced
    try:
        import jsonschema_rs  # noqa: F401
    except ImportError:
        return "jsonschema"
    return "jsonschema-rs"


@functools.cache
def compiled(engine_name: str, name: str) -> Callable[[Any], list[Raw]]:
    """The validator for schema file `name`, built on first use and kept."""
    schema = load_schema(name)
    if engine_name == "jsonschema-rs":
        import jsonschema_rs

        rs = jsonschema_rs.Draft202012Validator(schema, validate_formats=False)

        def run_rs(instance: Any) -> list[Raw]:
            return [
                (tuple(e.instance_path), str(e.schema_path[-1]), tuple(e.schema_path[:-1]))
                for e in rs.iter_errors(instance)
            ]

        return run_rs
    from jsonschema import Draft202012Validator

    py = Draft202012Validator(schema)

    def run_py(instance: Any) -> list[Raw]:
        return [
            (tuple(e.absolute_path), str(e.validator), tuple(e.absolute_schema_path)[:-1])
            for e in py.iter_errors(instance)
        ]

    return run_py


def normalize(value: Any) -> Any:
    """YAML 1.1 safe-load data as JSON would carry it: timestamps -> strings, keys -> strings."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(k): normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def _get(root: Any, path: Iterable[Any]) -> Any:
    for part in path:
        root = root[part]
    return root


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return json.dumps(value)


_TYPE_WORDS = {"object": "mapping", "array": "list"}


def _findings_from_raw(instance: Any, schema: dict[str, Any], raws: list[Raw], partial: bool) -> list[Finding]:
    out: list[Finding] = []
    for path, keyword, schema_path in sorted(set(raws), key=lambda r: (format_path(r[0]), r[1])):
        if keyword == "required" and partial:
            continue
        value = _get(instance, path)
        sub = _get(schema, schema_path)
        if keyword == "required":
            for missing in sub["required"]:
                if isinstance(value, dict) and missing not in value:
                    out.append(error("schema.required", f"required field missing: {missing}", path))
        elif keyword == "type":
            expected = _TYPE_WORDS.get(sub["type"], sub["type"])
            out.append(error("schema.type", f"expected {expected}, got {_show(value)}", path))
        elif keyword == "anyOf" and sub.get("x-kubernetes-int-or-string"):
            out.append(
                error(
                    "schema.type",
                    f"expected a quantity (integer or string like 2Gi), got {_show(value)}",
                    path,
                )
            )
        elif keyword == "pattern" and sub.get("x-kubernetes-int-or-string"):
            out.append(
                error(
                    "schema.quantity",
                    f"{_show(value)} is not a valid quantity (e.g. 128Mi, 2Gi, 1.5G, 1000)",
                    path,
                )
            )
        elif keyword == "pattern":
            out.append(error("schema.pattern", f"{_show(value)} does not match {sub['pattern']}", path))
        elif keyword in ("minimum", "maximum"):
            word = "at least" if keyword == "minimum" else "at most"
            out.append(error(f"schema.{keyword}", f"must be {word} {sub[keyword]}, got {_show(value)}", path))
        elif keyword == "additionalProperties":
            known = sub.get("properties", {})
            for key in value:
                if key not in known:
                    out.append(error("schema.unknown-field", f"unknown field: {key}", (*path, key)))
        else:
            out.append(error(f"schema.{keyword}", f"{_show(value)} violates {keyword}", path))
    return out


def schema_findings(instance: Any, name: str, *, partial: bool = False) -> list[Finding]:
    """Findings of the bundled schema `name` for a normalized instance."""
    raws = compiled(engine(), name)(instance)
    return _findings_from_raw(instance, load_schema(name), raws, partial) if raws else []


def _unknown(
    paths: Iterable[tuple[Any, ...]], where: str, strict: bool, in_beta: Callable[[Any], bool]
) -> list[Finding]:
    make = error if strict else warning
    out = []
    for path in paths:
        later = " (it exists in v1beta1: upgrade the object)" if in_beta(path) else ""
        out.append(make("schema.unknown-field", f"unknown field {path[-1]!r}: {where} has no such field{later}", path))
    return out


def _in_beta(family: str) -> Callable[[tuple[Any, ...]], bool]:
    def check(path: tuple[Any, ...]) -> bool:
        spec_path = path[1:] if path[:1] == ("spec",) else None
        if spec_path is None:
            return False
        return not fields.unknown_fields(_stub(spec_path), family, "v1beta1")

    return check


def _stub(path: tuple[Any, ...]) -> dict[str, Any]:
    """A minimal spec containing `path` (ints become one-element lists)."""
    value: Any = None
    for part in reversed(path):
        value = [value] if isinstance(part, int) else {part: value}
    return value


def _kind_document(obj: dict[str, Any], version: str, family: str, partial: bool, strict: bool) -> list[Finding]:
    name = schema_name(f"{fields.GROUP}/{version}", obj["kind"])
    assert name is not None
    out = schema_findings(obj, name, partial=partial)
    root = fields.envelope(fields.SPECS[family])
    paths = iter_unknown(obj, root, version, fields.LAST_RELEASE[version])
    out += _unknown(paths, f"{fields.GROUP}/{version} {obj['kind']}", strict, _in_beta(family))
    rules = webhooks.RULES[family](obj)
    ranged = {f.path for f in rules if f.code == "webhook.overcommit-percent"}
    out = [f for f in out if not (f.path in ranged and f.code in ("schema.minimum", "schema.maximum"))]
    return out + rules


def _looks_like_ours(obj: dict[str, Any]) -> bool:
    data = obj.get("data")
    if releases.payload_format(data) is not None:
        return True
    if isinstance(data, dict) and str(data.get("apiVersion", "")).startswith(f"{fields.GROUP}/"):
        return True
    metadata = obj.get("metadata")
    owners = metadata.get("ownerReferences") if isinstance(metadata, dict) else None
    return isinstance(owners, list) and any(
        isinstance(o, dict)
        and o.get("kind") == "VirtualMachine"
        and str(o.get("apiVersion", "")).startswith("kubevirt.io/")
        for o in owners
    )


def validate_document(obj: dict[str, Any], *, partial: bool = False, strict: bool = False) -> list[Finding]:
    """Every problem of one document; [] for documents that are none of ours."""
    if not isinstance(obj, dict):
        return []
    obj = normalize(obj)
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return []
    family = fields.family_of(kind)
    group, _, version = api_version.rpartition("/")
    if group == fields.GROUP and family is not None:
        if version not in fields.VERSIONS:
            return [
                error(
                    "schema.api-version",
                    f"unknown apiVersion {api_version}: {fields.GROUP} has {', '.join(fields.VERSIONS)}",
                    ("apiVersion",),
                )
            ]
        return _kind_document(obj, version, family, partial, strict)
    if api_version == "kubevirt.io/v1" and kind == "VirtualMachine":
        out = schema_findings(obj, "kubevirt.io_v1_virtualmachine.json", partial=partial)
        paths = iter_unknown(obj, fields.VIRTUAL_MACHINE, "v1beta1", fields.LATEST_RELEASE)
        out += _unknown(paths, "kubevirt.io/v1 VirtualMachine", strict, lambda _p: False)
        return out + webhooks.virtual_machine_rules(obj)
    if api_version == "apps/v1" and kind == "ControllerRevision":
        out = schema_findings(obj, "apps_v1_controllerrevision.json", partial=partial)
        paths = iter_unknown(obj, fields.CONTROLLER_REVISION, "v1beta1", fields.LATEST_RELEASE)
        out += _unknown(paths, "apps/v1 ControllerRevision", strict, lambda _p: False)
        if isinstance(obj.get("data"), dict) and _looks_like_ours(obj):
            out += [f.at(path=("data", *f.path)) for f in validate_payload(obj["data"], partial=partial, strict=strict)]
        return out
    return []


def validate_payload(data: dict[str, Any], *, partial: bool = False, strict: bool = False) -> list[Finding]:
    """A ControllerRevision payload: a v1alpha1 SpecRevision wrapper or a whole instancetype object.

    `data` may also be a whole ControllerRevision (then its `data` is checked, paths from the CR root).
    """
    data = normalize(data)
    if not isinstance(data, dict):
        return [error("payload.unknown", f"ControllerRevision data is {_show(data)}, not a mapping")]
    if data.get("kind") == "ControllerRevision" and isinstance(data.get("data"), dict):
        return validate_document(data, partial=partial, strict=strict)
    if isinstance(data.get("spec"), str) or ("kind" not in data and set(data) <= {"apiVersion", "spec"}):
        return _wrapper(data, partial)
    kind = data.get("kind")
    api_version = data.get("apiVersion")
    if fields.family_of(str(kind)) is None or not str(api_version).startswith(f"{fields.GROUP}/"):
        return [
            error(
                "payload.unknown",
                "ControllerRevision data is neither a v1alpha1 SpecRevision wrapper ({apiVersion, spec}) "
                "nor an "
                f"{fields.GROUP} object (apiVersion {api_version!r}, kind {kind!r})",
            )
        ]
    return validate_document(data, partial=partial, strict=strict)


def _wrapper(data: dict[str, Any], partial: bool) -> list[Finding]:
    out = schema_findings(data, "instancetype.kubevirt.io_v1alpha1_specrevision.json", partial=partial)
    if any(f.severity is Severity.ERROR and f.path[:1] == ("spec",) for f in out) or not isinstance(
        data.get("spec"), str
    ):
        return out
    try:
        spec = loads_json(base64.b64decode(data["spec"], validate=True))
    except PayloadError as exc:
        return [*out, error("payload.limit", f"decoded spec refused: {exc}", ("spec",))]
    except (binascii.Error, ValueError):
        return [*out, error("payload.spec-encoding", "spec is not base64-encoded JSON", ("spec",))]
    if not isinstance(spec, dict):
        return [
            *out,
            error("payload.spec-encoding", f"decoded spec is {_show(spec)}, not a mapping", ("spec",)),
        ]
    spec = normalize(spec)
    # KubeVirt tries the preference spec first, then the instancetype spec (strict decode, v1.3-v1.6).
    for family, name in (
        ("preference", "instancetype.kubevirt.io_v1alpha1_virtualmachinepreferencespec.json"),
        ("instancetype", "instancetype.kubevirt.io_v1alpha1_virtualmachineinstancetypespec.json"),
    ):
        if fields.unknown_fields(spec, family, "v1alpha1"):
            continue
        found = [f.at(path=("spec", *f.path)) for f in schema_findings(spec, name, partial=partial)]
        found += webhooks.RULES[family]({"spec": spec})  # paths already start with "spec"
        return out + [f.at(message=f"{f.message} (in the decoded {family} spec)") for f in found]
    unknown = fields.unknown_fields(spec, "instancetype", "v1alpha1")
    return [
        *out,
        error(
            "payload.undecodable",
            "decoded spec is neither a v1alpha1 preference nor instancetype spec (unknown to instancetype: "
            + ", ".join(format_path(p) for p in unknown)
            + ")",
            ("spec",),
        ),
    ]
