"""Where a plan goes: the one sink interface of fix, check, diff and validate, and the one loop that
writes a plan (`write_plan`). A sink takes one planned file (its new bytes) and either writes it
somewhere or refuses it with a finding; the plan (`upgrade.Plan`) settles the renames a refusal undoes.

A new output is a new `Sink`. The file commands' are here, chosen in `sink_for`: the file itself
(`InPlace`), a copy under --output-dir (`IntoDir`), a diff on stdout (`Diff`), the stream on stdout
(`Stream`, `fix -`), or nothing (`Discard`: check, validate). The integrations' live with them (they
import the pipeline, never the reverse): the KRM function's ResourceList with its `results`
(`integrations/krm.ItemsSink` for a list cut into its items, `krm.WholeSink` for one read whole) and
backup's tarball (`integrations/velerosink.TarballSink`, handed the members in the archive's order).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Protocol

from transform.model.findings import Finding, error, quote_name
from transform.pipeline import writes

if TYPE_CHECKING:
    from transform.model.settings import Settings
    from transform.pipeline.batch import Item
    from transform.pipeline.parts import FileResult
    from transform.pipeline.upgrade import Plan


class Refused(Exception):
    """A sink did not write a file: the finding says why (the file keeps its text and its renames)."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


class Sink(Protocol):
    def put(self, result: FileResult, item: Item, data: bytes) -> str:
        """Take the planned bytes of one changed file: the note to print ("" for none); raises Refused."""
        ...

    def close(self, plan: Plan, failed: bool) -> None:
        """After the last file (`failed`: the run has an error)."""
        ...


class Discard:
    """check, validate: nothing is written."""

    def put(self, result: FileResult, item: Item, data: bytes) -> str:
        return ""

    def close(self, plan: Plan, failed: bool) -> None:
        pass


@dataclass
class Diff(Discard):
    """diff: a unified diff per changed file on stdout."""

    stdin: bool = False
    out: IO[str] = field(default_factory=lambda: sys.stdout)

    def put(self, result: FileResult, item: Item, data: bytes) -> str:
        assert result.source is not None and result.new_text is not None
        self.out.write(writes.unified_diff("stdin" if self.stdin else result.name, result.source.text, result.new_text))
        return ""


@dataclass
class InPlace(Discard):
    """fix: each file replaced atomically, in the very directory it was read from (its pin)."""

    force: bool = False

    def put(self, result: FileResult, item: Item, data: bytes) -> str:
        path = item.input.path if item.input else result.name
        if not self.force and _read_only(path):
            raise Refused(error("output.read-only", "read-only, not rewritten (use --force to rewrite it)"))
        _write(lambda: writes.write_atomic(path, data, expect=item.data, pin=item.pin))
        return f"Rewriting {quote_name(result.name)}"  # as pyupgrade and the pre-commit fixers say it


@dataclass
class IntoDir(Discard):
    """fix --output-dir: a copy of each changed file under the directory."""

    out_dir: writes.OutputDir
    names: dict[str, str]

    def put(self, result: FileResult, item: Item, data: bytes) -> str:
        written: list[str] = []
        _write(lambda: written.append(self.out_dir.write(self.names[result.name], data)))
        return "Writing " + quote_name(written[0])


@dataclass
class Stream(Discard):
    """fix -: the stream on stdout, upgraded, or as it came when nothing changed; nothing on an error."""

    out: IO[bytes] = field(default_factory=lambda: sys.stdout.buffer)

    def close(self, plan: Plan, failed: bool) -> None:
        if failed:
            return
        first = plan.run.results[0] if plan.run.results else None
        data = plan.items[0].data if plan.items else b""
        if first is not None and first.changed and first.source is not None and first.new_text is not None:
            data = first.source.encode(first.new_text)
        self.out.write(data)
        self.out.flush()


def _write(write: Callable[[], object]) -> None:
    try:
        write()
    except writes.WriteError as exc:
        raise Refused(error("output.write", str(exc))) from None


def _read_only(path: str) -> bool:
    """The user's protection is a signal (even for root, who could write anyway)."""
    try:
        return not os.stat(path).st_mode & 0o222
    except OSError:
        return False


def sink_for(command: str, settings: Settings, *, stdin: bool, names: dict[str, str]) -> Sink:
    """The sink of a file command: what `command` does with a planned file."""
    if command == "diff":
        return Diff(stdin)
    if command != "fix":
        return Discard()
    if stdin:
        return Stream()
    if settings.output_dir:
        return IntoDir(writes.OutputDir(settings.output_dir), names)
    return InPlace(settings.force)


def write_plan(plan: Plan, sink: Sink, note: bool = True) -> int:
    """Give every changed file of the plan to the sink, revision files first; a file that follows a
    rename whose revision could not be written is planned again first (`Plan.settled`). How many files
    the sink took. `note`: print the sink's notes (`Rewriting x.yaml`) on stderr."""
    by_name = {i.name: i for i in plan.items}
    taken = 0
    for pos in plan.write_order():
        r = plan.settled(pos)
        if not r.changed or r.failed or r.source is None or r.new_text is None:
            continue
        try:
            said = sink.put(r, by_name[r.name], r.source.encode(r.new_text))
        except Refused as exc:
            r.findings.append(exc.finding.at(file=r.name))
            plan.unwritten |= {old for _, old, _ in r.renames}
            r.renames = []
            r.write_failed = True
            continue
        if said and note:
            sys.stderr.write(said + "\n")
        taken += 1
    return taken
