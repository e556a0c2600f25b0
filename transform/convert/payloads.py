"""ControllerRevision payloads: recognise ours; decoding them is transform.validate.decoding's (re-exported)."""

from __future__ import annotations

from typing import Any

from transform import convert
from transform.kubevirt import releases
from transform.model.plain import as_map
from transform.validate.decoding import NAMESPACED_KIND, Decoded, RevisionError, decode, skipped_by_label

__all__ = ["LABEL", "NAMESPACED_KIND", "Decoded", "RevisionError", "decode", "is_ours", "owner", "skipped_by_label"]

LABEL = "instancetype.kubevirt.io/"


def owner(doc: dict[str, Any]) -> dict[str, Any] | None:
    meta = as_map(doc.get("metadata"))
    refs = meta.get("ownerReferences") or []
    refs = [r for r in refs if isinstance(r, dict)] if isinstance(refs, list) else []
    for r in refs:
        if r.get("controller") and r.get("kind") in ("VirtualMachine", "VirtualMachineSnapshot"):
            return r
    for r in refs:
        if r.get("kind") in ("VirtualMachine", "VirtualMachineSnapshot"):
            return r
    return None


def is_ours(doc: dict[str, Any]) -> bool:
    """Does this ControllerRevision snapshot an instancetype or preference?"""
    meta = as_map(doc.get("metadata"))
    labels = meta.get("labels") or {}
    if isinstance(labels, dict) and any(str(k).startswith(LABEL) for k in labels):
        return True
    data = doc.get("data")
    if isinstance(data, dict):
        api = data.get("apiVersion")
        if isinstance(api, str) and api.split("/")[0] in convert.GROUPS:
            return True
        if releases.is_wrapper(data):
            return True
    o = owner(doc)
    return bool(o and str(o.get("apiVersion", "")).split("/")[0] in ("kubevirt.io", "snapshot.kubevirt.io"))
