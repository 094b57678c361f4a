"""A sentinel key appears nowhere but the request's auth header, on every path."""

from __future__ import annotations

import json
import logging
import traceback
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.errors import TransportError
from interlingua.transport import Client, RecordingTransport, ReplayTransport, RetryPolicy, Timeouts

from ._server import Reply
from .conftest import REAL, RESPONSES, SENTINEL, stream_reply

FAST = Timeouts(connect=2, read=0.3, idle=0.3, write=2)
QUICK = RetryPolicy(base=0.01, cap=0.02)
AUTH = {"openai-chat": "authorization", "anthropic": "x-api-key", "gemini": "x-goog-api-key", "ollama": "authorization", "openai-responses": "authorization"}
MODELS = {"openai-chat": "gpt-4o", "openai-responses": "gpt-4o", "anthropic": "claude-sonnet-4-5", "gemini": "gemini-2.5-flash", "ollama": "llama3.2"}
ECHO = json.dumps({"error": {"message": f"Incorrect API key provided: {SENTINEL}", "type": SENTINEL, "code": "invalid_api_key", "status": "UNAUTHENTICATED"}}).encode()


def _scenarios(provider: str) -> list[list[Reply]]:
    stalled = stream_reply(provider)
    stalled.stall_after = 1
    dropped = stream_reply(provider)
    dropped.drop_after = 2
    return [
        [stream_reply(provider)],
        [Reply(401, chunks=[ECHO])],
        [Reply(500, chunks=[ECHO]), Reply(429, headers={"retry-after": "0"}, chunks=[ECHO]), stream_reply(provider)],
        [stalled],
        [dropped],
    ]


def _texts_of_error(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc)) + repr(exc) + repr(exc.__cause__) + str(getattr(exc, "__dict__", ""))


@pytest.mark.parametrize("provider", sorted(AUTH))
async def test_sentinel_only_in_the_auth_header(provider: str, serve: Any, transcript: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    seen: list[str] = []
    fixture = tmp_path / "rec.jsonl"
    for replies in _scenarios(provider):
        srv = serve(replies)
        client = Client(provider, api_key=SENTINEL, base_url=srv.url, timeouts=FAST, retry=QUICK, transport=RecordingTransport(fixture))
        seen.append(repr(client))
        async with client:
            generation = client.generate(transcript, model=MODELS[provider])
            seen += [repr(generation), str(generation.report.lines())]
            events = [e async for e in generation]
            seen += [repr(e) for e in events]
            seen += [str(getattr(events[-1], "report", ""))]
            try:
                await client.generate(transcript, model=MODELS[provider], stream=False)
            except TransportError as exc:
                seen.append(_texts_of_error(exc))
        for req in srv.received:
            raw = req.raw.decode("latin-1")
            assert raw.count(SENTINEL) == 1, "the key is sent exactly once"
            assert req.headers[AUTH[provider]].endswith(SENTINEL)
            assert SENTINEL not in req.path and SENTINEL not in req.body.decode()
    # non-stream success too
    srv = serve([Reply(200, chunks=[(REAL / RESPONSES[provider]).read_bytes()])])
    async with Client(provider, api_key=SENTINEL, base_url=srv.url, timeouts=FAST, transport=RecordingTransport(fixture)) as client:
        seen.append(repr(await client.generate(transcript, model=MODELS[provider], stream=False)))
    # replay from the recording
    async with Client(provider, api_key=SENTINEL, transport=ReplayTransport(fixture), retry=QUICK) as client:
        seen.append(repr([e async for e in client.generate(transcript, model=MODELS[provider])]))

    assert fixture.read_text().count("REDACTED") > 0
    assert SENTINEL not in fixture.read_text()
    assert SENTINEL not in caplog.text
    assert any("interlingua.transport" == r.name for r in caplog.records)
    for text in seen:
        assert SENTINEL not in text


def test_cli_output_never_shows_the_key(monkeypatch: pytest.MonkeyPatch, serve: Any, tmp_path: Path) -> None:
    doc = tmp_path / "t.json"
    doc.write_text('{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"hi"}]}')
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    srv = serve([stream_reply("openai-chat"), Reply(401, chunks=[ECHO])])
    runner = CliRunner()
    fixture = tmp_path / "rec.jsonl"
    ok = runner.invoke(app, ["replay", str(doc), "--provider", "openai-chat", "--model", "gpt-4o", "--base-url", srv.url, "--record", str(fixture)])
    bad = runner.invoke(app, ["replay", str(doc), "--provider", "openai-chat", "--model", "gpt-4o", "--base-url", srv.url])
    assert ok.exit_code == 0 and bad.exit_code == 1
    for result in (ok, bad):
        assert SENTINEL not in result.stdout + result.stderr
    assert SENTINEL not in fixture.read_text()
    assert srv.received[0].headers["authorization"] == f"Bearer {SENTINEL}"


async def test_sentinel_absent_from_refusals_and_network_failures(transcript: Any, caplog: pytest.LogCaptureFixture) -> None:
    import socket

    from interlingua.errors import CapabilityError
    from interlingua.items import ModelCapabilities

    caplog.set_level(logging.DEBUG)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    seen: list[str] = []
    for provider in sorted(AUTH):
        async with Client(provider, api_key=SENTINEL, base_url=f"http://user:{SENTINEL}@127.0.0.1:{port}", timeouts=FAST, retry=QUICK) as client:
            seen.append(repr(client))
            seen += [repr(e) for e in [e async for e in client.generate(transcript, model=MODELS[provider])]]
            with pytest.raises(TransportError) as info:
                await client.generate(transcript, model=MODELS[provider], stream=False)
            seen.append(_texts_of_error(info.value))
            with pytest.raises(CapabilityError) as refused:
                client.generate(transcript, model=MODELS[provider], capabilities=ModelCapabilities(input_modalities=["text"], streaming=False))
            seen.append(_texts_of_error(refused.value))
    assert SENTINEL not in caplog.text
    for text in seen:
        assert SENTINEL not in text
