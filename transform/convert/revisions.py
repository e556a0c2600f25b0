"""ControllerRevisions that snapshot an instancetype or preference: decode, convert, rename.

Pure functions on plain data. `upgrade_revision` returns the whole new revision document
(the engine turns the difference into text edits) and findings; it emulates KubeVirt v1.6's
in-cluster upgrade (compatibility.Decode + revision.CreateControllerRevision) and does better
where KubeVirt loses identity, saying so every time.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from transform import convert
from transform.convert.payloads import (
    LABEL,
    NAMESPACED_KIND,
    Decoded,
    RevisionError,
    decode,
    owner,
    skipped_by_label,
)
from transform.convert.revision_names import Identity, identity_from_name, name_kept
from transform.kubevirt import gojson, releases
from transform.kubevirt.names import UUID, name_problem
from transform.model.findings import Finding, info, warning
from transform.model.plain import as_map

VERSION_LABEL = LABEL + "object-version"
CLUSTER_KIND = {
    "instancetype": "VirtualMachineClusterInstancetype",
    "preference": "VirtualMachineClusterPreference",
}
SYNTHETIC_NAME = {
    "instancetype": "old-version-of-instancetype-object",
    "preference": "old-version-of-preference-object",
}
STRIPPED_META = ("labels", "annotations", "finalizers", "ownerReferences", "managedFields")
SERVER_SET = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink")


def latest_version() -> str:
    """The payload version written and its `object-version` label: the registry's last step's."""
    return convert.last_step().label_version


@dataclass(frozen=True)
class Hints:
    """What the rest of the input set says about a revision (from the engine's index)."""

    family: str | None = None  # referenced through spec.instancetype or spec.preference
    kind: str | None = None  # the kind the referencing VM's matcher names
    vm_name: str | None = None


def _go_encode(payload: dict[str, Any]) -> dict[str, Any]:
    """What json.Marshal of the latest version's Go object writes (the payload's values were checked when
    decoded), with the Go types the registry's last step names."""
    version = latest_version()
    type_name = gojson.object_type(convert.go_types().get(version, version), str(payload["kind"]))
    assert type_name is not None, payload["kind"]
    try:
        return dict(gojson.reencode(payload, type_name).value)
    except gojson.GoJSONError as exc:  # pragma: no cover - a conversion rule produced a value Go cannot hold
        raise RevisionError("revision.undecodable", exc.message, ("data", *exc.path)) from None


def _sort_keys(value: Any) -> Any:
    """Every mapping's keys sorted, in place: only for a value fresh from `_go_encode` (every container
    new, held by nothing else). A sorted copy was a third copy of a 300,000-entry payload in memory."""
    if isinstance(value, dict):
        items = sorted(value.items(), key=_first)
        value.clear()
        value.update((k, _sort_keys(v)) for k, v in items)
    elif isinstance(value, list):
        for v in value:
            _sort_keys(v)
    return value


def _first(item: tuple[str, Any]) -> str:
    return item[0]


@dataclass
class Upgrade:
    doc: dict[str, Any]  # the whole new revision document
    findings: list[Finding]
    old_name: str
    new_name: str
    fmt: str
    replace_data: bool  # the payload's shape changed: write `data` anew


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def _check_decodable(doc: dict[str, Any], meta: dict[str, Any]) -> None:
    """The ControllerRevision itself decoded as Kubernetes decodes an apps/v1 ControllerRevision.

    ObjectMeta's labels and annotations are map[string]string and `revision` is an int64: a value of
    another type (an unquoted `yes`, read as a YAML 1.1 boolean; `revision: "1"`) makes the API server
    refuse the whole object, so such a revision is never written."""
    for part in ("labels", "annotations"):
        values = meta.get(part)
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            if isinstance(value, str) and isinstance(key, str):
                continue
            shown = _scalar_text(value)
            raise RevisionError(
                "revision.cr-undecodable",
                f"the ControllerRevision cannot be decoded as Kubernetes decodes it: {part} are strings, but "
                f"{key!r} has the {type(value).__name__ if value is not None else 'null'} value {shown} "
                f"(YAML 1.1 reads an unquoted {shown} as a non-string); the API server refuses it: quote the "
                f'{part[:-1]} value "{shown}"',
                ("metadata", part, str(key)),
            )
    rev = doc.get("revision", 0)
    integral = isinstance(rev, float) and rev.is_integer()
    if rev is not None and (isinstance(rev, bool) or not isinstance(rev, int)) and not integral:
        raise RevisionError(
            "revision.cr-undecodable",
            f"the ControllerRevision cannot be decoded as Kubernetes decodes it: revision must be an integer "
            f"(Go int64), got {_scalar_text(rev)!r} ({type(rev).__name__}); the API server refuses it: write "
            "revision as an unquoted whole number",
            ("revision",),
        )


Decoding = Decoded | RevisionError  # what decoding a payload gave: the payload, or why it cannot be read


def decode_payload(doc: dict[str, Any]) -> Decoding:
    """The revision's payload as KubeVirt v1.6 decodes it (`upgrade_revision` takes it, decoded once)."""
    try:
        return decode(doc.get("data"), convert.go_types())
    except RevisionError as exc:
        return RevisionError(exc.code, exc.message, exc.path)  # (not raised: no frames held)


def upgrade_revision(
    doc: dict[str, Any],
    *,
    rename: bool = False,
    hints: Hints = Hints(),
    current: list[Finding] | None = None,
    decoded: Decoding | None = None,
) -> Upgrade | None:
    """The upgraded revision, or None when it is already current (or not ours). Raises RevisionError.
    `current`: receives what the decoder said of a current revision's payload (decoded once, said once).
    `decoded`: its payload decoded already (`decode_payload`; the index decodes it for --rename)."""
    meta = as_map(doc.get("metadata"))
    _check_decodable(doc, meta)
    labels = as_map(meta.get("labels"))
    data = doc.get("data")
    latest = latest_version()
    labelled_latest = labels.get(VERSION_LABEL) == latest
    got = decoded if decoded is not None else decode_payload(doc)
    if isinstance(got, RevisionError):  # raised anew: this frame holds `got` (no cycle through a traceback)
        raise skipped_by_label(got, latest) if labelled_latest else RevisionError(got.code, got.message, got.path)
    decoded = got
    if labelled_latest and (
        (isinstance(data, dict) and data.get("apiVersion") == convert.LATEST) or decoded.fmt == latest
    ):
        if current is not None:
            current += decoded.findings
        return None  # current, and KubeVirt reads it
    findings = list(decoded.findings)
    if labelled_latest:
        findings.append(
            warning(
                "revision.label-lies",
                f"labelled object-version {latest} but the payload is {decoded.fmt}: KubeVirt trusts the label and "
                "would never upgrade it; upgraded here",
                ("metadata", "labels", VERSION_LABEL),
            )
        )
    name = str(meta.get("name") or "")
    own = owner(doc)
    # a snapshot's copy is named after the snapshot (`strings.Replace(name, vm, snapshot, 1)`)
    vm_name = str(own.get("name")) if own and own.get("name") else hints.vm_name
    family = decoded.family
    if decoded.fmt == releases.WRAPPER:
        ident, kind = _recover(decoded, name, vm_name, labels, hints, findings)
        obj_meta: dict[str, Any] = {"creationTimestamp": None}
        if ident.generation:
            obj_meta["generation"] = ident.generation
        obj_meta["name"] = ident.name
        if kind not in releases.CLUSTER_KINDS and ident.uid and meta.get("namespace"):
            obj_meta["namespace"] = meta["namespace"]
        if ident.uid:
            obj_meta["uid"] = ident.uid
        spec = convert.convert_spec(decoded.obj["spec"], family, "instancetype.kubevirt.io/v1alpha1")
        # a new payload is written the way `kubectl get -o yaml` prints one: keys sorted
        encoded = _go_encode({"apiVersion": convert.LATEST, "kind": kind, "metadata": obj_meta, "spec": spec})
        payload = _sort_keys(encoded)
    else:
        src = decoded.obj
        kind = decoded.kind
        api = src["apiVersion"]
        spec = convert.convert_spec(src["spec"], family, api)
        payload = copy.deepcopy(src)
        payload["apiVersion"], payload["spec"] = convert.LATEST, spec
        pmeta = as_map(payload.get("metadata"))
        for key in STRIPPED_META:
            if key in pmeta:
                findings.append(
                    info(
                        "revision.stripped-metadata",
                        "removed from the stored object, as KubeVirt does when it stores one",
                        ("data", "metadata", key),
                    )
                )
                del pmeta[key]
        payload["metadata"] = pmeta
        payload = _go_encode(payload)
        pmeta = payload["metadata"]
        ident = Identity(str(pmeta.get("name") or ""), str(pmeta.get("uid") or ""), pmeta.get("generation") or 0, kind)
    new = copy.deepcopy(doc)
    new["data"] = payload
    if not isinstance(new.get("metadata"), dict):
        new["metadata"] = {}
    nmeta = new["metadata"]
    if not isinstance(nmeta.get("labels"), dict):
        nmeta["labels"] = {}
    nmeta["labels"].update(
        {
            LABEL + "object-generation": str(ident.generation),
            LABEL + "object-kind": kind,
            LABEL + "object-name": ident.name,
            LABEL + "object-uid": ident.uid,
            LABEL + "object-version": latest,
        }
    )
    new_name = name
    if rename:
        new_name = _rename(new, name, own, ident, findings)
    return Upgrade(new, findings, name, new_name, decoded.fmt, decoded.fmt == releases.WRAPPER)


def _recover(
    decoded: Decoded,
    name: str,
    vm_name: str | None,
    labels: dict[str, Any],
    hints: Hints,
    findings: list[Finding],
) -> tuple[Identity, str]:
    family = decoded.family
    if hints.family and hints.family != family:
        findings.append(
            warning(
                "revision.family-mismatch",
                f"the VM references this revision as its {hints.family}, but the payload decodes as a {family} "
                "(KubeVirt tries preference first)",
            )
        )
    kind = NAMESPACED_KIND[family]
    kind_source = ""
    if hints.kind is not None and hints.family in (None, family):
        k = hints.kind.lower()
        cluster = k == "" or "cluster" in k
        kind, kind_source = (CLUSTER_KIND if cluster else NAMESPACED_KIND)[family], "the referencing VM"
    elif releases.FAMILY_OF_KIND.get(str(labels.get(LABEL + "object-kind"))) == family:
        kind, kind_source = str(labels[LABEL + "object-kind"]), "its object-kind label"
    elif labels.get(LABEL + "object-kind") in releases.FAMILY_OF_KIND:
        # compatibility.decodeSpecRevision never reads labels: the payload's shape decides, preference first
        findings.append(
            warning(
                "revision.family-mismatch",
                f"the revision's object-kind label names a {labels[LABEL + 'object-kind']}, but the payload decodes "
                f"as a {family} spec and KubeVirt makes a {family} of it (its decoder tries the preference type "
                "first and never reads labels): check the revision's source object",
                ("metadata", "labels", LABEL + "object-kind"),
            )
        )
        kind_source = "the payload's shape (not the label)"
    ident = identity_from_name(name, vm_name)
    if ident is None and labels.get(LABEL + "object-name"):
        try:
            gen = int(labels.get(LABEL + "object-generation") or 0)
        except (TypeError, ValueError):
            gen = 0
        ident = Identity(str(labels[LABEL + "object-name"]), str(labels.get(LABEL + "object-uid") or ""), gen)
    if ident is not None and name_problem(ident.name):
        raise RevisionError(
            "revision.bad-name",
            f"the object name recovered for the payload is not usable: {name_problem(ident.name)}",
            ("metadata", "name"),
        )
    if ident is None:
        findings.append(
            warning(
                "revision.synthetic-identity",
                f"a v1alpha1 wrapper records no object identity and none could be recovered from the revision name "
                f"{name!r} (expected <vm>-<object>-<uid>-<generation> with a VM owner): using KubeVirt's synthetic "
                f"{SYNTHETIC_NAME[family]!r}, which KubeVirt v1.6+ will not match to the VM's spec name",
            )
        )
        return Identity(SYNTHETIC_NAME[family]), NAMESPACED_KIND[family]
    if not kind_source:
        findings.append(
            warning(
                "revision.kind-guessed",
                f"no VM in the inputs references this revision and it has no object-kind label: assuming the "
                f"namespaced kind {kind} (KubeVirt's choice); pass the VM along to recover the real kind",
            )
        )
    findings.append(
        info(
            "revision.identity-recovered",
            f"recovered {kind} {ident.name!r} (uid {ident.uid}, generation {ident.generation}) from the revision "
            f"name{' and ' + kind_source if kind_source else ''}; KubeVirt would have used {SYNTHETIC_NAME[family]!r}",
        )
    )
    return ident, kind


def _rename(
    new: dict[str, Any], name: str, own: dict[str, Any] | None, ident: Identity, findings: list[Finding]
) -> str:
    meta = new["metadata"]
    if not own or own.get("kind") != "VirtualMachine" or not own.get("name"):
        findings.append(name_kept(own))
        return name
    new_name = f"{own['name']}-{ident.name}-{latest_version()}-{ident.uid}-{ident.generation}"
    problem = name_problem(new_name)
    if problem:
        raise RevisionError(
            "revision.bad-name",
            f"--rename would name this revision after its owner {str(own['name'])!r} and object "
            f"{ident.name!r}, but {problem}: refused (fix the owner reference or leave out --rename)",
            ("metadata", "name"),
        )
    meta["name"] = new_name
    # metav1.NewControllerRef(vm, kubevirt.io/v1 VirtualMachine): the new revision's only owner
    ref = {
        "apiVersion": "kubevirt.io/v1",
        "blockOwnerDeletion": True,
        "controller": True,
        "kind": "VirtualMachine",
        "name": own["name"],
        "uid": str(own.get("uid") or ""),
    }
    old_refs = meta.get("ownerReferences")
    if old_refs != [ref]:
        meta["ownerReferences"] = [ref]
        count = len(old_refs) if isinstance(old_refs, list) else 0
        findings.append(
            info(
                "revision.owner-replaced",
                f"ownerReferences ({count} entr{'y' if count == 1 else 'ies'}) replaced by KubeVirt's controller "
                f"reference to VirtualMachine {own['name']}, the only owner KubeVirt gives a new revision",
                ("metadata", "ownerReferences"),
            )
        )
    for key in SERVER_SET:
        meta.pop(key, None)
    new["revision"] = 0
    return new_name


def era(decoded: Decoded, data: Any, labels: dict[str, Any], name: str) -> str:
    """Which era of transform.kubevirt.releases.ERAS wrote a decoded payload (its shape, labels and name)."""
    if decoded.fmt == releases.WRAPPER:
        api = data.get("apiVersion") if isinstance(data, dict) else None
        return (
            releases.FLAVOR_WRAPPER_ERA
            if isinstance(api, str) and api.startswith("flavor.kubevirt.io/")
            else releases.WRAPPER
        )
    if decoded.fmt == releases.FLAVOR_OBJECT:
        return "flavor-object"
    if decoded.fmt == "v1alpha1":
        return "v1alpha1-object"
    if decoded.fmt == "v1alpha2":
        return "F2"
    if not any(str(k).startswith(LABEL) for k in labels):
        return "F3"
    version = str(labels.get(VERSION_LABEL) or latest_version())
    return "F5" if re.search(rf"-{re.escape(version)}-(?:{UUID})?-\d+$", name) else "F4"


def planned_name(doc: dict[str, Any]) -> tuple[str | None, Decoding]:
    """The name --rename will give this revision (for the index), and its payload decoded (the upgrade
    of the same document takes it: a payload is decoded once)."""
    got = decode_payload(doc)
    try:
        up = upgrade_revision(doc, rename=True, decoded=got)
    except RevisionError:
        return None, got
    return (up.new_name if up else None), got
