"""The one place where a command chooses a finding's severity.

The judge (transform.validate.target.judge) says what is wrong with a document, for its own version
and for the target, with the severity the fact has (an error: the API server or KubeVirt refuses
it). What a command makes of it depends only on where the document stands in that command, its
`Stage`:

- `fix`, `check`, `diff` gate on what the upgrade introduces: a document they leave as it is
  (`CURRENT`) and the input of an upgrade (`INPUT`) only warn (errors under --strict); the upgraded
  object (`UPGRADED`) and an upgraded revision payload (`PAYLOAD`) block the write on an error.
- `validate` gates on the document's own version (`VALIDATE`): what the target cannot take is a
  warning, and nothing under a ControllerRevision's `data` is an error of the revision object (the
  API server stores `data` without looking at it).
- `scan` gates on what breaks on the target (`SCAN`): only the target's findings, as they are.

`run_policy` is the run's own policy on top (--select/--ignore, --strict), applied once, at the report
(`decide` on all of a report's findings); before a file is written the engine only asks whether the policy
fails it (`fails`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from transform.model.findings import Finding, Severity, matches

STRICT_SUFFIX = " (an error under --strict)"


class Stage(enum.Enum):
    CURRENT = "current"  # fix/check/diff: a document the run leaves as it is
    INPUT = "input"  # fix/check/diff: the document an upgrade starts from (its problems are carried over)
    UPGRADED = "upgraded"  # fix/check/diff: the upgraded object, before it is written
    PAYLOAD = "payload"  # fix/check/diff: an upgraded ControllerRevision payload, before it is written
    VALIDATE = "validate"  # validate: a document judged at its own version
    SCAN = "scan"  # scan: what breaks on the target


_UNKNOWN = ("schema.unknown-field", "target.unknown-field")


@dataclass
class Judgement:
    """What the judge found wrong with one document, by what it is about (paths from the document):
    `own`: the document at its own version (schema, webhooks, metadata); `payload`: a ControllerRevision's
    `data` as KubeVirt's decoder reads it; `target`: what the target release cannot take."""

    own: list[Finding] = field(default_factory=list)
    payload: list[Finding] = field(default_factory=list)
    target: list[Finding] = field(default_factory=list)

    @property
    def facts(self) -> list[Finding]:
        """Every finding, one per fact: a field already reported unknown at a path, or a fact already said
        under the same code at the same path, is not reported again."""
        found = self.own + self.payload
        unknown = {f.path for f in found if f.code in _UNKNOWN}
        said = {(f.code, f.path) for f in found}
        out = list(found)
        for f in self.target:
            if not (f.code in _UNKNOWN and f.path in unknown) and (f.code, f.path) not in said:
                said.add((f.code, f.path))
                out.append(f)
        return out


def verdict(judged: Judgement, stage: Stage, *, strict: bool = False) -> list[Finding]:
    """The judge's findings with the severity (and the wording of it) that `stage` gives them."""
    if stage is Stage.CURRENT:  # a document left as it is: its problems warn (errors under --strict)
        sev = Severity.ERROR if strict else Severity.WARNING
        return [
            f.at(severity=sev, message=_refused_by(f) + f.message) if f.severity is Severity.ERROR else f
            for f in judged.facts
        ]
    if stage is Stage.INPUT:  # what an upgrade starts from: carried over faithfully, a warning
        return [
            f.at(severity=Severity.WARNING, message=f"input: {_refused_by(f)}{f.message}")
            if f.severity is Severity.ERROR
            else f
            for f in judged.own + judged.payload
        ]
    if stage is Stage.UPGRADED:  # the upgrade's own errors block it; the target's warnings are said
        return [
            f.at(message=f"the upgraded object would be invalid: {f.message}; fix the input first")
            for f in judged.own + judged.payload
            if f.severity is Severity.ERROR
        ] + [f for f in judged.target if f.severity is not Severity.ERROR]
    if stage is Stage.PAYLOAD:
        # KubeVirt stores what its webhooks would refuse (they guard objects, not revisions): a faithful
        # upgrade of such a payload is written and reported; a payload KubeVirt could not decode is not.
        return [
            f.at(severity=Severity.WARNING, message=f"payload: {f.message} (KubeVirt stored it as is)")
            if f.code.startswith("webhook.")
            else f.at(message=f"the upgraded payload would be invalid: {f.message}")
            for f in judged.own + judged.payload
            if f.severity is Severity.ERROR
        ]
    if stage is Stage.VALIDATE:
        # judged at its own version: what the target cannot take warns, and a ControllerRevision's data
        # is no error of the revision object (the API server stores it without looking at it)
        # (one exception: a payload no release reads under the label KubeVirt trusts to skip it is the
        # revision's own fault, its label's: an error, issue 22 §2 class D)
        payload = _warnings(judged.payload, keep="revision.labelled-unreadable")
        return Judgement(judged.own, payload, _warnings(judged.target, keep=".legacy")).facts
    return list(judged.target)  # SCAN: what breaks on the target, as it is


