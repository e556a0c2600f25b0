"""Inputs of `scan`: files and directories (transform.pipeline.sources) and Velero `.tar.gz` backups.

Everything is yielded as (display name, bytes), so the scan core never touches files. Tarball
members are read in memory (never extracted). Velero writes the preferred version of each
resource twice (`resources/<res>/{namespaces/<ns>|cluster}/...` and again under
`resources/<res>/<version>-preferredversion/...`; other versions under `<version>/` with
EnableAPIGroupVersions): a versioned copy is skipped when the classic copy is in the tarball,
so every resource is counted once.
"""

from __future__ import annotations

import tarfile
from collections.abc import Iterator
from typing import Any

from transform.model.findings import Finding, error

TAR_SUFFIXES = (".tar.gz", ".tgz", ".tar")
MAX_MEMBER_BYTES = 64 * 1024 * 1024


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


def iter_tarball(path: str, errors: list[Finding]) -> Iterator[tuple[str, bytes]]:
    try:
        with tarfile.open(path, "r:*") as tar:
            members = [m for m in tar.getmembers() if m.isfile()]
            names = {m.name.removeprefix("./") for m in members}
            preferred = {
                c
                for m in members
                if "-preferredversion/" in m.name and (c := _velero_classic(m.name.removeprefix("./")))
            }
            for m in members:
                rel = m.name.removeprefix("./")
                classic = _velero_classic(rel)
                if classic is not None and (
                    classic in names or (classic in preferred and "-preferredversion/" not in rel)
                ):
                    continue  # the same resource, already read from its classic / preferred copy
                if m.size > MAX_MEMBER_BYTES:
                    errors.append(
                        error("input.too-large", f"tar member over {MAX_MEMBER_BYTES} bytes", file=f"{path}:{rel}")
                    )
                    continue
                fh = tar.extractfile(m)
                if fh is not None:
                    yield f"{path}:{rel}", fh.read()
    except (tarfile.TarError, OSError, EOFError) as exc:
        errors.append(error("input.tarball", f"cannot read the tarball: {exc}", file=path))


def iter_inputs(
    paths: list[str], include: tuple[str, ...], exclude: tuple[str, ...], errors: list[Finding]
) -> Iterator[tuple[str, bytes]]:
    from transform.pipeline import sources

    for arg in paths:
        if arg != "-" and is_tarball(arg) and not _is_dir(arg):
            yield from iter_tarball(arg, errors)
            continue
        if arg == "-":
            import sys

            yield "<stdin>", sys.stdin.buffer.read()
            continue
        for entry in sources.discover([arg], include, exclude):
            if isinstance(entry, sources.Skipped):
                errors.append(error("input.skipped", entry.reason, file=entry.display))
                continue
            if is_tarball(entry.path):
                yield from iter_tarball(entry.path, errors)
                continue
            try:
                with open(entry.path, "rb") as fh:
                    yield entry.display, fh.read()
            except OSError as exc:
                errors.append(error("input.unreadable", f"cannot read: {_reason(exc)}", file=entry.display))


def _is_dir(path: str) -> bool:
    import os

    return os.path.isdir(path)


def _reason(exc: Any) -> str:
    return str(getattr(exc, "strerror", None) or exc)
