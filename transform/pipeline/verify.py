"""Verify one edited document before its file is written: re-read what the edits give (one document,
the intended values, every comment), then judge the upgraded objects (each `Change`). Nothing that
fails here is written (transform.pipeline.onefile). Conversion never calls the judge: what it asks of
the input (`convert.outcome.Ask`) is answered here too (`answer`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from transform.convert.objects import patch_shaped
from transform.convert.outcome import Ask, Change, Outcome
from transform.kubevirt import embedding
from transform.model import plain
from transform.model.findings import Finding, Severity, error
from transform.model.policy import Judgement, Stage, dropped_field, verdict
from transform.model.settings import Settings
from transform.pipeline.results import ParsedDoc
from transform.yamltext import comments, edits, nodepath, readback, textio
from transform.yamltext import nodes as yamlnodes
from transform.yamltext.nodes import Node

# A JSON document smaller than this is read back whole by the json module (faster than the parser's
# events); a larger one from the events, as YAML is: its plain copy was 200 MB for a 24 MB payload
_JSON_READ_WHOLE = 1 << 20


def verify(
    name: str,
    pd: ParsedDoc,
    body: str,
    planned: list[edits.Edit],
    line0: int,
    intended: Any,
    changes: list[Change],
    settings: Settings,
    findings: list[Finding],
) -> bool:
    """Re-read what we wrote: one document still, the intended values, every comment, valid objects.
    Edits that only replace one-line block scalars are proven by reading each new scalar alone."""
    if planned and all(e.value is not edits.NOT_SCALAR for e in planned) and all(map(_reads_back, planned)):
        return _validate(name, pd, yamlnodes.Document(None, intended, [], body), line0, changes, settings, findings)
    where: dict[str, Any] = {"file": name, "line": line0 + 1, "doc": pd.index}
    if len(textio.split_documents(body)) != 1:
        findings.append(
            error(
                "internal.verify",
                "edits changed the document structure; file left unchanged (please report this)",
                **where,
            )
        )
        return False
    small_json = len(body) < _JSON_READ_WHOLE and body.lstrip().startswith("{")  # json.loads: faster, small
    spans = None if small_json else readback.spans_if_same(body, intended)
    if spans is not None:  # proven from the parser's events, without a node tree (a big payload: 1.5M nodes)
        doc = yamlnodes.Document(None, intended, [], body)
        written = [c.strip() for c in comments.comments_outside(body, 0, len(body), spans)] if "#" in pd.text else []
    else:  # JSON (read by the json module), or not proven: compose it, and say what is wrong
        try:
            parsed = yamlnodes.parse(body)
        except yamlnodes.ParseError as exc:
            findings.append(
                error(
                    "internal.verify",
                    f"edited document does not parse: {exc.message}; file left unchanged (please report this)",
                    **where,
                )
            )
            return False
        if parsed is None or not edits.same(parsed.value, intended):
            findings.append(
                error(
                    "internal.verify",
                    "edited document does not read back as intended; file left unchanged (please report this)",
                    **where,
                )
            )
            return False
        doc = parsed
        written = _comments(body, doc.root) if "#" in pd.text else []
    lost = Counter(_comments(pd.text, pd.doc.root if pd.doc else None)) - Counter(written) if "#" in pd.text else None
    if lost:
        findings.append(
            error(
                "internal.comments",
                f"a comment would be lost: {next(iter(lost))!r}; file left unchanged (please report this)",
                **where,
            )
        )
        return False
    return _validate(name, pd, doc, line0, changes, settings, findings)


def _reads_back(edit: edits.Edit) -> bool:
    """A scalar edit whose new text, read alone, is the intended value (see edits.Edit.value): the rest of
    the document is untouched text around a one-line block scalar, so reading it all again proves nothing
    new (no structure, comment or other value can change)."""
    if edit.value is edits.NOT_SCALAR:
        return False
    try:
        return edits.same(yamlnodes.read_scalar(edit.text), edit.value)
    except yamlnodes.ParseError:
        return False


def _validate(
    name: str,
    pd: ParsedDoc,
    doc: yamlnodes.Document,
    line0: int,
    changes: list[Change],
    settings: Settings,
    findings: list[Finding],
) -> bool:
    """The upgraded objects must be valid: findings at their line:column in the new text."""
    ok = True
    if settings.validate_output:
        for change in changes:
            for f in judge_change(change, doc.value, settings):
                line, col = nodepath.locate(doc.root, f.path)
                findings.append(f.at(file=name, line=line0 + line, column=col, doc=pd.index))
                ok = ok and f.severity is not Severity.ERROR
    return ok


def judge_change(change: Change, doc: Any, settings: Settings) -> list[Finding]:
    """The judge's verdict on the object a change left at `change.path` of the upgraded document, with the
    severity its stage gives (transform.model.policy): the input's own errors (`change.carried`) are not
    the upgrade's. Paths from the document's root."""
    obj = plain.get(doc, change.path)
    if change.verify is None or not isinstance(obj, dict):
        return []
    # lazy: the validators and their schemas load only when a document is validated
    from transform.validate.target import judge

    if change.verify is Stage.PAYLOAD:
        data = obj.get("data") or {}
        judged = judge(data, settings.target)
        # the API server never reads a payload (a RawExtension, kept as bytes), so its float reading of an integer
        # beyond int64 is no fact about it: KubeVirt's Go types judge the integer's range (validate/decoding)
        found = [
            f.at(path=("data", *f.path))
            for f in verdict(judged, Stage.PAYLOAD)
            if not (f.code == "schema.type" and _beyond_int64(plain.get(data, f.path)))
        ]
    else:
        cdi = settings.target_cdi
        judged = judge(obj, settings.target, strict=settings.strict, partial=change.partial, target_cdi=cdi)
        # an error inside a field the input's version lacks is read only once upgraded: said as such
        dropped = [p for code, p in change.carried if not code]
        moved = {}
        for f in judged.own + judged.payload:
            if f.severity is Severity.ERROR and (f.code, f.path) not in change.carried:
                field = next((p for p in dropped if f.path[: len(p)] == p), None)
                if field is not None:
                    moved[id(f)] = dropped_field(f, obj.get("apiVersion"), field, strict=settings.strict)
        if moved:
            own = [f for f in judged.own if id(f) not in moved]
            judged = Judgement(own, [f for f in judged.payload if id(f) not in moved], judged.target)
        found = [f for f in verdict(judged, change.verify) if (f.code, f.path) not in change.carried]
        found += moved.values()
    if embedding.in_template(change.path):
        found = embedding.substituted(found, obj)
    return [f.at(path=change.path + f.path) for f in found]


def answer(outcome: Outcome, doc: Any, settings: Settings) -> None:
    """The judge's answers to what the conversion of the input document `doc` asked (`Outcome.asks`): the
    findings put where it asked, with the severity the stage gives them; the changes it names carry the
    input's own errors over (`Change.carried`)."""
    for ask in reversed(outcome.asks):  # (from the last: the positions before stay as they are)
        obj = plain.get(doc, ask.path)
        if not isinstance(obj, dict):
            continue
        found, carried = _answer(ask, obj, settings)
        for n in ask.carry:
            outcome.changes[n].carried = carried
        if embedding.in_template(ask.path):
            found = embedding.substituted(found, obj)
        extra = ask.resource
        placed = [f.at(object=f.object or ask.ref, path=ask.path + f.path, extra={**f.extra, **extra}) for f in found]
        outcome.findings[ask.at : ask.at] = placed


