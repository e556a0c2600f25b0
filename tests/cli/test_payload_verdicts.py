"""One verdict per payload: `check`, `validate` and `scan` ask KubeVirt v1.6's Go decoder, never a CRD schema.

Each row is a ControllerRevision built here from the documented facts (kubevirt-revisions.md §1: the
v1alpha1 wrapper is decoded strictly with the v1.6.0 Go types, whole objects leniently; Go's base64
decoder skips newlines; `cpu.guest` is a Go uint32). Before, `validate` judged payloads by the old
v1alpha1/v1alpha2 CRD schemas and called decodable payloads invalid (and an undecodable one valid).
"""

from __future__ import annotations

import base64
import json
import pathlib
from typing import Any

import pytest

from tests.cli.test_cli import cli

UID = "7ad77f47-ee51-4024-8d5b-4141aec7b04c"
IT = {"cpu": {"guest": 1}, "memory": {"guest": "128Mi"}}


def _b64(spec: dict[str, Any], *, line: int = 0) -> str:
    text = base64.b64encode(json.dumps(spec).encode()).decode()
    if line:
        text = "\n".join(text[i : i + line] for i in range(0, len(text), line))
    return text


def _wrapper(spec: dict[str, Any], *, line: int = 0) -> dict[str, Any]:
    return {"apiVersion": "", "spec": _b64(spec, line=line)}


def _v1alpha2(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "instancetype.kubevirt.io/v1alpha2",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": "it", "uid": UID, "generation": 1},
        "spec": spec,
    }


def _revision(data: dict[str, Any]) -> str:
    return json.dumps(
        {
            "apiVersion": "apps/v1",
            "kind": "ControllerRevision",
            "metadata": {
                "name": f"vm-it-{UID}-1",
                "namespace": "default",
                "ownerReferences": [
                    {
                        "apiVersion": "kubevirt.io/v1",
                        "kind": "VirtualMachine",
                        "name": "vm",
                        "uid": UID,
                        "controller": True,
                    }
                ],
            },
            "data": data,
            "revision": 0,
        },
        indent=2,
    )


DECODABLE = None  # KubeVirt v1.6 decodes it: `check` upgrades it, `validate` finds no error
ROWS = [
    pytest.param(
        _wrapper({**IT, "launchSecurity": {"sev": {"policy": {"encryptedState": True}}}}), DECODABLE, id="sev-policy"
    ),
    pytest.param(
        _wrapper({**IT, "gpus": [{"name": "g", "deviceName": "d", "claimName": "c", "requestName": "r"}]}),
        DECODABLE,
        id="gpus-claim",
    ),
    pytest.param(
        _wrapper({**IT, "hostDevices": [{"name": "h", "deviceName": "d", "claimName": "c", "requestName": "r"}]}),
        DECODABLE,
        id="hostdevices-claim",
    ),
    pytest.param(
        _wrapper({**IT, "launchSecurity": {"sev": {"attestation": {}, "dhCert": "ZGg=", "session": "c2Vz"}}}),
        DECODABLE,
        id="sev-attestation",
    ),
    pytest.param(
        _wrapper({"devices": {"preferredTPM": {"enabled": True, "persistent": True}}}), DECODABLE, id="preferred-tpm"
    ),
    pytest.param(
        _v1alpha2({**IT, "gpus": [{"name": "g", "claimName": "c", "requestName": "r"}]}), DECODABLE, id="v1alpha2-gpus"
    ),
    pytest.param(_v1alpha2({"cpu": {"guest": -1}, "memory": {"guest": "128Mi"}}), "revision.undecodable", id="guest-1"),
    pytest.param(_wrapper(IT, line=16), DECODABLE, id="base64-newlines"),
]


def _errors(out: bytes, severity: str = "error") -> list[str]:
    return sorted({f["code"] for f in json.loads(out)["findings"] if f["severity"] == severity})


@pytest.mark.parametrize(("data", "expected"), ROWS)
def test_check_validate_and_scan_agree(tmp_path: pathlib.Path, data: dict[str, Any], expected: str | None) -> None:
    path = tmp_path / "revision.json"
    path.write_text(_revision(data))
    check = cli("check", "--format", "json", str(path))
    validate = cli("validate", "--format", "json", str(path))
    scan = json.loads(cli("scan", "--format", "json", str(path)).stdout)
    eras = [row["era"] for row in scan["revisions"]]
    if expected is DECODABLE:
        assert (check.returncode, _errors(check.stdout)) == (1, [])
        assert (validate.returncode, _errors(validate.stdout)) == (0, [])
        assert eras != ["undecodable"]
    else:
        assert (check.returncode, _errors(check.stdout)) == (3, [expected])
        # validate judges the revision object, and the API server stores its data without looking at it:
        # the decoder's verdict is said under the same code, as a warning (issue 20 §2)
        assert (validate.returncode, _errors(validate.stdout)) == (0, [])
        assert expected in _errors(validate.stdout, "warning")
        assert eras == ["undecodable"]


@pytest.mark.parametrize(
    ("data", "code"),
    [(None, "revision.no-data"), ({}, "revision.kind-missing"), ({"apiVersion": "x", "kind": "K"}, None)],
    ids=["no-data", "empty", "bad-api-version"],
)
def test_one_code_per_fact_in_every_command(tmp_path: pathlib.Path, data: Any, code: str | None) -> None:
    """A payload the decoder refuses is said under the decoder's code by check, validate and scan alike
    (before: scan said revision.undecodable and validate revision.no-data for an empty payload)."""
    doc = json.loads(_revision({}))
    doc.pop("data") if data is None else doc.update(data=data)
    path = tmp_path / "revision.json"
    path.write_text(json.dumps(doc))
    said = []
    for command in ("check", "validate", "scan"):
        out = json.loads(cli(command, "--format", "json", str(path)).stdout)
        found = out["breaking"] if command == "scan" else out["findings"]
        said.append(sorted({f["code"] for f in found if f["path"].startswith("data")}))
    assert said[0] == said[1] == said[2], said
    if code is not None:
        assert said[0] == [code]
