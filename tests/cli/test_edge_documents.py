"""Generated documents aimed at the edges, through `fix`: a self-check that fires is a bug, never an outcome.

The generator mixes what the readers and writers of the tool find hardest (issue 31): integers at and past
the bounds of their Go types, quantities in every spelling, anchors, aliases and `<<` merge keys (in objects
and in revision payloads), JSON inside YAML, apiVersion/kind keys that differ by case, owners (a VM, a
snapshot, an empty name, none), fields only v1beta1 has inside old payloads (taken from the reference types
by the oracle), labels naming the other kind, and multi-document streams. Every run must end without exit
123 or an `internal.*` finding, and a second `fix` must change nothing. A small run in the default suite; a
long one with `pytest -m slow`."""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.oracles import go_json_model as go
from transform.cli import main as cli

UID = "6709b990-f717-44fe-a8ff-cb441d20b904"
GROUP = "instancetype.kubevirt.io"


class Anchor:
    def __init__(self, name: str, value: Any) -> None:
        self.name, self.value = name, value


class Alias:
    def __init__(self, name: str) -> None:
        self.name = name


class Flow:
    """A mapping written as a flow mapping over several lines, a comment at the end of each."""

    def __init__(self, value: dict[str, Any]) -> None:
        self.value = value


MERGE = "<<"  # a mapping key whose value (a mapping, an Alias or a list of them) is merged


def _v1beta1_only(kind: str) -> list[tuple[str, str]]:
    """(JSON name, Go kind) of the spec fields v1beta1 has and v1alpha2 lacks, read by the oracle."""

    def spec(version: str) -> dict[str, Any]:
        type_name = go.field_of(go.object_type(version, kind), "spec")["type"]
        return {f["json"]: f for f in go.types()[type_name]["fields"]}

    old, new = spec("v1alpha2"), spec("v1beta1")
    return [(name, f["kind"]) for name, f in new.items() if name not in old]


INTEGERS = st.sampled_from([0, 1, 2, -1, 2**31 - 1, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63)])
QUANTITIES = st.sampled_from(["1Gi", "1024Mi", "0.5Gi", 1073741824, 2**63, 2**64 - 1, "1e3", "128M", "+1Ki", "0"])
STRINGS = st.sampled_from(["a", "yes", "1.0", "preferSockets", "sockets", "x y", "", "12:30", "null"])


@st.composite
def spec(draw: st.DrawFn, family: str, version: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if family == "instancetype":
        out["cpu"] = {"guest": draw(INTEGERS)}
        out["memory"] = {"guest": draw(QUANTITIES)}
        if draw(st.booleans()):
            out["cpu"]["maxSockets"] = draw(INTEGERS)
    else:
        cpu: dict[str, Any] = {}
        if draw(st.booleans()):
            cpu["preferredCPUTopology"] = draw(st.sampled_from(["preferSockets", "preferCores", "sockets", "any"]))
        out["cpu"] = cpu
        if draw(st.booleans()):
            out["devices"] = {
                "preferredDiskBlockSize": {"custom": {"logical": draw(INTEGERS), "physical": draw(INTEGERS)}}
            }
        if draw(st.booleans()):
            out["features"] = {"preferredHyperv": {"spinlocks": {"spinlocks": draw(INTEGERS)}}}
    kind = "VirtualMachineInstancetype" if family == "instancetype" else "VirtualMachinePreference"
    if version != "v1beta1" and draw(st.integers(0, 3)) == 0:  # a field only v1beta1 has
        name, go_kind = draw(st.sampled_from(_v1beta1_only(kind)))
        out[name] = {"uint32": 2, "int64": 30, "string": "s", "map": {"a": "b"}}.get(go_kind, {})
    return out


@st.composite
def owners(draw: st.DrawFn) -> list[dict[str, Any]]:
    choice = draw(st.sampled_from(["vm", "snapshot", "empty", "none"]))
    if choice == "none":
        return []
    kind, api = (
        ("VirtualMachineSnapshot", "snapshot.kubevirt.io/v1beta1")
        if choice == "snapshot"
        else (
            "VirtualMachine",
            "kubevirt.io/v1",
        )
    )
    name = "" if choice == "empty" else "vm-a"
    return [{"apiVersion": api, "kind": kind, "name": name, "uid": "u-1", "controller": True}]


@st.composite
def revision(draw: st.DrawFn) -> dict[str, Any]:
    family = draw(st.sampled_from(["instancetype", "preference"]))
    fmt = draw(st.sampled_from(["wrapper", "v1alpha1", "v1alpha2", "v1beta1"]))
    body = draw(spec(family, "v1alpha1" if fmt == "wrapper" else fmt))
    kind = "VirtualMachineInstancetype" if family == "instancetype" else "VirtualMachinePreference"
    if fmt == "wrapper":
        data: dict[str, Any] = {"apiVersion": "", "spec": base64.b64encode(json.dumps(body).encode()).decode()}
    else:
        meta = {"name": "csmall", "uid": UID, "generation": draw(st.sampled_from([1, 2**63 - 1, 2**63]))}
        data = {"apiVersion": f"{GROUP}/{fmt}", "kind": kind, "metadata": meta, "spec": body}
    labels: dict[str, Any] = {}
    if draw(st.booleans()):
        other = draw(st.sampled_from(["VirtualMachineInstancetype", "VirtualMachinePreference"]))
        labels[f"{GROUP}/object-kind"] = other
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": f"vm-a-csmall-{UID}-1",
            "namespace": "default",
            **({"labels": labels} if labels else {}),
            "ownerReferences": draw(owners()),
        },
        "data": data,
        "revision": 0,
    }


