"""Helm release records as a container format (`formats.base.Format`): a record's manifest is a stream of
its own (`unpack`, `repack`: `manifest`), and the records' cross-file fact is the latest deployed revision
of each release (`deployed`)."""

from __future__ import annotations

from typing import Any

from transform.convert.hints import Facts
from transform.convert.index import Index
from transform.convert.outcome import Outcome
from transform.formats.base import Format, Packed, Stream, Surveyed
from transform.formats.helm_release import manifest, record
from transform.formats.helm_release.deployed import NAME, Deployed
from transform.model.findings import Finding
from transform.model.settings import Settings
from transform.yamltext import textio


class HelmRelease(Format):
    name = NAME
    index_needles = (textio.HELM_NEEDLE,)  # `release.v1`: a record's type and name

    def facts(self) -> Facts:
        return Deployed()

    def unpack(self, text: str, value: Any, settings: Settings, index: Index) -> Outcome | Packed | None:
        kind = record.driver(value) if textio.HELM_NEEDLE in text else None
        return manifest.unpack(value, kind, settings, index) if kind is not None else None

    def repack(self, packed: Packed, stream: Stream) -> Outcome:
        return manifest.repack(packed, stream)

    def survey(self, text: str, value: Any, limit: int) -> Surveyed | Finding | None:
        kind = record.driver(value) if textio.HELM_NEEDLE in text else None
        return manifest.survey(value, kind, limit) if kind is not None else None


FORMAT = HelmRelease()
