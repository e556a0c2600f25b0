"""Render findings and a run summary as text, JSON, JUnit XML, SARIF 2.1.0 or KRM results; the
registry of every --format (`RENDERERS`; markdown and statistics live in report/text_formats.py,
the summary line in report/summary.py).

Pure functions: no printing, no click, no sys. Every renderer returns a string (``krm_results``
returns the list of dicts that goes into a KRM ``ResourceList.results``).

JSON schema (``render_json``), version 1. Keys are always present; new keys may be added
within version 1, existing keys are never renamed, retyped or removed::

    {
      "version": 1,
      "command": "fix",                          # fix | check | diff | validate | backup | scan
      "summary": {
        "files_seen": 40, "files_changed": 3, "objects_upgraded": 12,
        "errors": 1, "warnings": 2, "infos": 0,
        "renames": 1
      },
      "findings": [
        {
          "severity": "error",                   # error | warning | info
          "code": "schema.unknown-field",
          "message": "...",
          "file": "deploy/it.yaml",              # "" for stdin
          "line": 12, "column": 5,               # 1-based; 0 = unknown
          "doc": 0,                              # 0-based YAML document index, or null
          "object": "VirtualMachineInstancetype/ns/name",   # "" when unknown
          "path": "spec.gpus[0].name",           # Finding.field_path spelling; "" for none
          "path_segments": ["spec", "gpus", 0, "name"],
          "extra": {}                            # code-specific details (JSON-safe)
        }
      ],
      "renames": [{"namespace": "ns", "old": "rev-a", "new": "rev-b"}]
    }

The same schema is described in docs/report-schema.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from transform import __version__
from transform.model.findings import Finding, Severity, utf8_name, utf8_text
from transform.report.summary import TOOL_NAME, WOULD, Summary, plural, rename_line, summary_line
from transform.report.text_formats import render_markdown, render_statistics, statistics, would

__all__ = [
    "JSON_SCHEMA_VERSION",
    "SARIF_SCHEMA",
    "TOOL_NAME",
    "Summary",
    "finding_dict",
    "krm_results",
    "kustomize_path",
    "plural",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_statistics",
    "statistics",
    "would",
    "RENDERERS",
    "render_sarif",
    "render_text",
    "summary_line",
]

JSON_SCHEMA_VERSION = 1
TOOL_URI = "https://github.com/kubevirt/kubevirt"
CODES_DOC = "docs/codes.md"  # every code's summary, from transform/model/codes.py (SARIF rules' helpUri, repo-relative)
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_ANSI = {Severity.ERROR: "\x1b[1;31m", Severity.WARNING: "\x1b[1;33m", Severity.INFO: "\x1b[1;36m"}
_ANSI_RESET = "\x1b[0m"
_SURROGATE = re.compile("[\ud800-\udfff]")


# ---- text ----------------------------------------------------------------------------------


def render_text(findings: Sequence[Finding], summary: Summary, *, color: bool = False) -> str:
    """One line per finding (``str(Finding)``), one per renamed revision, then the summary line."""
    lines = []
    for f in findings:
        text = str(f)
        if color:
            token = f" {f.severity.value}:"
            text = text.replace(token, f" {_ANSI[f.severity]}{f.severity.value}{_ANSI_RESET}:", 1)
        lines.append(text)
    would = summary.command in WOULD
    lines.extend(rename_line(ns, old, new, would=would) for ns, old, new in summary.renames)
    last = summary_line(findings, summary)
    if color:
        errors, warnings, _ = summary.counts(findings)
        tint = _ANSI[Severity.ERROR] if errors else (_ANSI[Severity.WARNING] if warnings else "\x1b[1;32m")
        last = f"{tint}{last}{_ANSI_RESET}"
    lines.append(last)
    return "\n".join(lines) + "\n"


# ---- JSON ----------------------------------------------------------------------------------


def _json_safe(value: Any) -> Any:
    if isinstance(value, str):
        return utf8_text(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_safe(v) for v in value]
    return str(value)


def _segments(f: Finding) -> list[Any]:
    return [p if isinstance(p, int) and not isinstance(p, bool) else utf8_text(str(p)) for p in f.path]


def finding_dict(f: Finding) -> dict[str, Any]:
    """A finding as JSON values (names that are not UTF-8 written as git quotes them: `utf8_name`)."""
    return {
        "severity": f.severity.value,
        "code": f.code,
        "message": utf8_text(f.message),
        "file": utf8_name(f.file),
        "line": f.line,
        "column": f.column,
        "doc": f.doc,
        "object": utf8_text(f.object),
        "path": utf8_text(f.field_path),
        "path_segments": _segments(f),
        "extra": _json_safe(f.extra),
    }


def render_json(findings: Sequence[Finding], summary: Summary) -> str:
    errors, warnings, infos = summary.counts(findings)
    document = {
        "version": JSON_SCHEMA_VERSION,
        "command": summary.command,
        "summary": {
            "files_seen": summary.files_seen,
            "files_changed": summary.files_changed,
            "objects_upgraded": summary.objects_upgraded,
            "errors": errors,
            "warnings": warnings,
            "infos": infos,
            "renames": len(summary.renames),
        },
        "findings": [finding_dict(f) for f in findings],
        "renames": [{"namespace": ns, "old": old, "new": new} for ns, old, new in summary.renames],
    }
    return _dumps(document)


def _dumps(document: dict[str, Any]) -> str:
    import json  # lazy: the text report (pre-commit) does not need it

    text = json.dumps(_json_safe(document), indent=2, ensure_ascii=False) + "\n"
    return text if not _SURROGATE.search(text) else json.dumps(document, indent=2) + "\n"  # UTF-8 holds it all


# ---- JUnit ---------------------------------------------------------------------------------

# XML 1.0 forbids most C0 controls, surrogates and U+FFFE/U+FFFF even when escaped. (Written as the
# forbidden ranges: the negated class of the allowed ones costs 10 ms to compile, at every start-up.)
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _XML_INVALID.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _ordered_files(findings: Iterable[Finding], summary: Summary) -> list[str]:
    seen: dict[str, None] = dict.fromkeys(summary.files)
    for f in findings:
        seen.setdefault(f.file or "<stdin>", None)
    return list(seen)


def render_junit(findings: Sequence[Finding], summary: Summary) -> str:
    """One testsuite; one testcase per file; errors become <failure>, warnings <system-out>."""
    import xml.etree.ElementTree as ET  # lazy: only this format needs it (start-up time)

    files = _ordered_files(findings, summary)
    by_file: dict[str, list[Finding]] = {name: [] for name in files}
    for f in findings:
        by_file[f.file or "<stdin>"].append(f)
    changed = set(summary.changed_files) if summary.changes_fail else set()
    failed = sum(any(f.severity is Severity.ERROR for f in fs) or name in changed for name, fs in by_file.items())
    suite = ET.Element(
        "testsuite",
        {
            "name": f"{TOOL_NAME} {summary.command}",
            "tests": str(len(files)),
            "failures": str(failed),
            "errors": "0",
            "skipped": "0",
        },
    )
    for name in files:
        case = ET.SubElement(suite, "testcase", {"classname": TOOL_NAME, "name": _xml_text(name)})
        errs = [f for f in by_file[name] if f.severity is Severity.ERROR]
        others = [f for f in by_file[name] if f.severity is not Severity.ERROR]
        if errs:
            failure = ET.SubElement(
                case,
                "failure",
                {
                    "message": _xml_text(f"{plural(len(errs), 'error')}: {errs[0].message}"),
                    "type": errs[0].code,
                },
            )
            failure.text = _xml_text("\n".join(str(f) for f in errs))
        elif name in changed:
            verb = "would change" if summary.command in WOULD else "changed"
            failure = ET.SubElement(case, "failure", {"message": _xml_text(f"{name} {verb}"), "type": "changed"})
            failure.text = _xml_text("\n".join(str(f) for f in others))
        if others:
            out = ET.SubElement(case, "system-out")
            out.text = _xml_text("\n".join(str(f) for f in others))
    ET.indent(suite)
    body = ET.tostring(suite, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


# ---- SARIF ---------------------------------------------------------------------------------

_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _is_absolute(path: str) -> bool:
    from pathlib import PureWindowsPath  # lazy, as every SARIF-only import (start-up time)

    return path.startswith("/") or bool(PureWindowsPath(path).drive)


def _artifact_uri(path: str) -> str:
    """A relative path stays relative (GitHub resolves it against the checkout); "./" is dropped."""
    from pathlib import PurePosixPath, PureWindowsPath
    from urllib.parse import quote

    posix = PureWindowsPath(path).as_posix() if "\\" in path or PureWindowsPath(path).drive else path
    if _is_absolute(path):
        return "file://" + ("" if posix.startswith("/") else "/") + quote(_bytes(posix), safe="/:")
    return quote(_bytes(str(PurePosixPath(posix))))


def _bytes(name: str) -> bytes:
    """A name's own bytes (a URI percent-encodes bytes: a name that is not UTF-8 stays that name)."""
    try:
        return name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return name.encode("utf-8", "backslashreplace")


