"""An independent reader of YAML as Kubernetes reads it (sigs.k8s.io/yaml over go-yaml v2), for tests.

Shares no code with transform/: the structure comes from PyYAML's composer (with no implicit resolvers,
so a plain scalar keeps its text and its style says it was plain), and every plain scalar is resolved
by the rules of shared/docs/kubernetes-yaml-scalars.md ("Scalars a writer must quote so Kubernetes reads
a string"), written here from the document:
1. bool: exactly the 22 YAML 1.1 spellings; 2. null: `~ null Null NULL` and empty;
3. `.inf`/`.nan` spellings: a float JSON cannot encode (REFUSED here);
4. starting with a digit, `+` or `-`: once every `_` is deleted, Go's ParseInt/ParseUint with base 0
   (and `0b`), or the float pattern `^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$`; an integer
   beyond uint64 / below int64 is a float;
5. starting with `.`: what strconv.ParseFloat accepts (`.5`, `.5e3`);
everything else, and every quoted scalar, is a string.
A plain `<<` key merges as go-yaml v2's decoder does (decode.go `mapping`, `merge`): in document order, a
merged key overriding one set before it; in a sequence of maps the earlier map wins.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

REFUSED = object()
TRUE = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"}
FALSE = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}
NULL = {"~", "null", "Null", "NULL", ""}
NOT_FINITE = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN"}
GO_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
INT64_MIN, UINT64_MAX = -(2**63), 2**64 - 1


def _go_parse_int(text: str) -> int | None:
    """strconv.ParseInt(text, 0, 64) / ParseUint(text, 0, 64) without the range check (None: not an int)."""
    sign = 1
    body = text
    if body[:1] in "+-":
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if not body:
        return None
    lower = body.lower()
    try:
        if lower.startswith("0x"):
            return sign * int(body[2:], 16) if body[2:] else None
        if lower.startswith("0o"):
            return sign * int(body[2:], 8) if body[2:] else None
        if lower.startswith("0b"):
            return sign * int(body[2:], 2) if body[2:] else None
        if body.startswith("0") and len(body) > 1:
            return sign * int(body[1:], 8)
        if body.isdigit():
            return sign * int(body)
    except ValueError:
        return None
    return None


def plain(text: str) -> Any:
    """The JSON value Kubernetes makes of the plain scalar `text` (REFUSED: it cannot be JSON)."""
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    if text in NULL:
        return None
    if text in NOT_FINITE:
        return REFUSED
    if text[:1] and text[0] in "0123456789+-":
        digits = text.replace("_", "")
        number = _go_parse_int(digits) if digits else None
        if number is not None and all(c.isalnum() or c in "+-" for c in digits):
            if INT64_MIN <= number <= UINT64_MAX:
                return number
            return float(number)
        if GO_FLOAT.fullmatch(digits):
            value = float(digits)
            return REFUSED if math.isinf(value) else value
        return text
    if text.startswith(".") and re.fullmatch(r"\.[0-9]+([eE][-+]?[0-9]+)?", text):
        return float(text)
    return text


def _value(node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        if node.style is None and node.tag == "tag:yaml.org,2002:str":
            return plain(node.value)
        return node.value  # quoted (or tagged !!str): the text
    if isinstance(node, yaml.SequenceNode):
        return [_value(n) for n in node.value]
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.style is None and k.value == "<<" and k.tag.endswith(":str"):
                # go-yaml v2 decode.go (*decoder).mapping: a merge is applied where it stands, over what was set
                # before it; (*decoder).merge: a sequence of maps is applied last to first (the earlier wins)
                for m in reversed(v.value) if isinstance(v, yaml.SequenceNode) else [v]:
                    out.update(_value(m))
                continue
            key = _value(k)
            out[key if isinstance(key, str) else str(key)] = _value(v)
        return out
    raise TypeError(node)


class _Loader(yaml.SafeLoader):
    """PyYAML's composer with no implicit resolvers: every plain scalar is tagged str and keeps its text."""


_Loader.yaml_implicit_resolvers = {}


def load_all(text: str) -> list[Any]:
    """Every document of `text` as Kubernetes reads it."""
    return [_value(node) for node in yaml.compose_all(text, Loader=_Loader)]
