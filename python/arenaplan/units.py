"""Byte counts written the way people write them: 98304, "96KiB", "96 KB", "1.5MiB"."""
from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Union

from .errors import InvalidArgument

__all__ = ["parse_bytes", "format_bytes", "count_bytes"]

_UNITS = {
    "": 1, "b": 1,
    "k": 1024, "kb": 1024, "kib": 1024,
    "m": 1024 ** 2, "mb": 1024 ** 2, "mib": 1024 ** 2,
    "g": 1024 ** 3, "gb": 1024 ** 3, "gib": 1024 ** 3,
}
_PATTERN = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?)\s*([a-zA-Z]*)\s*$")
MAX_BYTES = (1 << 64) - 1


def parse_bytes(value: Union[int, str], what: str = "size") -> int:
    """A non-negative whole number of bytes from an int or a string like ``"96KiB"``.

    KB/KiB both mean 1024 bytes, as memory sizes on microcontrollers are quoted.
    Raises InvalidArgument naming ``what`` for negative, fractional or unreadable values.
    """
    if isinstance(value, bool):
        raise InvalidArgument(f"{what} must be a number of bytes, got {value!r}")
    if isinstance(value, str):
        match = _PATTERN.match(value)
        if not match or match.group(2).lower() not in _UNITS:
            raise InvalidArgument(f"{what}: cannot read {value!r} as a byte count "
                                  "(examples: 98304, '96KiB', '1.5MiB')")
        # exact decimal arithmetic: "9007199254740993" stays itself, as no float would keep it
        number = Fraction(match.group(1)) * _UNITS[match.group(2).lower()]
        if number.denominator != 1:
            raise InvalidArgument(f"{what}: {value!r} is not a whole number of bytes")
        result = int(number)
    else:
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidArgument(f"{what} must be a finite number of bytes, got {value!r}")
        try:
            result = int(value)
        except (TypeError, ValueError, OverflowError):
            raise InvalidArgument(f"{what} must be a number of bytes, got {value!r}") from None
        if result != value:
            raise InvalidArgument(f"{what} must be a whole number of bytes, got {value!r}")
    if result < 0:
        raise InvalidArgument(f"{what} must be >= 0 bytes, got {result}")
    if result > MAX_BYTES:
        raise InvalidArgument(f"{what} = {result:,} bytes does not fit in 64 bits "
                              f"({result - MAX_BYTES:,} more than {MAX_BYTES:,})")
    return result


def format_bytes(n: int) -> str:
    """``98304`` -> ``"96.0 KiB"``; small values stay in bytes."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 ** 2:
        return f"{n / 1024:.1f} KiB"
    return f"{n / 1024 ** 2:.2f} MiB"


def count_bytes(n: int) -> str:
    """``1`` -> ``"1 byte"``, ``98304`` -> ``"98,304 bytes"``: a count in a sentence."""
    return f"{n:,} byte" if n == 1 else f"{n:,} bytes"
