"""Shared fixtures and document builders for the validation tests."""

from __future__ import annotations

import base64
import importlib.util
import json
from typing import Any

ENGINES = ["jsonschema"] + (["jsonschema-rs"] if importlib.util.find_spec("jsonschema_rs") else [])
G = "instancetype.kubevirt.io"


def it(version: str = "v1beta1", kind: str = "VirtualMachineInstancetype", **spec: Any) -> dict[str, Any]:
    body = {"cpu": {"guest": 2}, "memory": {"guest": "2Gi"}}
    body.update(spec)
    return {"apiVersion": f"{G}/{version}", "kind": kind, "metadata": {"name": "u1.small"}, "spec": body}


def pref(version: str = "v1beta1", kind: str = "VirtualMachinePreference", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": f"{G}/{version}", "kind": kind, "metadata": {"name": "fedora"}, "spec": spec}


def vm(**matchers: Any) -> dict[str, Any]:
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm1"},
        "spec": {"template": {"spec": {"domain": {"devices": {}}}}, **matchers},
    }


def wrapper(spec: Any, api_version: str = "") -> dict[str, Any]:
    return {"apiVersion": api_version, "spec": base64.b64encode(json.dumps(spec).encode()).decode()}


def cr(data: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "r"}, "data": data,
            "revision": 0, **extra}  # fmt: skip


def _rows(findings: list[Any]) -> list[tuple[str, str, tuple[Any, ...], str]]:
    return sorted((f.severity.value, f.code, f.path, f.message) for f in findings)
