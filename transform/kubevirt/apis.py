"""Every KubeVirt and CDI API group/version this tool knows: one table, and the questions asked of it.

Sources: the domain notes kubevirt-deprecated-apis.md §1-§3 (all groups but instancetype) and kubevirt-api-versions.md
§1 (instancetype.kubevirt.io, flavor.kubevirt.io), read from KubeVirt's and CDI's CRDs; what predates the CRDs from
the sources that served it (transform.kubevirt.apihistory). Tests hold the rows to those CRDs release by release: the
KubeVirt rows to reference/kubevirt-crds.json (crds.go, v1.0-v1.9; tests/kubevirt/test_apis_kubevirt.py), the CDI
rows to schemas/cdi/index.json (tests/kubevirt/test_apis_cdi.py). Conversion, validation, scan, the target checks,
the pre-filter's needles and the table in docs/upgrades.md all read this table; a future removal is one row (or one
`removed=` value) plus a test.

Rows of one group are listed oldest first: a version's replacement is the next row of its group unless `replaced_by`
names another group (flavor -> instancetype). Release numbers are KubeVirt's, or CDI's for rows with `product=CDI`.
Every multi-version group here uses CRD conversion None (the versions share one JSON shape), so an upgrade rewrites
`apiVersion` only; instancetype payloads stored in ControllerRevisions are the exception and have their own rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from transform.kubevirt.apihistory import KUBEVIRT_KINDS, UPLOAD_TOKEN_VERSIONS

Release = tuple[int, int]

KUBEVIRT, CDI = "KubeVirt", "CDI"
FIRST_KUBEVIRT: Release = (0, 48)  # the KubeVirt releases this tool judges: FIRST_KUBEVIRT to LATEST_KUBEVIRT
LATEST_KUBEVIRT: Release = (1, 9)
# The CDI release judged when none is given: the newest in CDI's bundled CRDs (schemas/cdi/index.json; a
# test holds it, and every CDI row's served flags, to that data).
CDI_DEFAULT: Release = (1, 66)
CDI_FIRST: Release = (1, 1)

CORE_KINDS = (
    "VirtualMachine",
    "VirtualMachineInstance",
    "VirtualMachineInstanceReplicaSet",
    "VirtualMachineInstancePreset",
    "VirtualMachineInstanceMigration",
    "KubeVirt",
)
INSTANCETYPE_KINDS = (
    "VirtualMachineInstancetype",
    "VirtualMachineClusterInstancetype",
    "VirtualMachinePreference",
    "VirtualMachineClusterPreference",
)
FLAVOR_KINDS = {
    "VirtualMachineFlavor": "VirtualMachineInstancetype",
    "VirtualMachineClusterFlavor": "VirtualMachineClusterInstancetype",
}
SNAPSHOT_KINDS = ("VirtualMachineSnapshot", "VirtualMachineSnapshotContent", "VirtualMachineRestore")
TEMPLATE_KINDS = ("VirtualMachineTemplate", "VirtualMachineTemplateRequest")

_AGGREGATED = "an aggregated API ({what}): nothing of it is stored, so it is not manifest content; drop the document"


@dataclass(frozen=True)
class Api:
    """One group/version (for `kinds`; empty: every kind of the version)."""

    group: str
    version: str
    family: str  # the finding-code prefix and --select name: core, instancetype, export, cdi, ...
    kinds: tuple[str, ...] = ()
    served: Release | None = None  # first release serving it
    deprecated: Release | None = None  # deprecated (flag and warning, or release notes only)
    unserved: Release | None = None  # served: false
    removed: Release | None = None
    product: str = KUBEVIRT
    replaced_by: str | None = None  # another group's "group/version" (default: the group's next row)
    kind_renames: dict[str, str] = field(default_factory=dict)
    actions: tuple[str, ...] = ()  # kinds whose re-creation re-runs an action
    legacy: str = ""  # not upgradable: why
    upgrade: bool = True  # False: served and kept on purpose; never rewritten
    note: str = ""

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}"

    def serves(self, release: Release) -> bool:
        if self.legacy or self.served is None or release < self.served:
            return False
        return not (self.unserved is not None and release >= self.unserved) and not (
            self.removed is not None and release >= self.removed
        )


_V = Api


def _legacy_core(version: str, until: str, removed: Release) -> Api:
    legacy = (
        f"the KubeVirt {version} API of 2018 (before v0.{until}): its kinds were renamed and its fields were "
        "never converted by any release; re-create the object from a current kubevirt.io/v1 example"
    )
    return Api("kubevirt.io", version, "core", KUBEVIRT_KINDS[version], legacy=legacy, removed=removed)


def _upload_token(version: str) -> Api:
    (served, removed), kinds = UPLOAD_TOKEN_VERSIONS[version], ("UploadTokenRequest",)
    return Api("upload.cdi.kubevirt.io", version, "cdi", kinds, served=served, removed=removed, product=CDI)


TABLE: tuple[Api, ...] = (
    # kubevirt.io: the core API (2018's versions with the kinds KubeVirt v0.1-v0.12 registered: apihistory)
    _legacy_core("v1alpha1", "6.1", removed=(0, 6)),
    _legacy_core("v1alpha2", "13", removed=(0, 13)),
    _V("kubevirt.io", "v1alpha3", "core", CORE_KINDS, served=(0, 13), deprecated=(1, 0)),
    _V("kubevirt.io", "v1", "core", served=(0, 37)),
    # crds.go NewPresetCrd lists v1 with Deprecated: true (v0.57 on; "for removal in v2"); no replacement
    _V("kubevirt.io", "v1", "core", ("VirtualMachineInstancePreset",), served=(0, 37), deprecated=(0, 57)),
    _V("subresources.kubevirt.io", "v1alpha3", "core", legacy=_AGGREGATED.format(what="console, VNC, start/stop")),
    _V("subresources.kubevirt.io", "v1", "core", legacy=_AGGREGATED.format(what="console, VNC, start/stop")),
    # instance types and their predecessor
    _V(
        "flavor.kubevirt.io",
        "v1alpha1",
        "instancetype",
        (*FLAVOR_KINDS, "VirtualMachinePreference", "VirtualMachineClusterPreference"),
        served=(0, 47),
        removed=(0, 56),
        replaced_by="instancetype.kubevirt.io/v1alpha1",
        kind_renames=FLAVOR_KINDS,
    ),
    _V(
        "instancetype.kubevirt.io",
        "v1alpha1",
        "instancetype",
        INSTANCETYPE_KINDS,
        served=(0, 56),
        deprecated=(1, 0),
        unserved=(1, 6),
        removed=(1, 7),
    ),
    _V(
        "instancetype.kubevirt.io",
        "v1alpha2",
        "instancetype",
        INSTANCETYPE_KINDS,
        served=(0, 58),
        deprecated=(1, 0),
        unserved=(1, 6),
        removed=(1, 7),
    ),
    _V("instancetype.kubevirt.io", "v1beta1", "instancetype", served=(1, 0)),
    # snapshots and restores
    _V(
        "snapshot.kubevirt.io",
        "v1alpha1",
        "snapshot",
        SNAPSHOT_KINDS,
        served=(0, 31),
        actions=("VirtualMachineRestore",),
    ),
    _V("snapshot.kubevirt.io", "v1beta1", "snapshot", served=(1, 3), actions=("VirtualMachineRestore",)),
    # export
    _V(
        "export.kubevirt.io",
        "v1alpha1",
        "export",
        ("VirtualMachineExport",),
        served=(0, 55),
        removed=(1, 9),
        actions=("VirtualMachineExport",),
    ),
    _V(
        "export.kubevirt.io",
        "v1beta1",
        "export",
        ("VirtualMachineExport",),
        served=(1, 3),
        deprecated=(1, 9),
        actions=("VirtualMachineExport",),
    ),
    _V("export.kubevirt.io", "v1", "export", served=(1, 9), actions=("VirtualMachineExport",)),
    # clone (the v1.5 release notes call v1alpha1 deprecated, but its CRD carries no flag up to v1.9: not deprecated)
    _V(
        "clone.kubevirt.io",
        "v1alpha1",
        "clone",
        ("VirtualMachineClone",),
        served=(0, 55),
        actions=("VirtualMachineClone",),
    ),
    _V("clone.kubevirt.io", "v1beta1", "clone", served=(1, 5), actions=("VirtualMachineClone",)),
    # pools
    _V("pool.kubevirt.io", "v1alpha1", "pool", ("VirtualMachinePool",), served=(0, 49)),
    _V("pool.kubevirt.io", "v1beta1", "pool", served=(1, 7)),
    # virt-template (bundled since v1.8; v1alpha1 stays the storage version)
    _V("template.kubevirt.io", "v1alpha1", "template", TEMPLATE_KINDS, served=(1, 8), deprecated=(1, 9)),
    _V("template.kubevirt.io", "v1beta1", "template", served=(1, 9)),
    # single-version groups: nothing to upgrade
    _V("migrations.kubevirt.io", "v1alpha1", "migrations", served=(0, 49)),
    _V("backup.kubevirt.io", "v1alpha1", "backup", served=(1, 8)),
    _V("plugin.kubevirt.io", "v1alpha1", "plugin", served=(1, 9)),
    # CDI (release numbers are CDI's)
    _V(
        "cdi.io",
        "v1alpha1",
        "cdi",
        product=CDI,
        legacy="CDI v1.0.0's group, renamed cdi.kubevirt.io in CDI v1.1.0; "
        "re-create the object as cdi.kubevirt.io/v1beta1",
    ),
    _V(
        "cdi.kubevirt.io",
        "v1alpha1",
        "cdi",
        ("DataVolume", "CDIConfig"),
        served=(1, 1),
        removed=(1, 56),
        product=CDI,
    ),
    _V(
        "cdi.kubevirt.io",
        "v1alpha1",
        "cdi",
        ("CDI",),
        served=(1, 1),
        product=CDI,
        upgrade=False,
        note="CDI keeps serving v1alpha1 of its own CR (v1.56-v1.66 all do) so that release YAMLs of old "
        "versions still apply; upgraded only for a target that no longer serves it",
    ),
    _V("cdi.kubevirt.io", "v1beta1", "cdi", served=(1, 20), product=CDI),
    # cdi-apiserver's aggregated API (no CRD, create-only): the same UploadTokenRequest in every version
    *(_upload_token(version) for version in UPLOAD_TOKEN_VERSIONS),
    _V("forklift.cdi.kubevirt.io", "v1beta1", "cdi", served=(1, 60), product=CDI),
)

GROUPS: frozenset[str] = frozenset(r.group for r in TABLE)
FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(r.family for r in TABLE))


@dataclass(frozen=True)
class Targets:
    """The releases an upgrade is judged against: KubeVirt's and CDI's."""

    kubevirt: Release
    cdi: Release = CDI_DEFAULT

    def of(self, api: Api) -> Release:
        return self.cdi if api.product == CDI else self.kubevirt

    def text(self, api: Api) -> str:
        major, minor = self.of(api)
        return f"{api.product} {major}.{minor}"


def parse_cdi(value: str) -> Release:
    """`--target-cdi`: "1.56", "v1.56", "1.56.2" -> (1, 56). ValueError with a readable message.
    Any release from CDI 1.1 is accepted: the table is judged by comparison, not by lookup."""
    text = value.strip().lstrip("v").split("-")[0].split("+")[0]
    parts = text.split(".")
    if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts):
        raise ValueError(f"not a CDI release: {value!r} (expected MAJOR.MINOR such as 1.56, v1.56 or 1.56.2)")
    release = (int(parts[0]), int(parts[1]))
    if release < CDI_FIRST:
        raise ValueError(f"CDI {value} is older than the first release with cdi.kubevirt.io (1.1)")
    return release


def parse_cdi_target(value: str) -> tuple[Release, str]:
    """`--target-cdi`: the release and a note ("" when none) when it names a CDI release newer than the newest
    this tool's data knows (CDI_DEFAULT): judged as that one, as `--target-kubevirt` judges a newer KubeVirt."""
    release = parse_cdi(value)
    if release <= CDI_DEFAULT:
        return release, ""
    newest = f"{CDI_DEFAULT[0]}.{CDI_DEFAULT[1]}"
    note = f"CDI {value.strip()} is newer than the newest release this tool knows ({newest}); checking against {newest}"
    return CDI_DEFAULT, note


