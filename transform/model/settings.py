"""What the engine reads: the settings of an upgrade (target releases, limits, what to rewrite, the run's
policy), and nothing of the shell's (inputs, output paths, report formats, exit codes: `cli.options.RunOptions`
holds them with this record). cli/options.py builds it; the KRM function's functionConfig overrides it
with `dataclasses.replace`. Importable without the parser or the release table (pre-commit start-up time)."""

from __future__ import annotations

from dataclasses import dataclass

from transform.model.limits import DEFAULT_MAX_ARCHIVE_BYTES, DEFAULT_MAX_DOCUMENT_BYTES

LATEST_RELEASE = (1, 9)  # == transform.kubevirt.releases.LATEST (a test checks); here for start-up time
CDI_DEFAULT_RELEASE = (1, 66)  # == transform.kubevirt.apis.CDI_DEFAULT (a test checks); here for start-up time


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
    target_cdi: tuple[int, int] = CDI_DEFAULT_RELEASE
    drop_server_fields: bool = False  # remove managedFields/status naming old API versions
    helm_releases: str = "latest"  # Helm release records rewritten: latest (deployed) | all | none
    inline_ignores: bool = True  # `# instancetype-upgrade: ignore=CODE` comments suppress findings (yamltext.ignores)
    # the run's own policy: under --strict a reported warning keeps its file from being written
    # (`model.policy.fails`); the report rewrites the findings with it, once (`model.policy.decide`)
    select: tuple[str, ...] = ()  # finding code prefixes to report (empty: all)
    ignore: tuple[str, ...] = ()  # finding code prefixes not to report