def _sarif_location(f: Finding) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": _artifact_uri(f.file)}}
    if not _is_absolute(f.file):
        physical["artifactLocation"]["uriBaseId"] = "%SRCROOT%"
    if f.line > 0:
        physical["region"] = {"startLine": f.line, "startColumn": max(f.column, 1)}
    location: dict[str, Any] = {"physicalLocation": physical}
    if f.object or f.path:
        name = f.object + (":" + f.field_path if f.path else "")
        location["logicalLocations"] = [{"fullyQualifiedName": name, "kind": "object"}]
    return location


def _sarif_rule(f: Finding, level: str | None) -> dict[str, Any]:
    """The rule of a finding's code: its summary and help link from the registry (transform/model/codes.py)."""
    # lazy: the code registry only for a SARIF report
    from transform.model.codes import CODES, anchor

    known = CODES.get(f.code)
    rule: dict[str, Any] = {
        "id": f.code,
        "name": "".join(part.capitalize() for part in re.split(r"[^0-9A-Za-z]+", f.code)) or f.code,
        "shortDescription": {"text": known.summary if known else f.code},
        "fullDescription": {"text": f.message},
    }
    if known:
        rule["helpUri"] = f"{CODES_DOC}#{anchor(f.code)}"
        rule["help"] = {"text": f"{f.code}: {known.summary}. See {CODES_DOC} and {known.doc}."}
    rule["defaultConfiguration"] = {"level": level or _SARIF_LEVEL[f.severity]}
    rule["properties"] = {"tags": [TOOL_NAME]}
    return rule


