"""Schema patterns and Kubernetes syntax rules match what Go's regexp matches (RE2 semantics).

The expectations are Go's documented behaviour (regexp/syntax): `$` without the `m` flag is the end of
the text; `\\d`, `\\w`, `\\s`, `\\b` are ASCII; `\\s` is `[\\t\\n\\f\\r ]`; `[[:alpha:]]` is an ASCII class;
`\\Q...\\E` is literal text; `\\z` is the end of the text.
"""

from __future__ import annotations

import pytest

from transform.validate import goregex

QUANTITY = "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$"

GO = [  # (pattern, text, Go's regexp.MatchString)
    (QUANTITY, "1Gi", True),
    (QUANTITY, "1Gi\n", False),
    (QUANTITY, "\n1Gi", False),
    ("^(0(?:\\.\\d{1,3})?|1)$", "0.25", True),
    ("^(0(?:\\.\\d{1,3})?|1)$", "0.\u0663", False),  # ARABIC-INDIC DIGIT THREE: not a Go \d
    ("^(0(?:\\.\\d{1,3})?|1)$", "1\n", False),
    ("^\\w+$", "caf\u00e9", False),
    ("^a\\sb$", "a\u00a0b", False),
    ("^a\\sb$", "a\vb", False),  # Go's \s has no vertical tab
    ("^a\\sb$", "a\tb", True),
    ("^[[:alpha:]]+$", "abc", True),
    ("^[[:alpha:]]+$", "ab1", False),
    ("^\\Qa.b\\E$", "a.b", True),
    ("^\\Qa.b\\E$", "axb", False),
    ("^abc\\z", "abc\n", False),
    ("(?m)^abc$", "abc\nx", True),  # multi-line: `$` before a newline, as in Go
    ("[]a]+$", "]a", True),
    ("b", "abc", True),  # unanchored: a search, as MatchString
]


@pytest.mark.parametrize(("pattern", "text", "expected"), GO)
def test_patterns_match_as_go(pattern: str, text: str, expected: bool) -> None:
    assert (goregex.compiled(pattern).search(text) is not None) is expected


def test_a_unicode_class_has_no_translation() -> None:
    with pytest.raises(ValueError):
        goregex.translate("^\\pL+$")


def test_fullmatch_is_the_whole_text() -> None:
    assert goregex.fullmatch("[a-z]+", "abc")
    assert not goregex.fullmatch("[a-z]+", "abc\n")
    assert not goregex.fullmatch("a|ab", "abx")
