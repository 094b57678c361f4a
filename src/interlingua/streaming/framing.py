"""Stream framing: bytes or an httpx response -> :class:`RawEvent` records.

SSE is parsed by httpx-sse (``event:``/``data:`` fields, multi-line ``data``
joined with ``\\n``, CRLF or LF line ends; an event cut off before its blank
line is not delivered, as the SSE spec says). NDJSON is one JSON text per line;
a last line without a trailing newline is read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator

import httpx
from httpx_sse import EventSource

from .events import RawEvent

__all__ = ["aiter_frames", "iter_frames"]

_SSE_HEADERS = {"content-type": "text/event-stream"}


def _as_response(source: bytes | Iterable[bytes]) -> httpx.Response:
    content = source if isinstance(source, bytes) else iter(source)
    return httpx.Response(200, headers=_SSE_HEADERS, content=content)


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
        response = source if isinstance(source, httpx.Response) else _as_response(source)
        for sse in EventSource(response).iter_sse():
            yield RawEvent(sse.event if sse.event != "message" else None, sse.data)
    elif framing == "ndjson":
        chunks = source.iter_bytes() if isinstance(source, httpx.Response) else source
        for line in _iter_ndjson_lines(chunks):
            yield RawEvent(None, line)
    else:
        raise ValueError(f"unknown stream framing {framing!r} (known: sse, ndjson)")


async def aiter_frames(framing: str, response: httpx.Response) -> AsyncIterator[RawEvent]:
    """Frame a streaming ``httpx.Response`` read asynchronously (see :func:`iter_frames`)."""
    if framing == "sse":
        async for sse in EventSource(response).aiter_sse():
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
