"""What KubeVirt v1.6's code does with a ControllerRevision's `data`: the one decoder of payloads.

`decode` is compatibility.Decode of KubeVirt v1.6.0 on plain data, with the Go types of v1.6.0
(transform.kubevirt.gojson): the v1alpha1 SpecRevision wrapper first, strictly
(sigs.k8s.io/json.UnmarshalStrict: an unknown field or a value the Go type cannot hold fails it),
preference before instancetype; then whole objects through runtime.Decode, leniently (fields the Go
type lacks are dropped, and reported). Whether a payload is decodable is what this module says:
`fix`, `check`, `validate` and `scan` all ask it, and never an old version's CRD schema (the API
server stores `data` without looking at it; only KubeVirt's Go decoder ever reads it).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from transform.kubevirt import apis, gojson, releases
from transform.model.findings import Finding, format_path, info, warning
from transform.model.plain import PayloadError, loads_json

GROUP = "instancetype.kubevirt.io"
VERSION_LABEL = GROUP + "/object-version"
NAMESPACED_KIND = {"instancetype": "VirtualMachineInstancetype", "preference": "VirtualMachinePreference"}


class RevisionError(Exception):
    def __init__(self, code: str, message: str, path: tuple[Any, ...] = ("data",)) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:  # pickled with its fields (a worker's result crosses processes)
        return (type(self), (self.code, self.message, self.path))


@dataclass
class Decoded:
    fmt: str  # a payload format of transform.kubevirt.releases: WRAPPER, FLAVOR_OBJECT or the object's version
    family: str
    kind: str
    obj: dict[str, Any]  # the payload as a plain object of its own version
    findings: list[Finding] = field(default_factory=list)


def written_version() -> str:
    """The payload version KubeVirt writes (and labels revisions with): the group's newest."""
    return apis.latest(GROUP).rpartition("/")[2]


def skipped_by_label(exc: RevisionError, label: str) -> RevisionError:
    """`exc` for a revision labelled `object-version: <label>`, the version KubeVirt writes: KubeVirt trusts the
    label and never upgrades the revision, then fails to read the payload when a VM uses it (any release)."""
    return RevisionError(
        "revision.labelled-unreadable",
        f"labelled object-version {label}, so KubeVirt trusts the label and skips this revision when it upgrades "
        f"revisions, but it cannot read the payload either, so a VM using it will not start on any release: "
        f"{exc.message}",
        exc.path,
    )


def _go_findings(result: gojson.Reencoded, base: tuple[Any, ...], version: str) -> list[Finding]:
    """What KubeVirt's Go decoding did silently: unknown fields dropped, missing fields written as zero."""
    out = []
    for p in result.unknown:
        if p == ("status",):
            message = (
                f"status dropped: the {version} Go type has only TypeMeta, ObjectMeta and Spec, and KubeVirt's "
                "decoder drops the rest (an instancetype or preference has no status; nothing is lost)"
            )
        elif f"instancetype.kubevirt.io/{version}" == apis.latest("instancetype.kubevirt.io"):
            message = (
                f"field not in {version} (KubeVirt {gojson.RELEASE}'s types) dropped, as KubeVirt's decoder "
                "drops it: check its spelling, or remove it at the source"
            )
        else:
            newest = apis.latest("instancetype.kubevirt.io").rpartition("/")[2]
            message = (
                f"field not in {version} dropped, as KubeVirt's decoder drops it; if {newest} has it, keep it by "
                f"writing the source object as {newest}"
            )
        out.append(warning("revision.dropped-field", message, (*base, *p)))
    for p in result.filled:
        out.append(warning("revision.zero-value", _zero_meaning(p, result), (*base, *p)))
    return out


_MEANING = {
    ("spec",): "the payload has no spec: KubeVirt decodes an empty one",
    ("spec", "cpu"): "a VM using this revision gets no vCPU count from its instancetype (guest: 0)",
    ("spec", "cpu", "guest"): "a VM using this revision gets no vCPU count from its instancetype (guest: 0)",
    ("spec", "memory"): 'a VM using this revision gets no memory from its instancetype (guest: "0") and cannot start',
    ("spec", "memory", "guest"): 'a VM using this revision gets no memory from its instancetype (guest: "0") '
    "and cannot start",
}


def _zero_meaning(path: tuple[Any, ...], result: gojson.Reencoded) -> str:
    key = path if path[:1] == ("spec",) else ("spec", *path)
    what = _MEANING.get(key, "KubeVirt's decoder leaves it at its Go zero value")
    return (
        f"missing in the payload; written as KubeVirt writes it ({result.zero_text(path)}): {what}; "
        "check the revision's source object"
    )


