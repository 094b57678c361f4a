"""``openai-chat:<host>`` as a provider: the host's API root and key variable, the dialect's own body.

The replies are real recordings of those hosts (tests/fixtures/real/openai_compatible_hosts, from
pydantic-ai's cassettes), served by the local test server.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import decode_transcript, to_builtins
from interlingua.errors import TransportError
from interlingua.items import Settings, TextItem, Transcript
from interlingua.mapping import get_mapper
from interlingua.transport import PROVIDERS, Client, provider_spec

from ._server import Reply

HOSTS = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "openai_compatible_hosts"
GROQ = HOSTS / "groq__pai_settings_stop_settings_groq.0.response.json"
runner = CliRunner()


def test_host_specs_keep_the_chat_rules_and_name_their_own_root_and_key() -> None:
    groq = provider_spec("openai-chat:groq")
    assert groq is not None and groq.name == "openai-chat:groq"
    assert groq.default_base_url == "https://api.groq.com/openai/v1" and groq.env_vars == ("GROQ_API_KEY",)
    assert groq.path("m", False) == PROVIDERS["openai-chat"].path("m", False) == "/chat/completions"
    local = provider_spec("openai-chat:vllm")
    assert local is not None and local.env_vars == () and not local.requires_key
    assert provider_spec("openai-chat:nope") is None and provider_spec("anthropic:groq") is None
    assert provider_spec("openai-chat") is PROVIDERS["openai-chat"]


def test_unknown_host_is_a_clear_error() -> None:
    with pytest.raises(TransportError, match=r"openai-chat:<host>"):
        Client("openai-chat:nope", api_key="k")


def test_client_sends_the_dialect_body_with_the_host_key(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gk-test")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    raw = GROQ.read_bytes()
    srv = serve([Reply(200, chunks=[raw])])
    transcript = Transcript(schema_version="1.0", items=[TextItem(role="user", text="hi")], settings=Settings(max_output_tokens=64))

    async def run() -> Any:
        async with Client("openai-chat:groq", base_url=srv.url) as client:
            return await client.generate(transcript, model="llama-3.3-70b-versatile", stream=False)

    response = asyncio.run(run())
    sent = srv.received[0]
    assert sent.path.endswith("/chat/completions")
    assert sent.headers["authorization"] == "Bearer gk-test"
    body = json.loads(sent.body)
    # Groq's dialect writes the output budget as max_completion_tokens (console.groq.com API reference)
    assert body["max_completion_tokens"] == 64 and "max_tokens" not in body
    expected = get_mapper("openai-chat:groq").decode_response(json.loads(raw)).value
    assert to_builtins(response.items) == to_builtins(expected.items)


def test_replay_takes_a_host_dialect(serve: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gk-test")
    doc = tmp_path / "t.json"
    doc.write_text('{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"hi"}]}')
    raw = GROQ.read_bytes()
    srv = serve([Reply(200, chunks=[raw])])
    result = runner.invoke(app, ["replay", str(doc), "--provider", "openai-chat:groq", "--model", "llama-3.3-70b-versatile", "--base-url", srv.url, "--no-stream"])
    assert result.exit_code == 0, result.stderr
    assert srv.received[0].headers["authorization"] == "Bearer gk-test"
    expected = get_mapper("openai-chat:groq").decode_response(json.loads(raw)).value
    assert to_builtins(decode_transcript(result.stdout.encode())) == to_builtins(expected.to_transcript())


def test_replay_refuses_an_unknown_host_as_a_usage_error(tmp_path: Path) -> None:
    doc = tmp_path / "t.json"
    doc.write_text('{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"hi"}]}')
    result = runner.invoke(app, ["replay", str(doc), "--provider", "openai-chat:nope", "--model", "m"])
    assert result.exit_code == 2
    assert "unknown provider 'openai-chat:nope'" in result.stderr and "groq" in result.stderr  # the known hosts are listed
