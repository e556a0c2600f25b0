"""Helm's release records: find, decode and re-encode them exactly as Helm's storage drivers do.

Helm 3 keeps each revision of a release in a Secret of type `helm.sh/release.v1` (or, with the
ConfigMap driver, a ConfigMap), labelled `owner: helm`, `name`, `version`, `status`, named
`sh.helm.release.v1.<name>.v<version>`. Its `data.release` is (pkg/storage/driver/util.go,
encodeRelease) `base64.StdEncoding(gzip(BestCompression, json.Marshal(release)))`; a Secret's data is
base64 once more (Kubernetes' encoding of `[]byte`). decodeRelease gunzips only when the gzip magic
is there (records written before compression are plain JSON).

Only the release's `manifest` string changes: it is edited inside the JSON text (every other byte of
the record stays), its changed runs escaped as Go's encoding/json escapes strings.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
import re
import struct
import zlib
from dataclasses import dataclass
from typing import Any

from transform.model.plain import as_map

SECRET_TYPE = "helm.sh/release.v1"
NAME_PREFIX = "sh.helm.release.v1."
MAGIC = b"\x1f\x8b\x08"
MODES = ("latest", "all", "none")


class ReleaseError(Exception):
    """A record that is not what Helm writes: not base64, not gzip, not JSON, too large."""


@dataclass(frozen=True)
class Record:
    kind: str  # Secret | ConfigMap
    gzipped: bool
    text: str  # the release JSON, as Helm wrote it
    span: tuple[int, int]  # of the manifest's string literal in `text`, quotes excluded
    manifest: str  # decoded


def driver(obj: Any) -> str | None:
    """ "Secret" or "ConfigMap" for a Helm release record, else None (dict look-ups only: cheap)."""
    if not isinstance(obj, dict):
        return None
    kind = obj.get("kind")
    data = obj.get("data")
    if not isinstance(data, dict) or not isinstance(data.get("release"), str):
        return None
    if kind == "Secret" and obj.get("type") == SECRET_TYPE:
        return "Secret"
    if kind == "ConfigMap" and as_map(as_map(obj.get("metadata")).get("labels")).get("owner") == "helm":
        return "ConfigMap"
    return None


def labels(obj: dict[str, Any]) -> tuple[str, str, int | None, str]:
    """(namespace, release name, version, status) from the record's labels and name."""
    meta = as_map(obj.get("metadata"))
    lab = as_map(meta.get("labels"))
    name = str(lab.get("name") or "")
    version: int | None = None
    raw = lab.get("version")
    if isinstance(raw, (str, int)) and str(raw).isdigit():
        version = int(raw)
    if not name:
        m = re.fullmatch(re.escape(NAME_PREFIX) + r"(.+)\.v(\d+)", str(meta.get("name") or ""))
        if m:
            name, version = m[1], version if version is not None else int(m[2])
    return str(meta.get("namespace") or ""), name, version, str(lab.get("status") or "")


