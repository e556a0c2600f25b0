"""Sample documents of the old instance type APIs, each named once for the tests that use the same document.

Two kinds of samples:

- KubeVirt's own: the user guide's examples of the ControllerRevisions each release wrote (docs/upgrades.md
  and docs/exactness.md describe the payload formats), with the names and uids they carry. An F1 revision
  (v0.56-v0.57) holds a `*SpecRevision` wrapper, `{apiVersion, spec: base64(JSON of the v1alpha1 spec)}`;
  F2 (v0.58-v0.59) the whole v1alpha2 object, metadata kept, labels and owners cleared; the upgrade of an
  F1 revision (v1.3+, "F6") gives a v1beta1 object named `old-version-of-instancetype-object`, its
  v1alpha1 spec converted (three zero-valued cpu fields added) and the versioned revision name.
- The suite's own small documents that several test modules write byte for byte alike.

A copy that states another fact (other names, fields, formatting, a deliberate edge) stays in its test:
only a document used unchanged belongs here. Everything is plain text or plain data, made here: nothing is
computed by the code under test.
"""

from __future__ import annotations

import base64

# --- the user guide's examples (instancetypes.md) ----------------------------------------------

USER_GUIDE_VM = "vm-cirros-csmall"
USER_GUIDE_VM_UID = "7ad77f47-ee51-4024-8d5b-4141aec7b04c"  # the VM owning the F1 example revision
F1_SOURCE_UID = "6709b990-f717-44fe-a8ff-cb441d20b904"  # csmall's uid in the F1 example's revision name
F2_SOURCE_UID = "72c3a35b-6e18-487d-bebf-f73c7d4f4a40"  # csmall's metadata.uid in the F2 example
F2_VM_UID = "5216527a-1d31-4637-ad3a-b640cb9949a2"  # the VM owning the F2 example revision

CSMALL_SPEC_BASE64 = "eyJjcHUiOnsiZ3Vlc3QiOjF9LCJtZW1vcnkiOnsiZ3Vlc3QiOiIxMjhNaSJ9fQ=="
"""base64 of `{"cpu":{"guest":1},"memory":{"guest":"128Mi"}}`: csmall's v1alpha1 spec in an F1 wrapper."""

F1_USER_GUIDE = f"""
apiVersion: apps/v1
data:
  apiVersion: ""
  spec: {CSMALL_SPEC_BASE64}
kind: ControllerRevision
metadata:
  name: vm-cirros-csmall-csmall-{F1_SOURCE_UID}-1
  namespace: default
  ownerReferences:
  - apiVersion: kubevirt.io/v1
    blockOwnerDeletion: true
    controller: true
    kind: VirtualMachine
    name: {USER_GUIDE_VM}
    uid: {USER_GUIDE_VM_UID}
revision: 0
"""
"""The user guide's F1 revision (v0.56-v0.57): the instancetype wrapper with `apiVersion: ""`, as client-go
left it (TypeMeta stripped), in kubectl's output order."""

F6_FROM_F1_USER_GUIDE = f"""
apiVersion: apps/v1
data:
  apiVersion: instancetype.kubevirt.io/v1beta1
  kind: VirtualMachineInstancetype
  metadata:
    creationTimestamp: null
    name: old-version-of-instancetype-object
  spec:
    cpu:
      dedicatedCPUPlacement: false
      guest: 1
      isolateEmulatorThread: false
      model: ""
    memory:
      guest: 128Mi
kind: ControllerRevision
metadata:
  labels:
    instancetype.kubevirt.io/object-generation: "0"
    instancetype.kubevirt.io/object-kind: VirtualMachineInstancetype
    instancetype.kubevirt.io/object-name: old-version-of-instancetype-object
    instancetype.kubevirt.io/object-uid: ""
    instancetype.kubevirt.io/object-version: v1beta1
  name: vm-cirros-csmall-old-version-of-instancetype-object-v1beta1--0
  namespace: default
  ownerReferences:
  - {{apiVersion: kubevirt.io/v1, blockOwnerDeletion: true, controller: true, kind: VirtualMachine,
     name: {USER_GUIDE_VM}, uid: {USER_GUIDE_VM_UID}}}
revision: 0
"""
"""What KubeVirt's in-cluster upgrade (v1.3+) makes of `F1_USER_GUIDE` (compatibility.go and
revision/store.go, by reading): the synthetic object name, empty uid (hence `--` in the name), generation 0."""

