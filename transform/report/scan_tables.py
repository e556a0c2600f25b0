"""Render a transform.pipeline.inventory.Scan: a JSON document (schema in docs/scan-schema.md) or text tables."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from transform.kubevirt import apis, releases
from transform.kubevirt.releases import ERAS
from transform.model.findings import escape_controls
from transform.pipeline.api_inventory import group_uses
from transform.pipeline.inventory import Scan
from transform.pipeline.scan_links import Doc
from transform.report.formats import finding_dict

SCHEMA = "instancetype-upgrade/scan/v1"


def _files(docs: Iterable[Doc]) -> list[str]:
    return sorted({d.file for d in docs})


def _group(docs: list[Doc]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str], list[Doc]] = {}
    for d in docs:
        groups.setdefault((d.kind, d.api_version), []).append(d)
    return [{"kind": k, "apiVersion": a, "count": len(v), "files": _files(v)} for (k, a), v in sorted(groups.items())]


def _where(d: Doc) -> dict[str, Any]:
    return {"name": d.name, "namespace": d.namespace, "file": d.file, "line": d.line}


def to_dict(scan: Scan) -> dict[str, Any]:
    eras: dict[str, list[Any]] = {}
    for rev in scan.revisions:
        eras.setdefault(rev.era, []).append(rev)
    refs = {"spec": 0, "status": 0, "flavor": 0}
    for vm in scan.vms:
        for r in vm.refs:
            refs[r.via] += 1
    return {
        "schema": SCHEMA,
        "target": releases.text(scan.target),
        "target_cdi": releases.text(scan.target_cdi),
        "exit_code": scan.exit_code,
        "files": {"seen": scan.files_seen, "candidates": scan.candidates, "kubevirt": len(scan.files)},
        "apis": group_uses(scan.apis),
        "objects": _group(scan.objects),
        "revisions": [
            {
                "era": era,
                "format": ERAS[era][0],
                "written_by": ERAS[era][1],
                "count": len(revs),
                "files": _files(r.doc for r in revs),
            }
            for era, revs in sorted(eras.items(), key=lambda kv: list(ERAS).index(kv[0]))
        ],
        "vms": {
            "count": len(scan.vms),
            "files": _files(vm.doc for vm in scan.vms),
            "references": refs,
            "items": [
                {
                    **_where(vm.doc),
                    "references": [{"family": r.family, "via": r.via, "revision": r.revision} for r in vm.refs],
                }
                for vm in scan.vms
            ],
        },
        "other": _group(scan.other),
        "dangling": [
            {
                "vm": vm.doc.name,
                "namespace": vm.doc.namespace,
                "file": vm.doc.file,
                "family": r.family,
                "via": r.via,
                "revision": r.revision,
            }
            for vm, r in scan.dangling
        ],
        "orphans": [
            {**_where(r.doc), "era": r.era, "owner": r.owner_name, "owner_kind": r.owner_kind} for r in scan.orphans
        ],
        "label_mismatches": [
            {
                **_where(rev.doc),
                "vm": vm.doc.name,
                "family": ref.family,
                "matcher_name": want,
                "object_name": rev.object_name,
                "source": rev.object_name_source,
            }
            for vm, ref, rev, want in scan.mismatches
        ],
        "breaking": [finding_dict(f) for f in scan.breaking],
        "cannot_tell": [finding_dict(f) for f in scan.undecided],
        "errors": [finding_dict(f) for f in scan.errors],
    }


def render_json(scan: Scan) -> str:
    return json.dumps(to_dict(scan), indent=2, sort_keys=False) + "\n"


def _table(headers: list[str], rows: list[list[Any]]) -> list[str]:
    if not rows:
        return ["  (none)"]
    cells = [headers] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    fmt = "  " + "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*headers).rstrip(), fmt.format(*("-" * w for w in widths)).rstrip()]
    return lines + [fmt.format(*r).rstrip() for r in cells[1:]]


def _files_text(files: list[str], limit: int = 3) -> str:
    more = f" (+{len(files) - limit} more)" if len(files) > limit else ""
    return ", ".join(files[:limit]) + more


_STATE = {
    "served": "-",
    "kept": "-",
    "deprecated": "DEPRECATED",
    "unserved": "NOT SERVED",
    "removed": "REMOVED",
    "not-yet": "NOT YET SERVED",
    "legacy": "NOT UPGRADABLE",
}


def _api_tables(d: dict[str, Any], scan: Scan) -> list[str]:
    """Per group/version/kind, then per object that needs attention (pluto's columns)."""
    out = [f"API versions on KubeVirt {d['target']} / CDI {d['target_cdi']}:"]
    out += _table(
        ["KIND", "VERSION", "COUNT", "ON TARGET", "REPLACEMENT", "DEPRECATED", "REMOVED", "FILES"],
        [
            [
                g["kind"],
                g["apiVersion"],
                g["count"],
                _STATE[g["status"]],
                g["replacement"] or "-",
                g["deprecated_in"] or "-",
                g["removed_in"] or "-",
                _files_text(g["files"]),
            ]
            for g in d["apis"]
        ],
    )
    attention = [u for u in scan.apis if u.replacement or u.status not in ("served", "kept")]
    if attention:
        out += ["", f"Objects to upgrade or replace ({len(attention)}):"]
        out += _table(
            ["NAME", "KIND", "VERSION", "REPLACEMENT", "REMOVED", "DEPRECATED", "BREAKS", "FILE"],
            [
                [
                    (u.namespace + "/" if u.namespace else "")
                    + (f"{u.chart}: {u.name}" if u.chart and u.name else u.name or u.chart or "-"),
                    u.kind,
                    u.api_version,
                    u.replacement or "-",
                    str(u.status in ("removed", "unserved")).lower(),
                    str(
                        u.status == "deprecated" or bool(u.deprecated_in and u.status in ("removed", "unserved"))
                    ).lower(),
                    "yes" if u.breaks else "no",
                    f"{u.file}:{u.line}",
                ]
                for u in attention
            ],
        )
    return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def render_text(scan: Scan) -> str:
    d = to_dict(scan)
    out = [
        f"KubeVirt scan (target KubeVirt {d['target']}, CDI {d['target_cdi']}): "
        f"{_count(d['files']['seen'], 'file')}, {_count(d['files']['candidates'], 'candidate')}, "
        f"{d['files']['kubevirt']} with KubeVirt documents",
        "",
    ]
    out += _api_tables(d, scan)
    out += ["", "Instance types and preferences:"] + _table(
        ["KIND", "API VERSION", "COUNT", "FILES"],
        [[g["kind"], g["apiVersion"], g["count"], _files_text(g["files"])] for g in d["objects"]],
    )
    out += ["", "ControllerRevisions:"] + _table(
        ["ERA", "PAYLOAD", "WRITTEN BY", "COUNT", "FILES"],
        [[g["era"], g["format"], g["written_by"], g["count"], _files_text(g["files"])] for g in d["revisions"]],
    )
    refs = d["vms"]["references"]
    out += [
        "",
        f"VirtualMachines: {d['vms']['count']} (revision references: {refs['spec']} spec, "
        f"{refs['status']} status, {refs['flavor']} spec.flavor)",
    ]
    out += _table(
        ["VM", "NAMESPACE", "REFERENCES", "FILE"],
        [
            [
                v["name"],
                v["namespace"] or "-",
                ", ".join(f"{r['family']}:{r['via']}={r['revision']}" for r in v["references"]) or "-",
                v["file"],
            ]
            for v in d["vms"]["items"]
        ],
    )
    other = [g for g in d["other"] if apis.group_of(g["apiVersion"]) is None]  # the others are listed above
    if other:
        out += ["", "Other KubeVirt documents:"] + _table(
            ["KIND", "API VERSION", "COUNT", "FILES"],
            [[g["kind"], g["apiVersion"], g["count"], _files_text(g["files"])] for g in other],
        )
    out += ["", f"Dangling references ({len(d['dangling'])}): a VM names a revision not in the inputs"]
    out += _table(
        ["VM", "FAMILY", "VIA", "REVISION", "FILE"],
        [[x["vm"], x["family"], x["via"], x["revision"], x["file"]] for x in d["dangling"]],
    )
    out += ["", f"Orphan revisions ({len(d['orphans'])}): no VM in the inputs references or owns them"]
    out += _table(
        ["REVISION", "ERA", "OWNER", "FILE"],
        [[x["name"], x["era"], x["owner"] or "-", x["file"]] for x in d["orphans"]],
    )
    out += ["", f"object-name mismatches ({len(d['label_mismatches'])}): KubeVirt 1.6+ ignores these revisions"]
    out += _table(
        ["REVISION", "VM", "MATCHER NAME", "OBJECT NAME", "SOURCE"],
        [[x["name"], x["vm"], x["matcher_name"], x["object_name"], x["source"]] for x in d["label_mismatches"]],
    )
    out += ["", f"Would break on KubeVirt {d['target']} ({len(d['breaking'])}):"]
    out += [
        f"  {f['file']}:{f['line']}: {f['object']}: {f['path'] + ': ' if f['path'] else ''}{f['message']} [{f['code']}]"
        for f in d["breaking"]
    ] or ["  (none)"]
    if d["cannot_tell"]:
        out += ["", f"Cannot tell ({len(d['cannot_tell'])}): a templated apiVersion whose value the chart does not set"]
        out += [f"  {f['file']}:{f['line']}: {f['object']}: {f['message']} [{f['code']}]" for f in d["cannot_tell"]]
    if d["errors"]:
        out += ["", f"Unreadable input ({len(d['errors'])}):"]
        out += [
            f"  {f['file']}{':' + str(f['line']) if f['line'] else ''}: {f['message']} [{f['code']}]"
            for f in d["errors"]
        ]
    verdict = {0: "nothing would break", 1: "something would break", 3: "some input could not be read"}
    out += ["", f"Result: {verdict[scan.exit_code]} (exit {scan.exit_code})"]
    return "\n".join(map(escape_controls, out)) + "\n"  # names and values from the input: no raw control
