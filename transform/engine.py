"""Upgrade one file's text: the pure core between reading and writing.

pre-filter -> parse candidate documents with positions -> convert on plain data -> plan the
smallest text edits -> apply -> re-parse and compare with what was intended, confirm every
comment survived, validate the upgraded objects -> either the new text or the old one with
errors. A file with any error is never rewritten; other files are unaffected.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from yaml.nodes import Node

from transform import edits, emit, textio, yamlnodes
from transform.documents import Change, upgrade_document
from transform.findings import Finding, Severity, error
from transform.index import Index
from transform.settings import Settings


@dataclass
class FileResult:
    name: str
    source: textio.Source | None = None
    new_text: str | None = None  # None: leave the file as it is
    findings: list[Finding] = field(default_factory=list)
    upgraded: int = 0
    renames: list[tuple[str, str, str]] = field(default_factory=list)  # (namespace, old, new)
    write_failed: bool = False

    @property
    def failed(self) -> bool:
        return any(f.severity is Severity.ERROR and f.code != "strict" for f in self.findings)

    @property
    def changed(self) -> bool:
        return self.new_text is not None and self.source is not None and self.new_text != self.source.text


@dataclass
class ParsedDoc:
    index: int  # document index in the file
    chunk: textio.Chunk
    text: str  # the chunk's text
    doc: yamlnodes.Document | None


def iter_documents(
    name: str,
    source: textio.Source,
    settings: Settings,
    findings: list[Finding],
    needles: tuple[str, ...] = textio.NEEDLES_STR,
) -> list[ParsedDoc]:
    """Parse the documents that hold a needle; report the ones that cannot be parsed."""
    out: list[ParsedDoc] = []
    text = source.text
    doc_index = -1
    for chunk in textio.split_documents(text):
        body = text[chunk.start : chunk.end]
        if not _has_content(body):
            continue
        doc_index += 1
        if not any(n in body for n in needles):
            continue
        line0 = text.count("\n", 0, chunk.start)
        if len(body) > settings.max_document_bytes:
            findings.append(
                error(
                    "input.too-large",
                    f"document is {len(body)} bytes, over the limit of {settings.max_document_bytes} "
                    "(raise it with --max-document-size)",
                    file=name,
                    line=line0 + 1,
                    column=1,
                    doc=doc_index,
                )
            )
            continue
        try:
            doc = yamlnodes.parse(body)
        except yamlnodes.ParseError as exc:
            findings.append(
                error(
                    "input.yaml",
                    exc.message + _template_hint(body),
                    file=name,
                    line=line0 + exc.line if exc.line else line0 + 1,
                    column=exc.column or 1,
                    doc=doc_index,
                )
            )
            continue
        out.append(ParsedDoc(doc_index, chunk, body, doc))
    return out


def _has_content(body: str) -> bool:
    for line in body.splitlines():
        s = line.strip()
        if s and not s.startswith("#") and s not in ("---", "...") and not s.startswith("%"):
            return True
    return False


def _template_hint(body: str) -> str:
    if "{{" in body or "{%" in body:
        return " (this looks like a Helm or Jinja template: run the tool on rendered manifests)"
    return ""


def upgrade_file(name: str, data: bytes, settings: Settings, index: Index) -> FileResult:
    result = FileResult(name)
    try:
        source = textio.decode(data)
    except textio.ReadError as exc:
        result.findings.append(error("input.encoding", str(exc), file=name))
        return result
    result.source = source
    if not textio.is_candidate(data):
        return result
    docs = iter_documents(name, source, settings, result.findings)
    all_edits: list[edits.Edit] = []
    checks: list[tuple[ParsedDoc, Any, list[Change]]] = []
    for pd in docs:
        if pd.doc is None:
            continue
        line0 = source.text.count("\n", 0, pd.chunk.start)
        locate = _locator(name, pd, line0)
        for path, _node in pd.doc.duplicates:
            result.findings.append(
                locate(
                    Finding(
                        Severity.ERROR if settings.strict else Severity.WARNING,
                        "input.duplicate-key",
                        "duplicate key: Kubernetes keeps the last value",
                        path=path,
                    )
                )
            )
        outcome = upgrade_document(pd.doc.value, settings=settings, index=index, file=name)
        result.findings.extend(locate(f) for f in outcome.findings)
        if outcome.error or not outcome.changes:
            continue
        new_value = outcome.value
        style = emit.detect_style(pd.text, pd.doc.root, source.newline)
        replace = frozenset(
            id(n)
            for c in outcome.changes
            for p in c.replace
            if (n := yamlnodes.node_at(pd.doc.root, p)) is not None
        )
        try:
            doc_edits = edits.plan(pd.text, pd.doc.root, pd.doc.value, new_value, style, replace)
        except (edits.EditConflict, ValueError, TypeError, KeyError, IndexError) as exc:
            result.findings.append(locate(error("internal.plan", f"could not plan the text edits: {exc}")))
            continue
        all_edits += [edits.Edit(e.start + pd.chunk.start, e.end + pd.chunk.start, e.text) for e in doc_edits]
        checks.append((pd, new_value, outcome.changes))
        result.upgraded += sum(1 for c in outcome.changes if c.upgraded)
        result.renames += [r for c in outcome.changes for r in c.renames]
    if result.failed or not all_edits:
        result.renames = [] if result.failed else result.renames
        return result
    try:
        new_text = edits.apply(source.text, all_edits)
    except edits.EditConflict as exc:
        result.findings.append(error("internal.plan", str(exc), file=name))
        return result
    _verify(name, source.text, new_text, checks, settings, result)
    if not result.failed:
        result.new_text = new_text
    else:
        result.renames = []
    return result


def _locator(name: str, pd: ParsedDoc, line0: int) -> Any:
    root = pd.doc.root if pd.doc else None

    def locate(f: Finding) -> Finding:
        line, col = yamlnodes.locate(root, f.path) if root is not None else (0, 0)
        return f.at(
            file=name,
            line=line0 + line if line else line0 + 1,
            column=col or 1,
            doc=pd.index,
            object=f.object,
        )

    return locate


def _verify(
    name: str,
    old_text: str,
    new_text: str,
    checks: list[tuple[ParsedDoc, Any, list[Change]]],
    settings: Settings,
    result: FileResult,
) -> None:
    """Re-read what we wrote: same values as intended, every comment kept, valid objects."""
    old_starts = [c.start for c in textio.split_documents(old_text)]
    new_chunks = textio.split_documents(new_text)
    if len(new_chunks) != len(old_starts):
        result.findings.append(
            error(
                "internal.verify",
                "edits changed the document structure; file left unchanged (please report this)",
                file=name,
            )
        )
        return
    for pd, intended, changes in checks:
        chunk = new_chunks[old_starts.index(pd.chunk.start)]
        body = new_text[chunk.start : chunk.end]
        line0 = new_text.count("\n", 0, chunk.start)
        where = {"file": name, "line": line0 + 1, "doc": pd.index}
        try:
            doc = yamlnodes.parse(body)
        except yamlnodes.ParseError as exc:
            result.findings.append(
                error(
                    "internal.verify",
                    f"edited document does not parse: {exc.message}; "
                    "file left unchanged (please report this)",
                    **where,
                )
            )
            continue
        back = doc.value if doc else None
        if doc is None or not edits.same(back, intended):
            result.findings.append(
                error(
                    "internal.verify",
                    "edited document does not read back as intended; "
                    "file left unchanged (please report this)",
                    **where,
                )
            )
            continue
        lost = Counter(_comments(pd.text, pd.doc.root if pd.doc else None)) - Counter(
            _comments(body, doc.root)
        )
        if lost:
            result.findings.append(
                error(
                    "internal.comments",
                    f"a comment would be lost: {next(iter(lost))!r}; "
                    "file left unchanged (please report this)",
                    **where,
                )
            )
        if settings.validate_output:
            for change in changes:
                for f in change.validate(back):
                    line, col = yamlnodes.locate(doc.root, f.path)
                    result.findings.append(f.at(file=name, line=line0 + line, column=col, doc=pd.index))


def _comments(text: str, root: Node | None) -> list[str]:
    if root is None:
        return []
    return [c.strip() for c in edits.comments(text, 0, len(text), [root])]
