"""Run settings, importable without the parser (pre-commit start-up time)."""

from __future__ import annotations

from dataclasses import dataclass

from transform.model.limits import DEFAULT_MAX_DOCUMENT_BYTES

LATEST_RELEASE = (1, 9)
CDI_DEFAULT_RELEASE = (1, 56)  # == transform.kubevirt.apis.CDI_DEFAULT (a test checks); here for start-up time


@dataclass(frozen=True)
class Settings:
    rename: bool = False
    strict: bool = False
    target: tuple[int, int] = LATEST_RELEASE
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES
    modernize: bool = False
    modernize_revisions: bool = False
    validate_output: bool = True
    target_cdi: tuple[int, int] = CDI_DEFAULT_RELEASE
    drop_server_fields: bool = False  # remove managedFields/status naming old API versions
