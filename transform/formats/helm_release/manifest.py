"""A Helm release record in a document (an exported Secret or ConfigMap, a Velero item): the KubeVirt
and CDI objects of its `manifest` upgraded by the same engine as files, the record re-encoded as Helm
writes it (`convert.helmrelease`), only `data.release` changed. `--helm-releases` chooses which
records: the latest deployed revision of each release (default), all, or none."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from transform.convert import helmrelease
from transform.convert.index import Index
from transform.convert.outcome import Change, Outcome
from transform.model.findings import Finding, error, info
from transform.model.settings import Settings
from transform.yamltext import textio

WHERE = ("data", "release")


class Part(Protocol):
    """The upgraded documents of a manifest, as the engine gives them (`pipeline.parts.Part`)."""

    findings: list[Finding]
    pieces: list[tuple[int, int, str]]  # (start, end, new text) per changed document
    upgraded: int


# upgrade a manifest's text: (its name, the text) -> the part of its documents that changed
Upgrade = Callable[[str, textio.Source], Part]


def upgrade_record(value: dict[str, Any], kind: str, settings: Settings, index: Index, upgrade: Upgrade) -> Outcome:
    out = Outcome(value)
    ns, release, version, status = helmrelease.labels(value)
    what = f"Helm release {ns + '/' if ns else ''}{release or '?'} v{version if version is not None else '?'}"
    if settings.helm_releases == "none" or (
        settings.helm_releases == "latest" and not index.latest_release(ns, release, version, status)
    ):
        return out
    try:
        record = helmrelease.decode(kind, value["data"]["release"], settings.max_document_bytes)
    except helmrelease.ReleaseError as exc:
        out.findings.append(error("helm.bad-release", f"{what}: {exc}; record left as it is", WHERE))
        return out
    if not any(n in record.manifest for n in textio.NEEDLES_STR):
        return out
    part = upgrade(f"{what} manifest", textio.Source(record.manifest, False, "\n"))
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
