"""Table tests for transform.kubevirt.quantity, most cases taken from apimachinery's quantity_test.go."""

from __future__ import annotations

import decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from transform.kubevirt.quantity import (
    ERR_FORMAT_WRONG,
    ERR_NUMERIC,
    ERR_SUFFIX,
    MAX_INT64,
    Format,
    Quantity,
    QuantityError,
    canonical,
    decode_quantity,
    is_quantity,
    parse_quantity,
)

D = decimal.Decimal

# The facts the upgrade relies on (KubeVirt re-serialises memory.guest and friends).
REQUIRED = [
    ("1024Mi", "1Gi"),
    ("0.5Gi", "512Mi"),
    ("1610612736", "1610612736"),
    ("128Mi", "128Mi"),
    ("1000M", "1G"),
    ("1.5G", "1500M"),
    ("0.1", "100m"),
    ("1Ki", "1Ki"),
    ("1536Ki", "1536Ki"),
    ("2048Ki", "2Mi"),
    ("1e3", "1e3"),
    ("0", "0"),
    ("100m", "100m"),
    ("1.5Gi", "1536Mi"),
    ("1023", "1023"),
    ("1023Ki", "1023Ki"),  # 1023 is not a multiple of 8: Go keeps the input string
    ("1024Ki", "1Mi"),
    ("2Gi", "2Gi"),
    ("4096Mi", "4Gi"),
    ("8Gi", "8Gi"),
]

# TestQuantityParseEmit, TestQuantityString alternates, TestParseQuantity canonicals.
GO_EMIT = [
    ("1Mi", "1Mi"),
    ("1Gi", "1Gi"),
    (".001Ki", "1024m"),
    (".000001Ki", "1024u"),
    (".000000001Ki", "1024n"),
    (".000000000001Ki", "2n"),
    ("307200Ki", "300Mi"),
    ("1025024Mi", "1001Gi"),
    ("1024Gi", "1Ti"),
    ("5000m", "5"),
    ("0.5", "500m"),
    ("0.001T", "1G"),
    ("1000u", "1m"),
    ("1.08", "1080m"),
    ("1080000000n", "1080m"),
    ("1000E", "1e21"),
    ("5000E", "5e21"),
    ("1000000E", "1e24"),
    (".001e12", "1e9"),
    ("0.001e0", "1e-3"),
    ("1000e-12", "1e-9"),
    ("00", "0"),
    ("80e-3", "80e-3"),
    ("300e6", "300e6"),
    ("1234567M", "1234567M"),
    ("1080n", "1080n"),
    ("1025", "1025"),
    ("-999999999999999999", "-999999999999999999"),
    ("999999999999999999.0", "999999999999999999"),
    ("-999999999999999999.1", "-999999999999999999100m"),
    ("9999999999999999999", "9999999999999999999"),
    ("-1000000000000000000", "-1E"),
    ("1000000000000000000", "1E"),
    ("1.0E", "1E"),
    ("9999999999999999999000m", "9999999999999999999"),
    ("9999999999999999999.1", "9999999999999999999100m"),
    ("1.0000000000000000001E", "1000000000000000000100m"),
    ("-1.000000000000000001E", "-1000000000000000001"),
    ("10000000000000000000", "10E"),
    ("-10.0E", "-10E"),
    ("10000000000000000000000m", "10E"),
    ("10.0000000000000000001E", "10000000000000000000100m"),
    ("10.000000000000000001E", "10000000000000000001"),
    ("-9223372036854775809", "-9223372036854775809"),
    ("9223372036854775807000m", "9223372036854775807"),
    ("9223372036854775808.1", "9223372036854775808100m"),
    ("9223372036854775808", "9223372036854775808"),
    ("18446744073709551616", "18446744073709551616"),
    ("12E", "12E"),
    ("1.01E", "1010P"),
]

# Rounding (away from zero, to nano), the BinarySI cap, fractional binary values.
ROUNDING = [
    ("3.001n", "4n"),
    ("1.1E-9", "2e-9"),
    ("0.0000000001", "1n"),
    ("0.0000000005", "1n"),
    ("0.00000000050", "1n"),
    ("0.5e-9", "1e-9"),
    ("0.9n", "1n"),
    ("0.00000012345", "124n"),
    ("0.00000012354", "124n"),
    ("-0.9n", "-1n"),
    ("-3.001n", "-4n"),
    ("9Ei", str(MAX_INT64)),
    ("8Ei", str(MAX_INT64)),
    ("9223372036854775807Ki", str(MAX_INT64)),
    ("-9Ei", str(-MAX_INT64)),
    ("7Ei", "7Ei"),
    ("100.035Ki", "102435840m"),
    ("0.5Mi", "512Ki"),
    ("0.05Gi", "53687091200m"),
    ("0.025Ti", "27487790694400m"),
    ("0.5Ki", "512"),
    ("1.1Ki", "1126400m"),
    ("0.000000000001Ki", "2n"),
    ("0." + "0" * 5000 + "1", "1n"),
    ("0." + "0" * 5000 + "1Ki", "1n"),
    ("1" + "0" * 5000 + "Ki", str(MAX_INT64)),
]

