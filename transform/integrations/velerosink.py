"""The output of `backup`: the tarball, a sink of the pipeline (`outputs.Sink`) like every output.

The second pass hands it the members it looks at, in the archive's order (`member`, `link`), and the
planned bytes of each that changed (`put`); everything else of the decompressed stream is copied as raw
bytes (`tarsplice.Splicer`: every header as it was). A member renamed with its revision is stored under
its new path, and a hard link to it follows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from transform.integrations.tarsplice import Format, Span, Splicer, reencoded, replaced
from transform.pipeline.results import FileResult

if TYPE_CHECKING:
    from transform.integrations.background import WriteBehind
    from transform.pipeline.inputs import Item
    from transform.pipeline.upgrade import Plan


@dataclass
class MemberResult(FileResult):
    """What the report needs of one upgraded member, without keeping its text (flat memory), and the
    path it is stored under (`path`: a revision renamed with --rename moves to its new name)."""

    was_changed: bool = False
    path: str = ""

    @property
    def changed(self) -> bool:
        return self.was_changed


class TarballSink:
    """The decompressed stream through `out` (into the gzip writer `gz`, or nowhere: --check), with the
    planned members replaced; `end`: where the archive's last member ends."""

    def __init__(self, out: Splicer, fmt: Format, end: int, gz: WriteBehind | None) -> None:
        self.out, self.fmt, self.end, self.gz = out, fmt, end, gz
        self.pending: tuple[Span, bytes] | None = None  # the member handed out last, not yet written
        self.moved: dict[str, str] = {}  # member stored under a new path: old -> new
        self.taken = 0

    def member(self, sp: Span) -> bytes:
        """The data of the member at `sp` (the next one the pass looks at); it is written as it was
        unless `put` gets its planned bytes before the next member."""
        self._flush()
        self.out.copy(sp.start)
        segment = self.out.take(sp.end)
        self.pending = (sp, segment)
        return segment[sp.data - sp.start :][: sp.size]

    def link(self, sp: Span) -> None:
        """A hard link: re-encoded to follow its target when the target was stored under a new path."""
        self._flush()
        if sp.linkname in self.moved:
            self.out.copy(sp.start)
            self.out.write(reencoded(self.out.take(sp.end), sp, self.fmt, linkname=self.moved[sp.linkname]))

    def put(self, result: FileResult, item: Item, data: bytes) -> str:
        assert self.pending is not None and self.pending[0].name == item.name
        sp, segment = self.pending
        self.pending = None
        path = result.path if isinstance(result, MemberResult) and result.path else sp.name
        if path != sp.name:
            self.moved[sp.name] = path
        self.out.write(replaced(segment, sp, data, path, self.fmt))
        self.taken += 1
        return ""

    def close(self, plan: Plan | None, failed: bool) -> None:
        """The rest of the stream and the end-of-archive marker (nothing to read further for --check)."""
        self._flush()
        if self.gz is not None:
            self.out.copy(self.end)
            self.out.close()
            self.gz.close()
        self.out.passed_to(self.end)

    def _flush(self) -> None:
        if self.pending is not None:
            self.out.write(self.pending[1])
            self.pending = None


if TYPE_CHECKING:  # the sink interface, checked by mypy
    from transform.pipeline.outputs import Sink

    _SINK: type[Sink] = TarballSink
