"""An independent model of k8s.io/apimachinery resource.Quantity: ParseQuantity + String().

Written from apimachinery's quantity.go (parseQuantityString's loops, ParseQuantity's fast path that
keeps an already-canonical input string, CanonicalizeBytes), with exact rational arithmetic instead
of Go's int64/inf.Dec amounts. Shares nothing with transform/kubevirt/quantity.py.
Not modelled: the silent cap of BinarySI values at 2^63-1 (no test input comes near it).
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUFFIX_ERROR = "unable to parse quantity's suffix"
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DIGITS = "0123456789"


def _split(s: str) -> tuple[bool, str, str, str]:
    """parseQuantityString: (positive, numerator without leading zeros, denominator, suffix)."""
    positive, pos, end = True, 0, len(s)
    if pos < end and s[0] in "+-":
        positive, pos = s[0] == "+", 1
    while pos < end and s[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "", ""
    start = pos
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    num, denom = s[start:pos] or "0", ""
    if pos >= end:
        return positive, num, denom, ""
    if s[pos] == ".":
        pos += 1
        start = pos
        while pos < end and s[pos] in _DIGITS:
            pos += 1
        denom = s[start:pos]
        if pos >= end:
            return positive, num, denom, ""
    suffix_start = pos
    while pos < end and s[pos] in "eEinumkKMGTP":
        pos += 1
    if pos < end and s[pos] in "+-":
        pos += 1
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise ValueError(FORMAT_ERROR)
    return positive, num, denom, s[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, str]:
    """(base, exponent, format)."""
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix], "DecimalSI"
    if suffix in _BINARY:
        return 2, _BINARY[suffix], "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        try:
            return 10, int(suffix[1:]), "DecimalExponent"
        except ValueError:
            pass
    raise ValueError(SUFFIX_ERROR)


def _keeps_input(num: str, denom: str, base: int, exponent: int, fmt: str) -> bool:
    """ParseQuantity's fast path caches the input string when it is already in canonical form."""
    shifted = num + denom
    if fmt == "BinarySI":
        if denom or exponent < 0:
            return False
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        value = int(shifted)
        return precision >= 0 and (value << exponent) < 2**63 and exponent % 10 == 0 and value & 7 != 0
    precision = 18 - (len(num) + len(denom))
    scale = exponent - len(denom)
    return (
        precision >= 0
        and scale >= -9
        and int(shifted) < 2**63
        and scale % 3 == 0
        and not shifted.endswith("000")
        and shifted[0] != "0"
    )


def _decimal_text(n: int, fmt: str) -> str:
    """A value of n nano-units as DecimalSI / DecimalExponent (AsCanonicalBytes + suffix)."""
    mantissa, exp = n, -9
    while mantissa % 10 == 0:
        mantissa //= 10
        exp += 1
    while exp % 3:
        mantissa *= 10
        exp -= 1
    if fmt == "DecimalExponent" or exp > 18:
        return f"{mantissa}e{exp}" if exp else str(mantissa)
    return f"{mantissa}{ {v: k for k, v in _DECIMAL.items()}[exp] }"


def canonical(text: str) -> str:
    """Quantity.String() of resource.ParseQuantity(text); ValueError with Go's message when it fails."""
    if text == "":
        raise ValueError(FORMAT_ERROR)
    if text == "0":
        return "0"
    positive, num, denom, suffix = _split(text)
    base, exponent, fmt = _interpret(suffix)
    if _keeps_input(num, denom, base, exponent, fmt):
        return text
    value = Fraction(int(num + denom), 10 ** len(denom)) * (Fraction(base) ** exponent)
    nanos = value * 10**9
    n = -(-nanos.numerator // nanos.denominator)  # rounded up to a whole nano, away from zero
    if n == 0:
        return "0"
    n = n if positive else -n
    if fmt == "BinarySI":
        if abs(n) < 1024 * 10**9 or n % 10**9:
            fmt = "DecimalSI"  # small or fractional binary values are shown in decimal
        else:
            whole, power = n // 10**9, 0
            while whole % 1024 == 0 and power < 60:
                whole //= 1024
                power += 10
            return f"{whole}{ {v: k for k, v in _BINARY.items()}.get(power, '') }"
    return _decimal_text(n, fmt)


def go_number_text(number: float | int) -> str:
    """The JSON text encoding/json gives a float64 (what Quantity.UnmarshalJSON receives from YAML)."""
    if isinstance(number, int):
        return str(number)
    if number == int(number) and abs(number) < 1e21:
        return str(int(number))
    if 1e-6 <= abs(number) < 1e21:
        return format(Decimal(repr(number)), "f")
    mantissa, _, exp = repr(number).partition("e")  # Go: strconv 'e' format, "e-07" cleaned to "e-7"
    return f"{mantissa}e{exp[0]}{exp[1:].lstrip('0')}"