# Go keeps the parsed string when it is already in (its idea of) canonical form.
# (including the odd spellings "1." and "100.035k": the number and scale are already canonical)
KEPT_AS_WRITTEN = [
    "1.",
    "1.G",
    "1E-3",
    "100.035k",
    "10.035M",
    "6.987654321G",
    "+1Ki",
    "01Ki",
    "1E3",
    "1.500",
    "01",
    "+1",
    "1001E",
    "-7Mi",
    "1e+21",
    "1023Ki",
    "128",
]

# Things written by trolls (and other odd but valid spellings).
ODD = [
    (".001", "1m"),
    (".0001k", "100m"),
    (".", "0"),
    ("-.", "0"),
    ("-", "0"),
    ("+", "0"),
    ("-0", "0"),
    ("0.0", "0"),
    ("0Ki", "0"),
    ("-0Gi", "0"),
    ("1e0", "1e0"),
    ("10e-1", "1"),
    ("1.5e3", "1500"),
    ("1e+3", "1e+3"),
    ("1000e0", "1e3"),
    ("50k", "50k"),
    ("40T", "40T"),
    ("2.5P", "2500T"),
]

NEGATIVE = [("-" + a, "-" + b) for a, b in REQUIRED if a != "0"]

INVALID = [
    ("", ERR_FORMAT_WRONG),
    ("1.1.M", ERR_FORMAT_WRONG),
    ("1+1.0M", ERR_FORMAT_WRONG),
    ("0.1mi", ERR_SUFFIX),
    ("0.1am", ERR_FORMAT_WRONG),
    ("aoeu", ERR_FORMAT_WRONG),
    (".5i", ERR_SUFFIX),
    ("1i", ERR_SUFFIX),
    ("-3.01i", ERR_SUFFIX),
    ("-3.01e-", ERR_SUFFIX),
    (" 1", ERR_FORMAT_WRONG),
    ("1 ", ERR_FORMAT_WRONG),
    ("1K", ERR_SUFFIX),
    ("1KiB", ERR_FORMAT_WRONG),
    ("1e", ERR_SUFFIX),
    ("1ee3", ERR_SUFFIX),
    ("1e99999999999999999999", ERR_SUFFIX),
    ("1Gi\n", ERR_FORMAT_WRONG),
    ("Non-Numeric", ERR_FORMAT_WRONG),
    ("true", ERR_FORMAT_WRONG),
    ("1,5", ERR_FORMAT_WRONG),
    ("١", ERR_FORMAT_WRONG),  # non-ASCII digits are not digits to Go
    (".e-10", ERR_NUMERIC),
]


@pytest.mark.parametrize(("text", "expect"), REQUIRED + GO_EMIT + ROUNDING + ODD + NEGATIVE)
def test_canonical(text: str, expect: str) -> None:
    assert canonical(text) == expect


@pytest.mark.parametrize("text", KEPT_AS_WRITTEN)
def test_string_kept_as_written(text: str) -> None:
    q = parse_quantity(text)
    assert q.cached == text
    assert str(q) == text


@pytest.mark.parametrize(("text", "message"), INVALID)
def test_invalid(text: str, message: str) -> None:
    with pytest.raises(QuantityError) as info:
        parse_quantity(text)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)
    assert not is_quantity(text)


def test_error_message_is_kubernetes_text() -> None:
    assert ERR_FORMAT_WRONG == (
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )


@pytest.mark.parametrize(
    ("text", "value", "fmt"),
    [
        ("0", "0", Format.DECIMAL_SI),
        ("0Ki", "0", Format.BINARY_SI),
        ("1Ki", "1024", Format.BINARY_SI),
        ("3Ei", str(3 * 2**60), Format.BINARY_SI),
        ("5n", "5e-9", Format.DECIMAL_SI),
        ("50k", "50000", Format.DECIMAL_SI),
        ("1E", "1e18", Format.DECIMAL_SI),
        ("1E-3", "0.001", Format.DECIMAL_EXPONENT),
        ("1.3E+6", "1300000", Format.DECIMAL_EXPONENT),
        ("0.5e-2", "0.005", Format.DECIMAL_EXPONENT),
        ("100.035Ki", "102435.84", Format.BINARY_SI),
        ("0.000000000001Ki", "2e-9", Format.DECIMAL_SI),  # rounds up, changes format
        ("9Ei", str(MAX_INT64), Format.BINARY_SI),
        ("-1.5Gi", str(-3 * 2**29), Format.BINARY_SI),
    ],
)
def test_parse_value_and_format(text: str, value: str, fmt: Format) -> None:
    q = parse_quantity(text)
    assert q.as_decimal() == D(value)
    assert q.format is fmt
    if not text.startswith("-"):
        assert q == parse_quantity("+" + text)
        assert parse_quantity("-" + text).as_decimal() == -D(value)


