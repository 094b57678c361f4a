"""Drive a provider's accumulator over a framed stream.

The drivers hold the provider-neutral rules: exactly one terminal event, nothing
after it, and ``truncated`` when the input ends before the accumulator saw its
completion marker. Every SSE event's ``data`` must be JSON (an end marker the
mapper declares in ``stream_end_markers`` aside: OpenAI's ``[DONE]``): a named event with empty data ends the stream
with ``provider_error``, while an unnamed event without data (what an ``id:`` or
``retry:`` block, or a bare ``data:`` line, frames to) carries nothing and is skipped
for every provider. A recorded stream is read to its end: events after the terminal
one are reported as ignored, and one whose data is not JSON refuses the stream. A
live stream ends at its terminal event; what a server sends after it is not read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING

import httpx
import msgspec

from ..errors import DocumentError, InterlinguaError, MalformedInputError
from ..items import ErrorItem
from .events import RawEvent, StreamAccumulator, StreamDone, StreamError, StreamEvent, is_terminal
from .framing import aiter_frames, iter_frames

if TYPE_CHECKING:
    from ..mapping.protocol import Mapper

__all__ = ["aiter_stream", "collect", "iter_stream"]


_TOO_DEEP = "a stream event nests too deeply to decode"
_TERMINAL = (StreamDone, StreamError)
_FEED_FAILURES = (InterlinguaError, TypeError, KeyError, AttributeError, IndexError, ValueError, RecursionError)


def _provider_of(mapper: Mapper) -> str | None:
    name = getattr(mapper, "name", None)
    return name if isinstance(name, str) else None


def _malformed(mapper: Mapper, acc: StreamAccumulator, index: int, exc: BaseException) -> StreamError:
    """The ``provider_error`` StreamError for event ``index`` that the accumulator refused (or tripped on)."""
    if isinstance(exc, MalformedInputError):
        inner, what = exc.pointer, f"{exc.pointer or '/'}: {exc.reason}"
    elif isinstance(exc, DocumentError) and exc.problems:
        inner, what = exc.problems[0].pointer, exc.problems[0].message
    elif isinstance(exc, RecursionError):
        inner, what = "", _TOO_DEEP
    else:
        # A shape the accumulator has no typed check for; still a clean error, never a traceback.
        inner, what = "", f"malformed event ({type(exc).__name__})"
    partial: object = None
    make_partial = getattr(acc, "partial", None)
    if callable(make_partial):
        try:
            partial = make_partial()
        except Exception:  # noqa: BLE001 - a partial is best effort after a malformed event
            partial = None
    if partial is None:
        from ..mapping.protocol import ModelResponse

        partial = ModelResponse()
    error = ErrorItem(code="provider_error", message=f"stream event {index}: {what}", retryable=False)
    provider = _provider_of(mapper)
    if provider is not None:
        error = msgspec.structs.replace(error, provider=provider)
    return StreamError(error, partial=partial, pointer=f"/{index}{inner}")


DEFAULT_END_MARKERS: frozenset[str] = frozenset({"[DONE]"})
"""The end markers of a mapper that declares no ``stream_end_markers``: the OpenAI-compatible
convention (``data: [DONE]``) every SSE mapper took before mappers declared their own, so a plugin
written then still reads its streams. The built-in mappers all declare theirs."""


def _empty(frame: RawEvent) -> bool:
    data = frame.data
    return not data or data.isspace()


def _no_data(mapper: Mapper, acc: StreamAccumulator, index: int, frame: RawEvent) -> StreamError:
    reason = f"event {frame.event!r} has no data; every event's data must be JSON"
    return _malformed(mapper, acc, index, MalformedInputError("", reason))


def _trailing(frames: Iterator[RawEvent], index: int, markers: frozenset[str]) -> tuple[int, int | None]:
    """Counts the frames after a recorded stream's terminal event; the index of the first whose data is not
    JSON nor one of the mapper's end ``markers``."""
    extra = 0
    for frame in frames:
        index += 1
        extra += 1
        data = frame.data.strip()
        if not data and frame.event is None or data in markers:
            continue
        try:
            msgspec.json.decode(data)
        except (msgspec.DecodeError, RecursionError):
            return extra, index
    return extra, None


