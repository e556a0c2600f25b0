"""Velero backup tarballs: upgrade the KubeVirt items inside, copy every other entry unchanged.

A backup is a gzip tar: `metadata/version`, then `resources/<resource>[.<group>]/[<version>/ or
<version>-preferredversion/]{namespaces/<ns>|cluster}/<name>.json` items (compact JSON). Two
streaming passes over the input, one member in memory at a time:

1. check every entry's path (absolute, `..`, links leaving the archive: refuse the whole archive)
   and index the candidate items (VMs, snapshot contents, ControllerRevisions), so that --rename
   and F1 identity recovery see the whole backup, as `fix DIR` does for a tree;
2. write the output: candidate items through the engine (text edits on the original JSON), all
   other entries copied with their header fields and bytes.

The output goes to a temporary file in OUT's directory, renamed over OUT at the end. When no
entry changes, OUT is a byte copy of the input.
"""

from __future__ import annotations

import copy
import gzip
import os
import re
import shutil
import tarfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

from transform.convert.index import Index
from transform.integrations.tarstream import (
    BackupError,
    finish,
    members,
    open_archive,
    quote,
    read_member,
    refusal,
    unsafe,
)
from transform.kubevirt import apis
from transform.kubevirt.names import name_problem
from transform.model.findings import Finding, error, info, warning
from transform.model.settings import Settings
from transform.pipeline import sinks
from transform.pipeline.batch import RunResult, index_needles
from transform.pipeline.onefile import FileResult, iter_documents, upgrade_file
from transform.yamltext import textio

ITEM = re.compile(
    r"^(?:\./)*resources/(?P<gr>[^/]+)/(?:(?P<ver>v\d+(?:(?:alpha|beta)\d+)?)(?P<pref>-preferredversion)?/)?"
    r"(?:namespaces/(?P<ns>[^/]+)|cluster)/(?P<name>[^/]+)\.json$"
)
_READ_ERRORS = (tarfile.TarError, EOFError, zlib.error, OSError)


class UsageError(Exception):
    pass


@dataclass
class MemberResult(FileResult):
    """What the report needs of one upgraded member, without keeping its text (flat memory)."""

    was_changed: bool = False

    @property
    def changed(self) -> bool:
        return self.was_changed


@dataclass
class Outcome:
    run: RunResult = field(default_factory=RunResult)
    members: int = 0
    changed: int = 0
    moved: dict[str, str] = field(default_factory=dict)  # member renamed with its revision: old -> new
    written: bool = False
    renames: set[tuple[str, str, str]] = field(default_factory=set)


@dataclass
class _Scan:
    index: Index
    fmt: int = tarfile.PAX_FORMAT
    gzip_mtime: int = 0
    revision_paths: set[str] = field(default_factory=set)  # candidate revision members (rename collisions)


def _is_item(m: tarfile.TarInfo) -> bool:
    """An item of a resource the engine may change: ControllerRevisions and the kubevirt.io groups.

    Everything else (pods, secrets, ...) is copied without being parsed, even when it mentions
    a VirtualMachine: faster, and its bytes are guaranteed to stay the same.
    """
    name = m.name
    while name.startswith("./"):  # a backup unpacked and repacked with `tar czf x.tar.gz .`
        name = name[2:]
    if not (m.isreg() and name.startswith("resources/") and name.endswith(".json")):
        return False
    resource = name.split("/", 2)[1]
    return resource == "controllerrevisions.apps" or resource.endswith("kubevirt.io")


def scan(path: str, settings: Settings, run: RunResult) -> _Scan:
    """Pass 1: refuse unsafe archives, index the candidate items."""
    result = _Scan(Index())
    refused: list[str] = []
    links: set[str] = set()
    try:
        with open_archive(path, settings.max_archive_bytes) as (tf, reader, gz):
            for m in members(tf):
                why = unsafe(m, links)
                if why:
                    refused.append(f"{quote(m.name)}: {why}")
                    continue
                if m.issym():
                    links.add(m.name.rstrip("/"))
                if not _is_item(m) or m.size > settings.max_document_bytes:
                    continue
                data = read_member(tf, m)
                if not textio.is_candidate(data):
                    continue
                match = ITEM.match(m.name)
                if match and match["gr"].startswith("controllerrevisions."):
                    result.revision_paths.add(m.name)
                if any(n.encode() in data for n in index_needles(settings)):
                    _index(m.name, data, settings, result.index)
            finish(path, tf, reader)
            if reader.head[257:265] == b"ustar  \0":
                result.fmt = tarfile.GNU_FORMAT
            result.gzip_mtime = int(getattr(gz, "mtime", 0) or 0)
    except BackupError:
        raise
    except _READ_ERRORS as exc:
        raise BackupError(f"{path}: not a readable gzip-compressed tar archive: {_describe(exc)}") from None
    clashes = result.index.collisions() if settings.rename else []
    if clashes:
        raise BackupError(
            f"{path}: --rename would give two items one name (an extractor keeps one): {'; '.join(clashes[:5])}"
        )
    if refused:
        raise BackupError(refusal(path, refused))
    return result


