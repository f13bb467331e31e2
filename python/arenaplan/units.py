"""Byte counts written the way people write them: 98304, "96KiB", "96 KB", "1.5MiB"."""
from __future__ import annotations

import re
from typing import Union

from .errors import InvalidArgument

__all__ = ["parse_bytes", "format_bytes"]

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
        number = float(match.group(1)) * _UNITS[match.group(2).lower()]
        if number != int(number):
            raise InvalidArgument(f"{what}: {value!r} is not a whole number of bytes")
        result = int(number)
    else:
        try:
            result = int(value)
        except (TypeError, ValueError):
            raise InvalidArgument(f"{what} must be a number of bytes, got {value!r}") from None
        if result != value:
            raise InvalidArgument(f"{what} must be a whole number of bytes, got {value!r}")
    if result < 0:
        raise InvalidArgument(f"{what} must be >= 0 bytes, got {result}")
    if result > MAX_BYTES:
        raise InvalidArgument(f"{what} = {result} does not fit in 64 bits")
    return result


def format_bytes(n: int) -> str:
    """``98304`` -> ``"96.0 KiB"``; small values stay in bytes."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 ** 2:
        return f"{n / 1024:.1f} KiB"
    return f"{n / 1024 ** 2:.2f} MiB"
