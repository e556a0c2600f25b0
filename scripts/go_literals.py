"""A small reader of exactly the Go shapes KubeVirt's crds.go uses for a CRD's versions, failing loudly
(SystemExit naming what it met) on anything else: composite literals of CustomResourceDefinitionVersion with
Name (a string literal or a constant of a KubeVirt API package, e.g. `snapshotv1beta1.SchemeGroupVersion.Version`)
and Served / Storage / Deprecated as bool literals (absent: Go's zero value, false). Used by gen_crd_facts.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

VERSION_TYPE = "[]extv1.CustomResourceDefinitionVersion{"
FLAGS = ("Served", "Storage", "Deprecated")
_IGNORED = ("DeprecationWarning", "Subresources", "AdditionalPrinterColumns", "Schema", "SelectableFields")
_STAGING = {
    "kubevirt.io/api/": "staging/src/kubevirt.io/api/",
    "kubevirt.io/client-go/": "staging/src/kubevirt.io/client-go/",
}


class GoSource:
    """The Go packages of one tag, read on demand (`show(path)`, `ls(dir)`: git at that tag)."""

    def __init__(self, show: Callable[[str], str], ls: Callable[[str], list[str]]) -> None:
        self.show, self.ls = show, ls
        self._packages: dict[str, tuple[str, dict[str, str]]] = {}

    def package(self, directory: str) -> tuple[str, dict[str, str]]:
        """A package's non-test Go text (its files joined) and its imports (alias -> directory)."""
        if directory not in self._packages:
            files = [f for f in self.ls(directory) if f.endswith(".go") and not f.endswith("_test.go")]
            if not files:
                raise SystemExit(f"no Go package at {directory}")
            text = "\n".join(self.show(f) for f in files)
            self._packages[directory] = (text, imports_of(text))
        return self._packages[directory]

    def resolve(self, directory: str, expr: str, imports: dict[str, str] | None = None) -> str:
        """The string value of a Go expression: a literal, NAME, NAME.Field, alias.NAME[.Field]."""
        expr = expr.strip()
        if re.fullmatch(r'"[^"\\]*"', expr):
            return expr[1:-1]
        parts = expr.split(".")
        if not all(re.fullmatch(r"[A-Za-z_]\w*", p) for p in parts):
            raise SystemExit(f"{directory}: cannot read the Go expression {expr!r}")
        scope = self.package(directory)[1] if imports is None else imports
        if parts[0] in scope and len(parts) > 1:
            return self.resolve(scope[parts[0]], ".".join(parts[1:]))
        text = self.package(directory)[0]
        name, field = parts[0], parts[1:]
        defs = re.findall(rf"^\s*(?:var |const )?{name}\s*(?:string\s*)?=\s*(.+)$", text, re.M)
        if len(defs) != 1:
            raise SystemExit(f"{directory}: {len(defs)} definitions of {name} (want exactly one)")
        value = defs[0].strip()
        if not field:
            return self.resolve(directory, value)
        if len(field) == 1:
            literal = re.fullmatch(r"schema\.GroupVersion(?:Kind)?\{(.*)\}", value)
            if literal:
                fields = dict(pairs(literal.group(1)))
                if field[0] not in fields:
                    raise SystemExit(f"{directory}: {name} has no {field[0]}: {value}")
                return self.resolve(directory, fields[field[0]])
            with_kind = re.fullmatch(r'(\w+)\.WithKind\(("[^"]*")\)', value)
            if with_kind:
                return self.resolve(
                    directory, with_kind.group(2) if field[0] == "Kind" else f"{with_kind.group(1)}.{field[0]}"
                )
        raise SystemExit(f"{directory}: cannot read {expr} = {value}")


def imports_of(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for alias, path in re.findall(r'^\s*(?:import\s+)?(\w+\s+)?"(kubevirt\.io/[^"]+)"\s*$', text, re.M):
        for prefix, directory in _STAGING.items():
            if path.startswith(prefix):
                out[alias.strip() or path.rsplit("/", 1)[1]] = directory + path[len(prefix) :]
    return out


def close_bracket(text: str, start: int) -> int:
    """The index just past the bracket closing the one at `start` (Go strings, runes and comments skipped)."""
    pairs = {"{": "}", "(": ")", "[": "]"}
    stack: list[str] = []
    i = start
    while i < len(text):
        c = text[i]
        if c in "\"'`":
            i = _skip_string(text, i)
            continue
        if text.startswith("//", i):
            i = text.index("\n", i)
            continue
        if text.startswith("/*", i):
            i = text.index("*/", i) + 2
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]}":
            if not stack or stack.pop() != c:
                raise SystemExit(f"unbalanced Go brackets at {text[start : start + 60]!r}")
            if not stack:
                return i + 1
        i += 1
    raise SystemExit(f"unclosed Go bracket at {text[start : start + 60]!r}")


def _split(body: str) -> list[str]:
    """A composite literal's body split at its top-level commas (empty items dropped)."""
    items, i, last = [], 0, 0
    while i < len(body):
        if body[i] in "{([\"'`":
            if body[i] in "{([":
                i = close_bracket(body, i)
            else:
                i = _skip_string(body, i)
            continue
        if body.startswith("//", i):
            i = body.index("\n", i)
            continue
        if body[i] == ",":
            items.append(body[last:i])
            last = i + 1
        i += 1
    items.append(body[last:])
    return [item.strip() for item in items if item.strip()]


def _skip_string(text: str, i: int) -> int:
    c = text[i]
    if c == "`":
        return text.index("`", i + 1) + 1
    match = re.compile(rf"{c}((?:[^{c}\\\n]|\\.)*){c}").match(text, i)
    if match is None:
        raise SystemExit(f"an unclosed Go string at {text[i : i + 40]!r}")
    return match.end()


def pairs(body: str) -> list[tuple[str, str]]:
    out = []
    for item in _split(body):
        match = re.fullmatch(r"(\w+)\s*:\s*(.+)", item, re.S)
        if match is None:
            raise SystemExit(f"not a Key: value field of a Go struct literal: {item[:60]!r}")
        out.append((match.group(1), match.group(2).strip()))
    return out


def versions_literal(
    text: str, start: int, go: GoSource, directory: str, imports: dict[str, str]
) -> list[dict[str, Any]]:
    """`[]extv1.CustomResourceDefinitionVersion{{Name: ..., Served: true, ...}, ...}` at `start`."""
    if not text.startswith(VERSION_TYPE, start):
        raise SystemExit(f"not a CRD version list: {text[start : start + 60]!r}")
    brace = start + len(VERSION_TYPE) - 1
    out = []
    for element in _split(text[brace + 1 : close_bracket(text, brace) - 1]):
        if not (element.startswith("{") and element.endswith("}")):
            raise SystemExit(f"a CRD version that is not a struct literal: {element[:60]!r}")
        fields = dict(pairs(element[1:-1]))
        unknown = set(fields) - {"Name", *FLAGS, *_IGNORED}
        if unknown or "Name" not in fields:
            raise SystemExit(f"a CRD version with fields this reader does not know: {sorted(unknown) or 'no Name'}")
        version: dict[str, Any] = {"name": go.resolve(directory, fields["Name"], imports)}
        for flag in FLAGS:
            value = fields.get(flag, "false")  # Go's zero value
            if value not in ("true", "false"):
                raise SystemExit(f"{version['name']}: {flag}: {value!r} is not a Go bool literal")
            version[flag.lower()] = value == "true"
        out.append(version)
    return out
