"""Load the bundled JSON schemas: `transform/schemas/` in a wheel, `<repo>/schemas/` in a checkout."""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path
from typing import Any

SOURCE_DIR = Path(__file__).resolve().parents[2] / "schemas"


def read_bundled(*parts: str) -> bytes:
    """The bytes of a bundled file, e.g. read_bundled("kubevirt", "index.json")."""
    for part in parts:
        if not part or "/" in part or "\\" in part or part.startswith("."):
            raise ValueError(f"not a schema file name: {'/'.join(parts)!r}")
    try:
        packaged = resources.files("transform").joinpath("schemas")
        for part in parts:  # one part per call on 3.10
            packaged = packaged.joinpath(part)
        if packaged.is_file():
            return packaged.read_bytes()
    except (FileNotFoundError, ModuleNotFoundError, NotADirectoryError):
        pass
    path = SOURCE_DIR.joinpath(*parts)
    if not path.is_file():
        name = "/".join(parts)
        raise FileNotFoundError(f"bundled schema {name!r} not found (looked in transform/schemas and {SOURCE_DIR})")
    return path.read_bytes()


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema file `name` (e.g. "apps_v1_controllerrevision.json"). Cached: do not mutate."""
    result: dict[str, Any] = json.loads(read_bundled(name))
    return result


def bundled_releases() -> dict[str, list[str]]:
    """Per product directory of the bundle (`kubevirt`, and `cdi` once bundled), the release tags its
    generated index.json lists as sources, oldest first (what `--version` reports)."""
    out: dict[str, list[str]] = {}
    for product in ("kubevirt", "cdi"):
        try:
            index = json.loads(read_bundled(product, "index.json"))
        except FileNotFoundError:
            continue
        sources = index.get("release_sources", {})
        tags = [s["tag"] for s in sources.values() if isinstance(s, dict) and "tag" in s]
        out[product] = sorted(tags, key=lambda t: tuple(int(x) for x in t.lstrip("v").split(".")[:3]))
    return out