def _refused_by(f: Finding) -> str:
    """Who refuses an object for this error (the API server's schema and ObjectMeta checks), or ""."""
    return "the API server will refuse this object: " if f.code.startswith(("schema.", "metadata.")) else ""


def dropped_field(f: Finding, api_version: object, field: tuple[object, ...], *, strict: bool) -> Finding:
    """An error of an upgraded object inside a field the input's version lacks (its API server dropped the
    field unread): the upgrade makes the API server read it. A warning (an error under --strict)."""
    where = ".".join(map(str, field))
    message = (
        f"{f.message}: once upgraded, {api_version} reads {where}, which the input's version lacks "
        "(kubectl's strict field validation refuses it there, a lenient API server drops it unread), so the "
        f"API server will refuse the upgraded object; fix or remove {where}"
    )
    return f.at(severity=Severity.ERROR if strict else Severity.WARNING, message=message)


def _warnings(found: list[Finding], keep: str = "") -> list[Finding]:
    return [
        f.at(severity=Severity.WARNING) if f.severity is Severity.ERROR and not (keep and f.code.endswith(keep)) else f
        for f in found
    ]


def run_policy(
    found: list[Finding], *, strict: bool, select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()
) -> list[Finding]:
    """Warnings and infos not selected (--select/--ignore) are dropped; errors always stay (a file that
    failed must say why). Under --strict the remaining warnings are errors: counted, shown and
    acted on as errors (a file with one is not written: `fails`). Applying it twice changes nothing."""
    return [f for f in decide(found, strict=strict, select=select, ignore=ignore) if f is not None]


def decide(
    found: list[Finding], *, strict: bool, select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()
) -> list[Finding | None]:
    """The run's policy on each finding, in order: the finding as the report shows it, or None (dropped).
    A report applies it once, to all its findings (`run_policy` for one list)."""
    out: list[Finding | None] = []
    for f in found:
        if f.severity is not Severity.ERROR and (select or ignore) and not selected(f, select, ignore):
            out.append(None)
            continue
        if strict and f.severity is Severity.WARNING:
            f = f.at(severity=Severity.ERROR, message=f.message + STRICT_SUFFIX)
        out.append(f)
    return out


def fails(found: list[Finding], *, strict: bool, select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()) -> bool:
    """Does the run's policy make these findings fail their file (an error, or under --strict a warning it
    reports)? What the engine asks before a file is written; the findings are rewritten once, at the report."""
    return any(
        f.severity is Severity.ERROR
        or (strict and f.severity is Severity.WARNING and (not (select or ignore) or selected(f, select, ignore)))
        for f in found
    )


def selected(f: Finding, select: tuple[str, ...], ignore: tuple[str, ...]) -> bool:
    """--select/--ignore by code prefix (`webhook.` or `webhook.deprecated-topology`) or API family
    (`export`, see `findings.matches`); the longer matching prefix wins, as in ruff."""
    best_select = max((len(p) for p in select if matches(f, p)), default=-1 if select else 0)
    best_ignore = max((len(p) for p in ignore if matches(f, p)), default=-1)
    return best_select >= 0 and best_select >= best_ignore + (1 if best_ignore >= 0 else 0)
