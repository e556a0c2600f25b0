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

from transform.kubevirt import apis

Release = tuple[int, int]
LATEST: Release = apis.LATEST_KUBEVIRT
FIRST: Release = apis.FIRST_KUBEVIRT

# instancetype.kubevirt.io: its versions (oldest first, the apis table's rows) and kinds.
GROUP = "instancetype.kubevirt.io"
_ROWS = {a.version: a for a in apis.rows(GROUP) if not a.legacy}
VERSIONS: tuple[str, ...] = tuple(_ROWS)
FAMILY_OF_KIND: dict[str, str] = {
    "VirtualMachineInstancetype": "instancetype",
    "VirtualMachineClusterInstancetype": "instancetype",
    "VirtualMachinePreference": "preference",
    "VirtualMachineClusterPreference": "preference",
}
KINDS: tuple[str, ...] = tuple(FAMILY_OF_KIND)
CLUSTER_KINDS: frozenset[str] = frozenset({"VirtualMachineClusterInstancetype", "VirtualMachineClusterPreference"})
# The first release serving a version, and the last whose Go types had it (the release before it was removed).
FIRST_RELEASE: dict[str, Release] = {v: a.served or LATEST for v, a in _ROWS.items()}
LAST_RELEASE: dict[str, Release] = {
    v: (a.removed[0], a.removed[1] - 1) if a.removed else LATEST for v, a in _ROWS.items()
}


def family_of(kind: str) -> str | None:
    return FAMILY_OF_KIND.get(kind)


# VirtualMachine fields from before the first bundled schema (v1.0), which date everything after it:
# path -> (first release with the field, first release without it or None).
VM_FIELDS: dict[tuple[str, ...], tuple[Release, Release | None]] = {
    ("spec", "flavor"): (FIRST, (0, 56)),  # the flavor era: renamed spec.instancetype in v0.56
    ("spec", "instancetype", "inferFromVolume"): ((0, 59), None),
    ("spec", "preference", "inferFromVolume"): ((0, 59), None),
}


OLD_TOPOLOGIES = ("preferSockets", "preferCores", "preferThreads")
PREFER_TOPOLOGIES = (*OLD_TOPOLOGIES, "preferSpread", "preferAny")  # preferSpread/preferAny from v1.1
SHORT_TOPOLOGIES = ("sockets", "cores", "threads", "spread", "any")  # from v1.4
PAYLOAD_FORMATS = ("F1", "F1:empty-apiVersion", *VERSIONS)  # whole objects: every version of the table


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
    topologies: set[str] = set(OLD_TOPOLOGIES) if release >= (0, 56) else set()
    if release >= (1, 1):
        topologies |= set(PREFER_TOPOLOGIES)
    if release >= (1, 4):
        topologies |= set(SHORT_TOPOLOGIES)
    payloads: set[str] = set()
    if (0, 56) <= release < (1, 7):
        payloads.add("F1")
    if (0, 56) <= release < (0, 58) or (1, 0) <= release < (1, 7):
        payloads.add("F1:empty-apiVersion")  # v0.58.x/v0.59.0 fail (#9261); v0.59.1 reads it again
    if (1, 0) <= release < (1, 7):
        payloads.add("v1alpha1")
    if (0, 58) <= release < (1, 7):
        payloads.add("v1alpha2")
    for version in VERSIONS[2:]:  # v1beta1 and later: read from the release serving the version on
        if FIRST_RELEASE[version] <= release <= LAST_RELEASE[version]:
            payloads.add(version)
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

    fmt: "F1" (v1alpha1 SpecRevision wrapper), "F1:empty-apiVersion" (the same with apiVersion ""),
    "v1alpha1" / "v1alpha2" / "v1beta1" / any later version (whole objects).
    """
    if fmt not in PAYLOAD_FORMATS:
        raise ValueError(f"unknown payload format {fmt!r}: expected one of {', '.join(PAYLOAD_FORMATS)}")
    return fmt in info(release).payloads


def payload_format(data: Any) -> str | None:
    """The payload format of ControllerRevision.data, or None when it is none of ours."""
    if not isinstance(data, dict):
        return None
    if "spec" in data and isinstance(data.get("spec"), str) and "kind" not in data:
        return "F1:empty-apiVersion" if not data.get("apiVersion") else "F1"
    api_version = data.get("apiVersion")
    if data.get("kind") in FAMILY_OF_KIND and isinstance(api_version, str):
        group, _, version = api_version.rpartition("/")
        if group == GROUP and version in VERSIONS:
            return version
    return None
