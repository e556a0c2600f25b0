"""Every plain scalar of kubernetes-yaml-scalars.md (133 run through sigs.k8s.io/yaml), as a value and
as a key, read by our parser with each YAML parser: the same JSON value, type and key as Kubernetes.

The expected results come from this test's own copy of the document (parsed below) and from the key
rules it states; the float keys (float32 'g' formatting) are transcribed by hand. Nothing is taken
from transform/.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from transform.yamltext import nodes

DOC = Path(__file__).with_name("kubernetes-yaml-scalars.md")
REFUSED = object()  # Kubernetes gives an error
NOT_FINITE = object()  # Kubernetes resolves a float, then cannot encode it as JSON (the pipeline refuses it)


def _cell(text: str) -> str:
    return text.strip().strip("`")


def _rows() -> list[tuple[str, str]]:
    section = DOC.read_text().split("## Values")[1].split("**Disagreeing rows")[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith("| Plain scalar"):
            continue
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        scalar = "" if cells[0] == "(empty)" else _cell(cells[0])
        rows.append((scalar, cells[1]))
    return rows


def _expected(k8s: str) -> Any:
    """The value of the Kubernetes column: JSON plus the Go type, or REFUSED."""
    if re.match(r"error: float .* not JSON-encodable", k8s):
        return NOT_FINITE
    if k8s.startswith(("error", "parse error")):
        return REFUSED
    m = re.fullmatch(r"`(.*)`(?: \((int|uint64|float)\))?", k8s)
    assert m, k8s
    if m.group(2) == "float":
        return float(m.group(1))  # `-0` (float) is -0.0
    value = json.loads(m.group(1))
    if m.group(2) in ("int", "uint64"):
        assert isinstance(value, int)
    return value


ROWS = _rows()

# sigs.k8s.io/yaml writes a float key with strconv.FormatFloat(f, 'g', -1, 32)
FLOAT_KEYS = {
    "08": "8",
    "09": "9",
    "18446744073709551616": "1.8446744e+19",
    "-9223372036854775809": "-9.223372e+18",
    "1.0": "1",
    ".5": "0.5",
    "1.": "1",
    "0.": "0",
    "-.5": "-0.5",
    "+.5": "0.5",
    "-0.0": "-0",
    "1e3": "1000",
    "1E3": "1000",
    "1e+3": "1000",
    "1e-3": "0.001",
    "1.0e3": "1000",
    "1.5e-3": "0.0015",
    ".inf": ".inf",
    ".Inf": ".inf",
    ".INF": ".inf",
    "+.inf": ".inf",
    "-.inf": "-.inf",
    ".nan": ".nan",
    ".NaN": ".nan",
    ".NAN": ".nan",
    "1_000.5": "1000.5",
    "6.8523015e+5": "685230.1",
    "685.230_15e+03": "685230.1",
    "1.10": "1.1",
    "1.9": "1.9",
    "1.20": "1.2",
    "3.10": "3.1",
    "2.5": "2.5",
    "0.5": "0.5",
    "1e6": "1e+06",
    "1E-3": "0.001",
}
# keys the document lists apart: valid string keys, parse errors
KEY_EXCEPTIONS = {"?": "?", "-": "-", "=": "=", "": REFUSED, "<<": REFUSED}
INT64_MAX = (1 << 63) - 1


def _expected_key(scalar: str, k8s: str) -> Any:
    if scalar in KEY_EXCEPTIONS:
        return KEY_EXCEPTIONS[scalar]
    if scalar in FLOAT_KEYS:
        return FLOAT_KEYS[scalar]
    value = _expected(k8s)
    if value is None or value is REFUSED or value is NOT_FINITE:
        return REFUSED  # a null key: "unsupported map key of type: <nil>"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return REFUSED if value > INT64_MAX else str(value)
    assert isinstance(value, str), (scalar, value)
    return value


def test_the_table_is_complete() -> None:
    assert len(ROWS) == 133
    assert len({s for s, _ in ROWS}) == 133
    assert set(FLOAT_KEYS) <= {s for s, _ in ROWS}


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, float):
        return type(got) is float and (got == want and math.copysign(1, got) == math.copysign(1, want))
    return type(got) is type(want) and got == want


@pytest.mark.parametrize(("scalar", "k8s"), ROWS, ids=[s or "(empty)" for s, _ in ROWS])
def test_value_as_kubernetes_reads_it(parser: str, scalar: str, k8s: str) -> None:
    want = _expected(k8s)
    if want is REFUSED:
        with pytest.raises(nodes.ParseError):
            nodes.parse(f"k: {scalar}\n")
        return
    doc = nodes.parse(f"k: {scalar}\n")
    assert doc is not None
    if want is NOT_FINITE:
        assert type(doc.value["k"]) is float and not math.isfinite(doc.value["k"])
        return
    assert _same(doc.value["k"], want), (scalar, doc.value["k"], want)


@pytest.mark.parametrize(("scalar", "k8s"), ROWS, ids=[s or "(empty)" for s, _ in ROWS])
def test_key_as_kubernetes_reads_it(parser: str, scalar: str, k8s: str) -> None:
    want = _expected_key(scalar, k8s)
    if want is REFUSED:
        with pytest.raises(nodes.ParseError):
            nodes.parse(f"{scalar}: v\n")
        return
    doc = nodes.parse(f"{scalar}: v\n")
    assert doc is not None
    assert doc.value == {want: "v"}, (scalar, doc.value, want)


@pytest.mark.parametrize(("scalar", "k8s"), ROWS, ids=[s or "(empty)" for s, _ in ROWS])
def test_quoted_is_always_a_string(parser: str, scalar: str, k8s: str) -> None:
    for text in (json.dumps(scalar), "'" + scalar.replace("'", "''") + "'"):
        doc = nodes.parse(f"k: {text}\n{text}: v\n")
        assert doc is not None
        assert doc.value == {"k": scalar, scalar: "v"}


# Beyond the table, from the rules the document states (go-yaml v2.4.0 resolve(): every `_` deleted, then
# strconv.ParseInt/ParseUint base 0, then the float pattern with strconv.ParseFloat, whose range errors
# leave a string): long and odd numbers the table does not list.
BEYOND = [
    ("0x1FFFFFFFFFFFFFFFF", "0x1FFFFFFFFFFFFFFFF"),  # past uint64 and not a float: a string
    ("99999999999999999999", 1e20),  # past uint64, a float
    ("-0x8000000000000000", -(1 << 63)),
    ("07777777777777777777777", 7.777777777777777e21),  # octal past uint64: read again as a decimal float
    ("1e400", "1e400"),  # ParseFloat: out of range, so a string
    ("1e-400", 0.0),
    ("+_1", 1),
    ("0_x_1F", 31),
    ("019", 19.0),
    (".5e3", 500.0),
    ("._5", "._5"),
    ("+.nan", "+.nan"),
    ("1_000_000_000_000_000_000_000", 1e21),
]


@pytest.mark.parametrize(("scalar", "want"), BEYOND, ids=[s for s, _ in BEYOND])
def test_numbers_beyond_the_table(parser: str, scalar: str, want: Any) -> None:
    doc = nodes.parse(f"k: {scalar}\n")
    assert doc is not None
    assert _same(doc.value["k"], want), (scalar, doc.value["k"], want)
