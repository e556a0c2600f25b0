"""Upgrade one file's text: the pure core between reading and writing.

pre-filter -> parse candidate documents with positions -> convert on plain data -> plan the
smallest text edits -> apply -> re-parse and compare with what was intended, confirm every
comment survived, validate the upgraded objects -> either the new text or the old one with
errors. A file with any error is never rewritten; other files are unaffected.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from transform import formats
from transform.convert.document import upgrade_document
from transform.convert.index import Index
from transform.convert.outcome import Outcome
from transform.formats import registry
from transform.formats.base import Format, Held, Packed
from transform.kubevirt import apis
from transform.model import plain
from transform.model.findings import Finding, error
from transform.model.policy import Judgement, Stage, verdict
from transform.model.settings import Settings
from transform.pipeline import aliases
from transform.pipeline.results import FileResult, ParsedDoc, Part, Reading, Span, finish
from transform.pipeline.verify import answer, verify
from transform.yamltext import edits, emit, nodepath, textio
from transform.yamltext import nodes as yamlnodes


def iter_documents(
    name: str,
    source: textio.Source,
    settings: Settings,
    findings: list[Finding],
    needles: tuple[str, ...] = textio.NEEDLES_STR,
    parsed: dict[tuple[int, int], yamlnodes.Document] | None = None,
    span: Span | None = None,
    chunks: list[textio.Chunk] | None = None,
) -> Iterator[ParsedDoc]:
    """Parse, one at a time, the documents that hold a needle; report those that cannot be parsed.

    A generator: a 20 MB export is never held as parsed trees all at once. `parsed`: documents an
    earlier pass over the same text already parsed (and checked), by (start, end) of their chunk;
    each is taken out of it when used. `span`: only these chunks (a worker's share of a large file;
    documents keep their index and lines in the whole file). `chunks`: the text's documents, when an
    earlier pass split it already (`textio.split_documents`).
    """
    text = source.text
    if span is None:
        chunks, doc_index, line0, counted = textio.split_documents(text) if chunks is None else chunks, -1, 0, 0
    else:
        chunks, doc_index, line0 = span.chunks[span.lo : span.hi], span.docs - 1, span.lines
        counted = chunks[0].start if chunks else 0
    for chunk in chunks:
        body = text[chunk.start : chunk.end]
        problem = textio.stream_problem(body)
        if not textio.has_content(body) and not problem:
            continue
        doc_index += 1
        candidate = textio.holds(body, needles)
        if not candidate and not problem and not textio.tab_indented(body):
            continue
        line0 += textio.count_lines(text, counted, chunk.start)
        counted = chunk.start
        if problem:
            line = line0 + 1 + textio.problem_line(body)
            findings.append(error("input.yaml", problem, file=name, line=line, column=1, doc=doc_index))
            continue
        if not candidate:  # a line indented with a tab: libyaml may refuse the stream, which is never rewritten
            try:
                yamlnodes.compose(body)
            except yamlnodes.ParseError as exc:
                findings.append(_parse_error(name, exc, line0, doc_index, body))
            continue
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
        if parsed and (done := parsed.pop((chunk.start, chunk.end), None)) is not None:
            yield ParsedDoc(doc_index, chunk, body, done, line0)
            continue
        try:
            doc = yamlnodes.parse(body)
            bad = nonfinite(doc)
        except yamlnodes.ParseError as exc:
            findings.append(_parse_error(name, exc, line0, doc_index, body))
            continue
        if bad is not None and doc is not None:
            try:
                line, col = nodepath.locate(doc.root, bad)
            except yamlnodes.ParseError:  # JSON that YAML does not read (`"key"\r:`): the document's start
                line, col = 1, 1
            findings.append(
                error(
                    "input.number",
                    "not a finite number (NaN or infinity): JSON and Kubernetes cannot represent it; "
                    "write a real number",
                    bad,
                    file=name,
                    line=line0 + line,
                    column=col,
                    doc=doc_index,
                )
            )
            continue
        yield ParsedDoc(doc_index, chunk, body, doc, line0)


def nonfinite(doc: yamlnodes.Document | None) -> tuple[Any, ...] | None:
    """The path of a NaN or infinite number in a parsed document (JSON and Kubernetes cannot carry one)."""
    return plain.first_unrepresentable(doc.value) if doc is not None and doc.nonfinite else None


def _parse_error(name: str, exc: yamlnodes.ParseError, line0: int, doc_index: int, body: str) -> Finding:
    return error(
        "input.yaml",
        exc.message + _template_hint(body),
        file=name,
        line=line0 + exc.line if exc.line else line0 + 1,
        column=exc.column or 1,
        doc=doc_index,
    )


def _template_hint(body: str) -> str:
    if "{{" in body or "{%" in body:
        return " (this looks like a Helm or Jinja template: run the tool on rendered manifests)"
    return ""


def upgrade_file(
    name: str,
    data: bytes,
    settings: Settings,
    index: Index,
    parsed: dict[tuple[int, int], yamlnodes.Document] | None = None,
    held: Held | None = None,
    reading: Reading | None = None,
    split: tuple[textio.Source, list[textio.Chunk]] | None = None,
) -> FileResult:
    """One file's upgrade, with the run's policy applied: --select/--ignore drop warnings, --strict
    makes the rest errors, and a file with an error keeps its text (it is never written).
    `parsed`: this file's documents the index pass already parsed (see `iter_documents`).
    `held`: the container format that holds it (`formats.detect`), which reads it as text.
    `reading`: how its source has the documents read (`results.Reading`), when not as a file's.
    `split`: its text and documents, when the index pass decoded and split it already (`inputs.Item.split`)."""
    result = FileResult(name, reading.whole if reading is not None else split[0] if split is not None else None)
    try:
        result.source = result.source or textio.decode(data)
    except textio.ReadError as exc:
        result.findings.append(error("input.encoding", str(exc), file=name))
        return finish(result, [], settings)
    if held is not None:
        return finish(result, [format_file(name, result.source, settings, held)], settings)
    if not has_documents(name, data):
        return result
    if reading is not None:
        part = upgrade_documents(name, reading.source, settings, index, parsed, reading.span, reading)
        part = registry.named(reading.format).reassemble(reading.state, part) if reading.format else part
        return finish(result, [part], replace(settings, inline_ignores=False) if reading.own_ignores else settings)
    chunks = split[1] if split is not None else None
    return finish(result, [upgrade_documents(name, result.source, settings, index, parsed, chunks=chunks)], settings)


def format_file(name: str, source: textio.Source, settings: Settings, held: Held) -> Part:
    """An input a container format reads as text (`formats.base.Format.read`), its own inline ignores placed."""
    fmt = registry.format_of(held)
    part = Part()
    done = fmt.read(source.text, apis.Targets(settings.target, settings.target_cdi), held)
    found = fmt.ignores(source.text, done.findings)[0] if settings.inline_ignores else done.findings
    part.findings += [f.at(file=name) for f in found]
    if done.text != source.text:
        part.pieces.append((0, len(source.text), done.text))
        part.upgraded = done.upgraded
    return part


def has_documents(name: str, data: bytes) -> bool:
    """Does the upgrade read this file's documents? A file a format reads whole by its name (`formats.whole_file`:
    a kustomization's patch target names a group only); anything else only with a KubeVirt marker."""
    return formats.whole_file(name) or textio.is_candidate(data)


