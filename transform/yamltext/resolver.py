"""How Kubernetes reads a plain YAML scalar: its tag, its value, and a key's JSON text.

kubectl and the API server read YAML with sigs.k8s.io/yaml over go-yaml v2, which is neither YAML 1.1
nor 1.2 (docs: kubernetes-yaml-scalars.md): the 22 YAML 1.1 booleans (`y`, `on`, ...); `~`/`null`/empty;
`.inf`/`.nan`; and, for a scalar starting with a digit, `+` or `-`, Go's `strconv.ParseInt`/`ParseUint`
with base 0 (`0x`/`0X`, `0o`/`0O`, `0b`/`0B`, a leading `0` for octal) or the float pattern
`[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?`, after deleting every `_`. Timestamps and
base-60 forms (`12:30`) are strings; `<<` is the merge key (a string as a value).

`KubernetesResolver` is a class-level implicit-resolver table (a list of (tag, regex) per first
character, as ruamel.yaml's resolvers are), so libyaml's composer resolves each scalar with one dict
lookup and a regex match. Only the integers past 64 bits and exponents past float64 need a second
look, which the table cannot express.
"""

from __future__ import annotations

import base64
import binascii
import math
import operator
import re
import struct
from typing import Any

from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.resolver import BaseResolver
from ruamel.yaml.tag import Tag

from transform.yamltext.nodeclasses import MAPPING, SCALAR, SEQUENCE

STR = "tag:yaml.org,2002:str"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
BOOL = "tag:yaml.org,2002:bool"
NULL = "tag:yaml.org,2002:null"
MERGE = "tag:yaml.org,2002:merge"
BINARY = "tag:yaml.org,2002:binary"
TIMESTAMP = "tag:yaml.org,2002:timestamp"
MAP = "tag:yaml.org,2002:map"
SEQ = "tag:yaml.org,2002:seq"

BOOLS = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
}
SPECIAL_FLOATS = {
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
}

_U = "_*"  # go-yaml deletes every `_` before parsing a number: one may stand anywhere after the first character
_INT = re.compile(
    rf"""^[-+]?{_U}(?:
        0{_U}[xX](?:{_U}[0-9a-fA-F])+
      | 0{_U}[oO](?:{_U}[0-7])+
      | 0{_U}[bB](?:{_U}[01])+
      | 0(?:{_U}[0-7])*
      | [1-9](?:{_U}[0-9])*
    ){_U}$""",
    re.X,
)
_FLOAT = re.compile(  # go-yaml's yamlStyleFloat, with underscores anywhere
    rf"""^[-+]?{_U}(?:
        \.(?:{_U}[0-9])+
      | [0-9](?:{_U}[0-9])*(?:{_U}\.(?:{_U}[0-9])*)?
    )(?:{_U}[eE]{_U}[-+]?(?:{_U}[0-9])+)?{_U}$""",
    re.X,
)
_DOT_FLOAT = re.compile(r"^\.[0-9]+(?:[eE][-+]?[0-9]+)?$")  # strconv.ParseFloat of a scalar starting with `.`


def _words(words: Any) -> re.Pattern[str]:
    return re.compile("^(?:" + "|".join(re.escape(w) for w in words) + ")$")