@pytest.mark.parametrize(
    ("value", "expect"),
    [
        (1610612736, "1610612736"),
        (0, "0"),
        (1024, "1024"),
        (1000, "1k"),
        (-5, "-5"),
        (0.5, "500m"),
        (1.0, "1"),
        (1.5, "1500m"),
        (100.0, "100"),
        (1e21, "1e+21"),  # Go's JSON text "1e+21" is kept as written
        (1.5e21, "1500e18"),  # JSON "1.5e+21"
        (1e-7, "100e-9"),  # JSON "1e-7"
        (1e-5, "10u"),  # JSON "0.00001"
        (-0.0, "0"),
        (float(2**70), "1180591620717411300e3"),  # go-yaml reads the YAML integer 2**70 as a float64
        (2**70, "1180591620717411303424"),  # a JSON integer's text is parsed exactly (issue 22 class V)
    ],
)
def test_yaml_numbers(value: int | float, expect: str) -> None:
    assert canonical(value) == expect


@pytest.mark.parametrize("value", [True, False, None, float("nan"), float("inf"), [1], {"a": 1}])
def test_not_quantities(value: object) -> None:
    assert not is_quantity(value)


def test_bool_is_rejected_like_go() -> None:
    with pytest.raises(QuantityError, match="regular expression"):
        parse_quantity(True)


def test_decode_trims_like_unmarshal_json() -> None:
    assert str(decode_quantity(" 1Gi ")) == "1Gi"
    assert str(decode_quantity("\u00a01024Mi")) == "1Gi"
    with pytest.raises(QuantityError):
        decode_quantity("1Gi\n")  # json.Marshal escapes the newline: not trimmed
    with pytest.raises(QuantityError):
        parse_quantity(" 1Gi")


def test_canonical_accepts_quantity_and_is_quantity() -> None:
    q = parse_quantity("1024Mi")
    assert canonical(q) == "1Gi"
    assert is_quantity("1Gi") and is_quantity(1) and is_quantity(0.25)
    assert parse_quantity("1Gi") == parse_quantity("1024Mi") == parse_quantity("1073741824")
    assert hash(parse_quantity("1Gi")) == hash(parse_quantity("1024Mi"))
    assert parse_quantity("1G") != parse_quantity("1Gi")
    assert isinstance(q, Quantity) and q.sign == 1 and parse_quantity("-1").sign == -1
    assert parse_quantity("0").is_zero


def test_int32_exponent_wrap_does_not_crash() -> None:
    assert canonical("1e2147483647") == "10e2147483646"
    assert canonical("10e2147483647") == "100e2147483646"
    assert canonical("1e4294967296") == "1e4294967296"  # int32(2^32) == 0: kept as written


# ---- properties ------------------------------------------------------------------------

_SUFFIX = st.sampled_from(["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"])
_EXP_SUFFIX = st.builds(
    lambda e, s, n: e + s + str(n), st.sampled_from("eE"), st.sampled_from(["", "+", "-"]), st.integers(0, 30)
)
_QUANTITY_TEXT = st.builds(
    lambda sign, whole, frac, suffix: sign + whole + frac + suffix,
    st.sampled_from(["", "+", "-"]),
    st.from_regex(r"[0-9]{1,22}", fullmatch=True),
    st.one_of(st.just(""), st.from_regex(r"\.[0-9]{0,12}", fullmatch=True)),
    st.one_of(_SUFFIX, _EXP_SUFFIX),
)


def _reference_value(text: str) -> D:
    """An independent computation: exact value, rounded away from zero to nano, binary capped."""
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    i = 0
    while i < len(body) and (body[i].isdigit() or body[i] == "."):
        i += 1
    number, suffix = body[:i], body[i:]
    with decimal.localcontext(decimal.Context(prec=1000)):
        value = D(number if number.strip(".") else "0")
        binary = suffix.endswith("i")
        powers = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
        if binary:
            value *= 2 ** ({"K": 10, "M": 20, "G": 30, "T": 40, "P": 50, "E": 60}[suffix[0]])
        else:
            value = value.scaleb(powers[suffix] if suffix in powers else int(suffix[1:]))
        value = value.quantize(D("1e-9"), rounding=decimal.ROUND_UP)
        if binary and value > MAX_INT64:
            value = D(MAX_INT64)
    return value.copy_negate() if sign < 0 else value


@given(_QUANTITY_TEXT)
def test_property_idempotent_and_value_preserving(text: str) -> None:
    q = parse_quantity(text)
    once = canonical(text)
    assert canonical(once) == once
    assert parse_quantity(once) == q
    assert q.as_decimal() == _reference_value(text)


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_property_ints(value: int) -> None:
    q = parse_quantity(value)
    assert q.as_decimal() == value
    assert canonical(canonical(value)) == canonical(value)


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e30, max_value=1e30))
def test_property_floats_keep_value_at_nano(value: float) -> None:
    q = parse_quantity(value)
    exact = D(repr(value))
    assert abs(q.as_decimal() - exact) <= D("1e-9")
    assert canonical(canonical(value)) == canonical(value)


@given(st.text(alphabet="0123456789.+-eEinumkKMGTPx ", max_size=12))
def test_property_never_crashes(text: str) -> None:
    try:
        result = canonical(text)
    except QuantityError:
        return
    assert canonical(result) == result
