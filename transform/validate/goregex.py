"""Go regular expressions (RE2 syntax, as the API server's `regexp` package reads them) in Python's `re`.

The API server checks a schema `pattern` and every Kubernetes syntax rule with Go's `regexp.MatchString`.
Where Python reads the same text differently, the translation makes it match what Go matches:
- `$` outside a class is the end of the text (Go, without the `m` flag); Python's `$` also matches
  before a final newline, so `"1Gi\\n"` would pass. It becomes `\\Z`; `\\z` (Go's end of text) too.
- `\\d`, `\\w`, `\\s`, `\\b` are ASCII in Go; Python's are Unicode (`"0.\\u0663"` would be a digit): re.ASCII.
  Go's `\\s` is `[\\t\\n\\f\\r ]`, without the vertical tab Python's ASCII `\\s` has.
- `[[:alpha:]]` and the other ASCII classes, and `\\Q...\\E` literal text, which `re` does not know.
- A Unicode class (`\\pL`, `\\p{Greek}`) has no `re` equivalent: `compile` raises ValueError.
"""

from __future__ import annotations

import functools
import re

_POSIX = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7f",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
_POSIX_CLASS = re.compile(r"\[:(\^?)([a-z]+):\]")
_FLAGS = re.compile(r"\(\?([imsU]*)\)")


def translate(pattern: str) -> str:
    """The Python `re` text that matches what Go's regexp matches for `pattern` (ValueError: no equivalent)."""
    multiline = any("m" in flags for flags in _FLAGS.findall(pattern))
    out: list[str] = []
    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt == "Q":
                end = pattern.find("\\E", i + 2)
                literal = pattern[i + 2 :] if end < 0 else pattern[i + 2 : end]
                out.append(re.escape(literal))
                i = n if end < 0 else end + 2
                continue
            if nxt in "pP":
                raise ValueError(f"Unicode class \\{nxt} has no Python equivalent")
            if nxt == "z":
                out.append("\\Z")
            elif nxt == "s" and not in_class:
                out.append("[\\t\\n\\f\\r ]")
            elif nxt == "S" and not in_class:
                out.append("[^\\t\\n\\f\\r ]")
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            posix = _POSIX_CLASS.match(pattern, i) if c == "[" else None
            if posix is not None:
                negated, name = posix.groups()
                if name not in _POSIX or negated:
                    raise ValueError(f"character class [:{negated}{name}:] not supported")
                out.append(_POSIX[name])
                i = posix.end()
                continue
            if c == "]" and not (out and out[-1] in ("[", "[^")):
                in_class = False
            out.append(c)
        elif c == "[":
            in_class = True
            if pattern.startswith("[^", i):
                out.append("[^")
                i += 2
                continue
            out.append("[")
        elif c == "$" and not multiline:
            out.append("\\Z")
        else:
            out.append(c)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def compiled(pattern: str) -> re.Pattern[str]:
    """`pattern` compiled with Go's semantics (cached: schemas repeat the quantity pattern 900 times)."""
    return re.compile(translate(pattern), re.ASCII)


def fullmatch(pattern: str, text: str) -> bool:
    """Go's `regexp.MustCompile("^" + pattern + "$").MatchString(text)`: the whole text, no final newline."""
    return compiled(f"^(?:{pattern})$").search(text) is not None
