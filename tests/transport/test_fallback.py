"""Ordered fallback: the next client answers a failure met before the first event, never one after it.

The history holds a real Anthropic response with thinking (its signature is Anthropic's reasoning
state); the primary is an Anthropic-compatible server on 127.0.0.1, the backups OpenAI-compatible ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from interlingua.errors import TransportError
from interlingua.items import TextItem, Transcript
from interlingua.mapping import get_mapper
from interlingua.streaming import StreamDone, StreamError, TextDelta, collect
from interlingua.transport import Client, FallbackClient, RetryPolicy, Timeouts

from ._server import Reply
from .conftest import REAL, RESPONSES, SENTINEL, stream_reply

FAST = Timeouts(connect=2, read=2, idle=2, write=2)
ONCE = RetryPolicy(max_retries=0)
OVERLOADED = Reply(529, headers={"content-type": "application/json"}, chunks=[b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'])
UNAUTHORIZED = Reply(401, headers={"content-type": "application/json"}, chunks=[b'{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'])


@pytest.fixture
def history() -> Transcript:
    raw = (REAL / "anthropic" / "pai_anthropic_thinking_part_stream.0.response.sse").read_bytes()
    done = collect(get_mapper("anthropic"), raw)[-1]
    assert isinstance(done, StreamDone)
    return Transcript(schema_version="1.0", items=[TextItem(role="user", text="How do I cross the street?"), *done.response.items, TextItem(role="user", text="And at night?")])


def make(provider: str, url: str, **kw: Any) -> Client:
    return Client(provider, api_key=SENTINEL, base_url=url, timeouts=FAST, retry=ONCE, **kw)


def sse_events(path: Path) -> list[bytes]:
    """The recorded stream cut at its event boundaries (one HTTP chunk per event)."""
    data = path.read_bytes()
    return [part + b"\n\n" for part in data.split(b"\n\n") if part.strip()]


async def test_a_failure_before_the_first_event_goes_to_the_next_client(serve: Any, history: Transcript) -> None:
    primary, backup = serve([OVERLOADED]), serve([stream_reply("openai-chat")])
    async with FallbackClient([(make("anthropic", primary.url), "claude-sonnet-4-5"), (make("openai-chat", backup.url), "gpt-4o")]) as chain:
        generation = chain.generate(history)
        events = [e async for e in generation]
        response = await generation  # the streamed result, nothing sent again
    assert isinstance(events[-1], StreamDone) and response is events[-1].response
    assert generation.provider == "openai-chat" and generation.model == "gpt-4o"
    assert [(a.provider, a.error.code if a.error else None) for a in generation.attempts] == [("anthropic", "overloaded"), ("openai-chat", None)]
    assert len(primary.received) == 1 and len(backup.received) == 1
    # the history was converted for the backup: Anthropic's reasoning state left out, and reported
    body = backup.received[0].body
    assert b"signature" not in body and b'"thinking"' not in body and b"And at night?" in body
    assert any("anthropic.signature" in line for line in generation.attempts[1].report.lines())
    assert generation.report is generation.attempts[1].report


async def test_no_fallback_after_an_event_was_delivered(serve: Any, history: Transcript) -> None:
    chunks = sse_events(REAL / "anthropic" / "anthropic_sdk.basic_response.sse")
    text_at = next(i for i, c in enumerate(chunks) if b"text_delta" in c)
    primary = serve([Reply(200, headers={"content-type": "text/event-stream"}, chunks=chunks, drop_after=text_at + 1)])
    backup = serve([stream_reply("openai-chat")])
    chain = make("anthropic", primary.url).with_fallbacks("claude-sonnet-4-5", (make("openai-chat", backup.url), "gpt-4o"))
    generation = chain.generate(history)
    events = [e async for e in generation]
    await chain.aclose()
    assert any(isinstance(e, TextDelta) for e in events)
    assert isinstance(events[-1], StreamError) and events[-1].error.code == "truncated"
    assert generation.provider == "anthropic" and backup.received == []
    with pytest.raises(TransportError) as err:
        await generation
    assert err.value.code == "truncated"


async def test_a_usage_only_event_is_not_a_delivered_event(serve: Any, history: Transcript) -> None:
    chunks = sse_events(REAL / "anthropic" / "anthropic_sdk.basic_response.sse")
    assert b"message_start" in chunks[0]
    primary = serve([Reply(200, headers={"content-type": "text/event-stream"}, chunks=chunks, drop_after=1)])
    backup = serve([stream_reply("openai-chat")])
    chain = FallbackClient([(make("anthropic", primary.url), "claude-sonnet-4-5"), (make("openai-chat", backup.url), "gpt-4o")])
    generation = chain.generate(history)
    events = [e async for e in generation]
    assert generation.provider == "openai-chat" and isinstance(events[-1], StreamDone)
    assert generation.attempts[0].error is not None and generation.attempts[0].error.code == "truncated"
    expected = collect(get_mapper("openai-chat"), (REAL / "openai_chat" / "openai_python.stream_text.sse").read_bytes())
    assert [type(e) for e in events] == [type(e) for e in expected]  # nothing of the primary's usage


async def test_a_failure_no_retry_can_cure_ends_the_call(serve: Any, history: Transcript) -> None:
    primary, backup = serve([UNAUTHORIZED]), serve([stream_reply("openai-chat")])
    chain = FallbackClient([(make("anthropic", primary.url), "claude-sonnet-4-5"), (make("openai-chat", backup.url), "gpt-4o")])
    with pytest.raises(TransportError) as err:
        await chain.generate(history)
    assert err.value.code == "auth" and backup.received == []


async def test_non_stream_fallback_and_a_backup_that_cannot_build_its_request(serve: Any, history: Transcript, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    body = (REAL / RESPONSES["openai-chat"]).read_bytes()
    primary = serve([Reply(500, headers={"content-type": "application/json"}, chunks=[b'{"error":{"message":"boom","type":"server_error"}}'])])
    backup = serve([Reply(200, headers={"content-type": "application/json"}, chunks=[body])])
    keyless = Client("mistral", base_url=backup.url)  # no key: its request cannot be built
    chain = FallbackClient([(make("anthropic", primary.url), "claude-sonnet-4-5"), (keyless, "mistral-large-latest"), (make("openai-chat", backup.url), "gpt-4o")])
    generation = chain.generate(history, stream=False)
    response = await generation
    assert response.items and generation.provider == "openai-chat"
    assert [(a.provider, a.error.code if isinstance(a.error, TransportError) else None) for a in generation.attempts] == [
        ("anthropic", "server"),
        ("mistral", "auth"),
        ("openai-chat", None),
    ]
    assert len(backup.received) == 1


async def test_every_client_failing_raises_the_last_failure(serve: Any, history: Transcript) -> None:
    primary = serve([OVERLOADED])
    backup = serve([Reply(503, headers={"content-type": "application/json"}, chunks=[b'{"error":{"message":"down","type":"server_error"}}'])])
    chain = FallbackClient([(make("anthropic", primary.url), "claude-sonnet-4-5"), (make("openai-chat", backup.url), "gpt-4o")])
    generation = chain.generate(history)
    events = [e async for e in generation]
    assert len(events) == 1 and isinstance(events[0], StreamError) and events[0].error.provider == "openai-chat"
    with pytest.raises(TransportError) as err:
        await generation
    assert err.value.code == "server" and err.value.provider == "openai-chat" and generation.provider is None
    assert len(primary.received) == len(backup.received) == 1


def test_routes_are_checked() -> None:
    with pytest.raises(ValueError, match="at least one"):
        FallbackClient([])
    with pytest.raises(ValueError, match="route 0"):
        FallbackClient([("openai-chat", "gpt-4o")])  # type: ignore[list-item]
