"""Rate limits per client instance: a cool-down after a rate-limit answer and an optional requests-per-minute cap.

One :class:`RateLimiter` belongs to each :class:`~interlingua.transport.Client` unless several clients are
given the same one (``Client(..., limiter=shared)``), e.g. clients of one account with one quota. Every
request waits in :meth:`RateLimiter.acquire` first; a ``rate_limit`` answer moves the cool-down's end so
every later request through the limiter waits for it, not only the retry of the call that met it.
The clock and the sleep are injectable, so tests never wait for real.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable

__all__ = ["RateLimiter"]


class RateLimiter:
    """A cool-down and an optional requests-per-minute limit, shared by the clients given it.

    Args:
        requests_per_minute: At most this many requests start in any 60 s window (``0``: no limit).
        clock: Monotonic seconds (``time.monotonic``); tests pass a fake one.
        wall: Wall-clock seconds since the epoch (``time.time``), for reset times given as dates.
        sleep: ``async (seconds) -> None`` (``asyncio.sleep``); tests pass one that advances ``clock``.

    Raises:
        ValueError: ``requests_per_minute`` is negative or not an integer.
    """

    def __init__(
        self,
        requests_per_minute: int = 0,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if isinstance(requests_per_minute, bool) or not isinstance(requests_per_minute, int) or requests_per_minute < 0:
            raise ValueError(f"requests_per_minute must be a whole number >= 0 (0: no limit), got {requests_per_minute!r}")
        self.requests_per_minute = requests_per_minute
        self.clock = clock
        self.wall = wall
        self._sleep = sleep
        self._until = float("-inf")
        self._starts: deque[float] = deque()

    def __repr__(self) -> str:
        return f"RateLimiter(requests_per_minute={self.requests_per_minute}, cooling_for={self.cooling_for():.3g})"

    def cool_down(self, seconds: float) -> None:
        """No request starts through this limiter for ``seconds`` from now (a longer cool-down already set stays)."""
        self._until = max(self._until, self.clock() + max(0.0, seconds))

    def cooling_for(self) -> float:
        """Seconds left of the cool-down (0 when none)."""
        return max(0.0, self._until - self.clock())

    def wait_time(self) -> float:
        """Seconds until a request may start (the cool-down, then the requests-per-minute window)."""
        now = self.clock()
        wait = max(0.0, self._until - now)
        if self.requests_per_minute:
            while self._starts and self._starts[0] <= now - 60.0:
                self._starts.popleft()
            if len(self._starts) >= self.requests_per_minute:
                wait = max(wait, self._starts[0] + 60.0 - now)
        return wait

    async def acquire(self) -> None:
        """Wait until a request may start, then count it as started."""
        while True:
            wait = self.wait_time()
            if wait <= 0:
                if self.requests_per_minute:
                    self._starts.append(self.clock())
                return
            await self._sleep(wait)

    async def sleep(self, seconds: float) -> None:
        """Sleep with this limiter's sleep (a retry's backoff)."""
        await self._sleep(seconds)
