"""Carry out fix / check / diff / validate: inputs in, files or streams out, a report, an exit code."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import click

from transform.cli.exits import EXIT_CHANGED, EXIT_ERROR, EXIT_OK, write_report
from transform.cli.progress import Progress
from transform.model.findings import Severity, error, quote_name, warning
from transform.model.limits import file_limit
from transform.model.policy import run_policy
from transform.model.settings import Settings
from transform.pipeline import sinks, sources
from transform.pipeline.batch import Item, RunResult, read_inputs
from transform.pipeline.sources import Input

if TYPE_CHECKING:
    from transform.convert.index import Index
    from transform.pipeline.onefile import FileResult
    from transform.pipeline.sources import Skipped


def run(command: str, paths: list[str], c: Settings) -> int:
    """Run fix/check/diff/validate over `paths` (or ["-"]); the exit code."""
    settings = c
    result = RunResult()
    stdin = paths == ["-"]
    limit = file_limit(c.max_document_bytes)
    if stdin:
        result.files_seen = 1
        try:
            items = [Item("<stdin>", sources.read_stream(sys.stdin.buffer, limit))]
        except sources.InputError as exc:
            items = []
            result.findings.append(error("input.refused", f"stdin: {exc}"))
    else:
        found: list[str] = []  # every file read, candidate or not (--output-file must be none of them)
        items = read_inputs(_noted(sources.discover(paths, c.include, c.exclude), found), result, limit)
        if not result.files_seen and not result.findings:
            result.findings.append(
                warning(
                    "input.no-files",
                    f"no files matched in {', '.join(paths)} (*.yaml, *.yml, *.json"
                    + (f"; --include {' '.join(c.include)}" if c.include else "")
                    + (f"; --exclude {' '.join(c.exclude)}" if c.exclude else "")
                    + ")",
                    file=", ".join(paths),
                )
            )
    out_names = _output_names(items, c.output_dir) if c.output_dir else {}
    if c.output_file and not stdin:
        # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
        from transform.pipeline import reportfile

        clash = reportfile.clash(c.output_file, [*paths, *found], output_dir=c.output_dir)
        if clash:
            raise click.UsageError(clash + "; nothing written")
    progress = Progress(enabled=not stdin and c.fmt == "text")
    index = None
    if items:
        if command == "validate":
            # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
            from transform.pipeline.validate_files import validate_items

            validate_items(items, settings, result)
        else:
            # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
            from transform.pipeline.upgrade import upgrade_items

            # the progress line counts what the summary counts: every file seen (those without anything
            # KubeVirt in them were read and checked already, so they are done)
            done_already = result.files_seen - len(items)
            seen = lambda done, total: progress(done_already + done, done_already + total)  # noqa: E731
            index = upgrade_items(items, settings, result, seen, jobs=c.jobs)
            if c.debug and result.jobs_note:
                click.echo(f"instancetype-upgrade: debug: {result.jobs_note}", err=True)
    progress.close()
    code = _outputs(command, result, items, c, stdin=stdin, out_names=out_names, write=command == "fix", index=index)
    fixed = command == "fix" and not stdin
    written = sum(1 for r in result.results if r.changed and not r.failed and not r.write_failed) if fixed else 0
    done = f" (after {written} file(s) had been rewritten)" if written else ""
    report(command, result, c, stdout_is_data=stdin or command == "diff", done=done)
    if command == "fix" and c.exit_zero_even_if_changed and code == EXIT_CHANGED:
        return EXIT_OK
    if c.exit_zero and code != EXIT_OK and not _input_failed(result):
        return EXIT_OK  # report-only: findings do not fail the run; unreadable input still does
    return code


def _noted(found: Iterable[Input | Skipped], paths: list[str]) -> Iterator[Input | Skipped]:
    for entry in found:
        if isinstance(entry, Input):
            paths.append(entry.path)
        yield entry


def _input_failed(result: RunResult) -> bool:
    return any(
        f.severity is Severity.ERROR and f.code.startswith(("input.", "output.", "internal."))
        for f in result.all_findings
    )


def _outputs(
    command: str,
    result: RunResult,
    items: list[Item],
    c: Settings,
    *,
    stdin: bool,
    out_names: dict[str, str],
    write: bool,
    index: Index | None = None,
) -> int:
    by_name = {i.name: i for i in items}
    out_dir = sinks.OutputDir(c.output_dir) if c.output_dir else None
    changed = 0
    # --rename: every file is planned (upgraded in memory) before any is written; the revisions' files
    # are written first, and a file whose references depend on a revision that could not be written is
    # planned again without that rename (its references keep the old name) before it is written.
    order = list(range(len(result.results)))
    if write:
        order.sort(key=lambda i: not result.results[i].renames)
    unwritten: set[str] = set()
    for pos in order:
        r = result.results[pos]
        if unwritten and index is not None and any(f.code == "reference.renamed" for f in r.findings):
            r = result.results[pos] = _replan(by_name[r.name], unwritten, index, c)
        if command == "validate" or not r.changed or r.failed or r.source is None or r.new_text is None:
            continue
        olds = {old for _, old, _ in r.renames}
        new_bytes = r.source.encode(r.new_text)
        if command == "diff":
            sys.stdout.write(sinks.unified_diff(r.name if not stdin else "stdin", r.source.text, r.new_text))
        elif write and not stdin:
            item = by_name[r.name]
            try:
                if out_dir:
                    note = "Writing " + quote_name(out_dir.write(out_names[r.name], new_bytes))
                elif not c.force and _read_only(item.input.path if item.input else r.name):
                    r.findings.append(
                        error("output.read-only", "read-only, not rewritten (use --force to rewrite it)", file=r.name)
                    )
                    r.renames = []
                    r.write_failed = True
                    continue
                else:
                    sinks.write_atomic(
                        item.input.path if item.input else r.name, new_bytes, expect=item.data, pin=item.pin
                    )
                    note = f"Rewriting {quote_name(r.name)}"  # as pyupgrade and the pre-commit fixers say it
                if c.fmt == "text" and not c.quiet:  # -q: problems and the summary only
                    sys.stderr.write(note + "\n")
            except sinks.WriteError as exc:
                r.findings.append(error("output.write", str(exc), file=r.name))
                r.renames = []
                r.write_failed = True
                unwritten |= olds
                continue
        changed += 1
    policy(result, c)
    failed = result.failed
    if stdin and command == "fix":
        if failed:
            return EXIT_ERROR
        first = result.results[0] if result.results else None
        data = items[0].data if items else b""
        if first is not None and first.changed and first.source is not None and first.new_text is not None:
            data = first.source.encode(first.new_text)
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return EXIT_OK
    if failed:
        return EXIT_ERROR
    if command == "validate":
        return EXIT_OK
    return EXIT_CHANGED if changed else EXIT_OK


def _replan(item: Item, unwritten: set[str], index: Index, settings: Settings) -> FileResult:
    """`item` upgraded again without the renames whose revision files could not be written."""
    # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
    from transform.pipeline.onefile import upgrade_file

    for old in unwritten:
        index.renames.pop(old, None)
    r = upgrade_file(item.name, item.data, settings, index, None, item.role)
    r.findings.append(
        warning(
            "reference.kept",
            f"references to {', '.join(sorted(unwritten))} keep the old name: the revision's file could not be "
            "written (see its error)",
            file=item.name,
        )
    )
    return r


def _output_names(items: list[Item], output_dir: str) -> dict[str, str]:
    """Every input's path under --output-dir; two inputs that would write one path are a usage error
    raised before anything is read further or written."""
    names = sinks.output_names([(i.name, i.input.root if i.input else "") for i in items])
    clashes = sinks.collisions(names)
    if clashes:
        listing = "; ".join(f"{os.path.join(output_dir, rel)} <- {', '.join(srcs)}" for rel, srcs in clashes)
        raise click.UsageError(f"--output-dir: inputs would overwrite each other's copy ({listing}); nothing written")
    return names


def _read_only(path: str) -> bool:
    """The user's protection is a signal (even for root, who could write anyway)."""
    try:
        return not os.stat(path).st_mode & 0o222
    except OSError:
        return False