@st.composite
def standalone(draw: st.DrawFn) -> dict[str, Any]:
    family = draw(st.sampled_from(["instancetype", "preference"]))
    version = draw(st.sampled_from(["v1alpha1", "v1alpha2", "v1beta1"]))
    kind = draw(
        st.sampled_from(
            ["VirtualMachineInstancetype", "VirtualMachineClusterInstancetype"]
            if family == "instancetype"
            else ["VirtualMachinePreference", "VirtualMachineClusterPreference"]
        )
    )
    return {
        "apiVersion": f"{GROUP}/{version}",
        "kind": kind,
        "metadata": {"name": "a", "generation": draw(st.sampled_from([1, 2**63]))},
        "spec": draw(spec(family, version)),
    }


@st.composite
def shaped(draw: st.DrawFn, obj: dict[str, Any]) -> Any:
    """`obj` with anchors, aliases, merges and case-colliding keys placed on it."""
    out = dict(obj)
    trick = draw(
        st.sampled_from(["none", "anchor-api", "alias-api", "merge-spec", "merge-base", "case", "anchor-data"])
    )
    if trick == "anchor-api":
        out["apiVersion"] = Anchor("v", out["apiVersion"])
        out["metadata"] = {**out["metadata"], "annotations": {"was": Alias("v")}}
    elif trick == "alias-api":
        api = out.pop("apiVersion")
        out = {
            "metadata": {**out["metadata"], "annotations": {"src": Anchor("v", api)}},
            "apiVersion": Alias("v"),
            **{k: v for k, v in out.items() if k != "metadata"},
        }
    elif trick == "merge-spec" and isinstance(out.get("spec"), dict) and isinstance(out["spec"].get("cpu"), dict):
        cpu = dict(out["spec"]["cpu"])
        first = dict(list(cpu.items())[:1])
        rest = dict(list(cpu.items())[1:])
        before = draw(st.booleans())
        merged = [(MERGE, first)] + list(rest.items()) if before else list(rest.items()) + [(MERGE, first)]
        if draw(st.booleans()) and first:  # an explicit key the merge overrides (or that overrides it)
            key = next(iter(first))
            merged.insert(0 if before else len(merged) - 1, (key, 7))
        out["spec"] = {**out["spec"], "cpu": merged}
    elif trick == "merge-base":
        base = {"apiVersion": out.pop("apiVersion"), "kind": out.pop("kind")}
        out = {"base": Anchor("b", base), MERGE: Alias("b"), **out}
    elif trick == "case":
        extra = draw(st.sampled_from([("Kind", 3), ("apiversion", "v1"), ("Kind", "Foo"), ("KIND", None)]))
        out = {**out, extra[0]: extra[1]}
    elif trick == "flow-spec":
        if isinstance(out.get("spec"), dict) and out["spec"]:
            out["spec"] = Flow(out["spec"])
        elif isinstance(out.get("data"), dict) and isinstance(out["data"].get("spec"), dict) and out["data"]["spec"]:
            out["data"] = {**out["data"], "spec": Flow(out["data"]["spec"])}
    elif trick == "anchor-data" and isinstance(out.get("data"), dict) and isinstance(out["data"].get("spec"), dict):
        data = dict(out["data"])
        spec_value = dict(data["spec"])
        if "memory" in spec_value:
            spec_value["memory"] = Anchor("m", spec_value["memory"])
            spec_value["x"] = Alias("m")
        data["spec"] = spec_value
        out["data"] = data
    return out


_PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9./_-]*$")
_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}


def _scalar(v: Any) -> str:
    if isinstance(v, str):
        return v if _PLAIN.match(v) and v.lower() not in _WORDS else json.dumps(v)
    return json.dumps(v)


def render(value: Any, indent: int = 0) -> list[str]:
    """Block YAML lines for a value of dicts, lists of pairs (a mapping with a merge key), Anchors and Aliases."""
    pad = " " * indent
    pairs = value if isinstance(value, list) and value and all(isinstance(p, tuple) for p in value) else None
    if isinstance(value, dict) or pairs is not None:
        lines = []
        for k, v in pairs if pairs is not None else value.items():
            lines += _entry(f"{pad}{k if k == MERGE else _scalar(k)}:", v, indent)
        return lines or [pad + "{}"]
    if isinstance(value, list):
        lines = []
        for v in value:
            sub = render(v, indent + 2)
            lines.append(pad + "- " + sub[0].lstrip()) if sub else None
            lines += sub[1:]
        return lines or [pad + "[]"]
    return [pad + _inline(value)]


def _inline(v: Any) -> str:
    if isinstance(v, Alias):
        return f"*{v.name}"
    if isinstance(v, (dict, list)):
        return json.dumps(v)  # JSON in YAML
    return _scalar(v)


def _entry(head: str, v: Any, indent: int) -> list[str]:
    if isinstance(v, Flow):
        items = [f"{_scalar(k)}: {json.dumps(x)}" for k, x in v.value.items()]
        pad = " " * (indent + 2)
        lines = [f"{head} {{{items[0]}" + ("," if len(items) > 1 else "") + "  # f0"]
        lines += [f"{pad}{it}" + ("," if i < len(items) - 1 else "") + f"  # f{i}" for i, it in enumerate(items[1:], 1)]
        return [*lines, pad + "}"]
    prop = ""
    if isinstance(v, Anchor):
        prop, v = f" &{v.name}", v.value
    if isinstance(v, (dict, list)) and v:
        return [head + prop] + render(v, indent + 2)
    return [f"{head}{prop} {_inline(v)}"]


@st.composite
def streams(draw: st.DrawFn) -> str:
    docs = []
    for _ in range(draw(st.integers(1, 3))):
        obj = draw(st.one_of(revision(), standalone()))
        if draw(st.integers(0, 4)) == 0:
            docs.append(json.dumps(obj, indent=2))  # a JSON document in the stream
        else:
            lines = render(draw(shaped(obj)))
            marks = draw(st.lists(st.integers(0, 9), min_size=len(lines), max_size=len(lines)))
            out = []
            for i, (line, mark) in enumerate(zip(lines, marks, strict=True)):
                if mark == 0:  # a comment line before it, at its indentation
                    out.append(" " * (len(line) - len(line.lstrip())) + f"# note {i}")
                out.append(line + (f"  # c{i}" if mark == 1 else ""))
            docs.append("\n".join(out))
    return "\n---\n".join(docs) + "\n"


def _run(tmp_path: Path, text: str, rename: bool) -> None:
    path = tmp_path / "doc.yaml"
    path.write_text(text)
    report = tmp_path / "report.json"
    args = ["fix", "--format", "json", "--output-file", str(report), *(["--rename"] if rename else []), str(path)]
    code = cli.main(args)
    found = json.loads(report.read_text())["findings"]
    internal = [f for f in found if f["code"].startswith("internal.")]
    assert code != 123 and not internal, (code, internal, text)
    first = path.read_text()
    assert cli.main([*args[:-1], str(path)]) in (0, 3), first  # a second run changes nothing
    assert path.read_text() == first, (text, first)


def _edge_settings(examples: int) -> Any:
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    )


@_edge_settings(int(os.environ.get("EDGE_EXAMPLES", "60")))
@given(text=streams(), rename=st.booleans())
def test_edge_documents_never_fire_a_self_check(tmp_path: Path, text: str, rename: bool) -> None:
    _run(tmp_path, text, rename)


@pytest.mark.slow
@_edge_settings(2000)
@given(text=streams(), rename=st.booleans())
def test_edge_documents_never_fire_a_self_check_long(tmp_path: Path, text: str, rename: bool) -> None:
    _run(tmp_path, text, rename)