def _describe(exc: BaseException) -> str:
    if isinstance(exc, EOFError):
        return "truncated (the compressed data ends early)"
    return str(exc) or type(exc).__name__


def _index(name: str, data: bytes, settings: Settings, index: Index) -> None:
    try:
        source = textio.decode(data)
    except textio.ReadError:
        return
    for pd in iter_documents(name, source, settings, [], index_needles(settings)):
        if pd.doc is not None:
            index.add_document(pd.doc.value, rename=settings.rename, base=name)


def upgrade_backup(
    path: str, output: str | None, settings: Settings, progress: Callable[[int, int], None] | None = None
) -> Outcome:
    """Both passes; writes `output` (unless None) atomically. Raises BackupError, UsageError.
    `progress(entries done, 0)` is called for every entry of the second pass."""
    if output is not None and os.path.exists(output) and os.path.samefile(path, output):
        raise UsageError("the output must not be the input backup (it is never modified)")
    try:
        before = os.stat(path)
    except OSError as exc:
        raise BackupError(f"{path}: cannot read: {exc.strerror or exc}") from None
    outcome = Outcome()
    found = scan(path, settings, outcome.run)
    if output is None:
        _pass2(path, None, settings, found, outcome, progress)
        return outcome
    try:
        with sinks.atomic_file(output) as fh:
            _pass2(path, fh, settings, found, outcome, progress)
            if not outcome.changed:  # nothing to change: the very same bytes
                fh.seek(0)
                fh.truncate()
                with open(path, "rb") as src:
                    shutil.copyfileobj(src, fh)
            _check_unchanged(path, before)
        outcome.written = True
    except OSError as exc:
        raise BackupError(f"{output}: cannot write: {exc.strerror or exc}") from None
    return outcome


def _check_unchanged(path: str, before: os.stat_result) -> None:
    after = os.stat(path)
    if (after.st_size, after.st_mtime_ns, after.st_ino) != (before.st_size, before.st_mtime_ns, before.st_ino):
        raise BackupError(f"{path}: the backup changed while it was being read; nothing written")


