"""A port of Kubernetes' `resource.Quantity` parsing and canonical serialisation.

KubeVirt re-serialises quantities (``memory.guest``, ``cpu`` limits ...) when it converts
ControllerRevision payloads, so our output must equal Go's ``Quantity.String()`` byte for byte.
This module follows ``k8s.io/apimachinery/pkg/api/resource`` (quantity.go, suffix.go, amount.go,
scale_int.go) including its quirks:

* ``ParseQuantity`` keeps the *input string* as the serialised form when the input is
  already "canonical enough" (Go caches it in ``Quantity.s``): ``"+1Ki"`` stays ``"+1Ki"``,
  ``"1E3"`` stays ``"1E3"``, ``"1.500"`` stays ``"1.500"``. Everything else is re-emitted in
  canonical form (``"1024Mi"`` -> ``"1Gi"``, ``"1.5"`` -> ``"1500m"``).
* Values finer than nano are rounded away from zero (``"0.9n"`` -> ``"1n"``).
* BinarySI values are capped, silently, at 2^63-1; decimal values are not capped.
* BinarySI values that are not integers, or whose magnitude is below 1024, are shown in
  DecimalSI (``"0.5Ki"`` -> ``"512"``, ``"1.1Ki"`` -> ``"1126400m"``).
* DecimalSI exponents beyond ``E`` (10^18) fall back to exponent notation (``"1000E"`` ->
  ``"1e21"``), as current apimachinery does (older releases emitted a corrupt ``"1"``).
* Go's int32 exponent arithmetic wraps; the wrap is reproduced for absurd exponents.

YAML may give a number instead of a string. Kubernetes converts YAML to JSON and hands the
raw JSON number text to ``Quantity.UnmarshalJSON``; :func:`parse_quantity` therefore turns an
int into its exact decimal text, a JSON number read with its text (``plain.JSONNumber``) into that
text, and a float into Go's ``encoding/json`` float text (so a YAML ``0.5`` becomes ``"500m"``,
``1e21`` becomes ``"1e+21"``). No float comes between a JSON text and the quantity.

Public API: :func:`parse_quantity`, :func:`decode_quantity`, :func:`canonical`,
:func:`is_quantity`, :class:`Quantity`, :class:`Format`, :class:`QuantityError`.
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass

from transform.kubevirt.quantity_suffix import BINARY_SUFFIX_BY_POWER, DECIMAL_SUFFIX_BY_EXPONENT, SUFFIXES, Format

__all__ = [
    "ERR_FORMAT_WRONG",
    "ERR_NUMERIC",
    "ERR_SUFFIX",
    "Format",
    "Quantity",
    "QuantityError",
    "canonical",
    "decode_quantity",
    "is_quantity",
    "parse_quantity",
]

SPLIT_RE_STRING = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG = "quantities must match the regular expression '" + SPLIT_RE_STRING + "'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

MAX_INT64 = (1 << 63) - 1
_NANO = -9
_MAX_INT64_FACTORS = 18
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")
# Fractional digits kept when a binary value is scaled: 2^60 * 10^9 has 69 decimal places of
# reciprocal precision, so 80 places plus a sticky digit keep the round-up to nano exact.
_BINARY_FRACTION_KEEP = 80


class QuantityError(ValueError):
    """A string (or number) that Kubernetes would refuse as a resource.Quantity."""


def _wrap32(n: int) -> int:
    """Go's int32 conversion/overflow: two's complement wrap."""
    return ((n + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


@dataclass(frozen=True, eq=False)
class Quantity:
    """A parsed quantity: value = (-1 if negative) * int(digits) * 10**exponent.

    `digits` has no leading zeros ("0" for zero). `cached` is the input string when Go keeps it
    as the serialised form (``Quantity.s``), else "".
    """

    negative: bool
    digits: str
    exponent: int
    format: Format
    cached: str = ""

    @property
    def is_zero(self) -> bool:
        return self.digits == "0"

    @property
    def sign(self) -> int:
        return 0 if self.is_zero else (-1 if self.negative else 1)

    def as_decimal(self) -> decimal.Decimal:
        """The exact value (no context rounding is applied on construction)."""
        return decimal.Decimal((int(self.negative), tuple(int(c) for c in self.digits), self.exponent))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return _cmp(self, other) == 0

    def __hash__(self) -> int:
        return hash(self.as_decimal())

    def __str__(self) -> str:
        return self.string()

    def string(self) -> str:
        """Go's ``Quantity.String()``: the cached input or the canonical form."""
        if self.cached:
            return self.cached
        number, suffix = self.canonicalize()
        return number + suffix

    def canonicalize(self) -> tuple[str, str]:
        """Go's ``CanonicalizeBytes``: (number, suffix) of the canonical form."""
        if self.is_zero:
            return "0", ""
        fmt = self.format
        if fmt is Format.BINARY_SI:
            if _abs_below(self.digits, self.exponent, 1024) or not _is_integer(self.digits, self.exponent):
                fmt = Format.DECIMAL_SI
        sign = "-" if self.negative else ""
        if fmt is Format.BINARY_SI:
            # an integer <= 2^63-1 (binary values are capped), so int() is cheap here
            if self.exponent >= 0:
                value = int(self.digits) * 10**self.exponent
            else:
                value = int(self.digits) // 10**-self.exponent
            power = 0
            while value >= 1024 and value % 1024 == 0:
                value //= 1024
                power += 1
            return sign + str(value), BINARY_SUFFIX_BY_POWER.get(power, "")
        number, exponent = _canonical_base10(self.digits, self.exponent)
        suffix = DECIMAL_SUFFIX_BY_EXPONENT.get(exponent) if fmt is Format.DECIMAL_SI else None
        if suffix is None:
            suffix = "" if exponent == 0 else f"e{exponent}"
        return sign + number, suffix


