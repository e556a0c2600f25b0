"""The quantity suffixes of apimachinery's suffix.go: which base, exponent and format each one means."""

from __future__ import annotations

import enum


class Format(str, enum.Enum):
    DECIMAL_EXPONENT = "DecimalExponent"  # 12e6
    BINARY_SI = "BinarySI"  # 12Mi
    DECIMAL_SI = "DecimalSI"  # 12M

    def __str__(self) -> str:
        return self.value


# suffix -> (base, exponent, format); the decimal exponent suffixes ("e3") are parsed apart.
SUFFIXES: dict[str, tuple[int, int, Format]] = {
    "": (10, 0, Format.DECIMAL_SI),
    "n": (10, -9, Format.DECIMAL_SI),
    "u": (10, -6, Format.DECIMAL_SI),
    "m": (10, -3, Format.DECIMAL_SI),
    "k": (10, 3, Format.DECIMAL_SI),
    "M": (10, 6, Format.DECIMAL_SI),
    "G": (10, 9, Format.DECIMAL_SI),
    "T": (10, 12, Format.DECIMAL_SI),
    "P": (10, 15, Format.DECIMAL_SI),
    "E": (10, 18, Format.DECIMAL_SI),
    "Ki": (2, 10, Format.BINARY_SI),
    "Mi": (2, 20, Format.BINARY_SI),
    "Gi": (2, 30, Format.BINARY_SI),
    "Ti": (2, 40, Format.BINARY_SI),
    "Pi": (2, 50, Format.BINARY_SI),
    "Ei": (2, 60, Format.BINARY_SI),
}
DECIMAL_SUFFIX_BY_EXPONENT = {e: s for s, (b, e, _) in SUFFIXES.items() if b == 10}
BINARY_SUFFIX_BY_POWER = {e // 10: s for s, (b, e, _) in SUFFIXES.items() if b == 2}
