"""list_models, count_tokens and validate_config against a local server serving the endpoints' real shapes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from interlingua.errors import TransportError
from interlingua.transport import Client, ModelInfo, RetryPolicy, Timeouts

from ._server import Reply
from .conftest import SENTINEL

MODELS = Path(__file__).parent.parent / "fixtures" / "list_and_count"


def body(name: str, **headers: str) -> Reply:
    return Reply(200, headers={"content-type": "application/json", **headers}, chunks=[(MODELS / name).read_bytes()])


LISTS = {
    # provider -> (replies, expected path of each request, the ids, a check on the normalized info)
    "openai-chat": (["openai.v1_models.json"], ["/models"], ["model-id-0", "model-id-1", "model-id-2"]),
    "openai-responses": (["openai.v1_models.json"], ["/models"], ["model-id-0", "model-id-1", "model-id-2"]),
    "anthropic": (["anthropic.v1_models.json", "anthropic.v1_models.page2.json"], ["/v1/models", "/v1/models?after_id=last_id"], ["claude-opus-4-6", "claude-3-5-sonnet-latest"]),
    "gemini": (
        ["gemini.models_list.json", "gemini.models_list.page2.json"],
        ["/models", "/models?pageToken=Ch5tb2RlbHMvZ2VtaW5pLTIuMC1mbGFzaA%3D%3D"],
        ["gemini-2.0-flash-thinking-exp-1219", "embedding-001"],
    ),
    "ollama": (["ollama.api_tags.json"], ["/api/tags"], ["deepseek-r1:latest", "llama3.2:latest"]),
    "cohere": (["cohere.v1_models.json", "cohere.v1_models.json"], ["/v1/models", "/v1/models?page_token=eyJwYWdlIjoxfQ%3D%3D"], None),
    "mistral": (["mistral.v1_models.json"], ["/models"], ["mistral-large-latest"]),
}


@pytest.mark.parametrize("provider", sorted(LISTS))
async def test_list_models_reads_each_providers_list(provider: str, serve: Any) -> None:
    files, paths, ids = LISTS[provider]
    if provider == "cohere":  # the documented example has a next page: serve it, then a last page without one
        last = json.loads((MODELS / "cohere.v1_models.json").read_bytes())
        del last["next_page_token"]
        replies = [body(files[0]), Reply(200, headers={"content-type": "application/json"}, chunks=[json.dumps(last).encode()])]
    else:
        replies = [body(f) for f in files]
    srv = serve(replies)
    async with Client(provider, api_key=SENTINEL, base_url=srv.url) as c:
        models = await c.list_models()
    assert [r.method for r in srv.received] == ["GET"] * len(paths)
    assert [r.path for r in srv.received] == paths
    if ids is not None:
        assert [m.id for m in models] == ids
    assert all(isinstance(m, ModelInfo) and m.provider == provider and m.raw for m in models)


async def test_the_normalized_facts_and_the_catalogue_merge(serve: Any) -> None:
    srv = serve([body("gemini.models_list.json"), body("gemini.models_list.page2.json")])
    async with Client("gemini", api_key=SENTINEL, base_url=srv.url) as c:
        flash, embedding = await c.list_models()
    assert (flash.display_name, flash.context_window, flash.max_output_tokens) == ("Gemini 2.0 Flash Thinking Experimental", 1048576, 65536)
    assert flash.capabilities is not None and embedding.capabilities is None  # the table knows gemini-2.0*, not embedding-001
    assert srv.received[0].headers["x-goog-api-key"] == SENTINEL

    srv = serve([body("anthropic.v1_models.json"), body("anthropic.v1_models.page2.json")])
    async with Client("anthropic", api_key=SENTINEL, base_url=srv.url) as c:
        opus, sonnet = await c.list_models()
    assert opus.created == "2026-02-04T00:00:00Z" and opus.display_name == "Claude Opus 4.6"
    from interlingua.models import lookup

    facts = lookup("anthropic", "claude-opus-4-6")
    # the list says 0 (unknown) for both limits: the catalogue's fill them in
    assert facts.known and opus.context_window == facts.context_window and opus.max_output_tokens == facts.max_output_tokens == 128000
    assert sonnet.max_output_tokens == 8192 and srv.received[0].headers["anthropic-version"] == "2023-06-01"

    srv = serve([body("openai.v1_models.json")])
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv.url) as c:
        first = (await c.list_models())[0]
    assert first.created == "2023-06-16T17:03:22Z" and first.owned_by == "organization-owner" and first.capabilities is None


async def test_bedrock_lists_on_its_control_plane(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("botocore")
    srv = serve([body("bedrock.foundation_models.json")])
    async with Client("bedrock-converse", api_key=SENTINEL, base_url=srv.url) as c:
        (model,) = await c.list_models()
    assert srv.received[0].path == "/foundation-models" and srv.received[0].headers["authorization"] == f"Bearer {SENTINEL}"
    assert model.id == "anthropic.claude-3-5-sonnet-20240620-v1:0" and model.owned_by == "Anthropic" and model.input_modalities == ("text", "image")
    from interlingua.transport._models import models_endpoints

    assert models_endpoints()["bedrock-converse"].base_url("https://bedrock-runtime.eu-west-1.amazonaws.com") == "https://bedrock.eu-west-1.amazonaws.com"


async def test_list_models_is_cancellable(serve: Any) -> None:
    data = (MODELS / "openai.v1_models.json").read_bytes()
    srv = serve([Reply(200, headers={"content-type": "application/json"}, chunks=[data[:20], data[20:]], stall_after=1)])
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv.url, timeouts=Timeouts(read=30)) as c:
        task = asyncio.create_task(c.list_models())
        for _ in range(200):
            await asyncio.sleep(0.01)
            if srv.received:
                break
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert srv.closed_by_client.wait(5)  # the connection was closed, not left reading


async def test_list_models_errors_are_normalized(serve: Any) -> None:
    srv = serve([Reply(401, headers={"content-type": "application/json"}, chunks=[b'{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}'])])
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv.url) as c:
        with pytest.raises(TransportError) as err:
            await c.list_models()
    assert err.value.code == "auth" and SENTINEL not in str(err.value)
    srv = serve([Reply(200, headers={"content-type": "application/json"}, chunks=[b'{"object":"list"}'])])
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv.url) as c:
        with pytest.raises(TransportError, match="not in the expected shape") as err:
            await c.list_models()
    assert err.value.code == "provider_error"
    srv = serve([Reply(429, headers={"content-type": "application/json", "retry-after-ms": "10"}, chunks=[b"{}"]), body("ollama.api_tags.json")])
    async with Client("ollama", base_url=srv.url, retry=RetryPolicy(max_retries=1)) as c:
        assert len(await c.list_models()) == 2 and len(srv.received) == 2  # retried as generate is


COUNTS = {
    # provider -> (answer file, model, path, the field holding the conversation in the body sent)
    "anthropic": ("anthropic.count_tokens.json", "claude-sonnet-4-5", "/v1/messages/count_tokens", "messages", 16),
    "gemini": ("gemini.count_tokens.json", "gemini-2.0-flash", "/models/gemini-2.0-flash:countTokens", "generateContentRequest", 10),
    "openai-responses": ("openai.responses_input_tokens.json", "gpt-5", "/responses/input_tokens", "input", 11),
}


@pytest.mark.parametrize("provider", sorted(COUNTS))
async def test_count_tokens_uses_the_providers_count_endpoint(provider: str, serve: Any, transcript: Any) -> None:
    answer, model, path, field, expected = COUNTS[provider]
    srv = serve([body(answer)])
    async with Client(provider, api_key=SENTINEL, base_url=srv.url) as c:
        assert await c.count_tokens(transcript, model=model) == expected
    (req,) = srv.received
    sent = json.loads(req.body)
    assert req.method == "POST" and req.path == path and field in sent
    assert "stream" not in json.dumps(sent) and "max_tokens" not in sent
    if provider == "gemini":
        assert sent["generateContentRequest"]["model"] == "models/gemini-2.0-flash" and "contents" in sent["generateContentRequest"]


async def test_count_tokens_without_a_count_endpoint_is_a_clear_error(transcript: Any) -> None:
    for provider in ("openai-chat", "ollama", "mistral", "cohere"):
        async with Client(provider, api_key=SENTINEL, base_url="http://127.0.0.1:9") as c:
            with pytest.raises(TransportError, match="no token count endpoint.*interlingua.count_tokens") as err:
                await c.count_tokens(transcript, model="m")
        assert err.value.code == "invalid_request"


def test_validate_config_finds_problems_without_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    problems = Client("openai-chat").validate_config()
    assert [p.setting for p in problems] == ["api_key"] and "OPENAI_API_KEY" in str(problems[0])

    assert [p.setting for p in Client("openai-chat", api_key=SENTINEL, base_url="ftp://example.com").validate_config()] == ["base_url"]
    assert [p.setting for p in Client("openai-chat", api_key=SENTINEL, base_url="http://api.example.com/v1").validate_config()] == ["base_url"]
    assert Client("openai-chat", api_key=SENTINEL, base_url="http://127.0.0.1:8000/v1").validate_config() == []
    keyless = Client("openai-chat:vllm", api_key=SENTINEL).validate_config()
    assert [p.setting for p in keyless] == ["api_key"] and "takes no key" in keyless[0].message
    assert Client("ollama", api_key=SENTINEL).validate_config()[0].setting == "api_key"

    unknown = Client("openai-chat", api_key=SENTINEL).validate_config("gtp-4o")
    assert [p.setting for p in unknown] == ["model"] and "gtp-4o" in unknown[0].message
    # described by the catalogue alone (no override), or by a gateway id rule: not "unknown" (issue 28)
    assert Client("openai-chat:cerebras", api_key=SENTINEL).validate_config("gpt-oss-120b") == []
    assert Client("openai-chat:openrouter", api_key=SENTINEL).validate_config("anthropic/claude-sonnet-4.5") == []
    over = Client("anthropic", api_key=SENTINEL, settings={"max_output_tokens": 500_000}).validate_config("claude-sonnet-4-5")
    assert [p.setting for p in over] == ["settings.max_output_tokens"] and "64000" in over[0].message
    thinking = Client("openai-chat", api_key=SENTINEL, settings={"reasoning": {"effort": "high"}}).validate_config("gpt-4o")
    assert [p.setting for p in thinking] == ["settings.reasoning"]
    assert Client("anthropic", api_key=SENTINEL).validate_config("claude-sonnet-4-5") == []
    assert all(SENTINEL not in str(p) for p in over + thinking + unknown)


def test_check_config_reports_what_the_constructor_would_refuse() -> None:
    from interlingua.transport import check_config

    (dialect,) = check_config("openai-chat:nope")
    assert dialect.setting == "provider" and "openai-chat:<host>" in dialect.message
    (option,) = check_config("anthropic", api_key=SENTINEL, options={"temperature": 0.2})
    assert option.setting == "options" and "settings=" in option.message
    (key,) = check_config("anthropic", api_key="sk-bad key")
    assert key.setting == "api_key" and "sk-bad" not in key.message
    assert [p.setting for p in check_config("openai-chat", api_key=SENTINEL, model="gtp-4o")] == ["model"]
