"""Carry out fix / check / diff / validate: inputs in, files or streams out, a report, an exit code."""

from __future__ import annotations

import os

import click

from transform.cli.exits import EXIT_CHANGED, EXIT_ERROR, EXIT_OK, write_report
from transform.cli.progress import Progress
from transform.model.findings import Severity
from transform.model.policy import run_policy
from transform.model.settings import Settings
from transform.pipeline import outputs, writes
from transform.pipeline.batch import Item, RunResult, read_context, read_sources
from transform.pipeline.upgrade import Plan


def run(command: str, paths: list[str], c: Settings) -> int:
    """Run fix/check/diff/validate over `paths` (or ["-"]): a source gives the inputs, the pipeline plans
    (or validates) them, a sink takes the plan (`pipeline.outputs`), the report says it; the exit code."""
    result = RunResult()
    stdin = paths == ["-"]
    found: list[str] = []  # every file read, candidate or not (--output-file must be none of them)
    items = read_sources(paths, c, result, found)
    # --context: read only when some input is a candidate (a pre-commit run with nothing relevant reads no more)
    context = read_context(c.context, c, found, items) if items and c.context else []
    out_names = _output_names(items, c.output_dir) if c.output_dir else {}
    if c.output_file and not stdin:
        # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
        from transform.pipeline import reportfile

        clash = reportfile.clash(c.output_file, [*paths, *found], output_dir=c.output_dir)
        if clash:
            raise click.UsageError(clash + "; nothing written")
    progress = Progress(enabled=not stdin and c.fmt == "text")
    plan = Plan(items, result)
    if items:
        if command == "validate":
            # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
            from transform.pipeline.validate_files import validate_items

            validate_items(items, c, result, context)
        else:
            # lazy: start-up: a pre-commit run with nothing relevant imports only click and light modules
            from transform.pipeline.upgrade import upgrade_items

            # the progress line counts what the summary counts: every file seen (those without anything
            # KubeVirt in them were read and checked already, so they are done)
            done_already = result.files_seen - len(items)
            seen = lambda done, total: progress(done_already + done, done_already + total)  # noqa: E731
            plan = upgrade_items(items, c, result, seen, jobs=c.jobs, context=context)
            if c.debug and result.jobs_note:
                click.echo(f"instancetype-upgrade: debug: {result.jobs_note}", err=True)
    progress.close()
    sink = outputs.sink_for(command, c, stdin=stdin, names=out_names)
    changed = outputs.write_plan(plan, sink, note=c.fmt == "text" and not c.quiet) if command != "validate" else 0
    policy(result, c)
    sink.close(plan, result.failed)
    quiet_fix = command == "validate" or (command == "fix" and stdin)  # (fix -: the stream is the answer)
    code = EXIT_ERROR if result.failed else EXIT_CHANGED if changed and not quiet_fix else EXIT_OK
    fixed = command == "fix" and not stdin
    written = sum(1 for r in result.results if r.changed and not r.failed and not r.write_failed) if fixed else 0
    done = f" (after {written} file(s) had been rewritten)" if written else ""
    report(command, result, c, stdout_is_data=stdin or command == "diff", done=done)
    if command == "fix" and c.exit_zero_even_if_changed and code == EXIT_CHANGED:
        return EXIT_OK
    if c.exit_zero and code != EXIT_OK and not _input_failed(result):
        return EXIT_OK  # report-only: findings do not fail the run; unreadable input still does
    return code


def _input_failed(result: RunResult) -> bool:
    return any(
        f.severity is Severity.ERROR and f.code.startswith(("input.", "output.", "internal."))
        for f in result.all_findings
    )


def _output_names(items: list[Item], output_dir: str) -> dict[str, str]:
    """Every input's path under --output-dir; two inputs that would write one path are a usage error
    raised before anything is read further or written."""
    names = writes.output_names([(i.name, i.input.root if i.input else "") for i in items])
    clashes = writes.collisions(names)
    if clashes:
        listing = "; ".join(f"{os.path.join(output_dir, rel)} <- {', '.join(srcs)}" for rel, srcs in clashes)
        raise click.UsageError(f"--output-dir: inputs would overwrite each other's copy ({listing}); nothing written")
    return names


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