def _pass2(
    path: str,
    fh: IO[bytes] | None,
    settings: Settings,
    found: _Scan,
    outcome: Outcome,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    tick = progress or (lambda done, total: None)
    try:
        with open_archive(path, settings.max_archive_bytes) as (tf, reader, _gz):
            if fh is None:
                for m in members(tf):
                    outcome.members += m.isfile()  # files, as the summary says (not directory entries)
                    tick(outcome.members, 0)
                    if _is_item(m) and m.size <= settings.max_document_bytes:
                        _member(m, read_member(tf, m), settings, found, outcome)
                    elif _is_item(m):
                        _too_large(m, settings, outcome)
            else:
                with (
                    gzip.GzipFile(filename="", mode="wb", fileobj=fh, compresslevel=6, mtime=found.gzip_mtime) as gzout,
                    tarfile.open(fileobj=gzout, mode="w|", format=found.fmt) as out,
                ):
                    for m in members(tf):
                        outcome.members += m.isfile()
                        tick(outcome.members, 0)
                        if _is_item(m) and m.size <= settings.max_document_bytes:
                            data = read_member(tf, m)
                            new, info_ = _member(m, data, settings, found, outcome)
                            out.addfile(info_, _bytes_io(new))
                            out.members.clear()  # type: ignore[attr-defined]  # TarFile keeps every header it wrote otherwise
                            continue
                        if _is_item(m):
                            _too_large(m, settings, outcome)
                        if m.islnk() and m.linkname in outcome.moved:
                            m = copy.copy(m)
                            m.linkname = outcome.moved[m.linkname]
                            m.pax_headers = {k: v for k, v in m.pax_headers.items() if k != "linkpath"}
                        out.addfile(m, tf.extractfile(m) if m.isreg() else None)
                        out.members.clear()  # type: ignore[attr-defined]
            finish(path, tf, reader)
    except BackupError:
        raise
    except _READ_ERRORS as exc:
        if (
            fh is not None
            and isinstance(exc, OSError)
            and not isinstance(exc, gzip.BadGzipFile)
            and exc.filename is None
            and exc.errno is not None
        ):
            raise BackupError(f"cannot write the output: {exc.strerror or exc}") from None
        raise BackupError(f"{path}: not a readable gzip-compressed tar archive: {_describe(exc)}") from None


def _bytes_io(data: bytes) -> IO[bytes]:
    import io

    return io.BytesIO(data)


def _too_large(m: tarfile.TarInfo, settings: Settings, outcome: Outcome) -> None:
    outcome.run.findings.append(
        warning(
            "input.too-large",
            f"item is {m.size} bytes, over --max-document-size ({settings.max_document_bytes}): "
            "copied without looking at it",
            file=m.name,
        )
    )


def _member(
    m: tarfile.TarInfo, data: bytes, settings: Settings, found: _Scan, outcome: Outcome
) -> tuple[bytes, tarfile.TarInfo]:
    """Upgrade one item; returns the bytes and header to write (the original ones unless it changed)."""
    if not textio.is_candidate(data):
        return data, m
    r = upgrade_file(m.name, data, settings, found.index)
    changed = r.changed and not r.failed and r.source is not None and r.new_text is not None
    renames = [x for x in r.renames if x not in outcome.renames] if changed else []  # once per revision,
    outcome.renames.update(renames)  # not once per copy (classic and -preferredversion paths)
    slim = MemberResult(m.name, findings=r.findings, upgraded=r.upgraded, renames=renames, was_changed=changed)
    if changed or r.findings:  # the report needs no more (and memory stays flat)
        outcome.run.results.append(slim)
    if not changed or r.source is None or r.new_text is None:
        return data, m
    outcome.changed += 1
    new = r.source.encode(r.new_text)
    header = copy.copy(m)
    header.pax_headers = {k: v for k, v in m.pax_headers.items() if k not in ("size", "path")}
    header.size = len(new)
    header.name = _new_path(m.name, slim, found, outcome)
    slim.findings.extend(_path_notes(m.name, r))
    return new, header


def _new_path(name: str, r: FileResult, found: _Scan, outcome: Outcome) -> str:
    """A renamed revision is stored under its new name (Velero finds additional items by path)."""
    match = ITEM.match(name)
    if not r.changed or match is None or not match["gr"].startswith("controllerrevisions."):
        return name
    ns = match["ns"] or ""
    new_name = next((new for n, old, new in outcome.renames if n == ns and old == match["name"]), None)
    if not new_name or name_problem(new_name):  # the one name check (revisions refuse such names earlier)
        return name
    new_path = name[: match.start("name")] + new_name + ".json"
    if new_path in found.revision_paths:
        r.findings.append(
            warning(
                "backup.path-kept",
                f"the revision is renamed to {new_name}, but {new_path} is already in the "
                "backup: the item stays under its old file name",
                file=name,
            )
        )
        return name
    outcome.moved[name] = new_path
    r.findings.append(info("backup.path-renamed", f"stored as {new_path} (its new name)", file=name))
    return new_path


def _path_notes(name: str, r: FileResult) -> list[Finding]:
    match = ITEM.match(name)
    if match is None:
        return []
    gr, ver = match["gr"], match["ver"]
    notes: list[Finding] = []
    group = gr.partition(".")[2]
    old = ver is not None and group in apis.GROUPS and f"{group}/{ver}" != apis.latest(group)
    if old and r.upgraded:
        notes.append(
            info(
                "backup.version-dir",
                f"the object is upgraded but stays under {ver}{match['pref'] or ''}/ (paths are kept): Velero "
                f"restores it from resources/{gr}/{'namespaces/…' if match['ns'] else 'cluster'}/ (upgraded too) "
                f"unless --features=EnableAPIGroupVersions picks this directory, which still works because "
                "Velero creates what the file holds",
                file=name,
            )
        )
    if gr.endswith(".flavor.kubevirt.io"):
        notes.append(
            warning(
                "backup.flavor-dir",
                f"upgraded to an instancetype.kubevirt.io kind, but the item stays under resources/{gr}/: "
                "Velero restores it as a flavor.kubevirt.io resource, which no current KubeVirt serves; apply "
                "the upgraded object by hand",
                file=name,
            )
        )
    return notes


def error_outcome(message: str, path: str = "") -> Outcome:
    """The outcome of an archive that could not be read: one error, on the archive itself."""
    outcome = Outcome()
    prefix = f"{path}: "
    if path and message.startswith(prefix):
        message = message[len(prefix) :]
    outcome.run.findings.append(error("backup.unreadable", message, file=path))
    return outcome
