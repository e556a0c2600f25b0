"""textio: bytes to text and back without losing a byte; document splitting; line:column."""

from __future__ import annotations

import codecs

import pytest

from transform.yamltext import textio

SPLITS = [
    ("a: 1\n", ["a: 1\n"]),
    ("a: 1\n---\nb: 2\n", ["a: 1\n", "---\nb: 2\n"]),
    ("---\na: 1\n---\nb: 2\n", ["---\na: 1\n", "---\nb: 2\n"]),
    ("a: 1\n...\nb: 2\n", ["a: 1\n...\n", "b: 2\n"]),
    ("a: 1\n...\n---\nb: 2\n", ["a: 1\n...\n", "---\nb: 2\n"]),
    ("%YAML 1.1\n---\na: 1\n", ["%YAML 1.1\n---\na: 1\n"]),
    ("a: 1\n--- # c\nb: 2\n", ["a: 1\n", "--- # c\nb: 2\n"]),
    ("a: |\n  ---x\nb: 2\n", ["a: |\n  ---x\nb: 2\n"]),  # `---x` is no marker
    ("a: '\n---\n'\n", ["a: '\n", "---\n'\n"]),  # a marker ends a document even inside a quoted scalar
    ("a: 1\r\n---\r\nb: 2\r\n", ["a: 1\r\n", "---\r\nb: 2\r\n"]),
    ("a: 1\n---", ["a: 1\n", "---"]),
    ("", []),
    ("---\n---\n", ["---\n", "---\n"]),
]


@pytest.mark.parametrize(("text", "chunks"), SPLITS)
def test_split_documents(text: str, chunks: list[str]) -> None:
    got = [text[c.start : c.end] for c in textio.split_documents(text)]
    assert got == chunks
    assert "".join(got) == text  # the chunks tile the text


DECODES = [
    (b"a: 1\n", "a: 1\n", False, "\n"),
    (codecs.BOM_UTF8 + b"a: 1\n", "a: 1\n", True, "\n"),
    (b"a: 1\r\nb: 2\r\n", "a: 1\r\nb: 2\r\n", False, "\r\n"),
    (b"a: 1\r\nb: 2\nc: 3\n", "a: 1\r\nb: 2\nc: 3\n", False, "\n"),  # mostly LF
    ("name: ü\n".encode(), "name: ü\n", False, "\n"),
]


@pytest.mark.parametrize(("data", "text", "bom", "newline"), DECODES)
def test_decode_round_trip(data: bytes, text: str, bom: bool, newline: str) -> None:
    source = textio.decode(data)
    assert (source.text, source.bom, source.newline) == (text, bom, newline)
    assert source.encode(source.text) == data


REFUSED = [
    (codecs.BOM_UTF16_LE + "a: 1\n".encode("utf-16-le"), "UTF-16"),
    (b"a: \x00\n", "NUL"),
    (b"a: 1\nb: \xff\n", "line 2, column 4"),
]


@pytest.mark.parametrize(("data", "message"), REFUSED)
def test_decode_refuses(data: bytes, message: str) -> None:
    with pytest.raises(textio.ReadError, match=message):
        textio.decode(data)


@pytest.mark.parametrize(
    ("data", "candidate"),
    [
        (b"apiVersion: instancetype.kubevirt.io/v1alpha1\n", True),
        (b"kind: ControllerRevision\n", True),
        (b"kind: VirtualMachine\n", True),
        (b"apiVersion: v1\nkind: ConfigMap\n", False),
    ],
)
def test_is_candidate(data: bytes, candidate: bool) -> None:
    assert textio.is_candidate(data) is candidate
