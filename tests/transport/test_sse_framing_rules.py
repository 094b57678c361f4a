"""The SSE rules every provider's stream shares, on real recorded streams and against a local server.

- A UTF-8 byte order mark at the start of a stream is ignored (WHATWG SSE), also when split
  across chunks; it used to turn the first event's ``data:`` field into an unknown field, so
  OpenAI Chat lost its first text and Gemini its first chunk, exit 0.
- Every event's data is JSON: a recorded stream's events after its terminal event are read and
  one that is not JSON refuses the stream (it was ignored, exit 0); a named event with no data
  is refused by every provider alike (Anthropic refused it, OpenAI and Gemini skipped it).
- Framing is linear in the input and an event longer than the limit is refused cleanly.
- The idle timeout counts time without an event: a server that sends only keep-alive comments
  is idle (it used to hold a call open forever).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua.mapping import available, get_mapper
from interlingua.streaming import StreamDone, StreamError, collect, framing
from interlingua.transport import Client, RetryPolicy, Timeouts

from ._server import Reply
from .conftest import SENTINEL

REAL = Path(__file__).parent.parent / "fixtures" / "real"
SSE_STREAMS = {
    "anthropic": "anthropic/anthropic_sdk.tool_use_response.sse",
    "gemini": "gemini/pai_google_streaming_tool_call_thought_signature.0.response.sse",
    "openai-chat": "openai_chat/openai_python.stream_text.sse",
    "openai-responses": "openai_responses/pai_openai_responses_stream.0.response.sse",
    "mistral": "mistral/pai_mistral_mistral_model_thinking_part_iter.0.response.sse",
}
BOM = b"\xef\xbb\xbf"


def _blob(provider: str) -> bytes:
    return (REAL / SSE_STREAMS[provider]).read_bytes()


def _first_end(blob: bytes) -> int:
    """Where the stream's first event ends (after its blank line, LF or CRLF)."""
    match = re.search(rb"\r?\n\r?\n", blob)
    assert match is not None
    return match.end()


def _ended(blob: bytes) -> bytes:
    """The recording with its last event closed by a blank line (some recordings omit it)."""
    return blob.rstrip(b"\r\n") + b"\n\n"


def _outcome(events: list[Any]) -> list[str]:
    return [repr(e) for e in events]


def _error(events: list[Any]) -> Any:
    assert isinstance(events[-1], StreamError), events[-1]
    assert sum(isinstance(e, (StreamDone, StreamError)) for e in events) == 1
    return events[-1].error


@pytest.mark.parametrize("provider", sorted(SSE_STREAMS))
def test_a_leading_bom_is_ignored(provider: str) -> None:
    mapper = get_mapper(provider)
    blob = _blob(provider)
    plain = collect(mapper, blob)
    assert isinstance(plain[-1], StreamDone)
    assert _outcome(collect(mapper, BOM + blob)) == _outcome(plain)
    # split across chunks: one byte at a time for the first few, then the rest
    chunks = [BOM[:1], BOM[1:2], BOM[2:] + blob[:1], blob[1:5], blob[5:]]
    assert _outcome(collect(mapper, iter(chunks))) == _outcome(plain)


@pytest.mark.parametrize("provider", sorted(SSE_STREAMS))
@pytest.mark.parametrize("trailer", [b"data: garbage\n\n", b"event: ping\ndata: oops\n\n", b"data: {bad json\n\n"])
def test_data_after_the_terminal_event_must_be_json(provider: str, trailer: bytes) -> None:
    mapper = get_mapper(provider)
    err = _error(collect(mapper, _ended(_blob(provider)) + trailer))
    assert err.code == "provider_error" and "after the end marker is not JSON" in err.message


@pytest.mark.parametrize("provider", sorted(SSE_STREAMS))
def test_json_after_the_terminal_event_is_reported_not_refused(provider: str) -> None:
    mapper = get_mapper(provider)
    events = collect(mapper, _ended(_blob(provider)) + b'data: {"late": true}\n\n')
    assert isinstance(events[-1], StreamDone)
    assert any("after the end marker were ignored" in e.reason for e in events[-1].report.entries)


@pytest.mark.parametrize("provider", sorted(SSE_STREAMS))
def test_a_trailing_done_is_data_only_where_the_mapper_declares_it(provider: str) -> None:
    """``[DONE]`` is OpenAI's end marker (the mappers of the OpenAI family declare it in
    ``stream_end_markers``); after an Anthropic or Gemini stream it is data that is not JSON."""
    mapper = get_mapper(provider)
    events = collect(mapper, _ended(_blob(provider)) + b"data: [DONE]\n\n")
    if "[DONE]" in mapper.stream_end_markers:  # type: ignore[attr-defined]
        assert isinstance(events[-1], StreamDone)
    else:
        assert "after the end marker is not JSON" in _error(events).message
    assert {p for p in SSE_STREAMS if "[DONE]" in get_mapper(p).stream_end_markers} == {"openai-chat", "openai-responses", "mistral"}  # type: ignore[attr-defined]


def test_every_built_in_mapper_declares_its_end_markers() -> None:
    """The default (``[DONE]``) is for plugins written before the attribute; a built-in mapper says."""
    for name in available():
        assert isinstance(getattr(get_mapper(name), "stream_end_markers", None), frozenset), name