def render_sarif(findings: Sequence[Finding], summary: Summary) -> str:
    """SARIF 2.1.0, fit for GitHub code scanning (relative URIs, 1-based regions)."""
    rules: dict[str, dict[str, Any]] = {}
    changed_files = set(summary.changed_files) if summary.changes_fail else set()
    for f in findings:
        if f.code not in rules:
            rules[f.code] = _sarif_rule(f, "error" if f.severity is Severity.INFO and f.file in changed_files else None)
    index = {code: i for i, code in enumerate(rules)}
    changed = set(summary.changed_files) if summary.changes_fail else set()
    results = []
    for f in findings:
        # levels follow the exit code: a change that fails the run is an error, like the run
        level = "error" if f.severity is Severity.INFO and f.file in changed else _SARIF_LEVEL[f.severity]
        result: dict[str, Any] = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": level,
            "message": {"text": f.message},
        }
        if f.file:
            result["locations"] = [_sarif_location(f)]
        properties: dict[str, Any] = {}
        if f.doc is not None:
            properties["doc"] = f.doc
        if f.object:
            properties["object"] = f.object
        if f.path:
            properties["path"] = f.field_path
        if properties:
            result["properties"] = properties
        results.append(result)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": TOOL_NAME,
                "version": __version__,
                "informationUri": TOOL_URI,
                "rules": list(rules.values()),
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "The directory the tool ran in."}}},
        "invocations": [{"executionSuccessful": True, "commandLine": f"{TOOL_NAME} {summary.command}"}],
        "results": results,
    }
    document = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return _dumps(document)


# ---- KRM -----------------------------------------------------------------------------------

_KRM_SEVERITY = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "info"}


def _resource_ref(f: Finding) -> dict[str, str]:
    ref: dict[str, str] = {}
    parts = f.object.split("/") if f.object else []
    if len(parts) == 3:
        ref.update(kind=parts[0], namespace=parts[1], name=parts[2])
    elif len(parts) == 2:
        ref.update(kind=parts[0], name=parts[1])
    for key, extra_key in (("apiVersion", "api_version"), ("kind", "kind"), ("name", "name")):
        if f.extra.get(extra_key):
            ref[key] = str(f.extra[extra_key])
    if f.extra.get("namespace"):
        ref["namespace"] = str(f.extra["namespace"])
    order = ("apiVersion", "kind", "name", "namespace")
    return {key: ref[key] for key in order if ref.get(key)}


def kustomize_path(path: Sequence[Any]) -> str:
    """("spec", "ports", 0, "port") -> "spec.ports.0.port"; a key with a dot goes in brackets."""
    return ".".join(f"[{p}]" if isinstance(p, str) and "." in p else str(p) for p in path)


def krm_results(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    """Entries for a KRM function ``ResourceList.results`` (kpt/kustomize convention)."""
    out = []
    for f in findings:
        result: dict[str, Any] = {"message": f.message, "severity": _KRM_SEVERITY[f.severity]}
        ref = _resource_ref(f)
        if ref:
            result["resourceRef"] = ref
        if f.path:
            result["field"] = {"path": kustomize_path(f.path)}
        if f.file:
            file: dict[str, Any] = {"path": f.file}
            if f.doc is not None:
                file["index"] = f.doc
            result["file"] = file
        result["tags"] = {"code": f.code}
        out.append(result)
    return out


RENDERERS: dict[str, Callable[[Sequence[Finding], Summary], str]] = {
    "text": render_text,
    "json": render_json,
    "junit": render_junit,
    "sarif": render_sarif,
    "markdown": render_markdown,
}
