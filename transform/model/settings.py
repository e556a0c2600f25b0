"""Run settings: the one record every option of every command turns into (cli/options.py builds
it; the KRM function's functionConfig overrides it with `dataclasses.replace`). Importable without
the parser or the release table (pre-commit start-up time)."""

from __future__ import annotations

from dataclasses import dataclass

from transform.model.limits import DEFAULT_MAX_ARCHIVE_BYTES, DEFAULT_MAX_DOCUMENT_BYTES

LATEST_RELEASE = (1, 9)  # == transform.kubevirt.releases.LATEST (a test checks); here for start-up time
CDI_DEFAULT_RELEASE = (1, 66)  # == transform.kubevirt.apis.CDI_DEFAULT (a test checks); here for start-up time


@dataclass(frozen=True)
class Settings:
    # --- what the engine reads (pure layers) ---
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
    # --- what the shell reads: inputs, outputs, the report ---
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    context: tuple[str, ...] = ()  # --context: files and directories read for the cross-file index only
    jobs: int = 0  # 0: decided per run (pipeline.parallel.decide)
    output_dir: str | None = None
    force: bool = False  # rewrite read-only files
    fmt: str = "text"
    output_file: str | None = None
    quiet: bool = False
    debug: bool = False
    statistics: bool = False
    select: tuple[str, ...] = ()  # finding code prefixes to report (empty: all)
    ignore: tuple[str, ...] = ()  # finding code prefixes not to report
    exit_zero: bool = False  # exit 0 unless an input failed (check/validate/scan: report-only runs)
    exit_zero_even_if_changed: bool = False  # fix: exit 0 rather than 1 after rewriting
