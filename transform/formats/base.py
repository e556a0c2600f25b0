"""The contract of a container format (see `transform.formats.FORMATS`).

A format owns one way the tool's users keep manifests that is not a plain YAML stream: it says which
inputs are its own (`detect`), reads them and puts them back (`read`: the findings, the new text and the
literal KubeVirt objects it met, byte for byte where nothing changed), places its own inline ignores
(`ignores`), and names an input for a report (`label`). The engine (transform.pipeline) asks these
questions of whatever format `detect` named and knows nothing else of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from transform.kubevirt import apis
    from transform.model.findings import Finding


@dataclass(frozen=True)
class Held:
    """An input a format holds: the format's name, the input's role in it (a chart's template or values
    file) and where it belongs (the chart's directory; "" for none)."""

    format: str
    role: str
    where: str = ""


@dataclass
class Read:
    """An input read by its format: its findings, its new text (the same text when nothing changed), how
    many objects changed, and (line, apiVersion, kind) of each literal KubeVirt or CDI apiVersion it
    holds (scan judges each as an object's)."""

    findings: list[Finding]
    text: str
    upgraded: int = 0
    uses: list[tuple[int, str, str]] = field(default_factory=list)


class Format(Protocol):
    """One container format, as the engine asks it."""

    name: str

    def detect(self, path: str, data: bytes) -> Held | None:
        """Is this input (its path, "" for stdin, and its bytes) mine, and in which role?"""

    def read(self, text: str, targets: apis.Targets, held: Held) -> Read:
        """The input's text upgraded for `targets`: byte for byte where nothing changed."""

    def ignores(self, text: str, findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
        """The input's own inline ignores: (the findings kept, those suppressed)."""

    def label(self, held: Held) -> str:
        """What a report calls the input's objects (`chart web`)."""
