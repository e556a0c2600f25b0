"""The container formats, in the order the engine asks them (`FORMATS`), the way `convert.STEPS` lists the
version hops: a new format is one module or package beside these and its line here."""

from __future__ import annotations

from transform.convert.hints import Facts
from transform.convert.kinds import KINDS
from transform.convert.visit import Rules
from transform.formats.base import Format, Held
from transform.formats.helm_chart.format import FORMAT as HELM_CHART
from transform.formats.helm_release.format import FORMAT as HELM_RELEASE
from transform.formats.helm_values.format import FORMAT as HELM_VALUES
from transform.formats.krm.format import FORMAT as KRM
from transform.formats.kustomize.format import FORMAT as KUSTOMIZE

FORMATS: tuple[Format, ...] = (HELM_CHART, KUSTOMIZE, HELM_VALUES, HELM_RELEASE, KRM)


def detect(path: str, data: bytes) -> Held | None:
    """The format that reads this input as text (`path` "" for stdin), and its role in it; None: a YAML stream."""
    for fmt in FORMATS:
        held = fmt.detect(path, data)
        if held is not None:
            return held
    return None


def format_of(held: Held) -> Format:
    return named(held.format)


def rules() -> Rules:
    """convert's per-kind rules and every format's (`Format.kinds`), the table `convert.document` runs."""
    table = dict(KINDS)
    for fmt in FORMATS:
        table.update(fmt.kinds)
    return table


def index_needles(always: bool = False) -> tuple[str, ...]:
    """The markers of the documents whose facts the formats gather (`always`: of those read from any
    --context file)."""
    return tuple(n for f in FORMATS if f.always or not always for n in f.index_needles)


def answering(question: str) -> tuple[Format, ...]:
    """The formats that answer `question` (a method of `Format` they override: "unpack", "survey",
    "literals"), so that the engine asks only them of every document."""
    return tuple(f for f in FORMATS if getattr(type(f), question) is not getattr(Format, question))


def named(name: str) -> Format:
    return next(f for f in FORMATS if f.name == name)


def facts() -> dict[str, Facts]:
    """A new, empty gathering of every format's cross-file facts, by name (`convert.index.Index.facts`)."""
    return {fmt.name: f for fmt in FORMATS if (f := fmt.facts()) is not None}