def split(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def group_of(api_version: object) -> str | None:
    """The group of an apiVersion naming a known group, else None."""
    if not isinstance(api_version, str) or "/" not in api_version:
        return None
    group = api_version.rpartition("/")[0]
    return group if group in GROUPS else None


def rows(group: str) -> list[Api]:
    return [r for r in TABLE if r.group == group]


def find(api_version: str, kind: str | None = None) -> Api | None:
    """The row for `api_version` (and `kind`, where a version's kinds differ), or None when unknown."""
    group, version = split(api_version)
    hits = [r for r in TABLE if r.group == group and r.version == version]
    for r in hits:
        if kind is not None and kind in r.kinds:
            return r
    for r in hits:
        if not r.kinds:
            return r
    return hits[0] if hits else None


def successor(api: Api) -> Api | None:
    """The row an object of `api` moves to next (kinds renamed by the caller), or None."""
    if api.replaced_by:
        return find(api.replaced_by)
    group_rows = [r for r in rows(api.group) if not r.legacy]
    versions = list(dict.fromkeys(r.version for r in group_rows))
    if api.version not in versions or versions.index(api.version) + 1 >= len(versions):
        return None
    return find(f"{api.group}/{versions[versions.index(api.version) + 1]}")


def later(api: Api) -> Iterator[Api]:
    """Every newer row an object of `api` could become, oldest first."""
    seen = {api.api_version}
    nxt = successor(api)
    while nxt is not None and nxt.api_version not in seen:
        seen.add(nxt.api_version)
        yield nxt
        nxt = successor(nxt)


def latest(group: str) -> str:
    """The newest apiVersion of a group (following replacements into other groups)."""
    chain = [rows(group)[-1], *later(rows(group)[-1])]
    return chain[-1].api_version


def renamed_kind(api: Api, kind: str, to: Api) -> str:
    """`kind` after the hops from `api` to `to`."""
    for step in (api, *later(api)):
        kind = step.kind_renames.get(kind, kind)
        if step is to:
            break
    return kind


@dataclass(frozen=True)
class Decision:
    """What to do with an object of one apiVersion and kind for the targets."""

    api: Api
    to: Api | None  # the newest version the target serves (None: keep as is)
    status: str  # served | deprecated | unserved | removed | not-yet | legacy | kept
    blocked_by: Api | None = None  # the replacement the target does not serve yet

    @property
    def new_api_version(self) -> str | None:
        return self.to.api_version if self.to is not None else None


def status(api: Api, release: Release) -> str:
    """served | deprecated | unserved | removed | not-yet | legacy, of `api` on `release`."""
    if api.legacy:
        return "legacy"
    if api.removed is not None and release >= api.removed:
        return "removed"
    if api.unserved is not None and release >= api.unserved:
        return "unserved"
    if api.served is not None and release < api.served:
        return "not-yet"
    if api.deprecated is not None and release >= api.deprecated:
        return "deprecated"
    return "served"


def third_party(api: Api, kind: str) -> bool:
    """A kind no version of a legacy row's group ever had (kubevirt-ansible's KWebUI at kubevirt.io/v1alpha1)."""
    kinds = {k for r in rows(api.group) for k in r.kinds} if api.legacy and api.kinds else {kind}
    return not {kind, kind.removesuffix("List")} & kinds


def decide(api_version: str, kind: str, targets: Targets) -> Decision | None:
    """None for groups this tool does not know and third-party kinds; else where the object goes."""
    if (api := find(api_version, kind)) is None or third_party(api, kind):
        return None
    release = targets.of(api)
    state = status(api, release)
    if state == "legacy":
        return Decision(api, None, state)
    if not api.upgrade and api.serves(release):
        return Decision(api, None, "kept")
    newer = list(later(api))
    served = [r for r in newer if r.serves(targets.of(r))]
    if served:
        return Decision(api, served[-1], state)
    blocked = newer[0] if newer and state in ("removed", "unserved", "deprecated") else None
    return Decision(api, None, state, blocked)


def needles() -> tuple[str, ...]:
    """Byte markers of every group in the table: a document naming none of them holds no object or
    reference of these groups. The *.kubevirt.io groups share `kubevirt.io/` (apiVersions, labels);
    a kustomize patch target names a group without the slash, and kustomizations are always read."""
    out = {"kubevirt.io/" if a.group.endswith("kubevirt.io") else a.api_version: None for a in TABLE}
    return tuple(out)
