"""Findings are values: the core returns them, the report module renders them."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any

Path = tuple[Any, ...]  # a field path: ("spec", "cpu", "guest") or ("items", 0, "spec")


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

    def at(self, **changes: Any) -> Finding:
        return replace(self, **changes)

    @property
    def field_path(self) -> str:
        return format_path(self.path)

    def __str__(self) -> str:
        where = self.file or "<stdin>"
        if self.line:
            where += f":{self.line}:{self.column or 1}"
        parts = [f"{where}: {self.severity.value}:"]
        if self.doc is not None:
            parts.append(f"doc {self.doc}")
        if self.object:
            parts.append(self.object + ":")
        elif self.doc is not None:
            parts[-1] += ":"
        if self.path:
            parts.append(self.field_path + ":")
        parts.append(self.message)
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
