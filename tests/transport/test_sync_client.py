"""interlingua.sync: the same behaviour as the async client, from plain code and from inside a running loop."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from interlingua.errors import DocumentError, TransportError
from interlingua.items import TextItem, Transcript
from interlingua.streaming import StreamDone, StreamError
from interlingua.sync import Client, FallbackClient, generate_sync
from interlingua.transport import RetryPolicy

from ._server import Reply
from .conftest import REAL, RESPONSES, SENTINEL, stream_reply

ONCE = RetryPolicy(max_retries=0)


def json_body(provider: str) -> Reply:
    return Reply(200, headers={"content-type": "application/json"}, chunks=[(REAL / RESPONSES[provider]).read_bytes()])


def use_sync(url: str, transcript: Transcript) -> tuple[list[Any], Any, Any]:
    with Client("openai-chat", api_key=SENTINEL, base_url=url) as client:
        generation = client.generate(transcript, model="gpt-4o")
        events = list(generation)
        return events, generation.response(), generation.response()


def test_from_plain_code(serve: Any, transcript: Transcript) -> None:
    srv = serve([stream_reply("openai-chat"), stream_reply("openai-chat")])
    events, response, again = use_sync(srv.url, transcript)
    assert isinstance(events[-1], StreamDone) and response is events[-1].response and again is response
    assert len(srv.received) == 1


async def test_from_inside_a_running_event_loop(serve: Any, transcript: Transcript) -> None:
    asyncio.get_running_loop()  # as in a notebook cell: a loop is running in this thread
    srv = serve([stream_reply("openai-chat"), stream_reply("openai-chat")])
    events, response, again = use_sync(srv.url, transcript)
    assert isinstance(events[-1], StreamDone) and response is again and len(srv.received) == 1
    assert generate_sync(transcript, provider="openai-chat", model="gpt-4o", api_key=SENTINEL, base_url=serve([json_body("openai-chat")]).url).items


def test_generate_sync_and_errors_as_the_async_client(serve: Any, transcript: Transcript) -> None:
    srv = serve([json_body("anthropic")])
    response = generate_sync(transcript, provider="anthropic", model="claude-sonnet-4-5", api_key=SENTINEL, base_url=srv.url)
    assert response.items and len(srv.received) == 1
    bad = serve([Reply(401, headers={"content-type": "application/json"}, chunks=[b'{"type":"error","error":{"type":"authentication_error","message":"no"}}'])])
    with pytest.raises(TransportError) as err:
        generate_sync(transcript, provider="anthropic", model="claude-sonnet-4-5", api_key=SENTINEL, base_url=bad.url)
    assert err.value.code == "auth"
    with pytest.raises(DocumentError):
        generate_sync(Transcript(schema_version="1.0", items=[TextItem(role="robot", text="x")]), provider="anthropic", model="m", api_key=SENTINEL)  # type: ignore[arg-type]


def test_a_stopped_iteration_closes_the_stream(serve: Any, transcript: Transcript) -> None:
    srv = serve([stream_reply("openai-chat")])
    with Client("openai-chat", api_key=SENTINEL, base_url=srv.url) as client:
        for _ in client.generate(transcript, model="gpt-4o"):
            break
    assert len(srv.received) == 1


def test_sync_fallback(serve: Any, transcript: Transcript) -> None:
    down = serve([Reply(503, headers={"content-type": "application/json"}, chunks=[b'{"error":{"message":"down","type":"server_error"}}'])])
    up = serve([stream_reply("anthropic")])
    primary = Client("openai-chat", api_key=SENTINEL, base_url=down.url, retry=ONCE)
    backup = Client("anthropic", api_key=SENTINEL, base_url=up.url)
    with primary.with_fallbacks("gpt-4o", (backup, "claude-sonnet-4-5")) as chain:
        generation = chain.generate(transcript)
        events = list(generation)
    assert isinstance(events[-1], StreamDone) and generation.provider == "anthropic"
    assert [a.provider for a in generation.attempts] == ["openai-chat", "anthropic"]
    with pytest.raises(ValueError):
        FallbackClient([("openai-chat", "gpt-4o")])  # type: ignore[list-item]
    assert not isinstance(events[-1], StreamError)


def test_sync_list_models_count_tokens_and_config(serve: Any, transcript: Transcript) -> None:
    models = REAL.parent / "list_and_count"
    srv = serve([Reply(200, headers={"content-type": "application/json"}, chunks=[(models / "ollama.api_tags.json").read_bytes()])])
    with Client("ollama", base_url=srv.url) as client:
        assert [m.id for m in client.list_models()] == ["deepseek-r1:latest", "llama3.2:latest"]
        assert client.validate_config() == []
    srv = serve([Reply(200, headers={"content-type": "application/json"}, chunks=[(models / "anthropic.count_tokens.json").read_bytes()])])
    with Client("anthropic", api_key=SENTINEL, base_url=srv.url) as client:
        assert client.count_tokens(transcript, model="claude-sonnet-4-5") == 16
    assert srv.received[0].path == "/v1/messages/count_tokens"