def upgrade_documents(
    name: str,
    source: textio.Source,
    settings: Settings,
    index: Index,
    parsed: dict[tuple[int, int], yamlnodes.Document] | None = None,
    span: Span | None = None,
    reading: Reading | None = None,
    chunks: list[textio.Chunk] | None = None,
) -> Part:
    """Upgrade the candidate documents of a file (of `span`, if given): plan, apply, verify each.
    `reading`: its format says the value to write for each upgraded one (`Format.adjust`: the KRM items)."""
    part = Part()
    adjusting = registry.named(reading.format) if reading is not None and reading.format else None
    if not index.facts:  # an index built without the formats (a caller's own): what they say by a name holds
        index.facts.update(registry.facts())
    rules, unpackers = registry.rules(), registry.answering("unpack")
    needles = ("",) if formats.whole_file(name) else textio.NEEDLES_STR
    for pd in iter_documents(name, source, settings, part.findings, needles, parsed, span, chunks):
        if pd.doc is None:
            continue
        locate = locator(name, pd, pd.line0)
        part.findings += duplicate_keys(pd, settings, locate)
        got = _unpacked(unpackers, pd.text, pd.doc.value, settings, index)
        if got is not None:  # a stream of its own (a Helm release record's manifest), or left by its format
            outcome = got
        else:
            outcome = upgrade_document(pd.doc.value, settings=settings, index=index, file=name, rules=rules)
            answer(outcome, pd.doc.value, settings)  # what the conversion asked the judge
            _list_items(unpackers, outcome, pd.text, pd.doc.value, settings, index)
        part.findings.extend(locate(f) for f in outcome.findings)
        if adjusting is not None and reading is not None:
            outcome.value = adjusting.adjust(reading.state, pd.index, pd.doc.value, outcome.value)
        if outcome.error or not outcome.changes:
            continue
        try:
            root = pd.doc.root  # composed here for a JSON document read without positions
        except yamlnodes.ParseError as exc:
            part.findings.append(
                error(
                    "input.yaml",
                    exc.message,
                    file=name,
                    line=pd.line0 + (exc.line or 1),
                    column=exc.column or 1,
                    doc=pd.index,
                )
            )
            continue
        text = pd.text
        shared = aliases.shared_edit(root, pd.doc.value, outcome.value) if "*" in text else None
        unshared = aliases.unshare(text, root, pd.doc.value, outcome.value, source.newline) if shared else None
        if unshared is not None:  # the aliases the change needs written out: the edits are proven by reading back
            (text, root), shared = unshared, None
        if shared is not None:
            path, node = shared
            part.findings.append(
                error(
                    "input.alias",
                    "this value would change, but it is defined by an anchor that is also used elsewhere "
                    "(an alias or a `<<` merge), or comes from a `<<` merge key: the tool changes a mapping's own "
                    "keys, one use at a time; write the value out in full where it must change",
                    path,
                    file=name,
                    line=pd.line0 + node.start_mark.line + 1,
                    column=node.start_mark.column + 1,
                    doc=pd.index,
                )
            )
            continue
        style = emit.detect_style(text, root, source.newline)
        replace = frozenset(
            id(n) for c in outcome.changes for p in c.replace if (n := nodepath.node_at(root, p)) is not None
        )
        try:
            planned = edits.plan(text, root, pd.doc.value, outcome.value, style, replace)
            body = edits.apply(text, planned)
        except (edits.EditConflict, ValueError, TypeError, KeyError, IndexError) as exc:
            part.findings.append(locate(error("internal.plan", f"could not plan the text edits: {exc}")))
            continue
        before = len(part.findings)
        line0 = pd.line0 + part.lines_added
        proof = planned if text is pd.text else []  # (after aliases were written out: read all of it back)
        ok = verify(name, pd, body, proof, line0, outcome.value, outcome.changes, settings, part.findings)
        part.after_edits += range(before, len(part.findings))
        if ok:
            part.pieces.append((pd.chunk.start, pd.chunk.end, body))
            part.lines_added += textio.count_lines(body) - textio.count_lines(pd.text)
            part.upgraded += sum(1 for c in outcome.changes if c.upgraded)
            part.renames += [r for c in outcome.changes for r in c.renames]
    return part