def _cmp(a: Quantity, b: Quantity) -> int:
    x, y = a.as_decimal(), b.as_decimal()
    return (x > y) - (x < y)


def _abs_below(digits: str, exponent: int, bound: int) -> bool:
    if exponent >= 0:
        return len(digits) + exponent <= len(str(bound)) and int(digits) * 10**exponent < bound
    int_part = digits[:exponent] or "0"
    return len(int_part) <= len(str(bound)) and int(int_part) < bound


def _is_integer(digits: str, exponent: int) -> bool:
    return exponent >= 0 or digits == "0" or set(digits[exponent:]) <= {"0"}


def _canonical_base10(digits: str, exponent: int) -> tuple[str, int]:
    """amount.go AsCanonicalBytes: strip factors of ten, then lower the exponent to a multiple of 3."""
    exponent = _wrap32(exponent)
    stripped = digits.rstrip("0")
    exponent = _wrap32(exponent + len(digits) - len(stripped))
    while exponent % 3 != 0:
        stripped += "0"
        exponent = _wrap32(exponent - 1)
    return stripped, exponent


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """quantity.go parseQuantityString: (positive, value, num, denom, suffix)."""
    positive = True
    pos = 0
    end = len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] == "+"
        pos += 1
    # strip leading zeros
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos] or "0"
    if pos >= end:
        return positive, text, num, "", ""
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    value = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(ERR_FORMAT_WRONG)
    return positive, value, num, denom, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, Format]:
    """suffix.go interpret: (base, exponent, format)."""
    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    if len(suffix) > 1 and suffix[0] in "eE":
        rest = suffix[1:]
        body = rest[1:] if rest[:1] in ("+", "-") else rest
        if body and set(body) <= _DIGITS:
            parsed = int(rest)
            if -(1 << 63) <= parsed <= MAX_INT64:  # strconv.ParseInt(.., 10, 64)
                return 10, _wrap32(parsed), Format.DECIMAL_EXPONENT
    raise QuantityError(ERR_SUFFIX)


def _increment(digits: str) -> str:
    """Add one to a decimal digit string without converting it to int (no length limit)."""
    body = digits.rstrip("9")
    nines = len(digits) - len(body)
    if not body:
        return "1" + "0" * nines
    return body[:-1] + str(int(body[-1]) + 1) + "0" * nines


def _round_up_to_nano(digits: str, exponent: int) -> tuple[str, int]:
    """inf.Dec Round(amount, 9, RoundUp) of a non-negative value."""
    if digits == "0" or exponent >= _NANO:
        return digits, exponent
    drop = _NANO - exponent
    kept, dropped = digits[:-drop] if drop < len(digits) else "", digits[-drop:]
    kept = kept.lstrip("0") or "0"
    if dropped.strip("0"):
        kept = _increment(kept) if kept != "0" else "1"
    return kept, _NANO


def _slow_path(value: str, base: int, exponent: int, fmt: Format) -> Quantity:
    body = value.lstrip("+-")
    negative = value.startswith("-")
    int_part, _, frac = body.partition(".")
    if not (int_part + frac):
        raise QuantityError(ERR_NUMERIC)
    digits = (int_part + frac).lstrip("0") or "0"
    scale = len(frac)  # inf.Dec scale: value = digits * 10**-scale
    if base == 10:
        scale = _wrap32(scale + _wrap32(-exponent))
        digits, exp = _round_up_to_nano(digits, -scale)
    else:
        digits, exp = _binary_amount(int_part, frac, exponent)
    if fmt is Format.BINARY_SI and digits != "0" and _abs_below(digits, exp, 1):
        fmt = Format.DECIMAL_SI
    return Quantity(negative and digits != "0", digits, exp, fmt)


