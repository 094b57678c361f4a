"""Stream framing: bytes or an httpx response -> :class:`RawEvent` records.

SSE is parsed by httpx-sse (``event:``/``data:`` fields, multi-line ``data``
joined with ``\\n``, CRLF or LF line ends). An event cut off before its blank
line is not delivered, as the SSE spec says, with one exception: when the input
ends and the pending event's ``data`` is a complete JSON value, it is delivered
(recordings often drop the final blank line; SDK parsers flush at EOF too). A
cut-off event whose data does not parse is never delivered, so the stream ends
``truncated``. NDJSON is one JSON text per line; a last line without a trailing
newline is read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator

import httpx
import msgspec
from httpx_sse import EventSource

from .events import RawEvent

__all__ = ["aiter_frames", "iter_frames"]

_SSE_HEADERS = {"content-type": "text/event-stream"}


def _tail_is_complete_event(tail: bytes) -> bool:
    """Whether the unterminated last SSE event holds a data payload that is complete JSON."""
    lines = tail.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    data = [ln[5:].removeprefix(b" ") for ln in lines if ln.startswith(b"data:")]
    if not data:
        return False
    try:
        msgspec.json.decode(b"\n".join(data))
    except msgspec.DecodeError:
        return False
    return True


class _FinalEventFlush:
    """Tracks the bytes since the last blank line; at EOF decides whether to terminate the last event."""

    def __init__(self) -> None:
        self.tail = b""

    def see(self, chunk: bytes) -> None:
        self.tail += chunk
        norm = self.tail.replace(b"\r\n", b"\n")
        cut = norm.rfind(b"\n\n")
        if cut >= 0:
            self.tail = norm[cut + 2 :]

    def closing(self) -> bytes:
        return b"\n\n" if self.tail.strip() and _tail_is_complete_event(self.tail) else b""


def _flushed(chunks: Iterable[bytes]) -> Iterator[bytes]:
    flush = _FinalEventFlush()
    for chunk in chunks:
        flush.see(chunk)
        yield chunk
    end = flush.closing()
    if end:
        yield end


async def _aflushed(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    flush = _FinalEventFlush()
    async for chunk in chunks:
        flush.see(chunk)
        yield chunk
    end = flush.closing()
    if end:
        yield end


def _as_response(source: bytes | Iterable[bytes] | httpx.Response) -> httpx.Response:
    if isinstance(source, httpx.Response):
        chunks: Iterable[bytes] = source.iter_bytes()
    else:
        chunks = [source] if isinstance(source, bytes) else source
    return httpx.Response(200, headers=_SSE_HEADERS, content=_flushed(chunks))


def _iter_ndjson_lines(source: bytes | Iterable[bytes]) -> Iterator[str]:
    chunks: Iterable[bytes] = [source] if isinstance(source, bytes) else source
    pending = b""
    for chunk in chunks:
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if line.strip():
                yield line.decode("utf-8")
    if pending.strip():
        yield pending.decode("utf-8")


def iter_frames(framing: str, source: bytes | Iterable[bytes] | httpx.Response) -> Iterator[RawEvent]:
    """Frame a stream read synchronously.

    Args:
        framing: ``"sse"`` or ``"ndjson"``.
        source: The whole body, an iterable of chunks, or an open streaming ``httpx.Response``.

    Raises:
        ValueError: unknown framing.
        UnicodeDecodeError: NDJSON that is not UTF-8.
    """
    if framing == "sse":
        for sse in EventSource(_as_response(source)).iter_sse():
            name = sse.event  # a property: read once per event
            yield RawEvent(None if name == "message" else name, sse.data)
    elif framing == "ndjson":
        chunks = source.iter_bytes() if isinstance(source, httpx.Response) else source
        for line in _iter_ndjson_lines(chunks):
            yield RawEvent(None, line)
    else:
        raise ValueError(f"unknown stream framing {framing!r} (known: sse, ndjson)")


async def aiter_frames(framing: str, response: httpx.Response) -> AsyncIterator[RawEvent]:
    """Frame a streaming ``httpx.Response`` read asynchronously (see :func:`iter_frames`)."""
    if framing == "sse":
        wrapped = httpx.Response(200, headers=_SSE_HEADERS, content=_aflushed(response.aiter_bytes()))
        async for sse in EventSource(wrapped).aiter_sse():
            yield RawEvent(sse.event if sse.event != "message" else None, sse.data)
    elif framing == "ndjson":
        pending = b""
        async for chunk in response.aiter_bytes():
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if line.strip():
                    yield RawEvent(None, line.decode("utf-8"))
        if pending.strip():
            yield RawEvent(None, pending.decode("utf-8"))
    else:
        raise ValueError(f"unknown stream framing {framing!r} (known: sse, ndjson)")
