"""Findings are values: the core returns them, the report module renders them."""

from __future__ import annotations

import enum
import os
import re
from dataclasses import dataclass, field, replace
from typing import Any

Path = tuple[Any, ...]  # a field path: ("spec", "cpu", "guest") or ("items", 0, "spec")

# Every finding's code must be registered (transform/model/codes.py). The test suite sets this variable
# (tests/conftest.py), so an unregistered code is an internal error there; a user's run pays nothing.
CHECK_CODES = os.environ.get("INSTANCETYPE_UPGRADE_CHECK_CODES", "") not in ("", "0")
if CHECK_CODES:  # (loaded with this module, so a forked worker inherits it)
    from transform.model.codes import KNOWN as _KNOWN


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


def format_path(path: Path) -> str:
    """`("spec", "gpus", 0, "name")` -> `spec.gpus[0].name` (the kubectl explain spelling)."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            part = str(part)
            if "." in part or "/" in part or not part:
                out += f'["{part}"]'
            else:
                out += ("." if out else "") + part
    return out


_C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r"}
_C_ESCAPES.update({'"': '\\"', "\\": "\\\\"})


def _needs_quotes(name: str) -> bool:
    return _QUOTED.search(name) is not None


_CONTROLS = "\x00-\x1f\x7f-\x9f\ud800-\udfff"  # and the bytes of a name that are not UTF-8 (surrogates)
_QUOTED = re.compile(f'["\\\\{_CONTROLS}]')  # one C-speed search per name (reports name every file)
_CONTROL = re.compile(f"[{_CONTROLS}]")
_UNDECODABLE = re.compile("[\ud800-\udfff]")


def _is_control(c: str) -> bool:
    return ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) <= 0xDFFF


def utf8_name(name: str) -> str:
    """A name for a report that is UTF-8 by format (JSON, SARIF, Markdown): unchanged, unless it holds
    bytes that are not UTF-8 (a file name read as surrogates): then quoted as `quote_name` does,
    each such byte as an octal escape (`"bad\\377.yaml"`), as git writes it."""
    return name if _UNDECODABLE.search(name) is None else quote_name(name)


def utf8_text(text: str) -> str:
    """`text` with each byte that is not UTF-8 (a surrogate) as an octal escape (`\\377`)."""
    if _UNDECODABLE.search(text) is None:
        return text
    return _UNDECODABLE.sub(lambda m: _escape(m.group()), text)


def escape_controls(text: str) -> str:
    """`text` with every control character written as its C escape (messages embed names)."""
    if _CONTROL.search(text) is None:
        return text
    return "".join(_escape(c) if _is_control(c) else c for c in text)


def _escape(c: str) -> str:
    if c in _C_ESCAPES:
        return _C_ESCAPES[c]
    try:
        return "".join(f"\\{b:03o}" for b in c.encode("utf-8", "surrogateescape"))  # a byte of a name
    except UnicodeEncodeError:
        return f"\\u{ord(c):04x}"  # a lone surrogate that no byte stands for


def quote_name(name: str) -> str:
    """A file or member name for human-readable output, quoted as git quotes paths: unchanged when
    harmless, else in double quotes with C escapes (`\\n`, `\\t`, `\\"`, `\\\\`, octal for other
    control characters such as ESC), so no name can break a line or drive the terminal."""
    if not _needs_quotes(name):
        return name
    return '"' + "".join(_escape(c) if c in _C_ESCAPES or _is_control(c) else c for c in name) + '"'


@dataclass(frozen=True)
class Finding:
    """One problem or change, located as precisely as the input allows.

    `line` and `column` are 1-based; 0 means unknown. `doc` is the 0-based index of the
    YAML document in its file (kubectl's and kustomize's convention).
    """

    severity: Severity
    code: str
    message: str
    file: str = ""
    line: int = 0
    column: int = 0
    doc: int | None = None
    object: str = ""  # Kind/namespace/name or Kind/name
    path: Path = ()
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    if CHECK_CODES:

        def __post_init__(self) -> None:
            if self.code not in _KNOWN:
                raise AssertionError(f"finding code {self.code!r} is not registered in transform/model/codes.py")

    def at(self, **changes: Any) -> Finding:
        return replace(self, **changes)

    @property
    def field_path(self) -> str:
        return format_path(self.path)

    def __str__(self) -> str:
        """One line for a terminal: names quoted as git quotes paths, no raw control character anywhere."""
        where = quote_name(self.file) if self.file else "<stdin>"
        if self.line:
            where += f":{self.line}:{self.column or 1}"
        parts = [f"{where}: {self.severity.value}:"]
        if self.doc is not None:
            parts.append(f"doc {self.doc}")
        if self.object:
            parts.append(quote_name(self.object) + ":")
        elif self.doc is not None:
            parts[-1] += ":"
        if self.path:
            parts.append(escape_controls(self.field_path) + ":")
        parts.append(escape_controls(self.message))
        parts.append(f"[{self.code}]")
        return " ".join(parts)


def error(code: str, message: str, path: Path = (), **kw: Any) -> Finding:
    return Finding(Severity.ERROR, code, message, path=path, **kw)


def warning(code: str, message: str, path: Path = (), **kw: Any) -> Finding:
    return Finding(Severity.WARNING, code, message, path=path, **kw)


def info(code: str, message: str, path: Path = (), **kw: Any) -> Finding:
    return Finding(Severity.INFO, code, message, path=path, **kw)


def matches(f: Finding, prefix: str) -> bool:
    """--select/--ignore: a finding matches a code prefix (`export.`, `schema.required`) or, by a bare
    family name (`export`, `cdi`, `instancetype`), every finding about an object of that family."""
    return f.code.startswith(prefix) or f.extra.get("family") == prefix
