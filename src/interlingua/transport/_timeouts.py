"""Timeouts of a call and its overall deadline.

:class:`Timeouts` is what a caller gives a :class:`~interlingua.transport.Client`; :class:`Clock` is
the deadline of one call (``generate`` and the JSON calls share it), bounding each awaited step.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TypeVar

import httpx

from ..errors import TransportError
from ._errors import transport_error

__all__ = ["Clock", "Timeouts", "is_stall"]

T = TypeVar("T")


@dataclass(frozen=True)
class Timeouts:
    """Transport timeouts, all in seconds (caller cancellation works besides these).

    Attributes:
        connect: Establishing the connection (each attempt).
        read: Waiting for a non-stream response (no byte arriving for this long).
        idle: Gap between stream data (also the wait for a stream's response headers);
            a stream silent this long ends with ``timeout`` and is not retried.
        write: Sending the request.
        deadline: Overall bound on the whole call, retries and their waits included
            (``None``: no bound beyond the others). When it passes, the call ends with
            ``timeout``; a retry whose wait would end after it is not made.

    Raises:
        ValueError: a value that is not a positive number.
    """

    connect: float = 30.0
    read: float = 30.0
    idle: float = 60.0
    write: float = 30.0
    deadline: float | None = None

    def __post_init__(self) -> None:
        for name in ("connect", "read", "idle", "write", "deadline"):
            value = getattr(self, name)
            if value is None and name == "deadline":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or value == float("inf"):
                raise ValueError(f"Timeouts.{name} must be a positive number of seconds, got {value!r}")

    def for_request(self, stream: bool) -> httpx.Timeout:
        """The httpx timeout for one request."""
        return httpx.Timeout(connect=self.connect, read=self.idle if stream else self.read, write=self.write, pool=self.connect)


class Clock:
    """The overall deadline of one call (``None``: unbounded)."""

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self._end = None if deadline is None else time.monotonic() + deadline

    def left(self) -> float | None:
        """Seconds left before the deadline (``None``: no deadline; negative once passed)."""
        return None if self._end is None else self._end - time.monotonic()

    def expired(self, provider: str) -> TransportError:
        """The ``timeout`` error of a call past its deadline (``details["timeout"] == "deadline"``)."""
        err = transport_error("timeout", f"the call took longer than its deadline of {self.deadline:g} s", provider=provider)
        err.details["timeout"] = "deadline"
        return err

    async def run(self, step: Awaitable[T], provider: str) -> T:
        """``await step``, bounded by the time left.

        Raises:
            TransportError: ``timeout`` when the deadline passes first (the step is cancelled).
        """
        left = self.left()
        if left is None:
            return await step
        if left <= 0:
            if asyncio.iscoroutine(step):
                step.close()
            raise self.expired(provider)
        try:
            return await asyncio.wait_for(step, left)
        except TimeoutError:
            raise self.expired(provider) from None


def is_stall(err: TransportError) -> bool:
    """A read timeout: the server went silent after receiving the request."""
    return isinstance(err.__cause__, (httpx.ReadTimeout, httpx.PoolTimeout)) or err.details.get("timeout") == "deadline"
