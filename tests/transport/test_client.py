"""The transport client against a real HTTP server on 127.0.0.1 (scripted replies)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import msgspec
import pytest

from interlingua.codec import to_builtins
from interlingua.errors import CapabilityError, TransportError
from interlingua.items import ModelCapabilities
from interlingua.mapping import get_mapper
from interlingua.streaming import StreamDone, StreamError, TextDelta, collect
from interlingua.transport import Client, RetryPolicy, Timeouts

from ._server import Reply
from .conftest import REAL, RESPONSES, SENTINEL, STREAMS, stream_reply

FAST = Timeouts(connect=2, read=2, idle=0.3, write=2)
QUICK_RETRY = RetryPolicy(base=0.01, cap=0.02)
MODELS = {"openai-chat": "gpt-4o", "openai-responses": "gpt-4o", "anthropic": "claude-sonnet-4-5", "gemini": "gemini-2.5-flash", "ollama": "llama3.2"}


def client(provider: str, url: str, **kw: Any) -> Client:
    kw.setdefault("timeouts", FAST)
    kw.setdefault("retry", QUICK_RETRY)
    return Client(provider, api_key=SENTINEL, base_url=url, **kw)


async def run(provider: str, url: str, transcript: Any, **kw: Any) -> list[Any]:
    stream = kw.pop("stream", True)
    async with client(provider, url, **kw) as c:
        return [ev async for ev in c.generate(transcript, model=MODELS[provider], stream=stream)]


def terminal_error(events: list[Any]) -> Any:
    assert isinstance(events[-1], StreamError), events[-1]
    assert sum(isinstance(e, (StreamDone, StreamError)) for e in events) == 1
    return events[-1].error


# --------------------------------------------------------------------------- success per provider

EXPECTED_REQUEST = {
    # provider -> (path, auth header, auth value, body checks)
    "openai-chat": ("/chat/completions", "authorization", f"Bearer {SENTINEL}"),
    "openai-responses": ("/responses", "authorization", f"Bearer {SENTINEL}"),
    "anthropic": ("/v1/messages", "x-api-key", SENTINEL),
    "gemini": ("/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "x-goog-api-key", SENTINEL),
    "ollama": ("/api/chat", "authorization", f"Bearer {SENTINEL}"),
}


@pytest.mark.parametrize("provider", sorted(STREAMS))
async def test_stream_success_from_real_recording(provider: str, serve: Any, transcript: Any) -> None:
    srv = serve([stream_reply(provider)])
    events = await run(provider, srv.url, transcript)

    expected = collect(get_mapper(provider), (REAL / STREAMS[provider][0]).read_bytes())
    assert isinstance(events[-1], StreamDone)
    assert [to_builtins(e.response.items) if isinstance(e, StreamDone) else repr(e) for e in events] == [
        to_builtins(e.response.items) if isinstance(e, StreamDone) else repr(e) for e in expected
    ]
    (req,) = srv.received
    path, header, value = EXPECTED_REQUEST[provider]
    assert req.method == "POST" and req.path == path
    assert req.headers[header] == value
    body = json.loads(req.body)
    if provider == "gemini":
        assert "model" not in body and "stream" not in body and "key=" not in req.path
    else:
        assert body["model"] == MODELS[provider] and body["stream"] is True
    if provider == "anthropic":
        # Anthropic requires max_tokens: the mapper writes the model table's output limit when no setting gives one.
        assert body["max_tokens"] == 64000 and req.headers["anthropic-version"] == "2023-06-01"
    if provider == "openai-chat":
        assert body["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize("provider", sorted(RESPONSES))
async def test_non_stream_returns_decoded_response(provider: str, serve: Any, transcript: Any) -> None:
    raw = (REAL / RESPONSES[provider]).read_bytes()
    srv = serve([Reply(200, headers={"content-type": "application/json"}, chunks=[raw])])
    async with client(provider, srv.url) as c:
        response = await c.generate(transcript, model=MODELS[provider], stream=False)
    expected = get_mapper(provider).decode_response(json.loads(raw)).value
    assert to_builtins(response.items) == to_builtins(expected.items)
    assert response.usage == expected.usage and response.stop_reason == expected.stop_reason
    (req,) = srv.received
    if provider == "gemini":
        assert req.path == "/models/gemini-2.5-flash:generateContent"
    else:
        assert json.loads(req.body)["stream"] is False


async def test_awaiting_a_stream_gives_the_final_response(serve: Any, transcript: Any) -> None:
    srv = serve([stream_reply("anthropic")])
    async with client("anthropic", srv.url) as c:
        response = await c.generate(transcript, model="claude-sonnet-4-5")
    assert [i.text for i in response.items] == ["Hello there!"]


async def test_connections_are_reused(serve: Any, transcript: Any) -> None:
    srv = serve([stream_reply("anthropic"), stream_reply("anthropic")])
    async with client("anthropic", srv.url) as c:
        for _ in range(2):
            assert isinstance([e async for e in c.generate(transcript, model="claude-sonnet-4-5")][-1], StreamDone)
    assert len(srv.received) == 2 and srv.connections == 1


async def test_http2_without_h2_falls_back_to_http1(serve: Any, transcript: Any) -> None:
    try:
        import h2  # noqa: F401

        pytest.skip("h2 is installed; the fallback path is not reachable")
    except ImportError:
        pass
    srv = serve([stream_reply("anthropic")])
    c = client("anthropic", srv.url, http2=True)
    assert c.http2 is False
    async with c:
        assert isinstance([e async for e in c.generate(transcript, model="claude-sonnet-4-5")][-1], StreamDone)


# --------------------------------------------------------------------------- errors and retries

async def test_429_with_retry_after_then_success(serve: Any, transcript: Any) -> None:
    srv = serve([Reply(429, headers={"retry-after": "0.2"}, chunks=[b'{"error":{"type":"rate_limit_error","message":"slow down"}}']), stream_reply("anthropic")])
    start = time.monotonic()
    events = await run("anthropic", srv.url, transcript, retry=RetryPolicy(base=5, cap=5))
    assert time.monotonic() - start >= 0.2  # waited as told, not the 5 s backoff
    assert time.monotonic() - start < 3
    assert isinstance(events[-1], StreamDone) and len(srv.received) == 2


async def test_retry_after_ms_wins_over_retry_after(serve: Any, transcript: Any) -> None:
    srv = serve([Reply(429, headers={"retry-after-ms": "50", "retry-after": "30"}), stream_reply("openai-chat")])
    start = time.monotonic()
    events = await run("openai-chat", srv.url, transcript)
    assert isinstance(events[-1], StreamDone) and time.monotonic() - start < 3


async def test_401_is_auth_and_not_retried(serve: Any, transcript: Any) -> None:
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {SENTINEL}", "type": "invalid_request_error", "code": "invalid_api_key"}}).encode()
    srv = serve([Reply(401, chunks=[body])])
    events = await run("openai-chat", srv.url, transcript)
    err = terminal_error(events)
    assert (err.code, err.status, err.provider, err.retryable) == ("auth", 401, "openai-chat", False)
    assert "Incorrect API key" not in err.message and SENTINEL not in err.message
    assert len(srv.received) == 1
    srv.replies.append(Reply(401, chunks=[body]))
    async with client("openai-chat", srv.url) as c:
        with pytest.raises(TransportError) as info:
            await c.generate(transcript, model="gpt-4o", stream=False)
    assert info.value.code == "auth" and SENTINEL not in str(info.value)


async def test_500_then_success(serve: Any, transcript: Any) -> None:
    srv = serve([Reply(500, chunks=[b'{"error":{"type":"api_error","message":"boom"}}']), stream_reply("anthropic")])
    events = await run("anthropic", srv.url, transcript)
    assert isinstance(events[-1], StreamDone) and len(srv.received) == 2


async def test_at_most_two_retries(serve: Any, transcript: Any) -> None:
    srv = serve([Reply(500), Reply(502), Reply(503), stream_reply("anthropic")])
    err = terminal_error(await run("anthropic", srv.url, transcript))
    assert (err.code, err.status, err.retryable) == ("server", 503, True)
    assert len(srv.received) == 3


async def test_anthropic_529_is_overloaded(serve: Any, transcript: Any) -> None:
    srv = serve([Reply(529, chunks=[b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'])])
    err = terminal_error(await run("anthropic", srv.url, transcript, retry=RetryPolicy(max_retries=0)))
    assert (err.code, err.status, err.retryable) == ("overloaded", 529, True)


async def test_5xx_is_rate_limit_only_with_throttling_evidence(serve: Any, transcript: Any) -> None:
    srv = serve([
        Reply(503, chunks=[b'{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}']),
        Reply(503, headers={"retry-after": "0"}, chunks=[b'{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"quota"}}']),
    ])
    no_retry = RetryPolicy(max_retries=0)
    assert terminal_error(await run("gemini", srv.url, transcript, retry=no_retry)).code == "server"
    assert terminal_error(await run("gemini", srv.url, transcript, retry=no_retry)).code == "rate_limit"


@pytest.mark.parametrize(
    ("provider", "status", "body", "code"),
    [
        ("openai-chat", 400, {"error": {"code": "context_length_exceeded", "type": "invalid_request_error"}}, "context_length"),
        ("openai-chat", 404, {"error": {"code": "model_not_found", "type": "invalid_request_error"}}, "not_found"),
        ("openai-chat", 400, {"error": {"code": "content_filter", "type": "invalid_request_error"}}, "content_filter"),
        ("openai-chat", 422, {"detail": "bad"}, "invalid_request"),
        ("anthropic", 400, {"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"}}, "context_length"),
        ("anthropic", 403, {"type": "error", "error": {"type": "permission_error", "message": "no"}}, "auth"),
        ("anthropic", 404, {"type": "error", "error": {"type": "not_found_error", "message": "model: x"}}, "not_found"),
        ("gemini", 400, {"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "bad"}}, "invalid_request"),
        ("gemini", 403, {"error": {"code": 403, "status": "PERMISSION_DENIED", "message": "key"}}, "auth"),
        ("ollama", 404, {"error": "model 'nope' not found, try pulling it first"}, "not_found"),
        ("ollama", 400, {"error": "invalid"}, "invalid_request"),
    ],
)
async def test_error_bodies_normalize(provider: str, status: int, body: Any, code: str, serve: Any, transcript: Any) -> None:
    srv = serve([Reply(status, chunks=[json.dumps(body).encode()])])
    err = terminal_error(await run(provider, srv.url, transcript))
    assert (err.code, err.status) == (code, status)
    assert err.retryable is False and len(srv.received) == 1
    for text in ("too long", "pulling", "bad", "model: x"):
        assert text not in err.message


async def test_stall_past_idle_timeout_is_a_timeout_event(serve: Any, transcript: Any) -> None:
    data = (REAL / STREAMS["anthropic"][0]).read_bytes()
    cut = data.index(b"content_block_delta")
    srv = serve([Reply(200, headers={"content-type": "text/event-stream"}, chunks=[data[: cut + 200], data[cut + 200 :]], stall_after=1)])
    start = time.monotonic()
    events = await run("anthropic", srv.url, transcript)
    err = terminal_error(events)
    assert err.code == "timeout" and "0.3" in err.message
    assert any(isinstance(e, TextDelta) for e in events)
    assert 0.25 < time.monotonic() - start < 2
    assert len(srv.received) == 1  # no retry after the first event


async def test_stall_before_headers_is_a_timeout_and_not_retried(serve: Any, transcript: Any) -> None:
    # A stall is never retried (docs/replay.md): it surfaces within the idle timeout.
    srv = serve([Reply(200, header_delay=1.0), Reply(200, header_delay=1.0), Reply(200, header_delay=1.0)])
    err = terminal_error(await run("anthropic", srv.url, transcript))
    assert err.code == "timeout" and len(srv.received) == 1


async def test_non_stream_read_timeout(serve: Any, transcript: Any) -> None:
    srv = serve([Reply(200, header_delay=1.0)])
    async with client("anthropic", srv.url, timeouts=Timeouts(read=0.2), retry=RetryPolicy(max_retries=0)) as c:
        with pytest.raises(TransportError) as info:
            await c.generate(transcript, model="claude-sonnet-4-5", stream=False)
    assert info.value.code == "timeout" and info.value.retryable


async def test_connection_dropped_mid_stream_is_truncated_and_not_retried(serve: Any, transcript: Any) -> None:
    reply = stream_reply("anthropic")
    reply.drop_after = len(reply.chunks) - 2  # after the first text delta (byte 520 of 1046)
    srv = serve([reply, stream_reply("anthropic")])
    events = await run("anthropic", srv.url, transcript)
    err = terminal_error(events)
    assert err.code == "truncated"
    assert len(events) > 1  # events arrived before the drop
    assert len(srv.received) == 1


async def test_connection_dropped_before_first_event_is_retried(serve: Any, transcript: Any) -> None:
    srv = serve([Reply(200, headers={"content-type": "text/event-stream"}, chunks=[b"event: ping\n"], drop_after=1), stream_reply("anthropic")])
    events = await run("anthropic", srv.url, transcript)
    assert isinstance(events[-1], StreamDone) and len(srv.received) == 2


async def test_provider_error_event_mid_stream_is_not_retried(serve: Any, transcript: Any) -> None:
    data = (REAL / STREAMS["anthropic"][0]).read_bytes()
    head = data[: data.index(b"event: content_block_stop")]
    error = b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
    srv = serve([Reply(200, headers={"content-type": "text/event-stream"}, chunks=[head, error]), stream_reply("anthropic")])
    events = await run("anthropic", srv.url, transcript)
    err = terminal_error(events)
    assert err.code == "overloaded"  # the mapper's accumulator reads the provider's error event
    assert any(isinstance(e, TextDelta) for e in events)
    assert len(srv.received) == 1


async def test_refused_connection_is_network(transcript: Any) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    err = terminal_error(await run("anthropic", f"http://127.0.0.1:{port}", transcript))
    assert (err.code, err.retryable) == ("network", True)
    # where it went and how often it was tried (a new user saw only "connection failed" after 7 s)
    assert err.message.endswith(f"[127.0.0.1:{port}, 3 attempts]"), err.message
    with pytest.raises(TransportError) as info:
        async with client("anthropic", f"http://127.0.0.1:{port}", retry=RetryPolicy(max_retries=0)) as c:
            await c.generate(transcript, model="claude-sonnet-4-5", stream=False)
    assert info.value.message.endswith(f"[127.0.0.1:{port}]"), info.value.message


async def test_cancellation_closes_the_connection_promptly(serve: Any, transcript: Any) -> None:
    reply = stream_reply("anthropic")
    reply.stall_after = 7  # after the first text delta: the first event reaches the caller
    srv = serve([reply])
    got_first = asyncio.Event()

    async def consume() -> None:
        async with client("anthropic", srv.url, timeouts=Timeouts(idle=30)) as c:
            async for _ in c.generate(transcript, model="claude-sonnet-4-5"):
                got_first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_first.wait(), 5)
    await asyncio.sleep(0.05)  # now blocked reading the stalled stream
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(srv.closed_by_client.wait, 2)


# --------------------------------------------------------------------------- before sending

async def test_capability_error_before_anything_is_sent(serve: Any, transcript: Any) -> None:
    srv = serve([stream_reply("anthropic")])
    caps = ModelCapabilities(input_modalities=["text"], streaming=False)
    async with client("anthropic", srv.url) as c:
        with pytest.raises(CapabilityError):
            c.generate(transcript, model="claude-sonnet-4-5", capabilities=caps)
    assert srv.received == []


def test_missing_key_is_auth_before_sending(monkeypatch: pytest.MonkeyPatch, transcript: Any) -> None:
    for var in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    c = Client("anthropic", base_url="http://127.0.0.1:9")
    with pytest.raises(TransportError) as info:
        c.generate(transcript, model="claude-sonnet-4-5")
    assert info.value.code == "auth" and "ANTHROPIC_API_KEY" in info.value.message
    monkeypatch.setenv("GOOGLE_API_KEY", SENTINEL)
    assert "api_key=<set>" in repr(Client("gemini")) and SENTINEL not in repr(Client("gemini"))
    assert "api_key=<unset>" in repr(Client("ollama"))  # needs none


def test_anthropic_max_tokens_is_configurable(transcript: Any) -> None:
    c = Client("anthropic", api_key=SENTINEL, options={"max_tokens": 77})
    gen = c.generate(transcript, model="claude-sonnet-4-5")
    assert msgspec.json.decode(gen._prepared.body)["max_tokens"] == 77


@pytest.mark.parametrize("provider", ["gemini", "bedrock-converse", "openai-chat", "anthropic", "ollama", "mistral", "cohere"])
@pytest.mark.parametrize("stream", [True, False])
def test_the_stream_choice_is_not_reported_as_a_dropped_setting(provider: str, stream: bool, transcript: Any) -> None:
    """Where the URL carries the stream choice (Gemini, Bedrock), the mapper is not asked to write it
    in the body, so `replay --no-stream` does not warn that `stream=false` was dropped."""
    model = {"gemini": "gemini-2.5-flash", "bedrock-converse": "us.amazon.nova-lite-v1:0", "cohere": "command-a-03-2025", "mistral": "mistral-large-latest"}.get(provider) or MODELS[provider]
    c = Client(provider, api_key=SENTINEL, base_url="http://127.0.0.1:9")
    gen = c.generate(transcript, model=model, stream=stream)
    assert [e for e in gen.report if "stream" in (e.pointer or "")] == []
    body = json.loads(gen._prepared.body)
    if provider in ("gemini", "bedrock-converse"):
        assert "stream" not in body
    else:
        assert body["stream"] is stream
