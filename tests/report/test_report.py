"""Every report format is parsed back and checked; odd characters survive each format."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from transform.model.findings import Finding, Severity, error, info, warning
from transform.report.formats import (
    SARIF_SCHEMA,
    Summary,
    krm_results,
    kustomize_path,
    plural,
    render_json,
    render_junit,
    render_sarif,
    render_text,
    summary_line,
)

ODD = "quote \" apostrophe ' <tag> & amp; ünïcødé ☃ \x01 ]]> end"

FINDINGS = [
    error(
        "schema.unknown-field",
        "field is not known to v1beta1",
        ("spec", "cpu", "guest"),
        file="deploy/it.yaml",
        line=12,
        column=5,
        doc=0,
        object="VirtualMachineInstancetype/ns1/small",
        extra={"api_version": "instancetype.kubevirt.io/v1alpha2", "kind": "VirtualMachineInstancetype"},
    ),
    warning(
        "webhook.deprecated-topology",
        "use spec.memory.guest",
        ("spec", "gpus", 0, "name"),
        file="deploy/it.yaml",
        line=20,
        column=0,
        doc=1,
        object="VirtualMachinePreference/p",
    ),
    info("upgraded", "upgraded to v1beta1", file="other.yaml", doc=0, object="VirtualMachineInstancetype/x"),
    error("schema.quantity", ODD, ("metadata", "annotations", "a.b/c"), file='dir/odd <&> "f".yaml', line=3),
    warning("input.no-files", "from stdin"),
]

SUMMARY = Summary(
    command="upgrade",
    files_seen=40,
    files_changed=3,
    objects_upgraded=12,
    renames=[("ns1", "rev-old", "rev-new"), ("", "a", "b")],
    files=["deploy/it.yaml", "other.yaml", "clean.yaml", 'dir/odd <&> "f".yaml'],
)


# ---- text ----------------------------------------------------------------------------------


def test_text_lines() -> None:
    out = render_text(FINDINGS, SUMMARY)
    lines = out.splitlines()
    assert lines[0] == (
        "deploy/it.yaml:12:5: error: doc 0 VirtualMachineInstancetype/ns1/small: spec.cpu.guest: "
        "field is not known to v1beta1 [schema.unknown-field]"
    )
    assert lines[: len(FINDINGS)] == [str(f) for f in FINDINGS]
    assert "renamed ControllerRevision ns1/rev-old -> rev-new" in lines
    assert "renamed ControllerRevision a -> b" in lines
    assert lines[-1] == "3 files changed, 12 objects upgraded, 2 errors, 2 warnings in 40 files"
    assert out.endswith("\n") and "\x1b" not in out


def test_text_color() -> None:
    out = render_text(FINDINGS[:1], SUMMARY, color=True)
    assert "\x1b[1;31merror\x1b[0m:" in out
    assert out.count("\x1b[0m") == 2


@pytest.mark.parametrize(
    ("summary", "errors", "warnings", "expect"),
    [
        (Summary("upgrade", 40, 3, 12), 1, 0, "3 files changed, 12 objects upgraded, 1 error in 40 files"),
        (
            Summary("upgrade", 1, 1, 1),
            0,
            1,
            "1 file changed, 1 object upgraded, 0 errors, 1 warning in 1 file",
        ),
        (Summary("upgrade", 0, 0, 0), 0, 0, "0 files changed, 0 objects upgraded, 0 errors in 0 files"),
        (
            Summary("check", 40, 3, 12),
            2,
            2,
            "3 files would change, 12 objects would be upgraded, 2 errors, 2 warnings in 40 files",
        ),
        (
            Summary("diff", 2, 1, 1),
            0,
            0,
            "1 file would change, 1 object would be upgraded, 0 errors in 2 files",
        ),
        (Summary("validate", 40), 2, 1, "40 files validated, 2 errors, 1 warning"),
        (Summary("validate", 1), 1, 0, "1 file validated, 1 error"),
    ],
)
def test_summary_line_plurals(summary: Summary, errors: int, warnings: int, expect: str) -> None:
    findings = [error("schema.type", "x")] * errors + [warning("webhook.deprecated-topology", "y")] * warnings
    assert summary_line(findings, summary) == expect
    assert render_text(findings, summary).splitlines()[-1] == expect


def test_explicit_counts_win() -> None:
    summary = Summary("validate", 3, errors=5, warnings=0)
    assert summary_line([], summary) == "3 files validated, 5 errors"


def test_check_renames_say_would() -> None:
    out = render_text([], Summary("check", renames=[("ns", "a", "b")]))
    assert "would rename ControllerRevision ns/a -> b" in out


def test_plural() -> None:
    assert plural(0, "file") == "0 files"
    assert plural(1, "file") == "1 file"
    assert plural(2, "entry", "entries") == "2 entries"


# ---- JSON ----------------------------------------------------------------------------------


def test_json_round_trip() -> None:
    doc = json.loads(render_json(FINDINGS, SUMMARY))
    assert doc["version"] == 1
    assert doc["command"] == "upgrade"
    assert doc["summary"] == {
        "files_seen": 40,
        "files_changed": 3,
        "objects_upgraded": 12,
        "errors": 2,
        "warnings": 2,
        "infos": 1,
        "renames": 2,
    }
    first = doc["findings"][0]
    assert set(first) == {
        "severity",
        "code",
        "message",
        "file",
        "line",
        "column",
        "doc",
        "object",
        "path",
        "path_segments",
        "extra",
    }
    assert first["severity"] == "error"
    assert first["path"] == "spec.cpu.guest"
    assert first["path_segments"] == ["spec", "cpu", "guest"]
    assert first["extra"]["api_version"] == "instancetype.kubevirt.io/v1alpha2"
    second = doc["findings"][1]
    assert second["path"] == "spec.gpus[0].name" and second["path_segments"] == ["spec", "gpus", 0, "name"]
    assert doc["findings"][4]["doc"] is None and doc["findings"][4]["file"] == ""
    assert doc["findings"][3]["message"] == ODD
    assert doc["findings"][3]["path"] == 'metadata.annotations["a.b/c"]'
    assert doc["renames"] == [
        {"namespace": "ns1", "old": "rev-old", "new": "rev-new"},
        {"namespace": "", "old": "a", "new": "b"},
    ]


def test_json_extra_is_made_safe() -> None:
    f = error("schema.type", "m", extra={"obj": object(), "tuple": (1, "a"), 3: {1, 2}.__class__.__name__})
    doc = json.loads(render_json([f], Summary()))
    assert doc["findings"][0]["extra"]["tuple"] == [1, "a"]
    assert doc["findings"][0]["extra"]["3"] == "set"
    assert isinstance(doc["findings"][0]["extra"]["obj"], str)


# ---- JUnit ---------------------------------------------------------------------------------


def test_junit_parses_and_counts() -> None:
    out = render_junit(FINDINGS, SUMMARY)
    assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    suite = ET.fromstring(out.encode("utf-8"))
    assert suite.tag == "testsuite"
    cases = suite.findall("testcase")
    names = [c.get("name") for c in cases]
    assert names == ["deploy/it.yaml", "other.yaml", "clean.yaml", 'dir/odd <&> "f".yaml', "<stdin>"]
    assert suite.get("tests") == "5"
    assert suite.get("failures") == "2"
    by_name = {c.get("name"): c for c in cases}
    it = by_name["deploy/it.yaml"]
    failure = it.find("failure")
    assert failure is not None and failure.get("type") == "schema.unknown-field"
    assert "spec.cpu.guest" in (failure.text or "")
    assert "webhook.deprecated-topology" in (it.findtext("system-out") or "")
    clean = by_name["clean.yaml"]
    assert clean.find("failure") is None and clean.find("system-out") is None
    assert by_name["<stdin>"].find("failure") is None
    assert "input.no-files" in (by_name["<stdin>"].findtext("system-out") or "")


def test_junit_escapes_odd_characters() -> None:
    out = render_junit(FINDINGS, SUMMARY)
    suite = ET.fromstring(out.encode("utf-8"))
    odd = next(c for c in suite.findall("testcase") if c.get("name", "").startswith("dir/odd"))
    failure = odd.find("failure")
    assert failure is not None
    text = failure.text or ""
    assert "quote \" apostrophe ' <tag> & amp; ünïcødé ☃" in text
    assert (
        "\\001" in text and "]]> end" in text
    )  # the control character is made visible (git's octal escape), not dropped
    assert ODD.replace("\x01", "\\x01") in (failure.get("message") or "")


def test_junit_empty() -> None:
    suite = ET.fromstring(render_junit([], Summary(files=[])))
    assert suite.get("tests") == "0" and suite.findall("testcase") == []


# ---- SARIF ---------------------------------------------------------------------------------


def test_sarif_structure() -> None:
    doc = json.loads(render_sarif(FINDINGS, SUMMARY))
    assert doc["$schema"] == SARIF_SCHEMA == "https://json.schemastore.org/sarif-2.1.0.json"
    assert doc["version"] == "2.1.0"
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "instancetype-upgrade"
    rule_ids = [r["id"] for r in driver["rules"]]
    assert rule_ids == [
        "schema.unknown-field",
        "webhook.deprecated-topology",
        "upgraded",
        "schema.quantity",
        "input.no-files",
    ]
    for rule in driver["rules"]:
        assert {"id", "shortDescription", "defaultConfiguration"} <= set(rule)
    results = run["results"]
    assert len(results) == len(FINDINGS)
    for result, finding in zip(results, FINDINGS, strict=True):
        assert result["ruleId"] == finding.code
        assert rule_ids[result["ruleIndex"]] == finding.code
        assert result["message"]["text"] == finding.message
        levels = {"error": "error", "warning": "warning", "info": "note"}
        assert result["level"] == levels[finding.severity.value]
    loc = results[0]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "deploy/it.yaml", "uriBaseId": "%SRCROOT%"}
    assert loc["region"] == {"startLine": 12, "startColumn": 5}
    assert results[1]["locations"][0]["physicalLocation"]["region"] == {"startLine": 20, "startColumn": 1}
    assert "region" not in results[2]["locations"][0]["physicalLocation"]  # line 0: no region
    odd_uri = results[3]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert odd_uri == "dir/odd%20%3C%26%3E%20%22f%22.yaml"
    assert "locations" not in results[4]  # stdin has no artifact
    assert results[0]["properties"] == {
        "doc": 0,
        "object": "VirtualMachineInstancetype/ns1/small",
        "path": "spec.cpu.guest",
    }


def test_sarif_absolute_paths_are_file_uris() -> None:
    doc = json.loads(render_sarif([error("schema.type", "m", file="/tmp/a b.yaml", line=1)], Summary()))
    art = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert art == {"uri": "file:///tmp/a%20b.yaml"}


def test_sarif_empty_is_valid() -> None:
    doc = json.loads(render_sarif([], Summary()))
    assert doc["runs"][0]["results"] == [] and doc["runs"][0]["tool"]["driver"]["rules"] == []


# ---- KRM -----------------------------------------------------------------------------------


def test_krm_results() -> None:
    results = krm_results(FINDINGS)
    assert results[0] == {
        "message": "field is not known to v1beta1",
        "severity": "error",
        "resourceRef": {
            "apiVersion": "instancetype.kubevirt.io/v1alpha2",
            "kind": "VirtualMachineInstancetype",
            "name": "small",
            "namespace": "ns1",
        },
        "field": {"path": "spec.cpu.guest"},
        "file": {"path": "deploy/it.yaml", "index": 0},
        "tags": {"code": "schema.unknown-field"},
    }
    assert results[1]["field"] == {"path": "spec.gpus.0.name"}
    assert results[1]["resourceRef"] == {"kind": "VirtualMachinePreference", "name": "p"}
    assert results[2]["severity"] == "info" and "field" not in results[2]
    assert results[3]["field"] == {"path": "metadata.annotations.[a.b/c]"}
    assert "file" not in results[4] and "resourceRef" not in results[4]
    json.dumps(results)  # serialisable as-is


def test_krm_extra_overrides_object() -> None:
    f = Finding(
        Severity.WARNING,
        "webhook.deprecated-topology",
        "m",
        object="Kind/ns/name",
        extra={"name": "real", "namespace": "other", "api_version": "v1"},
    )
    (result,) = krm_results([f])
    assert result["resourceRef"] == {"apiVersion": "v1", "kind": "Kind", "name": "real", "namespace": "other"}


def test_kustomize_path() -> None:
    assert kustomize_path(("spec", "ports", 0, "port")) == "spec.ports.0.port"
    assert kustomize_path(()) == ""
