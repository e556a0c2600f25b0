"""One table of KubeVirt releases: what each serves, applies and reads (data only: the judging of a
document against a target is transform.validate.target).

Sources: the API table (transform.kubevirt.apis) for what each release serves; KubeVirt's code per
release for the topology values it applies and the revision payloads it decodes (compatibility.Decode).
Which fields a release knows is no row here: the bundled CRD schemas answer it (scripts/bundle_schemas.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from transform.kubevirt import apis, releasefacts

Release = tuple[int, int]
LATEST: Release = apis.LATEST_KUBEVIRT
FIRST: Release = apis.FIRST_KUBEVIRT

# instancetype.kubevirt.io: its versions (oldest first, the apis table's rows) and kinds.
GROUP = "instancetype.kubevirt.io"
_ROWS = {a.version: a for a in apis.rows(GROUP) if not a.legacy}
VERSIONS: tuple[str, ...] = tuple(_ROWS)
FAMILY_OF_KIND: dict[str, str] = {
    kind: "preference" if kind.endswith("Preference") else "instancetype" for kind in apis.INSTANCETYPE_KINDS
}
KINDS: tuple[str, ...] = tuple(FAMILY_OF_KIND)
CLUSTER_KINDS: frozenset[str] = frozenset(kind for kind in KINDS if "Cluster" in kind)


def family_of(kind: str) -> str | None:
    return FAMILY_OF_KIND.get(kind)


# VirtualMachine fields from before the first bundled schema (v1.0), which date everything after it:
# path -> (first release with the field, first release without it or None).
VM_FIELDS: dict[tuple[str, ...], tuple[Release, Release | None]] = {
    ("spec", "flavor"): (FIRST, (0, 56)),  # the flavor era: renamed spec.instancetype in v0.56
    ("spec", "instancetype", "inferFromVolume"): ((0, 59), None),
    ("spec", "preference", "inferFromVolume"): ((0, 59), None),
}

# Where a VirtualMachine names the ControllerRevision of its instancetype and of its preference, by family,
# in KubeVirt's order: a matcher's `revisionName` (spec.flavor's in the flavor era, before VM_FIELDS says
# it became spec.instancetype) and, from v1.5 (`revision_ref`), the status reference. Held to the VM CRD
# schema (tests/kubevirt/test_revision_refs.py).
REVISION_REFS: dict[str, tuple[tuple[str, ...], ...]] = {
    "instancetype": (
        ("spec", "instancetype", "revisionName"),
        ("spec", "flavor", "revisionName"),  # KubeVirt <= v0.55
        ("status", "instancetypeRef", "controllerRevisionRef", "name"),
    ),
    "preference": (
        ("spec", "preference", "revisionName"),
        ("status", "preferenceRef", "controllerRevisionRef", "name"),
    ),
}


def revision_ref_via(path: tuple[str, ...]) -> str:
    """How a REVISION_REFS path names the revision: `spec` (a matcher), `flavor` (the flavor era's), `status`."""
    return "status" if path[0] == "status" else "flavor" if path[1] == "flavor" else "spec"


# preferredCPUTopology, from KubeVirt's sources (generated: transform.kubevirt.releasefacts): its deprecated
# spellings (`preferSockets`, ...) each with its replacement (`sockets`, ...), and the release deprecating them.
TOPOLOGY_RENAMES: dict[str, str] = releasefacts.DEPRECATED_TOPOLOGIES
TOPOLOGIES_RENAMED: Release = releasefacts.TOPOLOGIES_DEPRECATED
PREFER_TOPOLOGIES = tuple(TOPOLOGY_RENAMES)
SHORT_TOPOLOGIES = tuple(TOPOLOGY_RENAMES.values())


def topology_since(value: str) -> Release | None:
    """The first release that knows the preferredCPUTopology `value` (None: none does)."""
    return releasefacts.TOPOLOGIES.get(value)


# The payload formats of a ControllerRevision's data: one vocabulary for what decoding finds
# (transform.validate.decoding's Decoded.fmt), what a release reads (READS) and the eras that wrote them (ERAS).
# A whole object's format is its instancetype.kubevirt.io version ("v1alpha2", "v1beta1", ...).
WRAPPER = "F1"  # the v1alpha1 SpecRevision wrapper {apiVersion, spec: <base64 JSON>} (see WRAPPER_KEYS)
WRAPPER_EMPTY_API = "F1:empty-apiVersion"  # the same with apiVersion "" (as a release reads it; decoded: WRAPPER)
FLAVOR_OBJECT = "flavor/v1alpha1"  # a whole flavor.kubevirt.io/v1alpha1 object (decoded only: no release reads it)
FORMAT_TEXT: dict[str, str] = {
    WRAPPER: "a v1alpha1 SpecRevision wrapper",
    WRAPPER_EMPTY_API: 'a v1alpha1 SpecRevision wrapper with apiVersion ""',
    FLAVOR_OBJECT: "a whole flavor.kubevirt.io/v1alpha1 object",
    **{v: f"a whole {v} object" for v in VERSIONS},
}

# The payload formats each release decodes (KubeVirt's compatibility.Decode), as release spans [from, until):
# a version's whole objects from the release serving it until its Go types are removed.
_COMPAT: Release = (1, 0)  # v1.0's compatibility.Decode: whole v1alpha1 objects, apiVersion "" wrappers again
_SPAN = {v: (a.served or LATEST, a.removed) for v, a in _ROWS.items()}
READS: dict[str, tuple[tuple[Release, Release | None], ...]] = {
    WRAPPER: (_SPAN["v1alpha1"],),
    # the same with apiVersion "": v0.58.x/v0.59.0 fail on it (#9261; v0.59.1 reads it again)
    WRAPPER_EMPTY_API: ((_SPAN["v1alpha1"][0], _SPAN["v1alpha2"][0]), (_COMPAT, _SPAN["v1alpha1"][1])),
    "v1alpha1": ((_COMPAT, _SPAN["v1alpha1"][1]),),
    **{v: (span,) for v, span in _SPAN.items() if v != "v1alpha1"},
}
PAYLOAD_FORMATS: tuple[str, ...] = tuple(READS)


def _within(release: Release, span: tuple[Release, Release | None]) -> bool:
    return span[0] <= release and (span[1] is None or release < span[1])


@dataclass(frozen=True)
class ReleaseInfo:
    release: Release
    served: frozenset[str]  # KubeVirt apiVersions served (served: true), from the table in transform.kubevirt.apis
    topologies: frozenset[str]  # preferredCPUTopology values the release applies
    payloads: frozenset[str]  # ControllerRevision payload formats it can decode
    revision_ref: str  # "spec": VMs name revisions in spec.*.revisionName; "status": status.*Ref

    @property
    def schema_version(self) -> str | None:
        """The instancetype.kubevirt.io version whose schema the release serves (its newest), if any."""
        for api in reversed(apis.rows(GROUP)):
            if api.api_version in self.served and api.version in VERSIONS:
                return api.version
        return None


def _build(release: Release) -> ReleaseInfo:
    served = {api.api_version for api in apis.TABLE if api.product == apis.KUBEVIRT and api.serves(release)}
    topologies = {value for value, since in releasefacts.TOPOLOGIES.items() if since <= release}
    payloads = {fmt for fmt, spans in READS.items() if any(_within(release, span) for span in spans)}
    return ReleaseInfo(
        release=release,
        served=frozenset(served),
        topologies=frozenset(topologies),
        payloads=frozenset(payloads),
        revision_ref="status" if release >= (1, 5) else "spec",
    )


RELEASES: dict[Release, ReleaseInfo] = {
    r: _build(r)
    for r in [(0, minor) for minor in range(FIRST[1], 60)] + [(1, minor) for minor in range(0, LATEST[1] + 1)]
}

_RELEASE_RE = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+][0-9A-Za-z.-]+)?$")


