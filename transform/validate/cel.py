"""`x-kubernetes-validations` (CEL rules) as the API server evaluates them on a create.

Semantics (apiextensions-apiserver pkg/apiserver/schema/cel/validation.go, v0.34):
- a rule is evaluated with `self` bound to the field's value (pruned: no unknown fields, no nulls of
  non-nullable fields) wherever the value is present and not null;
- a rule that names `oldSelf` is a transition rule: a create has no old object, so it does not apply
  (with `optionalOldSelf` it would, with `oldSelf` empty: no KubeVirt or CDI rule sets it; not evaluated);
- a rule that is not true is an error at the field (`fieldPath` appended) with the rule's `message`, or
  the string its `messageExpression` gives, or `failed rule: <rule>`; `reason` chooses the kind of error
  (FieldValueInvalid, the default, shows the value's type: `Invalid value: "string": ...`);
- a rule that fails to evaluate (`self.x` of an absent field) is an error `<cause> evaluating rule: <rule>`.

The engine is cel-expr-python, Google's CEL C++ runtime (the implementation of the CEL team, as cel-go
is), with its strings extension (Kubernetes' CEL environment has it). It is imported only when a rule
is evaluated (a few ms): a run whose documents meet no schema with rules never loads it. Where it is not
installed (it needs Python >= 3.11), the rules are reported as not evaluated (an info).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any

from transform.model.findings import Finding, error, info

Path = tuple[Any, ...]
_OLD_SELF = re.compile(r"\boldSelf\b")
_FIELD_PATH = re.compile(r"\.([A-Za-z_$][A-Za-z0-9_$-]*)|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[(\d+)\]")
_NOT_FOUND = re.compile(r'Key not found in map : "(.*)"')


@dataclass(frozen=True)
class Rule:
    rule: str
    message: str = ""
    message_expression: str = ""
    reason: str = ""
    field_path: Path = ()
    transition: bool = False  # names oldSelf: not evaluated on a create


def rules_of(schema_rules: Any) -> tuple[Rule, ...] | None:
    """The rules of a schema node's `x-kubernetes-validations` (plain data; nothing compiled yet)."""
    if not isinstance(schema_rules, list):
        return None
    out = []
    for r in schema_rules:
        if not isinstance(r, dict) or not isinstance(r.get("rule"), str):
            continue
        text = r["rule"]
        message_expression = str(r.get("messageExpression") or "")
        out.append(
            Rule(
                rule=text,
                message=str(r.get("message") or "").strip(),
                message_expression=message_expression,
                reason=str(r.get("reason") or ""),
                field_path=parse_field_path(str(r.get("fieldPath") or "")),
                transition=bool(_OLD_SELF.search(text) or _OLD_SELF.search(message_expression)),
            )
        )
    return tuple(out) or None


def parse_field_path(text: str) -> Path:
    """`.spec.x['a.b'][0]` -> ("spec", "x", "a.b", 0): the rule's fieldPath, relative to its field."""
    out: list[Any] = []
    pos = 0
    for m in _FIELD_PATH.finditer(text):
        if m.start() != pos:
            return ()
        name, quoted, index = m.groups()
        out.append(name if name is not None else int(index) if index is not None else quoted)
        pos = m.end()
    return tuple(out) if pos == len(text) else ()


@functools.cache
def _engine() -> Any:
    try:
        from cel_expr_python import cel as engine  # lazy: only documents whose schema has rules need it
        from cel_expr_python.ext import ext_strings  # lazy: as above
    except ImportError:
        return None
    return engine.NewEnv(variables={"self": engine.Type.DYN}, extensions=[ext_strings.ExtStrings()])


@functools.lru_cache(maxsize=1024)
def _program(text: str) -> Any:
    env = _engine()
    return env.compile(text)


def _evaluate(text: str, value: Any) -> tuple[Any, str | None]:
    """(result, None) or (None, why it could not be evaluated)."""
    try:
        result = _program(text).eval(data={"self": value})
    except Exception as exc:  # the engine raises its own types for compile and conversion errors
        return None, str(exc)
    if result.type().name().lower() == "error":
        why = str(result.value())
        found = _NOT_FOUND.search(why)
        return None, f"no such key: {found.group(1)}" if found else why
    return result.value(), None


def check(rules: tuple[Rule, ...], value: Any, type_word: str, path: Path) -> list[Finding]:
    """The findings of a field's rules for its (pruned) value."""
    if value is None:
        return []
    live = [r for r in rules if not r.transition]
    if not live:
        return []
    if _engine() is None:
        message = "x-kubernetes-validations rules not evaluated: install cel-expr-python (Python >= 3.11)"
        return [info("schema.rules-unchecked", message, path)]
    out: list[Finding] = []
    for rule in live:
        try:
            _program(rule.rule)
        except Exception as exc:  # a function of Kubernetes' CEL library the engine lacks: our gap, not an error
            message = f"x-kubernetes-validations rule not evaluated ({str(exc).splitlines()[0]}): {rule.rule}"
            out.append(info("schema.rules-unchecked", message, path))
            continue
        result, why = _evaluate(rule.rule, value)
        shown = rule.message or rule.rule
        if why is not None:
            out.append(error("schema.rule", f'Invalid value: "{type_word}": {why} evaluating rule: {shown}', path))
            continue
        if result is True:
            continue
        detail = rule.message or f"failed rule: {rule.rule}"
        if rule.message_expression:
            text, failed = _evaluate(rule.message_expression, value)
            if failed is None and isinstance(text, str) and text.strip() and "\n" not in text:
                detail = text
        out.append(error("schema.rule", _body(rule.reason, type_word, detail), (*path, *rule.field_path)))
    return out


def _body(reason: str, type_word: str, detail: str) -> str:
    """The error as the API server words it (field.Error.ErrorBody) for the rule's reason."""
    if reason == "FieldValueForbidden":
        return f"Forbidden: {detail}"
    if reason == "FieldValueRequired":
        return f"Required value: {detail}"
    if reason == "FieldValueDuplicate":
        return f"Duplicate value: {json.dumps(type_word)}"
    return f"Invalid value: {json.dumps(type_word)}: {detail}"
