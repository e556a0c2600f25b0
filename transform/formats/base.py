"""The contract of a container format (see `transform.formats.registry.FORMATS`).

A format owns one way the tool's users keep manifests that is not a plain YAML stream. The engine
(transform.pipeline) asks every format the same questions and knows nothing else of any of them:

- `detect`: is this input (its path and bytes) mine, to read as text, and in which role (`Held`)?
  Then `read` upgrades it (the findings, the new text, byte for byte where nothing changed, and the
  literal KubeVirt objects it met, for scan), `ignores` places its own inline ignores, `label` names it
  in a report;
- `kinds`: the rules for the objects of mine that sit in plain YAML streams (a Kustomization's patch
  targets, a HelmRelease's inline values), added to convert's own table (`convert.kinds.KINDS`);
- `facts`: what I gather across all the inputs in the index pass (kustomize: which files are patches),
  said of each file as hints the rules read (`convert.hints`);
- `unpack`: does this document hold a YAML stream of its own (a Helm release record's manifest)? The
  engine upgrades that stream as it upgrades a file's, and `repack` puts it back into the document;
- `adjust` and `reassemble`: for an input whose documents a source cut out of it (the KRM function's
  items: `pipeline.results.Reading` names the format and carries its state), each upgraded document's
  value to write, and the upgraded documents put back into the input;
- for scan, which changes nothing: `survey` (the stream a document holds, every record whatever
  --helm-releases says, with what breaks when one of its objects does) and `literals` (the literal
  KubeVirt objects inside an object of mine, judged as a values file's).

Every question has a default answer: "not mine", "no rules", "no facts".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from transform.convert.hints import Facts
    from transform.convert.index import Index
    from transform.convert.outcome import Outcome
    from transform.convert.visit import Rules
    from transform.kubevirt import apis
    from transform.model.findings import Finding
    from transform.model.settings import Settings


@dataclass(frozen=True)
class Held:
    """An input a format reads as text: the format's name, the input's role in it (a chart's template or
    values file) and where it belongs (the chart's directory; "" for none)."""

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


@dataclass
class Packed:
    """A YAML stream inside a document (`Format.unpack`): the format's name, what findings call the stream,
    its text, the document's outcome so far, and what the format needs to put the stream back."""

    format: str
    name: str
    text: str
    outcome: Outcome
    state: Any


@dataclass
class Surveyed:
    """A stream inside a document, as scan reads it: what reports call it, its text, where it is in the
    document, and what breaks when one of its objects does."""

    label: str
    text: str
    path: tuple[Any, ...]
    breaks: str


class Stream(Protocol):
    """A stream's upgraded documents, as the engine gives them back (`pipeline.results.Part`)."""

    findings: list[Finding]
    pieces: list[tuple[int, int, str]]  # (start, end, new text) per changed document
    upgraded: int


class Format:
    """One container format, as the engine asks it (the defaults: nothing is mine)."""

    name: ClassVar[str] = ""
    kinds: ClassVar[Rules] = {}
    # markers of the documents whose facts I gather (the index reads a file that holds one); `always`: a
    # --context file holding one is read whatever the inputs hold (any input may be what it speaks of)
    index_needles: ClassVar[tuple[str, ...]] = ()
    always: ClassVar[bool] = False
    # the codes of `read`'s findings that say the tool cannot tell (a value decided elsewhere): scan lists
    # them apart (`cannot_tell`) unless the same line's object was judged after all (`Read.uses`)
    undecided: ClassVar[tuple[str, ...]] = ()

    def detect(self, path: str, data: bytes) -> Held | None:
        """Is this input (its path, "" for stdin, and its bytes) mine to read as text, and in which role?"""
        return None

    def read(self, text: str, targets: apis.Targets, held: Held) -> Read:
        """The input's text upgraded for `targets`: byte for byte where nothing changed."""
        raise NotImplementedError(self.name)

    def ignores(self, text: str, findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
        """The input's own inline ignores: (the findings kept, those suppressed)."""
        return findings, []

    def label(self, held: Held) -> str:
        """What a report calls the input's objects (`chart web`)."""
        return self.name

    def facts(self) -> Facts | None:
        """A new, empty gathering of my cross-file facts (None: I have none)."""
        return None

    def unpack(self, text: str, value: Any, settings: Settings, index: Index) -> Outcome | Packed | None:
        """A document (`text`, its parsed `value`) that is mine and holds a stream: the stream (`Packed`), or
        the document's outcome as it stays (a record --helm-releases leaves); None: not mine."""
        return None

    def repack(self, packed: Packed, stream: Stream) -> Outcome:
        """The document with its upgraded stream put back, byte for byte where nothing changed."""
        raise NotImplementedError(self.name)

    def adjust(self, state: Any, index: int, old: Any, new: Any) -> Any:
        """The value to write for a document (`index` in its input, `old` as read) upgraded to `new`."""
        return new

    def reassemble(self, state: Any, part: Any) -> Any:
        """The input's upgraded documents (`pipeline.results.Part`) put back into the input."""
        return part

    def survey(self, text: str, value: Any, limit: int) -> Surveyed | Finding | None:
        """A document of mine that holds a stream, for scan (`limit`: its largest size decoded): the stream,
        or the error that keeps it unread; None: not mine."""
        return None

    def literals(self, obj: dict[str, Any]) -> tuple[str, list[tuple[tuple[Any, ...], str, str]]] | None:
        """What scan calls the literal KubeVirt objects inside `obj`, and (path, apiVersion, kind) of each;
        None: `obj` is not mine."""
        return None
