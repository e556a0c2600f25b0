"""Inline ignores: `# instancetype-upgrade: ignore=CODE[,CODE...]` silences findings where it is written.

A directive is a comment. At the end of a field's line, or on a line of its own just before the field,
it covers that field and everything below it; on the line of an object's `apiVersion:` (or just before
it) it covers the whole object: the whole document for the top-level `apiVersion`. CODEs match as
--ignore's do (a code or code prefix, `schema.unknown-field`, `webhook.`, or an API family, `cdi`).
A covered warning or info is suppressed (counted in --statistics, not reported, not made an error by
--strict); an error never is: an error blocks the upgrade of its file, and the run must say why.

Why a comment and not an annotation (kube-linter's `ignore-check.kube-linter.io/<check>`): a comment is
no change to the object the API server stores, and it can name one field, as ruff's `# noqa: CODE`
names one line. `--no-inline-ignores` (or `inline-ignores = false` in the configuration) turns them off.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from transform.model.codes import unknown_selector
from transform.model.findings import Finding, Severity, matches, warning
from transform.yamltext import nodes, textio
from transform.yamltext.nodepath import iter_scalars

MARKER = "instancetype-upgrade:"
_DIRECTIVE = re.compile(r"(?:^|(?<=[ \t]))#[ \t]*instancetype-upgrade:[ \t]*(?P<rest>[^\r\n]*)", re.M)
_IGNORE = re.compile(r"ignore[ \t]*=[ \t]*(?P<codes>[^\s#]*)")
_CODE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")
_BREAK = re.compile(r"\r\n|\r|\n")  # the line breaks YAML reads


@dataclass(frozen=True)
class Directive:
    doc: int  # 0-based document index, as findings count them
    line: int  # 1-based line of the comment in the file
    codes: tuple[str, ...]
    path: tuple[Any, ...]  # what it covers: this path and below (() = the whole document)


def find(text: str, chunks: list[textio.Chunk] | None = None) -> tuple[list[Directive], list[Finding]]:
    """The directives of a file's text, and a warning for each that is malformed or covers nothing.
    `chunks`: the documents, when they are not the text's YAML documents (a KRM ResourceList's items)."""
    out: list[Directive] = []
    problems: list[Finding] = []
    if MARKER not in text:
        return out, problems
    doc_index, line0, counted = -1, 0, 0
    for chunk in textio.split_documents(text) if chunks is None else chunks:
        body = text[chunk.start : chunk.end]
        if chunks is None and not textio.has_content(body) and not textio.stream_problem(body):
            continue
        doc_index += 1
        if MARKER not in body:
            continue
        line0 += textio.count_lines(text, counted, chunk.start)
        counted = chunk.start
        try:
            root = nodes.compose(body)
        except nodes.ParseError:
            # the document's parse error is reported by the run; a template's directives are read by line
            # (transform.convert.helmignores): the codes they name are checked here all the same
            for line, codes in _by_line(body):
                problems += _unknown(codes, line0 + line, doc_index)
            continue
        for line, codes, path, problem in _in_document(body, root):
            if problem:
                problems.append(warning("inline-ignore.invalid", problem, line=line0 + line, column=1, doc=doc_index))
            else:
                out.append(Directive(doc_index, line0 + line, codes, path))
                problems += _unknown(codes, line0 + line, doc_index)
    return out, problems


def _unknown(codes: tuple[str, ...], line: int, doc: int) -> list[Finding]:
    """A warning for each code of a directive that names no finding code, prefix or family (it silences
    nothing: a typo must not pass for a silenced finding)."""
    out = []
    for code in codes:
        why = unknown_selector(code)
        if why is not None:
            out.append(warning("inline-ignore.unknown-code", f"ignore={code}: {why}", line=line, column=1, doc=doc))
    return out


def _by_line(body: str) -> list[tuple[int, tuple[str, ...]]]:
    """(1-based line in body, codes) of each well-formed directive of a document that does not parse."""
    found = []
    for m in _DIRECTIVE.finditer(body):
        codes, problem = _codes(m.group("rest"))
        if not problem:
            found.append((textio.count_lines(body, 0, m.start()) + 1, codes))
    return found


def _in_document(body: str, root: Node | None) -> list[tuple[int, tuple[str, ...], tuple[Any, ...], str]]:
    """(1-based line in body, codes, covered path, problem) of each directive comment in one document."""
    spans = sorted((s.start_mark.index, s.end_mark.index) for s in iter_scalars(root)) if root is not None else []
    starts = [a for a, _ in spans]
    reach = list(accumulate((b for _, b in spans), max))  # the furthest end of the spans up to each one
    lines = _lines(root)
    all_lines = _BREAK.split(body)
    found = []
    for m in _DIRECTIVE.finditer(body):
        i = bisect_right(starts, m.start()) - 1
        if i >= 0 and reach[i] > m.start():
            continue  # inside a scalar (a block scalar's text, a quoted string)
        line = textio.count_lines(body, 0, m.start())  # 0-based
        own_line = not body[_line_start(body, m.start()) : m.start()].strip()
        codes, problem = _codes(m.group("rest"))
        target = _next_content_line(all_lines, line) if own_line else line
        path = lines.get(target) if target is not None else None
        if not problem and path is None:
            problem = (
                "this inline ignore covers nothing: write it at the end of a field's line or on the line just "
                "before the field (on the apiVersion line: the whole object)"
            )
        found.append((line + 1, codes, path or (), problem))
    return found


def _line_start(body: str, pos: int) -> int:
    return max(body.rfind("\n", 0, pos), body.rfind("\r", 0, pos)) + 1


def _codes(rest: str) -> tuple[tuple[str, ...], str]:
    m = _IGNORE.match(rest.strip())
    codes = tuple(c for c in m.group("codes").split(",") if c) if m else ()
    if not m or not codes or not all(_CODE.fullmatch(c) for c in codes):
        return (), f"not an inline ignore: expected `# instancetype-upgrade: ignore=CODE[,CODE...]`, got {rest!r}"
    return codes, ""


def _next_content_line(lines: list[str], line: int) -> int | None:
    """The 0-based line after `line` that holds YAML content (not blank, not only a comment)."""
    for number, text in enumerate(lines[line + 1 :], line + 1):
        stripped = text.strip()
        if stripped and not stripped.startswith("#"):
            return None if stripped.startswith(("---", "...")) else number
    return None


def _lines(root: Node | None) -> dict[int, tuple[Any, ...]]:
    """0-based line -> the path of the outermost field or item that starts on it; an `apiVersion` key
    stands for its object (the document, for the top-level one)."""
    out: dict[int, tuple[Any, ...]] = {}
    stack: list[tuple[Node, tuple[Any, ...]]] = [(root, ())] if root is not None else []
    seen: set[int] = set()
    while stack:  # a parent is visited before its children: the outermost node of a line is set first
        node, path = stack.pop()
        if id(node) in seen:  # an alias: its node is walked once
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            for key, value in node.value:
                if isinstance(key, ScalarNode):
                    if key.value == "apiVersion":
                        out[key.start_mark.line] = path
                    else:
                        out.setdefault(key.start_mark.line, (*path, key.value))
                    stack.append((value, (*path, key.value)))
        elif isinstance(node, SequenceNode):
            for i, item in enumerate(node.value):
                out.setdefault(item.start_mark.line, (*path, i))
                stack.append((item, (*path, i)))
    return out


def covered(f: Finding, directives: list[Directive]) -> Directive | None:
    """The directive that suppresses `f`, if one does (errors are never suppressed)."""
    if f.severity is Severity.ERROR or f.doc is None:
        return None
    for d in directives:
        if d.doc == f.doc and f.path[: len(d.path)] == d.path and any(matches(f, c) for c in d.codes):
            return d
    return None


def apply(
    text: str, findings: list[Finding], file: str, chunks: list[textio.Chunk] | None = None
) -> tuple[list[Finding], list[Finding]]:
    """(findings kept, findings suppressed) for one file's text; malformed directives are warned about.
    `chunks`: as for `find`."""
    if chunks is None:
        return apply_files({file: text}, findings)
    directives, problems = find(text, chunks)
    kept = [f for f in findings if not covered(f, directives)]
    return kept + [p.at(file=file) for p in problems], [f for f in findings if covered(f, directives)]


def apply_files(
    texts: dict[str, str], findings: list[Finding], warn: bool = True
) -> tuple[list[Finding], list[Finding]]:
    """`apply` for the findings of several files (a scan), each judged by the directives of its own text;
    `warn`: add the warnings about malformed directives to the findings kept."""
    found = {name: find(text) for name, text in texts.items()}
    kept: list[Finding] = []
    suppressed: list[Finding] = []
    for f in findings:
        directives = found[f.file][0] if f.file in found else []
        (suppressed if covered(f, directives) else kept).append(f)
    if warn:
        kept += [p.at(file=name) for name, (_, problems) in found.items() for p in problems]
    return kept, suppressed
