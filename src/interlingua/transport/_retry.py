"""When to retry and how long to wait.

At most ``max_retries`` automatic retries per call, counted end to end over every
cause, only before anything was handed to the caller, only for retryable codes;
a stall is never retried and a 2xx stream that had begun is re-sent at most
``max_stream_restarts`` times (the rule in full: ``docs/replay.md``). The wait comes from, in order: ``retry-after-ms``,
``Retry-After`` (seconds or an HTTP date), the provider's reset headers when a
matching ``remaining`` header says zero; otherwise capped exponential backoff
with jitter. A server asking for longer than ``max_wait`` is not retried.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

from ._spec import ProviderSpec, spec_reset_delay

__all__ = ["RetryPolicy", "header_delay", "retry_delay"]


@dataclass(frozen=True)
class RetryPolicy:
    """Retry settings.

    Attributes:
        max_retries: Automatic retries after the first attempt, whatever their causes
            together (0 turns retries off): at most ``1 + max_retries`` requests per call.
        max_stream_restarts: Of those, how many may re-send a request whose 2xx response
            had begun (status received, possibly non-content events such as a role-only
            chunk or ``response.created``) but broke before its first content-bearing event.
            Such a generation may already be billed, so the default is one.
        base: First backoff step in seconds.
        cap: Largest backoff step in seconds.
        max_wait: Longest server-requested wait honoured, in seconds; longer means no retry.
    """

    max_retries: int = 2
    max_stream_restarts: int = 1
    base: float = 0.5
    cap: float = 8.0
    max_wait: float = 60.0


def header_delay(headers: Mapping[str, str], spec: ProviderSpec | None = None, *, now: float | None = None) -> float | None:
    """The wait the response headers ask for, in seconds (``None``: they do not say)."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    after = headers.get("retry-after")
    if after is not None:
        try:
            return max(0.0, float(after))
        except ValueError:
            try:
                when = parsedate_to_datetime(after).timestamp()
            except (TypeError, ValueError):
                when = None
            if when is not None:
                return max(0.0, when - (time.time() if now is None else now))
    if spec is not None:
        return spec_reset_delay(spec, headers, now)
    return None


def retry_delay(
    headers: Mapping[str, str],
    attempt: int,
    policy: RetryPolicy,
    spec: ProviderSpec | None = None,
    *,
    rng: Callable[[], float] = random.random,
) -> float | None:
    """Seconds to wait before retry number ``attempt + 1`` (``None``: do not retry).

    Args:
        headers: Headers of the failed response (empty for network errors).
        attempt: Retries already made (0 before the first retry).
        policy: Retry settings.
        spec: Provider rules (reset headers).
        rng: Source of jitter in ``[0, 1)``.
    """
    if attempt >= policy.max_retries:
        return None
    asked = header_delay(headers, spec)
    if asked is not None:
        return asked if asked <= policy.max_wait else None
    step = min(policy.cap, policy.base * (2**attempt))
    return step * (0.5 + 0.5 * rng())