def duplicate_keys(pd: ParsedDoc, settings: Settings, locate: Any) -> list[Finding]:
    """Kubernetes keeps the last of duplicate keys without a word (strict field validation refuses them);
    we say it, with the severity of a problem of a document the run leaves as it is (model/policy)."""
    msg = "duplicate key: Kubernetes keeps the last value"
    if pd.doc is None:
        return []
    found = [error("input.duplicate-key", msg, path) for path, _ in pd.doc.duplicates]
    return [locate(f) for f in verdict(Judgement(own=found), Stage.CURRENT, strict=settings.strict)]


def _unpacked(unpackers: tuple[Format, ...], text: str, value: Any, settings: Settings, index: Index) -> Outcome | None:
    """A document (or a List's item) whose format holds a stream of its own in it (`Format.unpack`): the
    stream upgraded as a file's, put back by its format; an outcome its format gives as it is; None when
    no format holds one."""
    got = next((g for f in unpackers if (g := f.unpack(text, value, settings, index)) is not None), None)
    if isinstance(got, Packed):
        stream = upgrade_documents(got.name, textio.Source(got.text, False, "\n"), settings, Index())
        return registry.named(got.format).repack(got, stream)
    return got


def _list_items(
    unpackers: tuple[Format, ...], outcome: Outcome, text: str, doc: Any, settings: Settings, index: Index
) -> None:
    """The items of a `kind: List` that hold a stream of their own (what `kubectl get secrets -o yaml`
    writes of Helm release records), each upgraded as the lone document is; findings and changes said at
    the item."""
    items = doc.get("items") if unpackers and isinstance(doc, dict) and str(doc.get("kind")).endswith("List") else None
    for i, item in enumerate(items if isinstance(items, list) else []):
        done = _unpacked(unpackers, text, item, settings, index)
        if done is None:
            continue
        at = ("items", i)
        outcome.findings += [f.at(path=at + f.path) for f in done.findings]
        if done.changes and not done.error:
            outcome.set(at, done.value)
            outcome.changes += [replace(c, path=at + c.path) for c in done.changes]


def locator(name: str, pd: ParsedDoc, line0: int) -> Any:
    def locate(f: Finding) -> Finding:
        try:
            line, col = nodepath.locate(pd.doc.root, f.path) if pd.doc is not None else (0, 0)
        except yamlnodes.ParseError:
            line, col = 0, 0
        return f.at(
            file=name,
            line=line0 + line if line else line0 + 1,
            column=col or 1,
            doc=pd.index,
            object=f.object,
        )

    return locate
