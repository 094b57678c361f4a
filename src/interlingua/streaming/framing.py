"""Stream framing: bytes or an httpx response -> :class:`RawEvent` records.

SSE is parsed by httpx-sse (``event:``/``data:`` fields, multi-line ``data``
joined with ``\\n``, CRLF or LF line ends). An event cut off before its blank
line is not delivered, as the SSE spec says, with one exception: when the input
ends and the pending event's ``data`` is a complete JSON value, it is delivered
(recordings often drop the final blank line; SDK parsers flush at EOF too). A
cut-off event whose data does not parse is never delivered, so the stream ends
``truncated``. NDJSON is one JSON text per line; a last line without a trailing
newline is read.

Both framings are read in time linear in the input, whatever its line lengths, and an
SSE event or NDJSON line longer than ``Limits.max_line_bytes`` (48 MiB) is refused with
:class:`~interlingua.errors.MalformedInputError` before it is held whole. A UTF-8 byte
order mark at the very start of the stream is ignored (WHATWG HTML, "Server-sent events",
interpreting an event stream: "one leading U+FEFF BYTE ORDER MARK character must be
ignored if any are present"); anywhere else it is data.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterable, Iterator

import httpx
import msgspec
from httpx_sse import EventSource

from ..codec import DEFAULT_LIMITS
from ..errors import MalformedInputError
from .events import RawEvent

__all__ = ["aiter_frames", "idle_bounded", "iter_frames"]

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


MAX_EVENT_BYTES = DEFAULT_LIMITS.max_line_bytes
"""Largest SSE event or NDJSON line read from a stream (bytes; ``Limits.max_line_bytes``)."""

_BOM = b"\xef\xbb\xbf"
_BLANK_LINE = re.compile(rb"(?:\r\n|\r|\n)(?:\r\n|\r|\n)")
"""An SSE event ends at an empty line; lines end in CRLF, CR or LF (WHATWG SSE)."""


def _too_long(what: str, limit: int) -> MalformedInputError:
    return MalformedInputError("", f"{what} is longer than {limit:,} bytes (Limits.max_line_bytes)")


class _FinalEventFlush:
    """Tracks the bytes since the last blank line; at EOF decides whether to terminate the last event.

    Each chunk is scanned once (only the last three bytes of the one before are looked at
    again, for a blank line split between chunks), so a stream costs time linear in its size
    whatever its event lengths; the pending event is refused past ``limit`` bytes.
    """

    def __init__(self, limit: int | None = None) -> None:
        self.limit = MAX_EVENT_BYTES if limit is None else limit
        self.parts: list[bytes] = []
        self.size = 0
        self.edge = b""  # the last bytes of the previous chunk (a blank line may straddle two chunks)
        self.started = False  # a first chunk was seen (the BOM rule applies to the stream's start only)
        self.head = b""  # the stream's first bytes, held until it is known whether they are a BOM

    def see(self, chunk: bytes) -> bytes:
        """Account for ``chunk``; returns it (without a leading BOM at the stream's start)."""
        if not self.started:
            self.head += chunk
            if len(self.head) < len(_BOM) and _BOM.startswith(self.head):
                return b""
            self.started = True
            chunk, self.head = self.head.removeprefix(_BOM), b""
        window = self.edge + chunk
        last = None
        for last in _BLANK_LINE.finditer(window):
            pass
        if last is not None:
            tail = window[last.end() :]
            self.parts, self.size = [tail], len(tail)
        else:
            self.parts.append(chunk)
            self.size += len(chunk)
        if self.size > self.limit:
            raise _too_long("an SSE event", self.limit)
        self.edge = window[-3:]
        return chunk

    def closing(self) -> bytes:
        tail = self.head if not self.started else b"".join(self.parts)
        return b"\n\n" if tail.strip() and _tail_is_complete_event(tail) else b""


def _flushed(chunks: Iterable[bytes]) -> Iterator[bytes]:
    flush = _FinalEventFlush()
    for chunk in chunks:
        seen = flush.see(chunk)
        if seen:
            yield seen
    if not flush.started and flush.head:
        yield flush.head
    end = flush.closing()
    if end:
        yield end


async def _aflushed(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    flush = _FinalEventFlush()
    async for chunk in chunks:
        seen = flush.see(chunk)
        if seen:
            yield seen
    if not flush.started and flush.head:
        yield flush.head
    end = flush.closing()
    if end:
        yield end


class _NdjsonLines:
    """Splits NDJSON chunks into lines in linear time; a line past ``limit`` bytes is refused."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = MAX_EVENT_BYTES if limit is None else limit
        self.parts: list[bytes] = []
        self.size = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        cut = chunk.rfind(b"\n")
        if cut < 0:
            self.parts.append(chunk)
            self.size += len(chunk)
            if self.size > self.limit:
                raise _too_long("an NDJSON line", self.limit)
            return []
        head = b"".join(self.parts) + chunk[:cut] if self.parts else chunk[:cut]
        rest = chunk[cut + 1 :]
        self.parts, self.size = ([rest], len(rest)) if rest else ([], 0)
        lines = head.split(b"\n")
        if self.size > self.limit or any(len(line) > self.limit for line in lines):
            raise _too_long("an NDJSON line", self.limit)
        return [line for line in lines if line.strip()]

    def close(self) -> list[bytes]:
        pending = b"".join(self.parts)
        return [pending] if pending.strip() else []


def _as_response(source: bytes | Iterable[bytes] | httpx.Response) -> httpx.Response:
    if isinstance(source, httpx.Response):
        chunks: Iterable[bytes] = source.iter_bytes()
    else:
        chunks = [source] if isinstance(source, bytes) else source
    return httpx.Response(200, headers=_SSE_HEADERS, content=_flushed(chunks))


def _iter_ndjson_lines(source: bytes | Iterable[bytes]) -> Iterator[str]:
    chunks: Iterable[bytes] = [source] if isinstance(source, bytes) else source
    lines = _NdjsonLines()
    for chunk in chunks:
        for line in lines.feed(chunk):
            yield line.decode("utf-8")
    for line in lines.close():
        yield line.decode("utf-8")


def iter_frames(framing: str, source: bytes | Iterable[bytes] | httpx.Response) -> Iterator[RawEvent]:
    """Frame a stream read synchronously.

    Args:
        framing: ``"sse"`` or ``"ndjson"``.
        source: The whole body, an iterable of chunks, or an open streaming ``httpx.Response``.

    Raises:
        ValueError: unknown framing.
        UnicodeDecodeError: NDJSON that is not UTF-8.
        MalformedInputError: an SSE event or NDJSON line longer than ``Limits.max_line_bytes``.
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
        lines = _NdjsonLines()
        async for chunk in response.aiter_bytes():
            for line in lines.feed(chunk):
                yield RawEvent(None, line.decode("utf-8"))
        for line in lines.close():
            yield RawEvent(None, line.decode("utf-8"))
    else:
        raise ValueError(f"unknown stream framing {framing!r} (known: sse, ndjson)")


async def idle_bounded(frames: AsyncIterator[RawEvent], idle: float | None, timeout: type[Exception]) -> AsyncIterator[RawEvent]:
    """``frames``, ending with ``timeout(message)`` when no event arrives within ``idle`` seconds.

    An event is a dispatched SSE event (an Anthropic ``ping`` included) or an NDJSON line;
    SSE comments (``: keep-alive``) and blank lines are not events, so a server that sends
    only comments is idle. ``idle=None`` bounds nothing.
    """
    it = aiter(frames)
    while True:
        try:
            async with asyncio.timeout(idle):
                frame = await anext(it)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise timeout(f"no data from the server for {idle:g} s (no stream event; keep-alive comments do not count)") from None
        yield frame