class KubernetesResolver(BaseResolver):
    """The resolver of a loader (libyaml's CParser or ruamel's pure composer) that reads as Kubernetes."""

    # one Tag object per tag, shared by every node: ruamel would build one per scalar
    TAGS = {t: Tag(suffix=t) for t in (STR, INT, FLOAT, BOOL, NULL, MERGE, MAP, SEQ)}
    DEFAULT_SCALAR_TAG = TAGS[STR]
    DEFAULT_SEQUENCE_TAG = TAGS[SEQ]
    DEFAULT_MAPPING_TAG = TAGS[MAP]
    yaml_implicit_resolvers: dict[Any, Any] = {}
    yaml_path_resolvers: dict[Any, Any] = {}
    processing_version = (1, 1)  # ruamel's pure scanner then scans as libyaml (and go-yaml) do

    _plain_tags: dict[str, Any] = {}  # plain scalar -> its Tag; one cache per class (a subclass may add rows)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._plain_tags = {}

    # No path resolvers: no-ops, which the composers call twice per node. Builtins cost a third of a
    # Python method there: `operator.is_(node, index)` and `tuple()` (the empty tuple) do nothing.
    descend_resolver = staticmethod(operator.is_)  # type: ignore[assignment]
    ascend_resolver = staticmethod(tuple)  # type: ignore[assignment]

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind in SCALAR:  # the composer's node class: ruamel's own or the lean one (nodeclasses.py)
            if implicit[0]:
                cache = self._plain_tags  # keys and common values repeat: most scalars are a lookup
                tag = cache.get(value)
                if tag is None:
                    tag = self._resolve_plain(value)
                    if len(cache) < _PLAIN_TAGS_MAX:
                        cache[value] = tag
                return tag
            return self.DEFAULT_SCALAR_TAG
        if kind in MAPPING:
            return self.DEFAULT_MAPPING_TAG
        if kind in SEQUENCE:
            return self.DEFAULT_SEQUENCE_TAG
        return self.DEFAULT_SCALAR_TAG

    def _resolve_plain(self, value: str) -> Any:
        for tag, regexp in self.yaml_implicit_resolvers.get(value[:1], ()):
            if regexp.match(value):
                if tag is _NUMBER_CHECK:
                    return self.TAGS[number_tag(value)]
                return self.TAGS[tag]
        return self.DEFAULT_SCALAR_TAG


_PLAIN_TAGS_MAX = 1 << 16
_NUMBER_CHECK = "number (range checked)"  # marks the long numbers that need number_tag()


def _register() -> None:
    add = KubernetesResolver.add_implicit_resolver_base
    add(BOOL, _words(BOOLS), list("yYnNtTfFoO"))
    add(NULL, re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])
    add(FLOAT, _words(SPECIAL_FLOATS), list(".+-"))
    add(FLOAT, _DOT_FLOAT, ["."])
    add(MERGE, re.compile(r"^<<$"), ["<"])
    digits = list("-+0123456789")
    # numbers of up to 18 characters fit int64 and float64: the regex decides alone; longer ones are checked
    add(INT, re.compile(_INT.pattern.replace("^", "^(?=.{1,18}$)", 1), re.X), digits)
    add(FLOAT, re.compile(_FLOAT.pattern.replace("^", "^(?=.{1,18}$)(?![^eE]*[eE][-+]?_*[0-9_]{3})", 1), re.X), digits)
    long_number = r"^(?:(?=.{19})|(?=[^eE]*[eE][-+]?_*[0-9_]{3}))[-+0-9][-+0-9_.xXoObBa-fA-F]*$"
    add(_NUMBER_CHECK, re.compile(long_number), digits)


_register()

_INT64_MIN, _UINT64_MAX = -(1 << 63), (1 << 64) - 1


def number_tag(text: str) -> str:
    """Tag of a scalar starting with a digit or a sign that the short-number regexes did not settle."""
    if _INT.match(text) and _INT64_MIN <= go_int(text) <= _UINT64_MAX:
        return INT
    if _FLOAT.match(text) and not math.isinf(float(text.replace("_", ""))):
        return FLOAT
    return STR


def resolve_plain(text: str) -> str:
    """The tag Kubernetes gives the plain (unquoted) scalar `text`."""
    return str(_RESOLVER.resolve(ScalarNode, text, (True, False)))


def go_int(text: str) -> int:
    """strconv.ParseInt(text without `_`, 0): `0x`/`0o`/`0b` in either case, a leading `0` for octal."""
    plain = text.replace("_", "")
    sign = -1 if plain[0] == "-" else 1
    body = plain.lstrip("+-")
    if len(body) > 1 and body[0] == "0":
        return sign * (int(body, 0) if body[1] in "xXoObB" else int(body, 8))
    return sign * int(body)


