"""What one run did (`Summary`), its one-line text, and the wording of a command that writes nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from transform.model.findings import Finding, Severity, quote_name

TOOL_NAME = "instancetype-upgrade"
WOULD = frozenset({"check", "diff", "dry-run"})  # commands that write nothing: "would change"
VALIDATE = frozenset({"validate", "lint"})


@dataclass
class Summary:
    """What one run did. `errors`/`warnings` left as None are counted from the findings."""

    command: str = "fix"
    files_seen: int = 0
    files_changed: int = 0
    objects_upgraded: int = 0
    errors: int | None = None
    warnings: int | None = None
    renames: list[tuple[str, str, str]] = field(default_factory=list)  # (namespace, old, new)
    files: list[str] = field(default_factory=list)  # every file seen, for JUnit
    changed_files: list[str] = field(default_factory=list)  # files that changed (or would)
    changes_fail: bool = False  # a change sets the exit code (fix, check, diff): a failure in every format
    suppressed: list[Finding] = field(default_factory=list)  # by inline ignores: counted by --statistics only
    archive: str = ""  # backup: the archive whose members are counted (the summary names it)

    def counts(self, findings: Sequence[Finding]) -> tuple[int, int, int]:
        """(errors, warnings, infos), preferring the explicit numbers over counting."""
        errors = sum(f.severity is Severity.ERROR for f in findings)
        warnings = sum(f.severity is Severity.WARNING for f in findings)
        infos = sum(f.severity is Severity.INFO for f in findings)
        return (
            errors if self.errors is None else self.errors,
            warnings if self.warnings is None else self.warnings,
            infos,
        )


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    """`plural(1, "file")` -> "1 file"; `plural(2, "file")` -> "2 files"."""
    return f"{count} {noun if count == 1 else (plural_noun or noun + 's')}"


def summary_line(findings: Sequence[Finding], summary: Summary) -> str:
    errors, warnings, _ = summary.counts(findings)
    problems = [plural(errors, "error")] + ([plural(warnings, "warning")] if warnings else [])
    if summary.command in VALIDATE:
        return ", ".join([f"{plural(summary.files_seen, 'file')} validated", *problems])
    if summary.command in WOULD:
        changed = f"{plural(summary.files_changed, 'file')} would change"
        upgraded = f"{plural(summary.objects_upgraded, 'object')} would be upgraded"
    else:
        changed = f"{plural(summary.files_changed, 'file')} changed"
        upgraded = f"{plural(summary.objects_upgraded, 'object')} upgraded"
    if summary.archive:  # backup: the archive is named (its files are its regular members)
        files = plural(summary.files_seen, "file")
        where = f"{files} of {summary.archive}" if summary.files_seen else summary.archive
        return ", ".join([changed, upgraded, *problems]) + f" in {where}"
    return ", ".join([changed, upgraded, *problems]) + f" in {plural(summary.files_seen, 'file')}"


def rename_line(namespace: str, old: str, new: str, *, would: bool) -> str:
    verb = "would rename" if would else "renamed"
    where = f"{namespace}/{old}" if namespace else old
    return f"{verb} ControllerRevision {quote_name(where)} -> {quote_name(new)}"


_WOULD_VERBS = (
    ("upgraded ", "would upgrade "),
    ("now references ", "would reference "),
    ("recovered ", "would recover "),
    ("removed ", "would be removed "),
)


def would(f: Finding) -> Finding:
    """A change finding in the tense of a command that writes nothing ("would upgrade" in check)."""
    for past, future in _WOULD_VERBS:
        head, sep, tail = f.message.partition(past)
        if sep and (not head or head.endswith(": ")):
            return f.at(message=head + future + tail)
    return f
