"""The limits that keep hostile input from exhausting time, memory or the stack: one table.

Every limit is applied before the work it bounds (while reading, while decompressing, before a
parse or a walk), and refusing is always an error that names the input and says how to raise it.
"""

from __future__ import annotations

MAX_DEPTH = 200  # nesting levels of a document or a decoded payload (jsonschema_rs gives up at ~256)
MAX_EXPANDED_NODES = 2_000_000  # YAML nodes after alias expansion (billion laughs)
DEFAULT_MAX_DOCUMENT_BYTES = 16 * 1024 * 1024  # one document; a file or stdin may hold many
MAX_TAR_HEADER_BYTES = 1024 * 1024  # a long-name (GNU) or PAX extended header: real ones are < 4 KiB
DEFAULT_MAX_ARCHIVE_BYTES = (
    2 * 1024 * 1024 * 1024
)  # decompressed tarball (--max-archive-size): 100x a 20,000-item backup


def file_limit(max_document_bytes: int) -> int:
    """The most bytes read from one file or stdin (256 MiB by default): many documents of the maximum
    size, not unbounded; checked while reading."""
    return max_document_bytes * 16