def text(release: Release) -> str:
    return f"{release[0]}.{release[1]}"


def parse_release(value: str) -> Release:
    """ "1.7", "v1.7", "1.7.2" (and "v1.7.0-rc.1") -> (1, 7). ValueError with a readable message.

    Releases newer than LATEST are judged as LATEST: v1beta1 is still the newest API there."""
    match = _RELEASE_RE.match(value.strip())
    if not match:
        raise ValueError(f"not a KubeVirt release: {value!r} (expected MAJOR.MINOR such as 1.7, v1.7 or 1.7.2)")
    release = (int(match.group(1)), int(match.group(2)))
    if release > LATEST:
        return LATEST  # a newer release is judged as the newest this tool knows (the CLI says so)
    if release not in RELEASES:
        raise ValueError(f"unknown KubeVirt release {value!r}: known releases are {text(FIRST)} to {text(LATEST)}")
    return release


def parse_target(value: str) -> tuple[Release, str]:
    """`--target-kubevirt` (and the KRM functionConfig's `target-kubevirt`): the release and a note
    ("" when none) when the value names a release newer than the newest this tool knows."""
    release = parse_release(value)
    note = ""
    if release == LATEST and not value.strip().lstrip("v").startswith(text(release)):
        note = (
            f"KubeVirt {value.strip()} is newer than the newest release this tool knows ({text(release)}); "
            f"checking against {text(release)}"
        )
    return release, note