F2_USER_GUIDE_DATA = f"""
apiVersion: instancetype.kubevirt.io/v1alpha2
kind: VirtualMachineInstancetype
metadata:
  creationTimestamp: "2022-09-30T12:20:19Z"
  generation: 1
  name: csmall
  namespace: default
  resourceVersion: "10303"
  uid: {F2_SOURCE_UID}
spec:
  cpu:
    guest: 1
  memory:
    guest: 128Mi
"""
"""The `data` of the user guide's F2 revision (v0.58-v0.59): the whole v1alpha2 object, its metadata kept."""


# --- the suite's shared documents ----------------------------------------------------------------

PREFERENCE_V1ALPHA1 = (
    "apiVersion: instancetype.kubevirt.io/v1alpha1  # keep me\nkind: VirtualMachinePreference\nmetadata:\n"
    "  name: p\nspec: {}\n"
)
"""The smallest old document a command upgrades: a v1alpha1 preference with a comment on the line that changes
(`.replace("v1alpha1", "v1beta1")` is its upgrade, the comment kept)."""

INSTANCETYPE_V1ALPHA1 = (
    "apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: a\n"
    "spec:\n  cpu: {guest: 1}\n  memory: {guest: 1Gi}\n"
)
"""A complete v1alpha1 instancetype (1 vCPU, 1Gi), its spec in flow style; the upgrade changes the version only."""

PREFERENCE_V1ALPHA2 = (
    "apiVersion: instancetype.kubevirt.io/v1alpha2\nkind: VirtualMachinePreference\nmetadata:\n  name: p\n"
)
"""A v1alpha2 preference: apiVersion, kind and name only (a test appends the spec it needs)."""

INSTANCETYPE_PATCH_V1ALPHA2 = (
    "apiVersion: instancetype.kubevirt.io/v1alpha2\nkind: VirtualMachineInstancetype\nmetadata:\n  name: c\n"
    "spec:\n  memory:\n    guest: 2Gi\n"
)
"""A v1alpha2 instancetype without `spec.cpu`: valid as a kustomize patch, invalid as an object on its own
(cpu is required), so its upgrade is refused when it is read back alone."""

REVISION_METADATA = (
    "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: vm-x-csmall-1\n  namespace: default\n"
    "  ownerReferences:\n  - apiVersion: kubevirt.io/v1\n    kind: VirtualMachine\n    name: vm-x\n"
    f"    uid: {USER_GUIDE_VM_UID}\n    controller: true\n"
)
"""The head of a ControllerRevision owned by VM `vm-x` (block style), up to its `data`: a test appends the
payload it needs."""


def wrapper_revision(spec_json: str) -> str:
    """An F1 revision (`REVISION_METADATA`) whose wrapper says `instancetype.kubevirt.io/v1alpha1` and holds
    `spec_json` (any text: a test may pass JSON KubeVirt would refuse) base64-encoded."""
    encoded = base64.b64encode(spec_json.encode()).decode()
    return (
        REVISION_METADATA + f"data:\n  apiVersion: instancetype.kubevirt.io/v1alpha1\n  spec: {encoded}\nrevision: 0\n"
    )


FLOW_VM_OWNER = (
    "  ownerReferences:\n  - {apiVersion: kubevirt.io/v1, kind: VirtualMachine, name: vm, "
    "uid: 3f2a9c41-8d7e-4b05-a6c1-2e9f0d4b7a18, controller: true}\n"
)
"""A revision's `metadata.ownerReferences` in flow style (indented for `metadata:`): VM `vm` is the controller."""
