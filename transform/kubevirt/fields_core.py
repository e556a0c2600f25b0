"""kubevirt.io/v1 core types embedded by the instancetype.kubevirt.io specs.

`since` marks sub-fields added to a core type after v0.59.0 (the last release whose v1alpha2 types
were the newest). Where only the bracketing reference schemas are known the bound is conservative:
"absent at v0.59.0, present at v1.6.0" is written (1, 0); "absent at v1.6.0, present at v1.9.0" (1, 7).
"""

from __future__ import annotations

from transform.kubevirt.fielddsl import (
    ANY_OBJ,
    I32,
    INT,
    B,
    S,
    arr,
    obj,
    req,
    req_before,
    since,
)

_V1_0 = (1, 0)  # present at v1.6.0, absent at v0.59.0: release not pinned, at or before v1.6.0
_V1_6 = (1, 6)
_V1_7 = (1, 7)  # present at v1.9.0, absent at v1.6.0: release not pinned, v1.7.0..v1.9.0

ENABLED = obj(enabled=B)  # FeatureState

NUMA = obj(guestMappingPassthrough=obj())
REALTIME = obj(mask=S)
HUGEPAGES = obj(pageSize=S)

VGPU_OPTIONS = obj(display=obj(enabled=B, ramFB=ENABLED))

GPU = obj(
    name=req(S),
    deviceName=req_before(S, _V1_6),
    claimName=since(S, _V1_6),
    requestName=since(S, _V1_6),
    tag=S,
    virtualGPUOptions=VGPU_OPTIONS,
)
HOST_DEVICE = obj(
    name=req(S),
    deviceName=req_before(S, _V1_6),
    claimName=since(S, _V1_6),
    requestName=since(S, _V1_6),
    tag=S,
)
GPUS = arr(GPU, list_type="atomic")
HOST_DEVICES = arr(HOST_DEVICE, list_type="atomic")

IO_THREADS_POLICY = S  # enum in Go: shared, auto, supplementalPool (not in the CRD schema)
DISK_IO_THREADS = obj(supplementalPoolThreadCount=I32)

LAUNCH_SECURITY = obj(
    sev=obj(
        attestation=since(obj(), _V1_0),
        dhCert=since(S, _V1_0),
        policy=since(obj(encryptedState=B), _V1_0),
        session=since(S, _V1_0),
    ),
    snp=since(obj(), _V1_7),
    tdx=since(obj(), _V1_7),
)

CLOCK_OFFSET = obj(timezone=S, utc=obj(offsetSeconds=INT))
_TICKING = obj(present=B, tickPolicy=S)
TIMER = obj(
    hpet=_TICKING,
    hyperv=obj(present=B),
    kvm=obj(present=B),
    pit=_TICKING,
    rtc=obj(present=B, tickPolicy=S, track=S),
)

FEATURE_APIC = obj(enabled=B, endOfInterrupt=B)
FEATURE_KVM = obj(hidden=B)
FEATURE_HYPERV = obj(
    evmcs=ENABLED,
    frequencies=ENABLED,
    ipi=ENABLED,
    reenlightenment=ENABLED,
    relaxed=ENABLED,
    reset=ENABLED,
    runtime=ENABLED,
    spinlocks=obj(enabled=B, spinlocks=I32),
    synic=ENABLED,
    synictimer=obj(direct=ENABLED, enabled=B),
    tlbflush=obj(direct=since(ENABLED, _V1_7), enabled=B, extended=since(ENABLED, _V1_7)),
    vapic=ENABLED,
    vendorid=obj(enabled=B, vendorid=S),
    vpindex=ENABLED,
)

EFI = obj(persistent=B, secureBoot=B)

BLOCK_SIZE = obj(
    custom=obj(
        discardGranularity=since(INT, _V1_7),
        logical=req_before(INT, _V1_7),
        physical=req_before(INT, _V1_7),
    ),
    matchVolume=ENABLED,
)
RNG = obj()
TPM_DEVICE = obj(enabled=since(B, _V1_0), persistent=since(B, _V1_0))
INTERFACE_MASQUERADE = obj()
CPU_FEATURE = obj(name=req(S), policy=S)

OPEN = ANY_OBJ