def _binary_amount(int_part: str, frac: str, power: int) -> tuple[str, int]:
    """value * 2**power, rounded up to nano and capped at 2^63-1 (BinarySI only)."""
    int_part = int_part.lstrip("0")
    if len(int_part) > 19:
        return str(MAX_INT64), 0
    if len(frac) > _BINARY_FRACTION_KEEP:
        sticky = "1" if frac[_BINARY_FRACTION_KEEP:].strip("0") else "0"
        frac = frac[:_BINARY_FRACTION_KEEP] + sticky
    unscaled = int((int_part + frac) or "0") << power
    digits, exp = _round_up_to_nano(str(unscaled), -len(frac))
    if exp < 0:
        whole = int(digits) > MAX_INT64 * 10**-exp
    else:
        whole = int(digits) * 10**exp > MAX_INT64
    if whole:
        return str(MAX_INT64), 0
    return digits, exp


def _parse_string(text: str) -> Quantity:
    """quantity.go ParseQuantity."""
    if not text:
        raise QuantityError(ERR_FORMAT_WRONG)
    if text == "0":
        return Quantity(False, "0", 0, Format.DECIMAL_SI, cached="0")
    positive, value, num, denom, suffix = _split(text)
    base, exponent, fmt = _interpret(suffix)

    precision = 0
    if fmt is Format.BINARY_SI:
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1 if not denom else -1
    else:
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
    if precision >= 0:
        scale = _wrap32((0 if fmt is Format.BINARY_SI else exponent) - len(denom))
        if scale >= _NANO:
            shifted = num + denom
            parsed = int(shifted)
            result = parsed << exponent if fmt is Format.BINARY_SI else parsed
            if result <= MAX_INT64:
                cached = ""
                if fmt is Format.BINARY_SI:
                    if exponent % 10 == 0 and parsed & 0x07:
                        cached = text
                elif scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0":
                    cached = text
                digits = str(result)
                return Quantity(not positive and result != 0, digits, scale if result else 0, fmt, cached)
    return _slow_path(value, base, exponent, fmt)


def _go_json_float(number: float) -> str:
    """encoding/json's text for a float64 (strconv 'f' or 'e' with shortest digits)."""
    if math.isnan(number) or math.isinf(number):
        raise QuantityError(f"json: unsupported value: {number!r}")
    if number == 0:
        return "-0" if math.copysign(1.0, number) < 0 else "0"
    dec = decimal.Decimal(repr(number)).normalize(decimal.Context(prec=40))
    if 1e-6 <= abs(number) < 1e21:
        return format(dec, "f")
    return format(dec, "e").replace("E", "e")


def _number_text(value: object) -> str:
    """The JSON text `UnmarshalJSON` is given for a number: exact for an integer (a YAML integer beyond
    uint64 was already read as a float by the resolver) and for a JSON number that kept its text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = getattr(value, "text", None)
    if isinstance(text, str):
        return text
    if isinstance(value, float):
        return _go_json_float(value)
    raise QuantityError(f"cannot use {type(value).__name__} as a quantity")


def parse_quantity(value: str | int | float) -> Quantity:
    """Go's ``ParseQuantity`` for a string; for a YAML number, what ``UnmarshalJSON`` does with it."""
    if isinstance(value, str):
        return _parse_string(value)
    return _parse_string(_number_text(value))


# strings.TrimSpace after encoding/json escaped the string: the ASCII controls are escaped
# (so never trimmed), U+2028/U+2029 are escaped too; the other Unicode spaces are trimmed.
_JSON_TRIMMED = (
    " \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
)


def decode_quantity(value: str | int | float) -> Quantity:
    """What a Kubernetes/KubeVirt decode of a YAML value does (YAML -> JSON -> ``UnmarshalJSON``).

    Unlike :func:`parse_quantity` it trims the spaces that ``UnmarshalJSON`` trims (`" 1Gi"`).
    """
    if isinstance(value, str):
        return _parse_string(value.strip(_JSON_TRIMMED))
    return parse_quantity(value)


def canonical(value: str | int | float | Quantity) -> str:
    """The string Kubernetes serialises `value` as (Go ``Quantity.String()`` after parsing)."""
    if isinstance(value, Quantity):
        return value.string()
    return parse_quantity(value).string()


def is_quantity(value: object) -> bool:
    """True when :func:`parse_quantity` accepts `value`."""
    if not isinstance(value, (str, int, float)):
        return False
    try:
        parse_quantity(value)
    except QuantityError:
        return False
    return True
