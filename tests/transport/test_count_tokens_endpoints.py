"""``count_tokens(..., client=)``: the providers' count endpoints on 127.0.0.1 (Anthropic
``/v1/messages/count_tokens``, Gemini ``:countTokens``, OpenAI ``/responses/input_tokens``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from interlingua.errors import IntegrityError, TransportError
from interlingua.history import count_tokens
from interlingua.history._tokens import acount_tokens
from interlingua.items import Transcript
from interlingua.transport import Client

from ._server import Reply

CASES = [
    ("anthropic", "claude-sonnet-4-5", "/v1/messages/count_tokens", {"input_tokens": 17}),
    ("gemini", "gemini-2.5-flash", "/models/gemini-2.5-flash:countTokens", {"totalTokens": 17, "promptTokensDetails": []}),
    ("openai-responses", "gpt-5", "/responses/input_tokens", {"object": "response.input_tokens", "input_tokens": 17}),
]


@pytest.mark.parametrize(("provider", "model", "path", "answer"), CASES, ids=[c[0] for c in CASES])
def test_the_provider_counts(serve: Any, transcript: Transcript, provider: str, model: str, path: str, answer: dict[str, Any]) -> None:
    srv = serve([Reply(chunks=[json.dumps(answer).encode()], headers={"content-type": "application/json"})])

    async def run() -> Any:
        async with Client(provider, api_key="sk-test", base_url=srv.url) as client:
            return await acount_tokens(transcript, model, client=client)

    counted = asyncio.run(run())
    assert counted.input_tokens == 17 and counted.exact and counted.method == "provider"
    (got,) = srv.received
    assert got.method == "POST" and got.path == path
    body = json.loads(got.body)
    if provider == "anthropic":
        assert set(body) <= {"model", "messages", "system", "tools", "tool_choice", "thinking"} and body["messages"][0]["role"] == "user"
        assert "max_tokens" not in body and "stream" not in body
    elif provider == "gemini":
        assert body["generateContentRequest"]["model"] == "models/gemini-2.5-flash" and body["generateContentRequest"]["contents"]
    else:
        assert body["model"] == "gpt-5" and "stream" not in body and body["input"]


def test_sync_call_and_errors(serve: Any, transcript: Transcript) -> None:
    srv = serve([Reply(chunks=[b'{"input_tokens": 5}']), Reply(status=400, chunks=[b'{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}']), Reply(chunks=[b'{"nope": 1}'])])

    def make() -> Client:
        return Client("anthropic", api_key="sk-test", base_url=srv.url)

    async def with_client(fn: Any) -> Any:
        async with make() as client:
            return await fn(client)

    assert asyncio.run(with_client(lambda c: acount_tokens(transcript, "claude-sonnet-4-5", client=c))).input_tokens == 5
    with pytest.raises(TransportError) as err:
        asyncio.run(with_client(lambda c: acount_tokens(transcript, "claude-sonnet-4-5", client=c)))
    assert err.value.status == 400  # type: ignore[attr-defined]
    with pytest.raises(TransportError, match="has no 'input_tokens' count"):
        asyncio.run(with_client(lambda c: acount_tokens(transcript, "claude-sonnet-4-5", client=c)))


def test_nothing_is_sent_for_a_broken_history_or_a_provider_without_an_endpoint(serve: Any) -> None:
    from interlingua.codec import decode_transcript

    srv = serve([])
    broken = decode_transcript(b'{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"q"},{"type":"tool_call","id":"c1","name":"f","arguments":{}}],"tools":[{"name":"f","parameters":{"type":"object"}}]}')

    async def run(provider: str, model: str) -> Any:
        async with Client(provider, api_key="sk-test", base_url=srv.url) as client:
            return await acount_tokens(broken, model, client=client)

    with pytest.raises(IntegrityError):
        asyncio.run(run("anthropic", "claude-sonnet-4-5"))
    with pytest.raises(TransportError, match="has no token count endpoint"):  # refused before anything is sent
        asyncio.run(run("openai-chat", "gpt-4.1"))
    assert srv.received == []
    assert count_tokens is not None
