"""Inputs of `scan`: files and directories (transform.pipeline.sources) and Velero `.tar.gz` backups.

Everything is yielded as a `pipeline.batch.Item` (display name, bytes, a chart file's role), the unit
every command's engine takes, so the scan core never touches files. Tarball
members are streamed by transform.integrations.tarstream, the reader `backup` uses (same checks,
same limits; never extracted). Velero writes the preferred version of each resource twice
(`resources/<res>/{namespaces/<ns>|cluster}/...` and again under
`resources/<res>/<version>-preferredversion/...`; other versions under `<version>/` with
EnableAPIGroupVersions): a versioned copy is skipped when the classic copy is in the tarball,
so every resource is counted once.
"""

from __future__ import annotations

import tarfile
import zlib
from collections.abc import Iterator
from typing import Any

from transform.integrations.tarstream import (
    BackupError,
    finish,
    header_problem,
    members,
    open_archive,
    quote,
    read_member,
    refusal,
    unsafe,
)
from transform.model.findings import Finding, error, warning
from transform.model.limits import file_limit
from transform.model.settings import Settings
from transform.pipeline.batch import Item

TAR_SUFFIXES = (".tar.gz", ".tgz", ".tar")
_READ_ERRORS = (tarfile.TarError, EOFError, zlib.error, OSError)


def is_tarball(path: str) -> bool:
    return path.lower().endswith(TAR_SUFFIXES)


def _velero_classic(name: str) -> str | None:
    """The classic path of a versioned Velero copy, or None when `name` is not a versioned copy."""
    parts = name.split("/")
    if "resources" not in parts:
        return None
    i = parts.index("resources")
    if len(parts) < i + 4 or parts[i + 2] in ("namespaces", "cluster"):
        return None
    return "/".join(parts[: i + 2] + parts[i + 3 :])


def iter_tarball(path: str, errors: list[Finding], settings: Settings | None = None) -> Iterator[tuple[str, bytes]]:
    """The members of a tarball, read with the checked streaming reader of `backup` (same accepted
    archives, same limits): a first pass checks every entry and learns the names, the second reads."""
    settings = settings or Settings()
    try:
        names, preferred = _check(path, settings)
        with open_archive(path, settings.max_archive_bytes) as (tf, reader, _src):
            for m in members(tf):
                if not m.isfile():
                    continue
                rel = m.name.removeprefix("./")
                classic = _velero_classic(rel)
                if classic is not None and (
                    classic in names or (classic in preferred and "-preferredversion/" not in rel)
                ):
                    continue  # the same resource, already read from its classic / preferred copy
                if m.size > settings.max_document_bytes:
                    errors.append(
                        error(
                            "input.too-large",
                            f"tar member of {m.size} bytes, over --max-document-size ({settings.max_document_bytes})",
                            file=f"{path}:{quote(rel)}",
                        )
                    )
                    continue
                yield f"{path}:{rel}", read_member(tf, m)
            finish(path, tf, reader)
    except BackupError as exc:
        errors.append(error("input.tarball", str(exc), file=path))
    except _READ_ERRORS as exc:
        errors.append(error("input.tarball", f"cannot read the tarball: {exc}", file=path))


def _check(path: str, settings: Settings) -> tuple[set[str], set[str]]:
    """Pass 1: refuse an unsafe archive (BackupError); the regular members' names and preferred copies."""
    refused: list[str] = []
    links: set[str] = set()
    names: set[str] = set()
    preferred: set[str] = set()
    with open_archive(path, settings.max_archive_bytes) as (tf, reader, _src):
        start = 0
        for m in members(tf):
            why = header_problem(reader, m, start) or unsafe(m, links)
            start = tf.offset
            if why:
                refused.append(f"{quote(m.name)}: {why}")
            elif m.issym():
                links.add(m.name.rstrip("/"))
            elif m.isfile():
                rel = m.name.removeprefix("./")
                names.add(rel)
                if "-preferredversion/" in rel and (c := _velero_classic(rel)):
                    preferred.add(c)
        finish(path, tf, reader)
    if refused:
        raise BackupError(refusal(path, refused))
    return names, preferred


def iter_inputs(
    paths: list[str],
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    errors: list[Finding],
    settings: Settings | None = None,
) -> Iterator[Item]:
    """Every input as an Item, read as `fix` reads them (bounded, regular files only), a tarball's members
    one by one; a Helm chart's templates and values files with their role (`pipeline.charts`)."""
    # lazy: start-up: directory walking only when scan is given directories
    from transform.formats.helm_chart import roles as charts
    from transform.pipeline import sources

    settings = settings or Settings()
    limit = file_limit(settings.max_document_bytes)
    for arg in paths:
        if arg != "-" and is_tarball(arg) and not _is_dir(arg):
            yield from _members(arg, errors, settings)
            continue
        if arg == "-":
            import sys

            try:
                yield Item("<stdin>", sources.read_stream(sys.stdin.buffer, limit))
            except sources.InputError as exc:
                errors.append(error("input.refused", f"stdin: {exc}"))
            continue
        for entry in sources.discover([arg], include, exclude):
            if isinstance(entry, sources.Skipped):
                errors.append((warning if entry.warn else error)("input.skipped", entry.reason, file=entry.display))
                continue
            if is_tarball(entry.path):
                yield from _members(entry.path, errors, settings)
                continue
            try:
                data = sources.read_file(entry.path, limit)
            except sources.InputError as exc:
                errors.append(error("input.refused", str(exc), file=entry.display))
                continue
            except OSError as exc:
                errors.append(error("input.unreadable", f"cannot read: {_reason(exc)}", file=entry.display))
                continue
            yield Item(entry.display, data, entry, None, *charts.role_of(entry.path, data))


def _members(path: str, errors: list[Finding], settings: Settings) -> Iterator[Item]:
    return (Item(name, data) for name, data in iter_tarball(path, errors, settings))


def _is_dir(path: str) -> bool:
    import os

    return os.path.isdir(path)


def _reason(exc: Any) -> str:
    return str(getattr(exc, "strerror", None) or exc)
