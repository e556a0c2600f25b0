"""One table of KubeVirt releases: what each serves, knows and reads, and what a target cannot take.

Sources: the domain notes kubevirt-api-versions.md §1, §2.3, §4 and kubevirt-revisions.md §0, §1.
Which v1beta1 fields a release knows is derived from the `since` annotations in transform.kubevirt.fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from transform.kubevirt import apis, fields
from transform.kubevirt.fielddsl import Node, Release, iter_unknown
from transform.model.findings import Finding, error, format_path, warning

LATEST: Release = apis.LATEST_KUBEVIRT
FIRST: Release = apis.FIRST_KUBEVIRT

OLD_TOPOLOGIES = ("preferSockets", "preferCores", "preferThreads")
PREFER_TOPOLOGIES = (*OLD_TOPOLOGIES, "preferSpread", "preferAny")  # preferSpread/preferAny from v1.1
SHORT_TOPOLOGIES = ("sockets", "cores", "threads", "spread", "any")  # from v1.4
PAYLOAD_FORMATS = ("F1", "F1:empty-apiVersion", *fields.VERSIONS)  # whole objects: every version of the table


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
        for api in reversed(apis.rows(fields.GROUP)):
            if api.api_version in self.served and api.version in fields.VERSIONS:
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
    for version in fields.VERSIONS[2:]:  # v1beta1 and later: read from the release serving the version on
        if fields.FIRST_RELEASE[version] <= release <= fields.LAST_RELEASE[version]:
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
    if data.get("kind") in fields.FAMILY_OF_KIND and isinstance(api_version, str):
        group, _, version = api_version.rpartition("/")
        if group == fields.GROUP and version in fields.VERSIONS:
            return version
    return None


def _added_in(root: Node, path: tuple[Any, ...], version: str) -> Release | None:
    node = root
    added: Release | None = None
    for part in path:
        nxt = node.items if isinstance(part, int) else node.props.get(part)
        if nxt is None or (not isinstance(part, int) and version not in nxt.versions):
            return added
        if nxt.since is not None and (added is None or nxt.since > added):
            added = nxt.since
        node = nxt
    return added


def _topology_finding(value: Any, target: ReleaseInfo, path: tuple[Any, ...]) -> Finding | None:
    if not isinstance(value, str) or value in target.topologies or target.release < (0, 56):
        return None
    rel = text(target.release)
    if value in SHORT_TOPOLOGIES:
        old = f"prefer{value[0].upper()}{value[1:]}"
        hint = f"; use {old!r} for this target" if old in target.topologies else ""
        return error(
            "target.topology-value",
            f"preferredCPUTopology {value!r} is unknown to KubeVirt {rel} (added in 1.4): a KubeVirt <=1.3 "
            f"cluster silently gives the VM 1 vCPU socket/core/thread{hint}",
            path,
        )
    if value in PREFER_TOPOLOGIES:
        return error(
            "target.topology-value",
            f"preferredCPUTopology {value!r} is unknown to KubeVirt {rel} (added in 1.1): "
            "the VM silently gets 1 vCPU socket/core/thread",
            path,
        )
    return None


def target_findings(obj: dict[str, Any], release: Release | str) -> list[Finding]:
    """What the target release cannot take from `obj`: its apiVersion, fields, topology values, payload."""
    target = info(release)
    rel = text(target.release)
    api_version = obj.get("apiVersion")
    kind = obj.get("kind")
    out: list[Finding] = []
    if kind == "ControllerRevision" and isinstance(obj.get("data"), dict):
        data = obj["data"]
        fmt = payload_format(data)
        if fmt is not None and not reads_payload(target.release, fmt):
            out.append(
                error(
                    "target.payload-format",
                    f"KubeVirt {rel} cannot decode this ControllerRevision payload ({_fmt_text(fmt)}); "
                    "VMs using it fail with FailedFindInstancetype/FailedFindPreference",
                    ("data",),
                )
            )
        if fmt in fields.VERSIONS:
            out.extend(f.at(path=("data", *f.path)) for f in target_findings(data, target.release))
        return out
    if kind == "VirtualMachine" and isinstance(api_version, str) and api_version.startswith("kubevirt.io/"):
        for path in iter_unknown(obj, fields.VIRTUAL_MACHINE, "v1beta1", target.release):
            added = _added_in(fields.VIRTUAL_MACHINE, path, "v1beta1")
            out.append(_unknown_field(path, rel, added))
        return out
    family = fields.family_of(kind) if isinstance(kind, str) else None
    if family is None or not isinstance(api_version, str) or not api_version.startswith(f"{fields.GROUP}/"):
        return out
    if not serves(target.release, api_version):
        out.append(
            error(
                "target.api-version",
                f"KubeVirt {rel} does not serve {api_version}: the API server rejects {kind} objects of this version",
                ("apiVersion",),
            )
        )
    version = target.schema_version
    spec = obj.get("spec")
    if version is None or not isinstance(spec, dict):
        return out
    root = fields.spec_tree(family)
    for path in iter_unknown(spec, root, version, target.release):
        out.append(_unknown_field(("spec", *path), rel, _added_in(root, path, "v1beta1")))
    if family == "preference":
        cpu = spec.get("cpu")
        if isinstance(cpu, dict):
            found = _topology_finding(cpu.get("preferredCPUTopology"), target, ("spec", "cpu", "preferredCPUTopology"))
            if found is not None:
                out.append(found)
    return out


def _unknown_field(path: tuple[Any, ...], rel: str, added: Release | None) -> Finding:
    when = f" (added in {text(added)})" if added is not None else ""
    return warning(
        "target.unknown-field",
        f"KubeVirt {rel} does not know {format_path(path)}{when}: its API server drops the field silently",
        path,
    )


def _fmt_text(fmt: str) -> str:
    return {
        "F1": "a v1alpha1 SpecRevision wrapper",
        "F1:empty-apiVersion": 'a v1alpha1 SpecRevision wrapper with apiVersion ""',
    }.get(fmt, f"a whole {fmt} object")