def int_or_float(text: str) -> int | float:
    """An int tag's value: beyond int64/uint64 go-yaml falls back to a float64 (when the text is one)."""
    value = go_int(text)
    if _INT64_MIN <= value <= _UINT64_MAX:
        return value
    return float(text.replace("_", ""))


def scalar_value(tag: str, text: str) -> Any:
    """The JSON value Kubernetes makes of a scalar with this (resolved or explicit) tag.

    Raises ValueError when go-yaml refuses it (`!!int abc`, bad `!!binary`). `.inf`/`.nan` give ±inf/NaN,
    which Kubernetes resolves and then cannot encode as JSON: the caller refuses them.
    """
    if tag == STR:
        return text
    if tag == INT:
        if resolve_plain(text) != INT:
            raise ValueError(f"cannot decode {text!r} as an int")
        return int_or_float(text)
    if tag == FLOAT:
        kind = resolve_plain(text)
        if kind == INT:
            return float(int_or_float(text))
        if kind != FLOAT:
            raise ValueError(f"cannot decode {text!r} as a float")
        value = SPECIAL_FLOATS.get(text)
        return float(text.replace("_", "")) if value is None else value  # ±inf/NaN: JSON cannot encode them
    if tag == BOOL:
        if text not in BOOLS:
            raise ValueError(f"cannot decode {text!r} as a bool")
        return BOOLS[text]
    if tag == NULL:
        if resolve_plain(text) != NULL:
            raise ValueError(f"cannot decode {text!r} as null")
        return None
    if tag == MERGE:
        return text  # `<<` as a value is the string "<<"
    if tag == BINARY:
        try:
            data = base64.b64decode("".join(text.split()), validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("!!binary value contains invalid base64 data") from None
        return data.decode("utf-8", "replace")
    return text  # `!!timestamp` and unknown tags: the text, as go-yaml gives it


def key_text(value: Any) -> str:
    """The JSON object key sigs.k8s.io/yaml makes of a key's value (ValueError where it refuses)."""
    if isinstance(value, str):
        return value
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        if value > (1 << 63) - 1:
            raise ValueError("unsupported map key of type: uint64 (Kubernetes refuses it; quote it)")
        return str(value)
    if isinstance(value, float):
        return go_float32(value)
    if value is None:
        raise ValueError("unsupported map key of type: <nil> (Kubernetes refuses a null key; quote it)")
    raise ValueError(f"unsupported map key of type {type(value).__name__}")


def go_float32(value: float) -> str:
    """strconv.FormatFloat(value, 'g', -1, 32), as sigs.k8s.io/yaml writes a float key (±Inf/NaN as YAML)."""
    try:
        f32 = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        f32 = math.copysign(math.inf, value)
    if math.isnan(f32):
        return ".nan"
    if math.isinf(f32):
        return ".inf" if f32 > 0 else "-.inf"
    if f32 == 0:
        return "-0" if math.copysign(1, f32) < 0 else "0"
    for digits in range(9):  # the shortest decimal that reads back as the same float32
        text = f"{f32:.{digits}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == f32:
            break
    mantissa, exp_text = text.split("e")
    exp = int(exp_text)
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    if exp < -4 or exp >= 6:  # shortest 'g': exponent form outside [-4, 6)
        return f"{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    sign, digits_only = ("-", mantissa[1:]) if mantissa.startswith("-") else ("", mantissa)
    digits_only = digits_only.replace(".", "")
    point = exp + 1
    if point <= 0:
        return sign + "0." + "0" * -point + digits_only
    if point >= len(digits_only):
        return sign + digits_only + "0" * (point - len(digits_only))
    return sign + digits_only[:point] + "." + digits_only[point:]


_RESOLVER = KubernetesResolver()
