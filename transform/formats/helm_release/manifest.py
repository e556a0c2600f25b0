"""A Helm release record in a document (an exported Secret or ConfigMap, a Velero item): its `manifest`
handed to the engine as a stream of its own (`unpack`), its KubeVirt and CDI objects upgraded as a file's
are, the record re-encoded as Helm writes it (`repack`, `record`), only `data.release` changed.
`--helm-releases` chooses which records: the latest deployed revision of each release (default), all,
or none."""

from __future__ import annotations

import json
from typing import Any

from transform.convert.index import Index
from transform.convert.outcome import Change, Outcome
from transform.formats.base import Packed, Stream, Surveyed
from transform.formats.helm_release import record as helmrelease
from transform.formats.helm_release.deployed import NAME, latest_release
from transform.model.findings import Finding, error, info
from transform.model.settings import Settings
from transform.yamltext import textio

WHERE = ("data", "release")


def unpack(value: dict[str, Any], kind: str, settings: Settings, index: Index) -> Outcome | Packed:
    """The record's manifest, to be upgraded as a stream (`Packed`), or the record's outcome as it stays."""
    out = Outcome(value)
    ns, release, version, status = helmrelease.labels(value)
    what = f"Helm release {ns + '/' if ns else ''}{release or '?'} v{version if version is not None else '?'}"
    if settings.helm_releases == "none" or (
        settings.helm_releases == "latest" and not latest_release(index, ns, release, version, status)
    ):
        return out
    try:
        record = helmrelease.decode(kind, value["data"]["release"], settings.max_document_bytes)
    except helmrelease.ReleaseError as exc:
        out.findings.append(error("helm.bad-release", f"{what}: {exc}; record left as it is", WHERE))
        return out
    if not any(n in record.manifest for n in textio.NEEDLES_STR):
        return out
    return Packed(NAME, f"{what} manifest", record.manifest, out, (record, kind, what))


def survey(value: dict[str, Any], kind: str, limit: int) -> Surveyed | Finding:
    """Any record's manifest, as scan reads it: what breaks makes `helm upgrade` fail after a restore (the
    deployed revision) or `helm rollback` (others)."""
    ns, release, version, status = helmrelease.labels(value)
    label = f"Helm release {ns + '/' if ns else ''}{release} v{version if version is not None else '?'}"
    try:
        record = helmrelease.decode(kind, value["data"]["release"], limit)
    except helmrelease.ReleaseError as exc:
        return error("helm.bad-release", f"{label}: {exc}", WHERE)
    how = "helm upgrade fails" if status in ("deployed", "") else "helm rollback to it fails"
    return Surveyed(label, record.manifest, WHERE, f"{how} after a restore; run fix or backup on the record")


def repack(packed: Packed, part: Stream) -> Outcome:
    """The record with its upgraded manifest (`part`: what the engine made of the stream) re-encoded."""
    out = packed.outcome
    record, kind, what = packed.state
    out.findings += [_inside(f, what) for f in part.findings]
    if out.error or not part.pieces:
        return out
    new_text = helmrelease.with_manifest(record, helmrelease.runs(record.manifest, part.pieces))
    if not _same_but_manifest(record.text, new_text, _joined(record.manifest, part.pieces)):
        out.findings.append(
            error("internal.verify", f"{what}: the re-encoded release does not read back as intended", WHERE)
        )
        return out
    out.set(WHERE, helmrelease.encode(record, new_text))
    out.changes += [Change(()) for _ in range(part.upgraded)] or [Change((), upgraded=False)]
    out.findings.append(
        info(
            "helm.release-upgraded",
            f"{what}: {part.upgraded} object(s) of its manifest upgraded; the record re-encoded as Helm writes it "
            f"({'gzip, ' if record.gzipped else ''}base64{' twice' if kind == 'Secret' else ''})",
            WHERE,
        )
    )
    return out


def _inside(f: Finding, what: str) -> Finding:
    """A manifest's finding, said at the record's data.release."""
    where = f"manifest line {f.line}" if f.line else "manifest"
    return f.at(message=f"{what}, {where}: {f.message}", path=WHERE, line=0, column=0, doc=None)


def _joined(text: str, pieces: list[tuple[int, int, str]]) -> str:
    out, pos = [], 0
    for start, end, body in pieces:
        out += [text[pos:start], body]
        pos = end
    return "".join(out) + text[pos:]


def _same_but_manifest(old: str, new: str, manifest: str) -> bool:
    a, b = json.loads(old), json.loads(new)
    if b.get("manifest") != manifest:
        return False
    a.pop("manifest"), b.pop("manifest")
    return bool(a == b)
