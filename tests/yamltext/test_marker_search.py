"""The fast document-marker search (str.find) finds exactly what the marker regex finds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from transform.yamltext import textio

PIECES = ["---", "...", "%", "%YAML 1.1", "\n", "\r", "\r\n", " ", "\t", "a", "-", ".", " # c", "x: 1"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=16))
def test_marker_starts_are_the_regex_matches(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert textio._marker_starts(text) == [m.start() for m in textio._MARKER.finditer(text)]


def test_only_directives_and_tabs_shortcuts_agree() -> None:
    assert not textio._only_directives("a: 1\n")
    assert textio._only_directives("%YAML 1.1\n# c\n")
    assert not textio.tab_indented("a:\n  b: 1\n")
    assert textio.tab_indented("a:\n\tb: 1\n")
