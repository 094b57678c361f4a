"""The transport client for Cohere and Mistral against a local HTTP server, on real recorded replies.

Cohere streams are the documented v2 event sequence of a real recorded response
(``tests/providers/cohere/_sse.py``); Mistral's is a real recorded stream.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from interlingua.codec import to_builtins
from interlingua.errors import TransportError
from interlingua.mapping import get_mapper
from interlingua.streaming import StreamDone, StreamError, collect
from interlingua.transport import Client, RetryPolicy, Timeouts

from providers.cohere._sse import sse_of
from ._server import Reply
from .conftest import REAL, SENTINEL, chunks_of

FAST = Timeouts(connect=2, read=2, idle=0.5, write=2)
MODELS = {"cohere": "command-a-03-2025", "mistral": "mistral-large-latest"}
RESPONSES = {
    "cohere": sorted((REAL / "cohere").glob("*.response.json")),
    "mistral": sorted((REAL / "mistral").glob("*.response.json")),
}


def _stream_bytes(provider: str) -> bytes:
    if provider == "cohere":
        return sse_of(json.loads((REAL / "cohere" / "pai_test_cohere_model_thinking_part.1.response.json").read_text()))
    return (REAL / "mistral" / "pai_mistral_mistral_model_thinking_part_iter.0.response.sse").read_bytes()


def _client(provider: str, url: str, **kw: Any) -> Client:
    return Client(provider, api_key=SENTINEL, base_url=url, timeouts=FAST, retry=RetryPolicy(base=0.01, cap=0.02), **kw)


@pytest.mark.parametrize("provider", sorted(MODELS))
async def test_stream_from_a_real_recording(provider: str, serve: Any, transcript: Any) -> None:
    raw = _stream_bytes(provider)
    srv = serve([Reply(200, headers={"content-type": "text/event-stream"}, chunks=chunks_of(raw))])
    async with _client(provider, srv.url) as c:
        events = [ev async for ev in c.generate(transcript, model=MODELS[provider])]
    expected = collect(get_mapper(provider), raw)
    assert isinstance(events[-1], StreamDone), events[-1]
    assert to_builtins(events[-1].response.items) == to_builtins(expected[-1].response.items)
    (req,) = srv.received
    assert req.method == "POST"
    assert req.path == {"cohere": "/v2/chat", "mistral": "/chat/completions"}[provider]
    assert req.headers["authorization"] == f"Bearer {SENTINEL}"
    body = json.loads(req.body)
    assert body["model"] == MODELS[provider] and body["stream"] is True
    assert "stream_options" not in body  # neither API takes OpenAI's stream_options


@pytest.mark.parametrize(("provider", "path"), [(p, r) for p, rs in sorted(RESPONSES.items()) for r in rs], ids=lambda v: getattr(v, "name", v))
async def test_non_stream_response_decodes_like_the_mapper(provider: str, path: Any, serve: Any, transcript: Any) -> None:
    raw = path.read_bytes()
    srv = serve([Reply(200, headers={"content-type": "application/json"}, chunks=[raw])])
    async with _client(provider, srv.url) as c:
        response = await c.generate(transcript, model=MODELS[provider], stream=False)
    expected = get_mapper(provider).decode_response(json.loads(raw)).value
    assert to_builtins(response.items) == to_builtins(expected.items)
    assert response.usage == expected.usage and response.stop_reason == expected.stop_reason
    assert json.loads(srv.received[0].body)["stream"] is False


@pytest.mark.parametrize(
    ("provider", "status", "body", "code"),
    [
        ("cohere", 498, {"id": "x", "message": "invalid api token"}, "auth"),
        ("cohere", 401, {"id": "x", "message": "no api key supplied"}, "auth"),
        ("cohere", 400, {"id": "x", "message": "invalid request: message must be at least 1 token long"}, "invalid_request"),
        ("cohere", 404, {"id": "x", "message": "model 'nope' not found"}, "not_found"),
        ("mistral", 422, {"detail": [{"type": "missing", "loc": ["body", "messages"]}]}, "invalid_request"),
        ("mistral", 401, {"message": "Unauthorized"}, "auth"),
    ],
)
async def test_error_statuses_normalize(provider: str, status: int, body: Any, code: str, serve: Any, transcript: Any) -> None:
    srv = serve([Reply(status, chunks=[json.dumps(body).encode()])])
    async with _client(provider, srv.url) as c:
        events = [ev async for ev in c.generate(transcript, model=MODELS[provider])]
    assert isinstance(events[-1], StreamError)
    err = events[-1].error
    assert (err.code, err.status, err.retryable) == (code, status, False)
    assert "token" not in err.message.replace("invalid_token", "")  # the body's text is never copied in
    assert len(srv.received) == 1


@pytest.mark.parametrize(("provider", "variable"), [("cohere", "CO_API_KEY"), ("cohere", "COHERE_API_KEY"), ("mistral", "MISTRAL_API_KEY")])
async def test_key_from_the_sdk_variables(provider: str, variable: str, monkeypatch: pytest.MonkeyPatch, serve: Any, transcript: Any) -> None:
    for name in ("CO_API_KEY", "COHERE_API_KEY", "MISTRAL_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, SENTINEL)
    srv = serve([Reply(200, headers={"content-type": "application/json"}, chunks=[RESPONSES[provider][0].read_bytes()])])
    async with Client(provider, base_url=srv.url, timeouts=FAST) as c:
        await c.generate(transcript, model=MODELS[provider], stream=False)
    assert srv.received[0].headers["authorization"] == f"Bearer {SENTINEL}"


def test_missing_cohere_key_names_both_variables(monkeypatch: pytest.MonkeyPatch, transcript: Any) -> None:
    for name in ("CO_API_KEY", "COHERE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    c = Client("cohere", base_url="http://127.0.0.1:9")
    with pytest.raises(TransportError) as info:
        c.generate(transcript, model=MODELS["cohere"])
    assert info.value.code == "auth"
    assert "CO_API_KEY" in info.value.message and "COHERE_API_KEY" in info.value.message
