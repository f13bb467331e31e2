"""Byte counts as people write them (arenaplan.units)."""
from __future__ import annotations

import pytest

import arenaplan as ap
from arenaplan.units import count_bytes, parse_bytes


@pytest.mark.parametrize("text, value", [
    ("98304", 98304), ("96KiB", 98304), ("96 KB", 98304), ("1.5MiB", 1572864), ("0", 0),
    # exact: no float in between
    ("9007199254740993", 9007199254740993), ("18446744073709551614", 2 ** 64 - 2),
    ("18446744073709551615", 2 ** 64 - 1), (2 ** 64 - 1, 2 ** 64 - 1), (4096.0, 4096),
])
def test_byte_counts_are_read_exactly(text, value):
    assert parse_bytes(text) == value


@pytest.mark.parametrize("value, words", [
    (float("inf"), "budget must be a finite number of bytes, got inf"),
    (float("nan"), "budget must be a finite number of bytes, got nan"),
    (-1, "budget must be >= 0 bytes, got -1"),
    (1.5, "budget must be a whole number of bytes, got 1.5"),
    ("1.3KiB", "'1.3KiB' is not a whole number of bytes"),
    ("18446744073709551616", "does not fit in 64 bits (1 more than 18,446,744,073,709,551,615)"),
    ("lots", "cannot read 'lots' as a byte count"),
    (True, "budget must be a number of bytes, got True"),
    (None, "budget must be a number of bytes, got None"),
])
def test_bad_byte_counts_say_what_and_by_how_much(value, words):
    with pytest.raises(ap.InvalidArgument) as info:
        parse_bytes(value, "budget")
    assert words in str(info.value)
    assert isinstance(info.value, ValueError)


def test_a_budget_of_infinity_is_an_invalid_argument_not_an_overflow():
    with pytest.raises(ap.InvalidArgument, match="finite"):
        ap.plan(ap.zoo.load("autoencoder"), mode="balanced", budget=float("inf"), latency="model:cortex-m7")


def test_counts_in_sentences_agree_in_number():
    assert count_bytes(1) == "1 byte" and count_bytes(0) == "0 bytes" and count_bytes(98304) == "98,304 bytes"
