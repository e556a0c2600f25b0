"""Run settings, importable without the parser (pre-commit start-up time)."""

from __future__ import annotations

from dataclasses import dataclass

from transform.model.limits import DEFAULT_MAX_ARCHIVE_BYTES, DEFAULT_MAX_DOCUMENT_BYTES

LATEST_RELEASE = (1, 9)


@dataclass(frozen=True)
class Settings:
    rename: bool = False
    strict: bool = False
    target: tuple[int, int] = LATEST_RELEASE
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES
    modernize: bool = False
    modernize_revisions: bool = False
    validate_output: bool = True
    max_archive_bytes: int = DEFAULT_MAX_ARCHIVE_BYTES
