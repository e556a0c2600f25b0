"""Velero backup tarballs: upgrade the KubeVirt items inside, copy every other entry unchanged.

A backup is a gzip tar: `metadata/version`, then `resources/<resource>[.<group>]/[<version>/ or
<version>-preferredversion/]{namespaces/<ns>|cluster}/<name>.json` items (compact JSON). Two
streaming passes over the input, one member in memory at a time:

1. check every entry's path (absolute, `..`, links leaving the archive: refuse the whole archive),
   index the candidate items (VMs, snapshot contents, ControllerRevisions), so that --rename
   and F1 identity recovery see the whole backup, as `fix DIR` does for a tree, and record where
   the candidate items lie in the decompressed stream (tarsplice.Span);
2. write the output through the tarball's sink (`velerosink.TarballSink`, an `outputs.Sink`): the
   decompressed stream copied as raw bytes (every header, as it was), except the candidate items,
   each planned by the pipeline one at a time (`upgrade.LazyPlan` over pass 1's index: text edits on
   the original JSON; an identical copy, as Velero writes every item twice, reuses the first one's
   result) and, when it changes, put into the sink with its header's size patched (re-encoded only
   when renamed).

The output goes to a temporary file in OUT's directory, renamed over OUT at the end. When no
entry changes, OUT is a byte copy of the input.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import shutil
import tarfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO

from transform.convert.index import Index
from transform.integrations.background import WriteBehind
from transform.integrations.tarsplice import Format, Layout, Span, Splicer, span
from transform.integrations.tarstream import (
    BackupError,
    finish,
    header_problem,
    members,
    open_archive,
    open_stream,
    quote,
    read_member,
    refusal,
    unsafe,
)
from transform.integrations.veleroitem import ITEM, Recent, Upgrade, is_item, path_notes, upgrade_item
from transform.integrations.velerosink import MemberResult, TarballSink
from transform.kubevirt.names import name_problem
from transform.model.findings import Finding, error, info, warning
from transform.model.settings import Settings
from transform.pipeline import scan_links, writes
from transform.pipeline.batch import Item, RunResult, index_documents, index_needles
from transform.pipeline.onefile import FileResult
from transform.pipeline.upgrade import LazyPlan
from transform.yamltext import textio

_READ_ERRORS = (tarfile.TarError, EOFError, zlib.error, OSError)


class UsageError(Exception):
    pass


@dataclass
class Outcome:
    run: RunResult = field(default_factory=RunResult)
    members: int = 0
    changed: int = 0
    written: bool = False
    renames: set[tuple[str, str, str]] = field(default_factory=set)


@dataclass
class _Scan:
    index: Index
    fmt: Format = tarfile.PAX_FORMAT
    gzip_mtime: int = 0
    revision_paths: set[str] = field(default_factory=set)  # candidate revision members (rename collisions)
    revisions_held: set[tuple[str, str]] = field(default_factory=set)  # (namespace, name) of every revision item
    spans: list[Span] = field(default_factory=list)  # the members pass 2 must look at, in order
    layout: Layout = field(default_factory=Layout)
    files: int = 0  # regular files (the summary counts files, not directory entries)
    end: int = 0  # where the last member ends in the decompressed stream


def scan(path: str, settings: Settings, run: RunResult) -> _Scan:
    """Pass 1: refuse unsafe archives, index the candidate items, record where pass 2 must look."""
    result = _Scan(Index())
    refused: list[str] = []
    links: set[str] = set()
    indexed = Recent()
    try:
        with open_archive(path, settings.max_archive_bytes) as (tf, reader, gz):
            start = 0
            for m in members(tf):
                why = header_problem(reader, m, start) or unsafe(m, links)
                if why:
                    refused.append(f"{quote(m.name)}: {why}")
                    start = tf.offset
                    continue
                if m.issym():
                    links.add(m.name.rstrip("/"))
                held = _revision_item(m.name) if m.isfile() else None
                if held is not None:
                    result.revisions_held.add(held)
                sp = _span(tf, m, start, settings, result, indexed)
                if sp is not None:
                    result.spans.append(sp)
                start = tf.offset
                result.files += m.isfile()
                result.layout.add(start, result.files)
            finish(path, tf, reader)
            result.end = start
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
    run.findings += _missing_revisions(path, result)
    return result


def _revision_item(name: str) -> tuple[str, str] | None:
    """(namespace, name) of a Velero ControllerRevision item, from its path
    `resources/controllerrevisions.apps/[<version>/]namespaces/<ns>/<name>.json`; None for other members."""
    parts = name.removeprefix("./").split("/")
    if "resources" not in parts:
        return None
    rest = parts[parts.index("resources") + 1 :]
    if not rest or rest[0] != "controllerrevisions.apps" or not rest[-1].endswith(".json"):
        return None
    rest = rest[1:] if rest[1:2] == ["namespaces"] else rest[2:]  # a versioned copy: one more level
    if len(rest) != 3 or rest[0] != "namespaces":
        return None
    return rest[1], rest[2].removesuffix(".json")


def _missing_revisions(path: str, found: _Scan) -> list[Finding]:
    """Every VM of the backup naming a ControllerRevision that the backup does not hold (issue: restores
    failing with "Failure to find instancetype"; the same finding as `scan` gives for a tarball)."""
    held = found.revisions_held | {(ns, n) for n, nss in found.index.revisions.items() for ns in nss}
    out = []
    for ns, vm, family, revision, via in found.index.vm_refs:
        if any(n == revision and (h == ns or not h or not ns) for h, n in held):
            continue
        name = f"{ns + '/' if ns else ''}{vm}"
        out.append(
            scan_links.missing_revision(name, family, revision, via).at(file=path, object=f"VirtualMachine/{name}")
        )
    return out


def _span(
    tf: tarfile.TarFile, m: tarfile.TarInfo, start: int, settings: Settings, result: _Scan, indexed: Recent
) -> Span | None:
    """Pass 1 for one safe entry: the span pass 2 must look at (None: copied as it is)."""
    if m.islnk():  # follows its target if --rename moves it
        return span(tf, m, start, "link")
    if not is_item(m):
        return None
    if m.size > settings.max_document_bytes:
        return span(tf, m, start, "large")
    data = read_member(tf, m)
    if not textio.is_candidate(data):
        return None
    match = ITEM.match(m.name)
    if match and match["gr"].startswith("controllerrevisions."):
        result.revision_paths.add(m.name)
    if textio.holds_bytes(data, index_needles(settings)):
        _index(m.name, data, settings, result.index, indexed)
    return span(tf, m, start, "item")


def _describe(exc: BaseException) -> str:
    if isinstance(exc, EOFError):
        return "truncated (the compressed data ends early)"
    return str(exc) or type(exc).__name__


def _index(name: str, data: bytes, settings: Settings, index: Index, indexed: Recent) -> None:
    """Index one item; its second copy (Velero writes each item twice, one after the other) adds
    nothing new to the index unless its path matters (a kustomization's does)."""
    if indexed.get(data) is not None:
        return
    try:
        source = textio.decode(data)
    except textio.ReadError:
        return
    path_used = False
    for d in index_documents(Item(name, data), settings, source):  # what the index reads, as for files
        path_used |= index.add_document(d.value, rename=settings.rename, base=name)
    if not path_used:
        indexed.put(data, True)


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
        with writes.atomic_file(output) as fh:
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
    """Pass 2: the stream copied as raw bytes, except the recorded members that change."""
    tick = progress or (lambda done, total: None)
    done = Recent()
    plan = LazyPlan(settings, found.index)  # each member planned as every input is, one at a time
    try:
        with open_stream(path, settings.max_archive_bytes) as (reader, _src), contextlib.ExitStack() as stack:
            gz: WriteBehind | None = None
            if fh is not None:
                raw = gzip.GzipFile(filename="", mode="wb", fileobj=fh, compresslevel=6, mtime=found.gzip_mtime)
                stack.enter_context(raw)
                gz = stack.enter_context(WriteBehind(raw))  # compressed on another core; stopped before raw closes
            sink = TarballSink(Splicer(reader, gz, path, found.layout, tick), found.fmt, found.end, gz)
            for item in _items(found, sink, settings, outcome):
                r, new = _member(item, upgrade_item(item, plan, done), found, outcome)
                if new is not None:
                    sink.put(r, item, new)
            outcome.members = found.files
            sink.close(None, outcome.run.failed)
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


def _items(found: _Scan, sink: TarballSink, settings: Settings, outcome: Outcome) -> Iterator[Item]:
    """The source of pass 2: the candidate members, read through the sink in the archive's order (one
    in memory at a time); hard links handed to the sink, items over the size limit reported."""
    for sp in found.spans:
        if sp.kind == "large":
            _too_large(sp, settings, outcome)
        elif sp.kind == "link":
            sink.link(sp)
        else:
            yield Item(sp.name, sink.member(sp))


def _too_large(sp: Span, settings: Settings, outcome: Outcome) -> None:
    outcome.run.findings.append(
        warning(
            "input.too-large",
            f"item is {sp.size} bytes, over --max-document-size ({settings.max_document_bytes}): "
            "copied without looking at it",
            file=sp.name,
        )
    )


def _member(item: Item, u: Upgrade, found: _Scan, outcome: Outcome) -> tuple[MemberResult, bytes | None]:
    """What the report keeps of one item's result (with the path it is stored under) and its new bytes
    (None: unchanged)."""
    renames = [x for x in u.renames if x not in outcome.renames]  # once per revision,
    outcome.renames.update(renames)  # not once per copy (classic and -preferredversion paths)
    changed = u.new is not None
    slim = MemberResult(item.name, findings=u.findings, upgraded=u.upgraded, renames=renames, was_changed=changed)
    if changed or u.findings:  # the report needs no more (and memory stays flat)
        outcome.run.results.append(slim)
    if u.new is None:
        return slim, None
    outcome.changed += 1
    slim.path = _new_path(item.name, slim, found, outcome)
    slim.findings.extend(path_notes(item.name, u.upgraded))
    return slim, u.new


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
    r.findings.append(info("backup.path-renamed", f"stored as {new_path} (its new name)", file=name))
    return new_path


def error_outcome(message: str, path: str = "") -> Outcome:
    """The outcome of an archive that could not be read: one error, on the archive itself."""
    outcome = Outcome()
    prefix = f"{path}: "
    if path and message.startswith(prefix):
        message = message[len(prefix) :]
    outcome.run.findings.append(error("backup.unreadable", message, file=path))
    return outcome
