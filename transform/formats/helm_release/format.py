"""Helm release records as a container format (`formats.base.Format`): their cross-file fact, the latest
deployed revision of each release (`deployed`). A record is an object of a plain YAML stream; its manifest
is upgraded by `manifest.upgrade_record`."""

from __future__ import annotations

from transform.convert.hints import Facts
from transform.formats.base import Format
from transform.formats.helm_release.deployed import NAME, Deployed


class HelmRelease(Format):
    name = NAME

    def facts(self) -> Facts:
        return Deployed()


FORMAT = HelmRelease()
