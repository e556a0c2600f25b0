"""Property tests: generated objects and revisions of every kind/version/payload format, laid out in
every YAML style we meet, through `upgrade_file`. Output is valid v1beta1, a second run changes
nothing, untouched documents stay byte-identical, no comment is lost, payloads match the model."""

from __future__ import annotations

import base64
import json
import re
from collections import Counter
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.oracles import kubevirt_model as model
from transform.convert.index import Index
from transform.model.findings import Severity
from transform.model.settings import Settings
from transform.pipeline.onefile import upgrade_file
from transform.validate.documents import validate_document
from transform.yamltext.nodes import resolve_tag

GROUP = "instancetype.kubevirt.io"
INSTANCETYPE_KINDS = ("VirtualMachineInstancetype", "VirtualMachineClusterInstancetype")
PREFERENCE_KINDS = ("VirtualMachinePreference", "VirtualMachineClusterPreference")
NAMES = st.from_regex(r"[a-z][a-z0-9-]{0,10}[a-z0-9]", fullmatch=True)
UID = "7ad77f47-ee51-4024-8d5b-4141aec7b04c"
PROFILE = settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def opt(d: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A mapping with any subset of the optional entries (each value a strategy)."""
    return st.fixed_dictionaries({}, optional=d)


QUANTITY = st.one_of(
    st.sampled_from(["128Mi", "1Gi", "2Gi", "512M", "1G", "0.5Gi", "1536Mi", "4Gi"]),
    st.integers(min_value=1 << 20, max_value=1 << 34),
)
INSTANCETYPE_SPEC = st.fixed_dictionaries(
    {
        "cpu": st.fixed_dictionaries(
            {"guest": st.integers(1, 64)},
            optional={
                "model": st.sampled_from(["", "host-passthrough", "Skylake-Client"]),
                "dedicatedCPUPlacement": st.booleans(),
                "isolateEmulatorThread": st.booleans(),
                "numa": st.just({"guestMappingPassthrough": {}}),
            },
        ),
        "memory": st.fixed_dictionaries(
            {"guest": QUANTITY},
            optional={"hugepages": st.builds(lambda s: {"pageSize": s}, st.sampled_from(["2Mi", "1Gi"]))},
        ),
    },
    optional={"ioThreadsPolicy": st.sampled_from(["shared", "auto"])},
)
PREFERENCE_FIELDS = {
    "cpu": st.builds(
        lambda t: {"preferredCPUTopology": t}, st.sampled_from(["preferSockets", "preferCores", "preferThreads"])
    ),
    "devices": opt(
        {
            "preferredDiskBus": st.sampled_from(["virtio", "sata", "scsi"]),
            "preferredInterfaceModel": st.sampled_from(["virtio", "e1000e"]),
            "preferredAutoattachInputDevice": st.booleans(),
            "preferredAutoattachGraphicsDevice": st.booleans(),
            "preferredRng": st.just({}),
        }
    ),
    "firmware": opt({"preferredUseEfi": st.booleans(), "preferredUseSecureBoot": st.booleans()}),
    "features": opt({"preferredSmm": st.just({})}),
    "machine": st.builds(lambda m: {"preferredMachineType": m}, st.sampled_from(["q35", "pc-q35-rhel8.6.0"])),
    "volumes": st.builds(lambda s: {"preferredStorageClassName": s}, NAMES),
}


def preference_spec(version: str) -> st.SearchStrategy[dict[str, Any]]:
    """v1alpha1 preferences have no `volumes` (v1alpha2 added it)."""
    return opt({k: v for k, v in PREFERENCE_FIELDS.items() if version != "v1alpha1" or k != "volumes"})


@st.composite
def objects(draw: Any, versions: tuple[str, ...] = ("v1alpha1", "v1alpha2")) -> dict[str, Any]:
    kind = draw(st.sampled_from(INSTANCETYPE_KINDS + PREFERENCE_KINDS))
    meta: dict[str, Any] = {"name": draw(NAMES)}
    if "Cluster" not in kind:
        meta["namespace"] = draw(st.sampled_from(["default", "vms"]))
    if draw(st.booleans()):
        meta["labels"] = {f"{GROUP}/vendor": "example.com", "app": draw(NAMES)}
    version = draw(st.sampled_from(versions))
    spec = draw(INSTANCETYPE_SPEC if kind in INSTANCETYPE_KINDS else preference_spec(version))
    return {"apiVersion": f"{GROUP}/{version}", "kind": kind, "metadata": meta, "spec": spec}


@st.composite
def revisions(draw: Any) -> dict[str, Any]:
    fmt = draw(st.sampled_from(["wrapper", "v1alpha1", "v1alpha2", "v1beta1"]))
    if fmt == "wrapper":
        is_it = draw(st.booleans())
        spec = draw(INSTANCETYPE_SPEC if is_it else preference_spec("v1alpha1").filter(bool))
        data: dict[str, Any] = {}
        api = draw(st.sampled_from([f"{GROUP}/v1alpha1", "", None]))
        if api is not None:
            data["apiVersion"] = api
        data["spec"] = base64.b64encode(json.dumps(spec, separators=(",", ":")).encode()).decode()
        obj_name, version = draw(NAMES), "v1alpha1"
    else:
        data = draw(objects((fmt,)))
        data["metadata"].update({"uid": UID, "generation": draw(st.integers(1, 5)), "resourceVersion": "1234"})
        obj_name, version = data["metadata"]["name"], fmt
    meta: dict[str, Any] = {"name": f"vm-a-{obj_name}-{UID}-1", "namespace": "default"}
    if draw(st.booleans()) or fmt == "v1beta1":
        meta["labels"] = {f"{GROUP}/object-version": version}
    meta["ownerReferences"] = [
        {
            "apiVersion": "kubevirt.io/v1",
            "blockOwnerDeletion": True,
            "controller": True,
            "kind": "VirtualMachine",
            "name": "vm-a",
            "uid": "11111111-2222-3333-4444-555555555555",
        }
    ]
    return {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": meta, "data": data, "revision": 0}


# --- YAML layouts --------------------------------------------------------------------------------

SAFE_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9./_-]*$")


class Layout:
    def __init__(self, draw: Any) -> None:
        self.indent = draw(st.sampled_from([2, 4]))
        self.indent_seq = draw(st.booleans())
        self.draw = draw
        self.comments: list[str] = []

    def comment(self) -> str:
        text = f"# c{len(self.comments)} note: keep me"
        self.comments.append(text)
        return text

    def scalar(self, v: Any) -> str:
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        s = str(v)
        style = self.draw(st.sampled_from(["plain", "single", "double"]))
        if style == "plain" and SAFE_PLAIN.match(s) and resolve_tag(s) == "tag:yaml.org,2002:str":
            return s
        if style == "single":
            return "'" + s.replace("'", "''") + "'"
        return json.dumps(s)

    def flow(self, v: Any) -> str:
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k}: {self.flow(x)}" for k, x in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ", ".join(self.flow(x) for x in v) + "]"
        return self.scalar(v)

    def block(self, v: dict[str, Any], level: int) -> list[str]:
        pad = " " * (self.indent * level)
        lines: list[str] = []
        for k, x in v.items():
            if self.draw(st.integers(0, 5)) == 0:
                lines.append(pad + self.comment())
            eol = ("  " + self.comment()) if self.draw(st.integers(0, 4)) == 0 else ""
            if isinstance(x, dict) and x and not self.draw(st.integers(0, 4)) == 0:
                lines.append(f"{pad}{k}:{eol}")
                lines += self.block(x, level + 1)
            elif isinstance(x, list) and x and all(isinstance(i, dict) and i for i in x):
                lines.append(f"{pad}{k}:{eol}")
                ipad = pad + (" " * self.indent if self.indent_seq else "")
                dash = "- ".ljust(self.indent)
                for item in x:
                    first = True
                    for ln in self.block(item, 0):
                        if ln.startswith("#"):
                            lines.append(ipad + " " * len(dash) + ln)
                            continue
                        lines.append(ipad + (dash if first else " " * len(dash)) + ln)
                        first = False
            else:
                lines.append(f"{pad}{k}: {self.flow(x)}{eol}")
        return lines


@st.composite
def rendered(draw: Any, value: dict[str, Any]) -> tuple[str, list[str]]:
    """`value` as text in a drawn layout, and the comments put into it."""
    if draw(st.integers(0, 5)) == 0:
        return json.dumps(value, indent=draw(st.sampled_from([2, 4]))) + "\n", []
    lay = Layout(draw)
    lines = [lay.comment()] if draw(st.booleans()) else []
    if draw(st.booleans()):
        lines.append("---")
    lines += lay.block(value, 0)
    if draw(st.booleans()):
        lines.append(lay.comment())
    text = "\n".join(lines) + "\n"
    if draw(st.integers(0, 3)) == 0:
        text = text.replace("\n", "\r\n")
    return text, lay.comments


@st.composite
def cases(draw: Any) -> tuple[dict[str, Any], str, list[str]]:
    value = draw(st.one_of(objects(), objects(("v1beta1",)), revisions()))
    text, comments = draw(rendered(value))
    assert yaml.safe_load(text) == value, text  # the layout engine itself is right
    return value, text, comments


def _errors(findings: list[Any]) -> list[str]:
    return [str(f) for f in findings if f.severity is Severity.ERROR]


def _is_current(value: dict[str, Any]) -> bool:
    if value["kind"] == "ControllerRevision":
        return (value["metadata"].get("labels") or {}).get(f"{GROUP}/object-version") == "v1beta1"
    return value["apiVersion"].endswith("/v1beta1")


@PROFILE
@given(cases())
def test_upgrade_properties(case: tuple[dict[str, Any], str, list[str]]) -> None:
    value, text, comments = case
    data = text.encode()
    result = upgrade_file("gen.yaml", data, Settings(), Index())
    assert not _errors(result.findings), (_errors(result.findings), text)
    if _is_current(value):
        assert not result.changed and result.new_text in (None, text)
        return
    assert result.changed and result.source is not None and result.new_text is not None, text
    out = result.new_text
    new_bytes = result.source.encode(out)
    # comments: every one kept, as many times
    for c in set(comments):
        assert out.count(c) == text.count(c), (c, out)
    # line endings kept
    if "\r\n" in text:
        assert out.count("\n") == out.count("\r\n"), out
    new = yaml.safe_load(out)
    assert not [f for f in validate_document(new) if f.severity is Severity.ERROR], out
    if value["kind"] == "ControllerRevision":
        want = model.expected_payload(value["data"])
        got = new["data"]
        if "spec" in value["data"] and isinstance(value["data"]["spec"], str):  # wrapper: identity recovered
            assert (got["apiVersion"], got["spec"]) == (want["apiVersion"], want["spec"])
            assert (got["kind"] in INSTANCETYPE_KINDS) == (want["kind"] in INSTANCETYPE_KINDS)
        else:
            assert got == want
        assert new["metadata"]["labels"][f"{GROUP}/object-version"] == "v1beta1"
    else:
        assert new["apiVersion"] == f"{GROUP}/v1beta1"
        assert {k: v for k, v in new.items() if k != "apiVersion"} == {
            k: v for k, v in value.items() if k != "apiVersion"
        }
    again = upgrade_file("gen.yaml", new_bytes, Settings(), Index())
    assert not _errors(again.findings), _errors(again.findings)
    assert not again.changed, (out, again.new_text)


@PROFILE
@given(st.lists(st.one_of(objects(), objects(("v1beta1",)), revisions()), min_size=2, max_size=4), st.data())
def test_multi_document_files_keep_untouched_documents_byte_identical(values: list[dict[str, Any]], data: Any) -> None:
    parts = [data.draw(rendered(v))[0] for v in values]
    parts = [re.sub(r"^---\n", "", p.replace("\r\n", "\n"), flags=re.M) for p in parts]
    text = "".join(p if i == 0 else "---\n" + p for i, p in enumerate(parts))
    result = upgrade_file("multi.yaml", text.encode(), Settings(), Index())
    assert not _errors(result.findings), _errors(result.findings)
    out = result.new_text if result.new_text is not None else text
    out_parts = re.split(r"^---\n", out, flags=re.M)
    assert len(out_parts) == len(parts)
    for v, before, after in zip(values, parts, out_parts, strict=True):
        if _is_current(v):
            assert after == before
    assert Counter(re.findall(r"# c\d+ note", out)) == Counter(re.findall(r"# c\d+ note", text))