def decode(kind: str, value: str, limit: int) -> Record:
    """The record in `data.release`; the decompressed release may be at most `limit` bytes."""
    try:
        helm = base64.b64decode(value, validate=True) if kind == "Secret" else value.encode("ascii")
        raw = base64.b64decode(helm, validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise ReleaseError("data.release is not base64 (Helm's encoding)") from None
    gzipped = raw[:3] == MAGIC
    if gzipped:
        raw = _gunzip(raw, limit)
    elif len(raw) > limit:
        raise ReleaseError(f"the release is {len(raw)} bytes, over the limit of {limit}")
    # lazy: the parsing stack is imported once a file is a candidate
    from transform.yamltext.nodes import MAX_DEPTH, json_depth

    how = "gunzipped data" if gzipped else "data (not gzip either)"
    try:
        text = raw.decode("utf-8")
        if json_depth(text) > MAX_DEPTH:  # the document limit, checked before decoding
            raise ReleaseError(f"the release JSON nests deeper than {MAX_DEPTH} levels (the document limit)")
        release = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ReleaseError(f"the release's {how} is not JSON") from None
    if not isinstance(release, dict) or not isinstance(release.get("manifest"), str):
        raise ReleaseError("the release JSON has no manifest string")
    manifest = release["manifest"]
    if not manifest.isascii():
        try:
            manifest.encode("utf-8")
        except UnicodeEncodeError as exc:  # a lone surrogate escape (`\ud800`): no text Helm or YAML can hold
            bad = f"\\u{ord(manifest[exc.start]):04x}"
            raise ReleaseError(f"the release's manifest holds a lone surrogate escape ({bad}), not text") from None
    return Record(kind, gzipped, text, _manifest_span(text), manifest)


def _gunzip(raw: bytes, limit: int) -> bytes:
    """gzip members decompressed, never more than `limit` bytes (a bomb stops there). Linear in the
    input however many members it has: each member is fed in chunks growing from a small one, so
    what a member leaves unused (zlib copies it) is never more than twice the member."""
    out: list[bytes] = []
    size, pos, view = 0, 0, memoryview(raw)
    try:
        while pos < len(raw):
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            step = 64  # a gzip member is at least 20 bytes
            while not d.eof:
                if pos >= len(raw):
                    raise ReleaseError("the release's gzip data is truncated")
                fed = view[pos : pos + step]
                pos += len(fed)
                step = min(step * 2, 1 << 20)
                chunk = d.decompress(fed, limit + 1 - size)
                size += len(chunk)
                out.append(chunk)
                if size > limit or d.unconsumed_tail:
                    raise ReleaseError(f"the gunzipped release is over the limit of {limit} bytes (a gzip bomb?)")
            pos -= len(d.unused_data)  # the next member starts where this one ended
    except zlib.error as exc:
        raise ReleaseError(f"the release's gzip data is corrupt ({exc})") from None
    return b"".join(out)


def _manifest_span(text: str) -> tuple[int, int]:
    """The top-level "manifest" value's string body in the JSON text (keys read in order; the last
    one wins, as in Go's and Python's decoders)."""
    dec = json.JSONDecoder()
    ws = re.compile(r"[ \t\n\r]*")
    pos = ws.match(text, 0).end() + 1  # type: ignore[union-attr]
    found = (0, 0)
    while True:
        pos = ws.match(text, pos).end()  # type: ignore[union-attr]
        if text[pos] == "}":
            return found
        key, pos = dec.raw_decode(text, pos)
        pos = ws.match(text, pos).end() + 1  # type: ignore[union-attr]  # past ':'
        pos = ws.match(text, pos).end()  # type: ignore[union-attr]
        start = pos
        _value, pos = dec.raw_decode(text, pos)
        if key == "manifest":
            found = (start + 1, pos - 1)
        pos = ws.match(text, pos).end()  # type: ignore[union-attr]
        if text[pos] == ",":
            pos += 1


_ESCAPE = re.compile(r"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[0-9a-fA-F]{4}|u[0-9a-fA-F]{4}|.)")
_GO = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_GO.update({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})
_GO_SPECIAL = re.compile('["\\\\\x00-\x1f<>&\u2028\u2029]')


def go_string(text: str) -> str:
    """A string's body as Go's json.Marshal writes it (HTML-safe escapes, \\b and \\f as Go 1.22+)."""
    return _GO_SPECIAL.sub(lambda m: _GO.get(m[0]) or f"\\u{ord(m[0]):04x}", text)


class _Offsets:
    """Positions in a JSON string body: decoded character -> raw text (escapes are whole units)."""

    def __init__(self, raw: str) -> None:
        self.decoded: list[int] = [0]
        self.raw: list[int] = [0]
        self.escape: list[bool] = [False]
        d = 0
        for m in _ESCAPE.finditer(raw):
            d += m.start() - self.raw[-1]
            self.decoded.append(d)
            self.raw.append(m.start())
            self.escape.append(True)
            d += 1  # every escape is one character (a surrogate pair too)
            self.decoded.append(d)
            self.raw.append(m.end())
            self.escape.append(False)

    def at(self, d: int, end: bool = False) -> int:
        i = bisect.bisect_right(self.decoded, d) - 1
        if self.escape[i] and d > self.decoded[i]:  # inside an escaped unit (a surrogate pair): take it whole
            return self.raw[i + 1] if end else self.raw[i]
        return self.raw[i] + (d - self.decoded[i])


def with_manifest(record: Record, changes: list[tuple[int, int, str]]) -> str:
    """The release JSON with the manifest's runs `changes` ((start, end, new text), in decoded
    characters, in order, not overlapping) replaced; every other byte as it was."""
    a, b = record.span
    body = record.text[a:b]
    where = _Offsets(body)
    out, pos = [], 0
    for start, end, new in changes:
        rs, re_ = where.at(start), where.at(end, end=True)
        ds = _decoded_at(where, rs)
        de = _decoded_at(where, re_)
        old = record.manifest
        out += [body[pos:rs], go_string(old[ds:start] + new + old[end:de])]
        pos = re_
    out.append(body[pos:])
    return record.text[:a] + "".join(out) + record.text[b:]


def _decoded_at(where: _Offsets, r: int) -> int:
    i = bisect.bisect_right(where.raw, r) - 1
    return where.decoded[i] + (0 if where.escape[i] else r - where.raw[i])


def runs(old: str, pieces: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The changed runs of `old` under pieces (start, end, new body): each piece trimmed to the part
    that differs (a document's apiVersion line, not the whole document)."""
    out = []
    for start, end, new in pieces:
        seg = old[start:end]
        p = 0
        limit = min(len(seg), len(new))
        while p < limit and seg[p] == new[p]:
            p += 1
        s = 0
        while s < limit - p and seg[len(seg) - 1 - s] == new[len(new) - 1 - s]:
            s += 1
        out.append((start + p, end - s, new[p : len(new) - s]))
    return out


def _gzip(data: bytes) -> bytes:
    """gzip as Go's compress/gzip writes it at BestCompression: no name, mtime 0, XFL 2, OS 255."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = deflate.compress(data) + deflate.flush()
    trailer = struct.pack("<II", zlib.crc32(data) & 0xFFFFFFFF, len(data) & 0xFFFFFFFF)
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + body + trailer


def encode(record: Record, text: str) -> str:
    """`data.release` for the release JSON `text`, as Helm writes it (gzip level 9 when it was gzip)."""
    raw = text.encode("utf-8")
    if record.gzipped:
        raw = _gzip(raw)
    helm = base64.b64encode(raw)
    return (base64.b64encode(helm) if record.kind == "Secret" else helm).decode("ascii")
