"""Container formats: every way the tool's users keep manifests other than plain YAML streams, one module or
package each, below the engine, behind one contract (`base.Format`), listed in `FORMATS`.

A new format is one module (or package) here and its line in `FORMATS`: the engine asks `detect` of every
input it reads and hands the inputs a format holds to that format (tests/formats/test_toy_format.py).
"""

from __future__ import annotations

from transform.formats import helm_chart
from transform.formats.base import Format, Held

FORMATS: tuple[Format, ...] = (helm_chart.FORMAT,)


def detect(path: str, data: bytes) -> Held | None:
    """The format that holds this input (`path` "" for stdin), and its role in it; None: a YAML stream."""
    for fmt in FORMATS:
        held = fmt.detect(path, data)
        if held is not None:
            return held
    return None


def format_of(held: Held) -> Format:
    return next(f for f in FORMATS if f.name == held.format)
