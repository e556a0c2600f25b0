"""One description of each instancetype.kubevirt.io version's fields (and the documents around them).

The trees below describe v1alpha1, v1alpha2 and v1beta1 together; `beta(...)` marks v1beta1-only
fields with the KubeVirt release that added them, `from_v1alpha2(...)` the one v1alpha2 addition.
`tree(family, version, release)` selects one version at one release. Schemas in `schemas/` are
generated from this module: `python -m transform.kubevirt.fields --write-schemas schemas/`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from transform.kubevirt import apis
from transform.kubevirt import fields_core as core
from transform.kubevirt.fielddsl import (
    ANY_OBJ,
    I32,
    I64,
    INT,
    SMAP,
    B,
    Node,
    Q,
    Release,
    S,
    arr,
    beta,
    bounded,
    from_v1alpha2,
    iter_unknown,
    obj,
    pruned,
    req,
    req_before,
    since,
)

GROUP = "instancetype.kubevirt.io"
LATEST_RELEASE: Release = apis.LATEST_KUBEVIRT
_ROWS = {a.version: a for a in apis.rows(GROUP) if not a.legacy}  # the versions, oldest first: the apis table
VERSIONS: tuple[str, ...] = tuple(_ROWS)

FAMILY_OF_KIND: dict[str, str] = {
    "VirtualMachineInstancetype": "instancetype",
    "VirtualMachineClusterInstancetype": "instancetype",
    "VirtualMachinePreference": "preference",
    "VirtualMachineClusterPreference": "preference",
}
KINDS: tuple[str, ...] = tuple(FAMILY_OF_KIND)
CLUSTER_KINDS: frozenset[str] = frozenset({"VirtualMachineClusterInstancetype", "VirtualMachineClusterPreference"})
FAMILIES: tuple[str, ...] = ("instancetype", "preference")

# The release whose CRD schema was generated from the version's own Go types (what schemas/ describe)...
# (the versions still served describe the newest release)...
_OWN_SCHEMA_RELEASE: dict[str, Release] = {"v1alpha1": (0, 57), "v1alpha2": (0, 59)}
SCHEMA_RELEASE: dict[str, Release] = {v: _OWN_SCHEMA_RELEASE.get(v, LATEST_RELEASE) for v in VERSIONS}
# ...and the last release whose Go types had the version (what objects of that version can carry:
# the release before it was removed).
LAST_RELEASE: dict[str, Release] = {
    v: (a.removed[0], a.removed[1] - 1) if a.removed else LATEST_RELEASE for v, a in _ROWS.items()
}
FIRST_RELEASE: dict[str, Release] = {v: a.served or LATEST_RELEASE for v, a in _ROWS.items()}

_B = beta  # short alias, the trees below use it a lot

INSTANCETYPE_SPEC: Node = obj(
    nodeSelector=_B(SMAP, (1, 1)),
    schedulerName=_B(S, (1, 1)),
    cpu=req(
        obj(
            guest=req(I32),
            model=S,
            dedicatedCPUPlacement=B,
            numa=core.NUMA,
            isolateEmulatorThread=B,
            realtime=core.REALTIME,
            maxSockets=_B(I32, (1, 3)),
        )
    ),
    memory=req(
        obj(
            guest=req(Q),
            hugepages=core.HUGEPAGES,
            overcommitPercent=_B(bounded(INT, 0, 100)),
            maxGuest=_B(Q, (1, 3)),
        )
    ),
    gpus=core.GPUS,
    hostDevices=core.HOST_DEVICES,
    ioThreadsPolicy=core.IO_THREADS_POLICY,
    ioThreads=_B(core.DISK_IO_THREADS, (1, 7)),
    launchSecurity=core.LAUNCH_SECURITY,  # deprecated since v1.9.0 (use preferredLaunchSecurity)
    annotations=_B(SMAP, (1, 1)),
)

PREFERENCE_SPEC: Node = obj(
    clock=obj(preferredClockOffset=core.CLOCK_OFFSET, preferredTimer=core.TIMER),
    cpu=obj(
        preferredCPUTopology=S,
        spreadOptions=_B(obj(across=S, ratio=I32), (1, 3)),
        preferredCPUFeatures=_B(arr(core.CPU_FEATURE)),
    ),
    devices=obj(
        preferredAutoattachGraphicsDevice=B,
        preferredAutoattachMemBalloon=B,
        preferredAutoattachPodInterface=B,
        preferredAutoattachSerialConsole=B,
        preferredAutoattachInputDevice=since(B, (0, 57)),
        preferredDisableHotplug=B,
        preferredUseVirtioTransitional=B,
        preferredDiskDedicatedIoThread=B,
        preferredBlockMultiQueue=B,
        preferredNetworkInterfaceMultiQueue=B,
        preferredVirtualGPUOptions=core.VGPU_OPTIONS,
        preferredSoundModel=S,
        preferredInterfaceModel=S,
        preferredInputBus=S,
        preferredInputType=S,
        preferredDiskBus=S,
        preferredLunBus=S,
        preferredCdromBus=S,
        preferredDiskCache=S,
        preferredDiskIO=S,
        preferredDiskBlockSize=core.BLOCK_SIZE,
        preferredRng=core.RNG,
        preferredTPM=core.TPM_DEVICE,
        preferredInterfaceMasquerade=_B(core.INTERFACE_MASQUERADE),
        preferredPanicDeviceModel=_B(S, (1, 6)),
        preferredVideoType=_B(S, (1, 9)),
    ),
    features=obj(
        preferredAcpi=core.ENABLED,
        preferredApic=core.FEATURE_APIC,
        preferredHyperv=core.FEATURE_HYPERV,
        preferredKvm=core.FEATURE_KVM,
        preferredPvspinlock=core.ENABLED,
        preferredSmm=core.ENABLED,
    ),
    firmware=obj(
        preferredUseBios=B,
        preferredUseBiosSerial=B,
        preferredUseEfi=B,  # deprecated since v1.5.0 (use preferredEfi)
        preferredUseSecureBoot=B,  # deprecated since v1.5.0 (use preferredEfi.secureBoot)
        preferredEfi=_B(core.EFI, (1, 4)),
    ),
    machine=obj(preferredMachineType=S),
    volumes=from_v1alpha2(obj(preferredStorageClassName=S), (0, 59)),
    preferredSubdomain=_B(S),
    preferredTerminationGracePeriodSeconds=_B(I64),
    requirements=_B(
        obj(
            cpu=obj(guest=req(I32)),
            memory=obj(guest=req(Q)),
            architecture=since(S, (1, 7)),
        )
    ),
    annotations=_B(SMAP, (1, 1)),
    preferSpreadSocketToCoreRatio=_B(I32, (1, 1)),
    preferredArchitecture=_B(S, (1, 7)),
    preferredLaunchSecurity=_B(core.LAUNCH_SECURITY, (1, 9)),
)

SPECS: dict[str, Node] = {"instancetype": INSTANCETYPE_SPEC, "preference": PREFERENCE_SPEC}


# v1alpha1 VirtualMachine{Instancetype,Preference}SpecRevision: written by v0.56-v0.57 into
# ControllerRevision.data. Both fields lack omitempty; `spec` is Go []byte, i.e. a base64 string.
BASE64_PATTERN = r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
SPEC_REVISION: Node = replace(
    obj(apiVersion=req(S), spec=req(replace(S, pattern=BASE64_PATTERN))),
    const_false_props=True,
)

# kubevirt.io/v1 VirtualMachine: only the parts that point at instance types and preferences.
_MATCHER = obj(
    name=req_before(S, (0, 59)),
    kind=S,
    revisionName=S,
    inferFromVolume=since(S, (0, 59)),
    inferFromVolumeFailurePolicy=since(S, (1, 1)),
)
_STATUS_REF = since(
    obj(
        name=S,
        kind=S,
        controllerRevisionRef=obj(name=S),
        inferFromVolume=S,
        inferFromVolumeFailurePolicy=S,
    ),
    (1, 5),
)
VIRTUAL_MACHINE: Node = obj(
    apiVersion=S,
    kind=S,
    metadata=ANY_OBJ,
    spec=req(replace(obj(template=req(ANY_OBJ), instancetype=_MATCHER, preference=_MATCHER), open=True)),
    status=replace(obj(instancetypeRef=_STATUS_REF, preferenceRef=_STATUS_REF), open=True),
)
VIRTUAL_MACHINE_RANGE: tuple[Release, Release] = ((0, 56), LATEST_RELEASE)

# apps/v1 ControllerRevision with meta/v1 ObjectMeta.
_TIME = replace(S, fmt="date-time")
_OWNER_REFERENCE = obj(apiVersion=req(S), kind=req(S), name=req(S), uid=req(S), controller=B, blockOwnerDeletion=B)
_MANAGED_FIELDS_ENTRY = obj(
    apiVersion=S, fieldsType=S, fieldsV1=ANY_OBJ, manager=S, operation=S, subresource=S, time=_TIME
)
OBJECT_META: Node = obj(
    annotations=SMAP,
    creationTimestamp=_TIME,
    deletionGracePeriodSeconds=I64,
    deletionTimestamp=_TIME,
    finalizers=arr(S),
    generateName=S,
    generation=I64,
    labels=SMAP,
    managedFields=arr(_MANAGED_FIELDS_ENTRY),
    name=S,
    namespace=S,
    ownerReferences=arr(_OWNER_REFERENCE),
    resourceVersion=S,
    selfLink=S,
    uid=S,
)
CONTROLLER_REVISION: Node = obj(apiVersion=S, kind=S, metadata=OBJECT_META, data=ANY_OBJ, revision=req(I64))


def family_of(kind: str) -> str | None:
    return FAMILY_OF_KIND.get(kind)


def _check(family: str, version: str) -> None:
    if family not in SPECS:
        raise ValueError(f"unknown family {family!r}: expected one of {', '.join(FAMILIES)}")
    if version not in VERSIONS:
        raise ValueError(f"unknown version {version!r}: expected one of {', '.join(VERSIONS)}")


def spec_tree(family: str) -> Node:
    """The description of a family's spec for all versions and releases (select with a version/release)."""
    _check(family, "v1beta1")
    return SPECS[family]


def unknown_fields(obj_spec: dict[str, Any], family: str, version: str) -> list[tuple[Any, ...]]:
    """Paths (relative to spec) of fields `version` never had, in document order."""
    _check(family, version)
    return list(iter_unknown(obj_spec, SPECS[family], version, LAST_RELEASE[version]))


def prune_unknown(spec: dict[str, Any], family: str, version: str) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """A deep copy of `spec` without the fields `version` does not have, and their paths.

    Like Go's lenient JSON decode: a parent emptied by the pruning stays (as `{}`); map-typed fields
    (nodeSelector, annotations) keep all their keys.
    """
    _check(family, version)
    release = LAST_RELEASE[version]
    removed = list(iter_unknown(spec, SPECS[family], version, release))
    return pruned(spec, SPECS[family], version, release), removed
