"""The generators' view of reference/<tree>.tar.xz (made by scripts/pack_reference.py; reference/README.md).

`open_tree("crd-schemas")` is that tree's root as a read-only path with what the generators use of
pathlib.Path (`/`, `read_bytes`, `read_text`, `exists`, `is_file`), so a generator given `--reference DIR`
(a new upstream extraction, not yet packed) reads the directory with the same code. The tests have their
own reader (tests/oracles/reference.py): what checks the generators' output shares no code with them.
"""

from __future__ import annotations

import functools
import tarfile
from dataclasses import dataclass
from pathlib import Path

ARCHIVES = Path(__file__).resolve().parents[1] / "reference"


@functools.cache
def _files(tree: str) -> dict[str, bytes]:
    with tarfile.open(ARCHIVES / f"{tree}.tar.xz") as tar:
        return {m.name: _read(tar, m) for m in tar if m.isfile()}


def _read(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    f = tar.extractfile(member)  # a regular file (isfile): never None
    assert f is not None, member.name
    return f.read()


@dataclass(frozen=True)
class ArchivePath:
    tree: str
    path: str

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    def __truediv__(self, part: str) -> ArchivePath:
        return ArchivePath(self.tree, f"{self.path}/{part}")

    def __str__(self) -> str:
        return f"reference/{self.tree}.tar.xz:{self.path}"

    def is_file(self) -> bool:
        return self.path in _files(self.tree)

    exists = is_file

    def read_bytes(self) -> bytes:
        try:
            return _files(self.tree)[self.path]
        except KeyError:
            raise FileNotFoundError(str(self)) from None

    def read_text(self) -> str:
        return self.read_bytes().decode()


def open_tree(tree: str) -> ArchivePath:
    """The root of reference/<tree>.tar.xz."""
    return ArchivePath(tree, tree)