@pytest.mark.parametrize("provider", ["openai-chat", "anthropic"])
def test_a_mapper_without_end_markers_takes_the_openai_compatible_done(provider: str) -> None:
    """A plugin mapper written before ``stream_end_markers`` (no attribute) still reads ``[DONE]``
    after its terminal event, and still refuses other data that is not JSON."""

    class Undeclared:
        def __init__(self, inner: Any) -> None:
            self._inner = inner

        def __getattr__(self, name: str) -> Any:
            if name == "stream_end_markers":
                raise AttributeError(name)
            return getattr(self._inner, name)

    mapper = Undeclared(get_mapper(provider))
    assert not hasattr(mapper, "stream_end_markers")
    assert isinstance(collect(mapper, _ended(_blob(provider)) + b"data: [DONE]\n\n")[-1], StreamDone)  # type: ignore[arg-type]
    assert "after the end marker is not JSON" in _error(collect(mapper, _ended(_blob(provider)) + b"data: [END]\n\n")).message  # type: ignore[arg-type]


@pytest.mark.parametrize("provider", sorted(SSE_STREAMS))
def test_a_named_event_without_data_is_refused_alike(provider: str) -> None:
    mapper = get_mapper(provider)
    blob = _blob(provider)
    end = _first_end(blob)
    err = _error(collect(mapper, blob[:end] + b"event: ping\ndata:\n\n" + blob[end:]))
    assert err.code == "provider_error" and "has no data" in err.message


@pytest.mark.parametrize("provider", sorted(SSE_STREAMS))
@pytest.mark.parametrize("filler", [b"data:\n\n", b"retry: 3000\n\n", b"id: 7\n\n", b": keep-alive\n\n"])
def test_an_unnamed_event_without_data_carries_nothing(provider: str, filler: bytes) -> None:
    mapper = get_mapper(provider)
    blob = _blob(provider)
    end = _first_end(blob)
    assert _outcome(collect(mapper, blob[:end] + filler + blob[end:])) == _outcome(collect(mapper, blob))


@pytest.mark.parametrize("provider", sorted(SSE_STREAMS))
def test_an_event_past_the_limit_is_refused(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framing, "MAX_EVENT_BYTES", 4096)
    mapper = get_mapper(provider)
    huge = b"data: " + b"a" * 10_000  # no newline: the event never ends
    events = collect(mapper, iter([_blob(provider)[:200], huge[:3000], huge[3000:]]))
    err = _error(events)
    assert err.code == "provider_error" and "longer than 4,096 bytes" in err.message


def test_an_ndjson_line_past_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framing, "MAX_EVENT_BYTES", 4096)
    events = collect(get_mapper("ollama"), iter([b'{"model":"m",', b"a" * 5000]))
    assert "longer than 4,096 bytes" in _error(events).message


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(min_value=1, max_value=4000), min_size=1, max_size=12), bom=st.booleans())
def test_any_chunking_frames_alike(cuts: list[int], bom: bool) -> None:
    """Where the chunks are cut (inside a CRLF, a blank line, the BOM) changes nothing."""
    mapper = get_mapper("openai-chat")
    blob = (BOM if bom else b"") + _blob("openai-chat").replace(b"\n", b"\r\n")
    pieces, at = [], 0
    for size in sorted(set(cuts)):
        if size < len(blob):
            pieces.append(blob[at:size])
            at = size
    pieces.append(blob[at:])
    assert _outcome(collect(mapper, iter(p for p in pieces if p))) == _outcome(collect(mapper, blob))


def test_framing_reads_each_byte_a_bounded_number_of_times(monkeypatch: pytest.MonkeyPatch) -> None:
    """Linear, not quadratic: a 4 MiB event in 4 KiB chunks is scanned about once (counted, not timed)."""
    scanned = 0
    real = framing._BLANK_LINE

    class Counting:
        def finditer(self, window: bytes) -> Any:
            nonlocal scanned
            scanned += len(window)
            return real.finditer(window)

    monkeypatch.setattr(framing, "_BLANK_LINE", Counting())
    size = 4 << 20
    body = b'data: {"x": "' + b"a" * size + b'"}\n\n'
    chunks = [body[i : i + 4096] for i in range(0, len(body), 4096)]
    list(framing.iter_frames("sse", iter(chunks)))
    assert scanned < 1.01 * len(body) + 4 * len(chunks)


async def test_keep_alive_comments_do_not_hold_the_call_open(serve: Any, transcript: Any) -> None:
    """A server that answers and then sends only comments ends in ``timeout`` after the idle time, once."""
    comments = [b": keep-alive\n\n"] * 40
    srv = serve([Reply(200, headers={"content-type": "text/event-stream"}, chunks=comments, delay=0.05)] * 3)
    timeouts = Timeouts(connect=2, read=0.3, idle=0.3, write=2)
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv.url, timeouts=timeouts, retry=RetryPolicy(base=0.01, cap=0.02)) as c:
        events = [e async for e in c.generate(transcript, model="gpt-4o")]
    err = _error(events)
    assert err.code == "timeout" and "keep-alive comments do not count" in err.message
    assert len(srv.received) == 1  # a stall is never retried
    # (before: the comments kept the call alive until the server closed, ending ``truncated``)


async def test_events_reset_the_idle_timeout(serve: Any, transcript: Any) -> None:
    """A slow stream whose events each come within the idle time completes."""
    blob = _blob("openai-chat")
    events_bytes = [e + b"\n\n" for e in blob.split(b"\n\n") if e.strip()]
    srv = serve([Reply(200, headers={"content-type": "text/event-stream"}, chunks=events_bytes, delay=0.1)])
    timeouts = Timeouts(connect=2, read=0.5, idle=0.5, write=2)
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv.url, timeouts=timeouts) as c:
        events = [e async for e in c.generate(transcript, model="gpt-4o")]
    assert isinstance(events[-1], StreamDone)
