"""Exceptions of arenaplan: one family, each also a builtin so callers can catch either.

The C core reports an ``ap_status`` plus an ``ap_error`` record; ``from_status``
is the single place that turns them into these exceptions.
"""
from __future__ import annotations

from typing import Optional

__all__ = [
    "ArenaplanError",
    "InvalidArgument",
    "SizeOverflow",
    "ModelError",
    "UnsupportedModel",
    "PlanDoesNotFit",
    "InvalidPlan",
    "ScratchTooSmall",
    "Unsupported",
    "SearchTimeout",
    "from_status",
]


class ArenaplanError(Exception):
    """Base of every error arenaplan raises."""


class InvalidArgument(ArenaplanError, ValueError):
    """An argument is out of range: wrong length, negative size, first > last, ..."""


class SizeOverflow(InvalidArgument, OverflowError):
    """Sizes or offsets whose arithmetic would overflow 64 bits (or size_t)."""


class ModelError(ArenaplanError, ValueError):
    """A model file or graph is unreadable, malformed or inconsistent."""


class UnsupportedModel(ModelError):
    """A well-formed model that uses an op or parameter arenaplan cannot run."""


class Unsupported(ArenaplanError, NotImplementedError):
    """A kernel does not implement the requested op, variant or parameter."""


class ScratchTooSmall(ArenaplanError, ValueError):
    """A kernel got less scratch than its variant requested."""


class SearchTimeout(ArenaplanError, TimeoutError):
    """A search hit its time limit before it could answer."""


class InvalidPlan(ArenaplanError, ValueError):
    """A plan failed verification or does not match its model."""

    def __init__(self, message: str, *, buffer: Optional[int] = None,
                 other: Optional[int] = None, op: Optional[int] = None) -> None:
        super().__init__(message)
        self.buffer = buffer
        self.other = other
        self.op = op


class PlanDoesNotFit(ArenaplanError, ValueError):
    """The buffers do not fit: ``needed`` bytes where ``available`` exist."""

    def __init__(self, message: str, *, pool: Optional[str] = None, needed: Optional[int] = None,
                 available: Optional[int] = None, op: Optional[int] = None) -> None:
        super().__init__(message)
        self.pool = pool
        self.needed = needed
        self.available = available
        self.op = op

    @property
    def short_by(self) -> Optional[int]:
        """Bytes missing, when both figures are known."""
        if self.needed is None or self.available is None:
            return None
        return self.needed - self.available


def _opt(value: int) -> Optional[int]:
    return None if value < 0 else value


def from_status(status: str, subject: str, index: int, other: int, op: int, needed: int,
                available: int, message: str) -> ArenaplanError:
    """Build the exception for a C status (called by the ``_core`` module)."""
    if status == "does_not_fit":
        return PlanDoesNotFit(message, pool=(str(index) if subject == "pool" and index >= 0 else None),
                              needed=needed or None, available=available,
                              op=_opt(op))
    if status == "invalid_plan":
        return InvalidPlan(message, buffer=_opt(index), other=_opt(other), op=_opt(op))
    if status == "overflow":
        return SizeOverflow(message)
    if status == "scratch_too_small":
        return ScratchTooSmall(message)
    if status == "unsupported":
        return Unsupported(message)
    if status == "timeout":
        return SearchTimeout(message)
    if status == "out_of_memory":
        return PlanDoesNotFit(f"out of memory: {message}", pool="host", needed=needed or None, available=available or None)
    return InvalidArgument(message)
