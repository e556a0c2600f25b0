"""A file's result, and the parts it is joined from: the whole file, or the runs of documents that
worker processes upgraded (`parallel`), joined in order into exactly what one process gives."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from transform.model.findings import Finding, Severity
from transform.model.policy import fails
from transform.model.settings import Settings
from transform.yamltext import textio

if TYPE_CHECKING:
    from transform.yamltext import nodes as yamlnodes


@dataclass
class FileResult:
    name: str
    source: textio.Source | None = None
    new_text: str | None = None  # None: leave the file as it is
    findings: list[Finding] = field(default_factory=list)
    upgraded: int = 0
    renames: list[tuple[str, str, str]] = field(default_factory=list)  # (namespace, old, new)
    write_failed: bool = False
    refused: bool = False  # --strict: a warning fails the file (`model.policy.fails`): it is not written
    suppressed: list[Finding] = field(default_factory=list)  # by inline ignores (yamltext.ignores)

    @property
    def failed(self) -> bool:
        return self.refused or any(f.severity is Severity.ERROR and f.code != "strict" for f in self.findings)

    @property
    def changed(self) -> bool:
        return self.new_text is not None and self.source is not None and self.new_text != self.source.text


MARKER = "instancetype-upgrade:"  # == yamltext.ignores.MARKER (a test checks): no parser import to look for it


def suppress_inline(result: FileResult, settings: Settings) -> None:
    """The file's own `# instancetype-upgrade: ignore=CODE` comments: the findings they cover move to
    `result.suppressed` (before --strict, so a suppressed warning fails nothing; errors always stay)."""
    if settings.inline_ignores and result.source is not None and MARKER in result.source.text:
        # lazy: only a file that holds a directive composes its documents again
        from transform.yamltext import ignores

        result.findings, result.suppressed = ignores.apply(result.source.text, result.findings, result.name)


@dataclass
class ParsedDoc:
    index: int  # document index in the file
    chunk: textio.Chunk
    text: str  # the chunk's text
    doc: yamlnodes.Document | None
    line0: int = 0  # lines before the chunk


@dataclass(frozen=True)
class Span:
    """Chunks `lo` to `hi` (positions in `chunks`, the file's `textio.split_documents`), after `docs`
    documents and `lines` lines of the file (see `spans`)."""

    chunks: list[textio.Chunk]
    lo: int
    hi: int
    docs: int
    lines: int


def spans(text: str, chunks: list[textio.Chunk], cuts: list[int]) -> list[Span]:
    """A file cut before the chunks at `cuts` (positions, increasing, from 0 to len(chunks)): each span
    with the documents (as `onefile.iter_documents` counts them) and the lines before it, in one pass."""
    out: list[Span] = []
    docs = lines = counted = 0
    for lo, hi in zip(cuts, cuts[1:], strict=False):
        start = chunks[lo].start if lo < len(chunks) else len(text)
        lines += textio.count_lines(text, counted, start)
        counted = start
        out.append(Span(chunks, lo, hi, docs, lines))
        for chunk in chunks[lo:hi]:
            body = text[chunk.start : chunk.end]
            docs += bool(textio.has_content(body) or textio.stream_problem(body))
    return out


@dataclass
class Part:
    """A run of one file's documents upgraded: the whole file, or a worker's share of a large one.
    `finish` joins the parts of a file, in order, into its `FileResult`."""

    findings: list[Finding] = field(default_factory=list)
    pieces: list[tuple[int, int, str]] = field(default_factory=list)  # (start, end, new text) per changed document
    upgraded: int = 0
    renames: list[tuple[str, str, str]] = field(default_factory=list)
    lines_added: int = 0  # by the pieces (negative: removed)
    # findings located in the edited text (they read the document back): the parts before this
    # one move them by their `lines_added`
    after_edits: list[int] = field(default_factory=list)


def finish(result: FileResult, parts: list[Part], settings: Settings) -> FileResult:
    """A file's result from its parts, in document order; a file the run's policy fails keeps its text."""
    assert result.source is not None or not parts
    pieces: list[tuple[int, int, str]] = []
    shift = 0
    for part in parts:
        moved = set(part.after_edits) if shift else set()
        result.findings += [f.at(line=f.line + shift) if i in moved else f for i, f in enumerate(part.findings)]
        pieces += part.pieces
        result.upgraded += part.upgraded
        result.renames += part.renames
        shift += part.lines_added
    if result.failed:
        result.renames = []
    elif pieces and result.source is not None:
        text = result.source.text
        out, pos = [], 0
        for start, end, body in pieces:
            out += [text[pos:start], body]
            pos = end
        out.append(text[pos:])
        result.new_text = "".join(out)
    suppress_inline(result, settings)
    if settings.modernize and result.changed:
        # a deprecated value that --modernize rewrote is no longer there to warn about
        rewritten = {(f.doc, f.path) for f in result.findings if f.code.startswith("modernize.")}
        result.findings = [
            f for f in result.findings if not (f.code.startswith("webhook.deprecated") and (f.doc, f.path) in rewritten)
        ]
    if settings.strict and fails(result.findings, strict=True, select=settings.select, ignore=settings.ignore):
        result.refused = True  # (the report applies the policy to the findings, once: `model.policy.decide`)
        result.new_text, result.renames = None, []
    return result


@dataclass
class Reading:
    """How a source has its input's documents read when not as a file's (the KRM function's items:
    `integrations/krm`): from `source` (a text with the input's offsets), only the chunks of `span`;
    `adjust(pd, upgraded)` gives the value to write instead of each upgraded one; `after(part)` turns
    the upgraded documents into the input's part; `own_ignores`: `after` applied the inline ignores
    (`finish` does not read the text for them again); `whole`: the input's own text, decoded already.
    The index and the upgrade both read it, so each document is parsed once and the input is never a
    node tree whole."""

    source: textio.Source
    whole: textio.Source | None = None
    span: Span | None = None
    adjust: Callable[[ParsedDoc, Any], Any] | None = None
    after: Callable[[Part], Part] | None = None
    own_ignores: bool = False