def _finish_checked(mapper: Mapper, acc: StreamAccumulator, index: int) -> list[StreamEvent]:
    try:
        return _finish(acc)
    except _FEED_FAILURES as exc:
        return [_malformed(mapper, acc, index, exc)]


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
        index = -1
        sse = mapper.framing == "sse"
        for frame in frames:
            index += 1
            if sse and _empty(frame):
                if frame.event is None:
                    continue
                yield _no_data(mapper, acc, index, frame)
                return
            try:
                events = acc.feed(frame)
            except _FEED_FAILURES as exc:
                yield _malformed(mapper, acc, index, exc)
                return
            for ev in events:
                if isinstance(ev, _TERMINAL):  # is_terminal, inlined: this loop runs once per event
                    if isinstance(ev, StreamDone) and not isinstance(source, httpx.Response):
                        # A recorded stream is read to its end: data after the end marker is reported,
                        # and refused when it is not JSON (every event's data is).
                        extra, bad = _trailing(frames, index, getattr(mapper, "stream_end_markers", DEFAULT_END_MARKERS))
                        if bad is not None:
                            yield _malformed(mapper, acc, bad, MalformedInputError("", "an event after the end marker is not JSON"))
                            return
                        if extra:
                            ev.report.add("dropped", f"{extra} stream event(s) after the end marker were ignored")
                    yield ev
                    return
                yield ev
    except MalformedInputError as exc:  # the framing refused the input (an event past the size limit)
        yield _malformed(mapper, acc, index + 1, exc)
        return
    except UnicodeDecodeError:
        yield StreamError(ErrorItem(code="provider_error", message="stream is not valid UTF-8", retryable=False))
        return
    except RecursionError:
        yield StreamError(ErrorItem(code="provider_error", message=_TOO_DEEP, retryable=False))
        return
    yield from _finish_checked(mapper, acc, index + 1)


async def aiter_stream(mapper: Mapper, response: httpx.Response, frames: AsyncIterator[RawEvent] | None = None) -> AsyncIterator[StreamEvent]:
    """Async twin of :func:`iter_stream` over a streaming ``httpx.Response``.

    Args:
        mapper: The provider's mapper (its accumulator; its framing unless ``frames`` is given).
        response: The open streaming response.
        frames: The response's events framed by the transport (a binary framing such as AWS
            event-stream); a frame that raises ``MalformedInputError`` ends the stream with a
            ``provider_error``.

    Network errors while reading are left to the caller (the transport turns them into errors).
    """
    acc = mapper.accumulator()
    index = -1
    source = frames if frames is not None else aiter_frames(mapper.framing, response)
    sse = mapper.framing == "sse"
    try:
        async for frame in source:
            index += 1
            if sse and _empty(frame):
                if frame.event is None:
                    continue
                yield _no_data(mapper, acc, index, frame)
                return
            try:
                events = acc.feed(frame)
            except _FEED_FAILURES as exc:
                yield _malformed(mapper, acc, index, exc)
                return
            for ev in events:
                yield ev
                if is_terminal(ev):
                    return
    except UnicodeDecodeError:
        yield StreamError(ErrorItem(code="provider_error", message="stream is not valid UTF-8", retryable=False))
        return
    except RecursionError:
        yield StreamError(ErrorItem(code="provider_error", message=_TOO_DEEP, retryable=False))
        return
    except MalformedInputError as exc:  # a frame the transport's framing could not read
        yield _malformed(mapper, acc, index + 1, exc)
        return
    for ev in _finish_checked(mapper, acc, index + 1):
        yield ev


def collect(mapper: Mapper, source: bytes | Iterable[bytes] | httpx.Response) -> list[StreamEvent]:
    """All events of a stream as a list (the last one is the terminal event)."""
    return list(iter_stream(mapper, source))
