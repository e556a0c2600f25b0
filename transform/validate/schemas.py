"""Load the bundled JSON schemas: `transform/schemas/` in a wheel, `<repo>/schemas/` in a checkout."""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path
from typing import Any

SOURCE_DIR = Path(__file__).resolve().parents[2] / "schemas"


def _read(name: str) -> bytes:
    try:
        packaged = resources.files("transform").joinpath("schemas").joinpath(name)  # one part per call on 3.10
        if packaged.is_file():
            return packaged.read_bytes()
    except (FileNotFoundError, ModuleNotFoundError, NotADirectoryError):
        pass
    path = SOURCE_DIR / name
    if not path.is_file():
        raise FileNotFoundError(f"bundled schema {name!r} not found (looked in transform/schemas and {SOURCE_DIR})")
    return path.read_bytes()


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema file `name` (e.g. "apps_v1_controllerrevision.json"). Cached: do not mutate."""
    if "/" in name or "\\" in name or name.startswith("."):
        raise ValueError(f"not a schema file name: {name!r}")
    result: dict[str, Any] = json.loads(_read(name))
    return result


@functools.cache
def schema_index() -> tuple[dict[str, Any], ...]:
    """The entries of index.json (file, group, version, kind, releases, sha256)."""
    return tuple(json.loads(_read("index.json")))


def schema_name(api_version: str, kind: str) -> str | None:
    """The bundled schema for a document's apiVersion and kind, or None."""
    group, _, version = api_version.rpartition("/")
    for entry in schema_index():
        if entry["group"] == (group or "") and entry["version"] == version and entry["kind"] == kind:
            return str(entry["file"])
    return None
