"""Drive a provider's accumulator over a framed stream.

The drivers hold the provider-neutral rules: exactly one terminal event, nothing
after it, and ``truncated`` when the input ends before the accumulator saw its
completion marker.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING

import httpx

from ..items import ErrorItem
from .events import StreamAccumulator, StreamDone, StreamError, StreamEvent, is_terminal
from .framing import aiter_frames, iter_frames

if TYPE_CHECKING:
    from ..mapping.protocol import Mapper

__all__ = ["aiter_stream", "collect", "iter_stream"]


_TOO_DEEP = "a stream event nests too deeply to decode"


def _finish(acc: StreamAccumulator) -> list[StreamEvent]:
    out: list[StreamEvent] = []
    for ev in acc.finish():
        out.append(ev)
        if is_terminal(ev):
            return out
    out.append(StreamError(ErrorItem(code="truncated", message="stream ended without a terminal event", retryable=True)))
    return out


def iter_stream(mapper: Mapper, source: bytes | Iterable[bytes] | httpx.Response) -> Iterator[StreamEvent]:
    """Yield canonical events for a provider stream, ending with exactly one terminal event.

    Args:
        mapper: The provider's mapper (gives framing and accumulator).
        source: The recorded stream bytes, an iterable of chunks, or a streaming ``httpx.Response``.
    """
    acc = mapper.accumulator()
    try:
        frames = iter_frames(mapper.framing, source)
        for frame in frames:
            for ev in acc.feed(frame):
                if is_terminal(ev) and isinstance(ev, StreamDone) and not isinstance(source, httpx.Response):
                    # A recorded stream is read to its end: data after the end marker is reported.
                    extra = sum(1 for _ in frames)
                    if extra:
                        ev.report.add("dropped", f"{extra} stream event(s) after the end marker were ignored")
                yield ev
                if is_terminal(ev):
                    return
    except UnicodeDecodeError:
        yield StreamError(ErrorItem(code="provider_error", message="stream is not valid UTF-8", retryable=False))
        return
    except RecursionError:
        yield StreamError(ErrorItem(code="provider_error", message=_TOO_DEEP, retryable=False))
        return
    yield from _finish(acc)


async def aiter_stream(mapper: Mapper, response: httpx.Response) -> AsyncIterator[StreamEvent]:
    """Async twin of :func:`iter_stream` over a streaming ``httpx.Response``.

    Network errors while reading are left to the caller (the transport turns them into errors).
    """
    acc = mapper.accumulator()
    try:
        async for frame in aiter_frames(mapper.framing, response):
            for ev in acc.feed(frame):
                yield ev
                if is_terminal(ev):
                    return
    except UnicodeDecodeError:
        yield StreamError(ErrorItem(code="provider_error", message="stream is not valid UTF-8", retryable=False))
        return
    except RecursionError:
        yield StreamError(ErrorItem(code="provider_error", message=_TOO_DEEP, retryable=False))
        return
    for ev in _finish(acc):
        yield ev


def collect(mapper: Mapper, source: bytes | Iterable[bytes] | httpx.Response) -> list[StreamEvent]:
    """All events of a stream as a list (the last one is the terminal event)."""
    return list(iter_stream(mapper, source))