def policy(result: RunResult, c: Settings) -> None:
    """--select/--ignore and --strict on every finding (the engine applied them to files already);
    a failed file reports no change (it was not and will not be written)."""
    result.findings = run_policy(result.findings, strict=c.strict, select=c.select, ignore=c.ignore)
    for r in result.results:
        r.findings = run_policy(r.findings, strict=c.strict, select=c.select, ignore=c.ignore)
        if r.failed:
            r.findings = [f for f in r.findings if f.severity is not Severity.INFO]


def report(
    command: str, result: RunResult, c: Settings, *, stdout_is_data: bool = False, done: str = "", archive: str = ""
) -> None:
    # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
    from transform.report import formats

    policy(result, c)
    everything = result.all_findings
    findings = [f for f in everything if f.severity is not Severity.INFO] if c.quiet else everything
    if command in ("check", "diff"):
        findings = [formats.would(f) for f in findings]
    renames = [r for res in result.results if not res.failed for r in res.renames]
    changed = [r.name for r in result.results if r.changed and not r.failed and not r.write_failed]
    summary = formats.Summary(
        command=command,
        files_seen=result.files_seen,
        archive=archive,
        files_changed=len(changed),
        objects_upgraded=sum(r.upgraded for r in result.results if not r.failed),
        errors=sum(1 for f in everything if f.severity is Severity.ERROR),
        warnings=sum(1 for f in everything if f.severity is Severity.WARNING),
        renames=renames,
        files=result.names or [r.name for r in result.results],
        changed_files=changed,
        suppressed=[f for r in result.results for f in r.suppressed],
        changes_fail=command in ("check", "diff")
        and not c.exit_zero
        or command == "fix"
        and not c.exit_zero_even_if_changed,
    )
    render = formats.render_statistics if c.statistics else formats.RENDERERS[c.fmt.lower()]
    write_report(render(findings, summary), c.output_file, stdout_is_data=stdout_is_data, done=done)
