"""Helm release records: the manifest edited inside the release JSON text, byte for byte elsewhere.
The oracle writes JSON as Go's json.Marshal does (compact, HTML-safe, UTF-8 kept) on its own."""

from __future__ import annotations

import base64
import gzip
import json

import pytest

from transform.formats.helm_release import record as helmrelease


def go_json(obj: object) -> str:
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


OLD = "apiVersion: kubevirt.io/v1alpha3"
NEW = "apiVersion: kubevirt.io/v1"
MANIFESTS = [
    pytest.param(f"---\n{OLD}\nkind: VirtualMachine\n", id="plain"),
    pytest.param(f'a: "<x> & \\"q\\"\\t"\n{OLD}\nb: \u00e9\U0001f600\u2028\n', id="escapes-around"),
    pytest.param(f"{OLD}\n{OLD}\n", id="two-runs"),
    pytest.param(f"\U0001f600{OLD}\U0001f600\n", id="astral-neighbours"),
]


@pytest.mark.parametrize("manifest", MANIFESTS)
def test_edit_inside_json_is_what_go_would_write(manifest: str) -> None:
    rel = {"name": "r", "info": {"notes": "<b>"}, "manifest": manifest, "version": 2, "labels": {"manifest": "x"}}
    text = go_json(rel)
    raw = base64.b64encode(base64.b64encode(gzip.compress(text.encode(), 9))).decode()
    record = helmrelease.decode("Secret", raw, 1 << 20)
    assert record.manifest == manifest and record.gzipped
    assert helmrelease.with_manifest(record, []) == text
    new_manifest = manifest.replace(OLD, NEW)
    pieces = [(0, len(manifest), new_manifest)]
    got = helmrelease.with_manifest(record, helmrelease.runs(manifest, pieces))
    assert got == go_json({**rel, "manifest": new_manifest})


def test_only_the_changed_run_is_re_escaped() -> None:
    """A record written by another encoder (\\u escapes for non-ASCII, \\/): those bytes stay."""
    text = '{"manifest":"caf\\u00e9 \\ud83d\\ude00 a\\/b\\n' + OLD + '\\n","version":1}'
    raw = base64.b64encode(text.encode()).decode()  # a ConfigMap's record, not gzip (before compression)
    record = helmrelease.decode("ConfigMap", raw, 1 << 20)
    m = record.manifest
    got = helmrelease.with_manifest(record, helmrelease.runs(m, [(0, len(m), m.replace(OLD, NEW))]))
    assert got == text.replace("kubevirt.io/v1alpha3", "kubevirt.io/v1")
    assert helmrelease.encode(record, got) == base64.b64encode(got.encode()).decode()


def test_the_last_manifest_key_is_the_one_read() -> None:
    text = '{"manifest":"a","chart":{"manifest":"b"},"manifest" : "' + OLD + '"}'
    record = helmrelease.decode("ConfigMap", base64.b64encode(text.encode()).decode(), 1 << 20)
    assert record.manifest == OLD
    assert text[record.span[0] : record.span[1]] == OLD


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("%%%", "not base64"),
        (base64.b64encode(b"\x1f\x8b\x08\x00junk").decode(), "gzip"),
        (base64.b64encode(gzip.compress(b"{}")).decode(), "no manifest"),
        (base64.b64encode(gzip.compress(b"\xff\xfe")).decode(), "not JSON"),
        (base64.b64encode(gzip.compress(b'{"manifest":"' + b"x" * 5000 + b'"}')).decode(), "over the limit"),
    ],
)
def test_bad_records(raw: str, says: str) -> None:
    with pytest.raises(helmrelease.ReleaseError, match=says):
        helmrelease.decode("ConfigMap", raw, 4096)


def test_gzip_as_go_writes_it() -> None:
    record = helmrelease.Record("ConfigMap", True, "{}", (0, 0), "")
    raw = base64.b64decode(helmrelease.encode(record, '{"manifest":""}'))
    # magic, deflate, no flags, mtime 0, XFL 2 (best compression), OS 255 (unknown): Go's header bytes
    assert raw[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    assert gzip.decompress(raw) == b'{"manifest":""}'