def decode(data: Any, go_types: Mapping[str, str] | None = None) -> Decoded:
    """compatibility.Decode of KubeVirt v1.6 (wrapper first, preference before instancetype).

    `go_types`: the Go type table version of a payload version the v1.6 table does not have (a later
    version that keeps an older one's JSON shape), as the conversion registry's steps name them."""
    types = go_types or {}
    if data is None:
        raise RevisionError(
            "revision.no-data",
            "ControllerRevision has no data (KubeVirt's upgrade crashes on it): restore the revision "
            "from its source, or delete it and clear the VM's revisionName",
            ("data",),
        )
    if not isinstance(data, dict) or not data:
        raise RevisionError(
            "revision.kind-missing",
            "data is empty or not an object; KubeVirt fails with \"Object 'Kind' is missing\": "
            "restore the revision from its source, or delete it and clear the VM's revisionName",
        )
    if releases.is_wrapper(data):
        return _decode_wrapper(data)
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not kind:
        raise RevisionError(
            "revision.kind-missing",
            "payload is neither a v1alpha1 SpecRevision wrapper nor an object with a kind; KubeVirt "
            "fails with \"Object 'Kind' is missing\"",
        )
    if not isinstance(api_version, str) or "/" not in api_version:
        raise RevisionError("revision.bad-api-version", f"payload apiVersion {api_version!r} is not group/version")
    group, version = api_version.rsplit("/", 1)
    if group == GROUP and gojson.object_type(types.get(version, version), str(kind)) is not None:
        family = releases.family_of(str(kind))
        if family is None:
            raise RevisionError(
                "revision.unexpected-kind",
                f"payload kind {kind!r} is not an instancetype or preference (KubeVirt: unexpected type in "
                "ControllerRevision)",
                ("data", "kind"),
            )
        return _decode_object(data, family, version, str(kind), types.get(version, version))
    flavor_kind = apis.FLAVOR_KINDS.get(str(kind))
    if api_version == "flavor.kubevirt.io/v1alpha1" and flavor_kind:
        family = releases.family_of(flavor_kind)
        if family:
            d = _decode_object(
                {**data, "apiVersion": "instancetype.kubevirt.io/v1alpha1", "kind": flavor_kind},
                family,
                "v1alpha1",
                flavor_kind,
            )
            d.fmt = releases.FLAVOR_OBJECT
            d.findings.append(
                info(
                    "revision.flavor",
                    "flavor.kubevirt.io payload (KubeVirt v0.55 and older) "
                    "converted to its instancetype.kubevirt.io kind; KubeVirt itself cannot read it",
                )
            )
            return d
    raise RevisionError(
        "revision.unknown-version",
        f"payload {api_version} {kind} is not a registered instancetype.kubevirt.io version or kind "
        "(KubeVirt: unexpected type in ControllerRevision)",
        ("data", "apiVersion"),
    )


def _decode_wrapper(data: dict[str, Any]) -> Decoded:
    raw = data["spec"]
    try:
        payload = base64.b64decode(re.sub(r"[\r\n]", "", raw), validate=True)
        # sigs.k8s.io/json reads the text itself: duplicate keys refused, numbers as written (no float between)
        spec = loads_json(payload, unique_keys=True, exact=True)
    except PayloadError as exc:
        raise RevisionError(
            "revision.payload-limit",
            f"data.spec decodes to JSON the tool refuses: {exc}; KubeVirt cannot store such an object either",
            ("data", "spec"),
        ) from None
    except (binascii.Error, ValueError):
        raise RevisionError(
            "revision.bad-wrapper",
            "data.spec is not base64 of a JSON object (KubeVirt needs padded standard base64 and fails with "
            "\"Object 'Kind' is missing\"); restore the revision from its source",
            ("data", "spec"),
        ) from None
    if spec is None:
        spec = {}  # JSON null into a struct: nothing set
    if not isinstance(spec, dict):
        raise RevisionError("revision.bad-wrapper", "data.spec does not decode to a JSON object", ("data", "spec"))
    reasons: list[str] = []
    for family in ("preference", "instancetype"):
        try:
            result = gojson.reencode(spec, _spec_type("v1alpha1", NAMESPACED_KIND[family]), strict=True)
        except gojson.GoJSONError as exc:
            reasons.append(f"as a v1alpha1 {family} spec, {format_path(exc.path)}: {exc.message}")
            continue
        found = _go_findings(result, ("data", "spec"), "v1alpha1")
        return Decoded(releases.WRAPPER, family, NAMESPACED_KIND[family], {"spec": result.value}, found)
    raise RevisionError(
        "revision.bad-wrapper",
        "the wrapper's spec decodes strictly as neither a v1alpha1 preference nor an instancetype ("
        + "; ".join(reasons)
        + "); KubeVirt fails with \"Object 'Kind' is missing\": restore the revision from its source",
        ("data", "spec"),
    )


def _spec_type(version: str, kind: str) -> str:
    name = gojson.spec_type(version, kind)
    assert name is not None, (version, kind)
    return name


def _decode_object(data: dict[str, Any], family: str, version: str, kind: str, types: str = "") -> Decoded:
    """runtime.Decode into the payload version's Go type (lenient: unknown fields are dropped)."""
    type_name = gojson.object_type(types or version, kind)
    assert type_name is not None, (version, kind)
    try:
        result = gojson.reencode(data, type_name)
    except gojson.GoJSONError as exc:
        raise RevisionError(
            "revision.undecodable",
            f"{exc.message}: KubeVirt's decoder refuses this payload ({exc.go}); correct the value, or restore "
            "the revision from its source",
            ("data", *exc.path),
        ) from None
    return Decoded(version, family, kind, result.value, _go_findings(result, ("data",), version))
