"""A stream request answered with something that is not a stream (a server that ignores the stream
flag): decoded as a whole response when it is one, with a warning; otherwise ``provider_error``; never
re-sent. And ``replay`` streams only when the flags or the conversation's settings say so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import decode_transcript, to_builtins
from interlingua.mapping import get_mapper
from interlingua.streaming import StreamDone, StreamError, collect
from interlingua.transport import Client, RetryPolicy, Timeouts

from ._server import Reply
from .conftest import REAL, RESPONSES, SENTINEL, STREAMS

FAST = Timeouts(connect=2, read=2, idle=0.5, write=2)
QUICK_RETRY = RetryPolicy(base=0.01, cap=0.02)
MODELS = {"openai-chat": "gpt-4o", "openai-responses": "gpt-4o", "anthropic": "claude-sonnet-4-5", "gemini": "gemini-2.5-flash", "ollama": "llama3.2"}
JSON = {"content-type": "application/json"}
runner = CliRunner()


@pytest.mark.parametrize("provider", sorted(RESPONSES))
async def test_whole_json_response_to_a_stream_request_is_decoded_once(provider: str, serve: Any, transcript: Any) -> None:
    raw = (REAL / RESPONSES[provider]).read_bytes()
    srv = serve([Reply(200, headers=JSON, chunks=[raw]), Reply(200, headers=JSON, chunks=[raw])])
    async with Client(provider, api_key=SENTINEL, base_url=srv.url, timeouts=FAST, retry=QUICK_RETRY) as c:
        events = [ev async for ev in c.generate(transcript, model=MODELS[provider], stream=True)]
    assert len(srv.received) == 1
    (done,) = events
    assert isinstance(done, StreamDone)
    expected = get_mapper(provider).decode_response(json.loads(raw)).value
    assert to_builtins(done.response.to_transcript()) == to_builtins(expected.to_transcript())
    assert any("not a stream" in e.reason and e.action == "changed" for e in done.report.entries)


@pytest.mark.parametrize("body", [b'{"ok": true}', b"<html>busy</html>", b"not json"])
async def test_non_response_body_to_a_stream_request_is_provider_error_not_retried(body: bytes, serve: Any, transcript: Any) -> None:
    srv = serve([Reply(200, headers=JSON, chunks=[body])] * 3)
    async with Client("anthropic", api_key=SENTINEL, base_url=srv.url, timeouts=FAST, retry=QUICK_RETRY) as c:
        events = [ev async for ev in c.generate(transcript, model="claude-sonnet-4-5", stream=True)]
    assert len(srv.received) == 1
    (err,) = events
    assert isinstance(err, StreamError) and err.error.code == "provider_error"
    assert "application/json" in err.error.message and "not a stream" in err.error.message


@pytest.mark.parametrize("provider", sorted(STREAMS))
async def test_stream_under_a_json_label_is_read_as_a_stream(provider: str, serve: Any, transcript: Any) -> None:
    raw = (REAL / STREAMS[provider][0]).read_bytes()
    srv = serve([Reply(200, headers=JSON, chunks=[raw])])
    async with Client(provider, api_key=SENTINEL, base_url=srv.url, timeouts=FAST, retry=QUICK_RETRY) as c:
        events = [ev async for ev in c.generate(transcript, model=MODELS[provider], stream=True)]
    assert len(srv.received) == 1
    assert isinstance(events[-1], StreamDone)
    expected = collect(get_mapper(provider), raw)[-1]
    assert isinstance(expected, StreamDone)
    assert to_builtins(events[-1].response.items) == to_builtins(expected.response.items)


def _doc(tmp_path: Path, settings: dict[str, Any]) -> Path:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"schema_version": "1.0", "settings": settings, "items": [{"type": "text", "role": "user", "text": "hi"}]}))
    return path


def test_replay_cli_whole_json_answer_to_stream_warns_and_sends_once(serve: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's case: a local server answering a streamed request with plain JSON 200."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    raw = (REAL / RESPONSES["anthropic"]).read_bytes()
    srv = serve([Reply(200, headers=JSON, chunks=[raw])] * 2)
    doc = _doc(tmp_path, {"model": "claude-sonnet-4-5", "max_output_tokens": 100})
    result = runner.invoke(app, ["replay", str(doc), "--provider", "anthropic", "--base-url", srv.url])
    assert result.exit_code == 0, result.stderr
    assert len(srv.received) == 1 and json.loads(srv.received[0].body)["stream"] is True
    assert "warning: changed: " in result.stderr and "not a stream" in result.stderr
    expected = get_mapper("anthropic").decode_response(json.loads(raw)).value
    assert to_builtins(decode_transcript(result.stdout.encode())) == to_builtins(expected.to_transcript())


def test_replay_cli_bad_body_to_stream_is_provider_error_once(serve: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    srv = serve([Reply(200, headers=JSON, chunks=[b'{"hello": "world"}'])] * 3)
    doc = _doc(tmp_path, {"model": "claude-sonnet-4-5", "max_output_tokens": 100})
    result = runner.invoke(app, ["replay", str(doc), "--provider", "anthropic", "--base-url", srv.url])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: provider_error: ") and "truncated" not in result.stderr
    assert len(srv.received) == 1


@pytest.mark.parametrize(
    ("settings_stream", "flags", "sent"),
    [(False, [], False), (True, [], True), (None, [], True), (False, ["--stream"], True), (True, ["--no-stream"], False)],
)
def test_replay_cli_stream_follows_settings_unless_a_flag_says(
    settings_stream: bool | None, flags: list[str], sent: bool, serve: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    whole = Reply(200, headers=JSON, chunks=[(REAL / RESPONSES["anthropic"]).read_bytes()])
    stream = Reply(200, headers={"content-type": STREAMS["anthropic"][1]}, chunks=[(REAL / STREAMS["anthropic"][0]).read_bytes()])
    srv = serve([stream if sent else whole])
    settings: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_output_tokens": 100}
    if settings_stream is not None:
        settings["stream"] = settings_stream
    result = runner.invoke(app, ["replay", str(_doc(tmp_path, settings)), "--provider", "anthropic", "--base-url", srv.url, *flags])
    assert result.exit_code == 0, result.stderr
    assert json.loads(srv.received[0].body)["stream"] is sent
    assert "not a stream" not in result.stderr


async def test_non_response_body_to_a_whole_request_is_provider_error_not_retried(serve: Any, transcript: Any) -> None:
    """Same class on the non-stream path: a 2xx JSON body the mapper rejects is ``provider_error``."""
    srv = serve([Reply(200, headers=JSON, chunks=[b'{"ok": true}'])] * 3)
    async with Client("anthropic", api_key=SENTINEL, base_url=srv.url, timeouts=FAST, retry=QUICK_RETRY) as c:
        with pytest.raises(Exception) as info:
            await c.generate(transcript, model="claude-sonnet-4-5", stream=False)
    assert getattr(info.value, "code", None) == "provider_error"
    assert len(srv.received) == 1