def _answer(ask: Ask, obj: dict[str, Any], settings: Settings) -> tuple[list[Finding], frozenset[tuple[str, Any]]]:
    # lazy: the validators and their schemas load only when a document is validated
    from transform.validate.target import judge, target_findings

    if ask.stage is None:  # only the target's fact under this code
        said = [f for f in target_findings(obj, settings.target, fields=False) if f.code == ask.code]
        return [f.at(severity=Severity.WARNING) for f in said], frozenset()
    cdi = settings.target_cdi
    judged = judge(obj, settings.target, strict=settings.strict, partial=ask.partial, target_cdi=cdi)
    carried = _carried(judged)
    if ask.stage is not Stage.INPUT:
        return verdict(judged, ask.stage, strict=settings.strict), carried
    for part in (judged.own, judged.payload):
        for i, f in enumerate(part):
            if f.severity is Severity.ERROR and f.code == "schema.required" and patch_shaped(obj, ask.partial):
                part[i] = f.at(
                    message=f"{f.message} (a partial object such as a kustomize patch? pass the "
                    "kustomization that lists it, as an input or under --context, to have it judged as one)"
                )
    return verdict(judged, Stage.INPUT), carried


def _carried(judged: Judgement) -> frozenset[tuple[str, Any]]:
    """What an upgrade carries over without blame: (code, path) of each of the input's own errors, and
    `("", path)` of each field the input's version does not have (its API server drops the field before it
    checks the object; once upgraded it is read: `judge_change` says so)."""
    found = judged.own + judged.payload
    return frozenset((f.code, f.path) for f in found if f.severity is Severity.ERROR) | frozenset(
        ("", f.path) for f in judged.own if f.code == "schema.unknown-field"
    )


def _comments(text: str, root: Node | None) -> list[str]:
    if root is None:
        return []
    return [c.strip() for c in comments.comments(text, 0, len(text), [root])]


def _beyond_int64(value: Any) -> bool:
    return type(value) is int and not -(2**63) <= value < 2**63
