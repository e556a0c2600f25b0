"""The upstream reference data of the tests, read from the repository's reference/<tree>.tar.xz.

`tree("crd-schemas")` is the root of that tree as a read-only path (`/`, `read_text`, `read_bytes`,
`is_file`, `is_dir`, `glob` of direct children, `name`): the archive is read into memory once per
process (about 17 MB, 40 ms). Its own reader, not the scripts': the oracles check what the scripts
generate, so they share neither tables nor I/O with scripts/ or transform/.
"""

from __future__ import annotations

import fnmatch
import functools
import tarfile
from dataclasses import dataclass
from pathlib import Path

ARCHIVES = Path(__file__).resolve().parents[2] / "reference"


@functools.cache
def _members(name: str) -> dict[str, bytes | None]:
    """Member path -> bytes (None for a directory)."""
    with tarfile.open(ARCHIVES / f"{name}.tar.xz") as tar:
        out: dict[str, bytes | None] = {}
        for info in tar:
            f = tar.extractfile(info) if info.isfile() else None
            out[info.name.rstrip("/")] = f.read() if f else None
        return out


@dataclass(frozen=True)
class Entry:
    archive: str
    path: str  # inside the archive, posix, no trailing slash

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    def __truediv__(self, part: str) -> Entry:
        return Entry(self.archive, f"{self.path}/{part}")

    def __str__(self) -> str:
        return f"reference/{self.archive}.tar.xz:{self.path}"

    def is_file(self) -> bool:
        return _members(self.archive).get(self.path) is not None

    def is_dir(self) -> bool:
        members = _members(self.archive)
        return self.path in members and members[self.path] is None

    def read_bytes(self) -> bytes:
        data = _members(self.archive).get(self.path)
        if data is None:
            raise FileNotFoundError(str(self))
        return data

    def read_text(self) -> str:
        return self.read_bytes().decode()

    def glob(self, pattern: str) -> list[Entry]:
        prefix = self.path + "/"
        children = (p for p in _members(self.archive) if p.startswith(prefix) and "/" not in p[len(prefix) :])
        return [Entry(self.archive, p) for p in sorted(children) if fnmatch.fnmatchcase(p[len(prefix) :], pattern)]


def tree(name: str) -> Entry:
    """The root of reference/<name>.tar.xz (`crd-schemas` or `go-json`)."""
    return Entry(name, name)
