"""Floors that parse with libyaml alone (PyYAML's C reader; PyYAML is a test dependency, not the tool's).

    python benchmarks/floor_libyaml.py compose-marked DIR   # read every file, test the markers (as
                                                             # floor_scan.py), compose each hit's documents
    python benchmarks/floor_libyaml.py load PATH...          # load every document of every file (or tree)

Prints ``<files> <documents> <bytes>``. Without PyYAML, or PyYAML built without libyaml, it fails with an
ImportError, which run.py shows as ``n/a``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

from floor_scan import NEEDLES
from yaml import CSafeLoader, compose_all, load_all  # ImportError without libyaml: the row is n/a


def _files(paths: list[str]) -> Iterator[str]:
    stack = list(reversed(paths))
    while stack:
        path = stack.pop()
        if not os.path.isdir(path):
            yield path
            continue
        with os.scandir(path) as it:
            for entry in it:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    yield entry.path


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("compose-marked", "load"):
        print(__doc__, file=sys.stderr)
        return 2
    files = docs = size = 0
    for path in _files(argv[1:]):
        with open(path, "rb") as f:
            data = f.read()
        size += len(data)
        if argv[0] == "compose-marked":
            if not any(n in data for n in NEEDLES):
                continue
            docs += sum(1 for _ in compose_all(data, Loader=CSafeLoader))
        else:
            docs += sum(1 for _ in load_all(data, Loader=CSafeLoader))
        files += 1
    print(files, docs, size)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