def info(release: Release | str) -> ReleaseInfo:
    key = parse_release(release) if isinstance(release, str) else tuple(release)
    found = RELEASES.get(key)  # type: ignore[arg-type]
    if found is None:
        raise ValueError(f"unknown KubeVirt release {key}: known releases are {text(FIRST)} to {text(LATEST)}")
    return found


def serves(release: Release | str, api_version: str) -> bool:
    return api_version in info(release).served


def reads_payload(release: Release | str, fmt: str) -> bool:
    """Can the release decode a ControllerRevision payload of format `fmt`?

    fmt: a PAYLOAD_FORMATS key (WRAPPER, WRAPPER_EMPTY_API, or a version for its whole objects).
    """
    if fmt not in PAYLOAD_FORMATS:
        raise ValueError(f"unknown payload format {fmt!r}: expected one of {', '.join(PAYLOAD_FORMATS)}")
    return fmt in info(release).payloads


# The v1alpha1 SpecRevision wrapper that v0.56-v0.57 (and the flavor era) stored in ControllerRevision.data:
# a Go struct {APIVersion string; Spec []byte} without omitempty, so exactly these keys; spec is base64.
WRAPPER_KEYS = frozenset({"apiVersion", "spec"})

# The eras of ControllerRevision payloads (what scan counts; transform.convert.revisions.era tells them
# apart): key -> (what it is, releases that write it). The wrapper's era is named after its format.
FLAVOR_WRAPPER_ERA = "F0"  # a SpecRevision wrapper of a flavor (v0.55): decoded as WRAPPER
ERAS: dict[str, tuple[str, str]] = {
    FLAVOR_WRAPPER_ERA: ("flavor SpecRevision wrapper", "v0.55"),
    WRAPPER: ("v1alpha1 SpecRevision wrapper", "v0.56-v0.57"),
    "F2": ("whole v1alpha2 object", "v0.58-v0.59"),
    "F3": ("whole v1beta1 object, unlabelled", "v1.0.0"),
    "F4": ("whole v1beta1 object, labelled, old name", "v1.0.1-v1.2"),
    "F5": ("whole v1beta1 object, labelled, versioned name", "v1.3+"),
    "v1alpha1-object": ("whole v1alpha1 object", "never written by a release"),
    "flavor-object": ("whole flavor.kubevirt.io object", "never written by a release"),
    "undecodable": ("payload KubeVirt cannot decode", "-"),
}


def is_wrapper(data: Any) -> bool:
    """The SpecRevision wrapper's shape: {apiVersion: string (or null), spec: string}, nothing else."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("spec"), str)
        and data.keys() <= WRAPPER_KEYS
        and isinstance(data.get("apiVersion"), (str, type(None)))
    )


def payload_format(data: Any) -> str | None:
    """The payload format of ControllerRevision.data (a PAYLOAD_FORMATS key), or None when it is none of ours."""
    if not isinstance(data, dict):
        return None
    if is_wrapper(data):
        return WRAPPER_EMPTY_API if not data.get("apiVersion") else WRAPPER
    api_version = data.get("apiVersion")
    if data.get("kind") in FAMILY_OF_KIND and isinstance(api_version, str):
        group, _, version = api_version.rpartition("/")
        if group == GROUP and version in VERSIONS:
            return version
    return None
