"""Recording exchanges to a fixture, replaying them offline, and replaying across providers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from interlingua.codec import to_builtins
from interlingua.errors import TransportError
from interlingua.items import ReasoningItem, TextItem, Transcript
from interlingua.streaming import StreamDone, StreamError
from interlingua.transport import Client, RecordingTransport, ReplayTransport, load_fixture

from ._server import Reply
from .conftest import REAL, SENTINEL, stream_reply
from .test_client import FAST, MODELS, QUICK_RETRY


async def _events(c: Client, transcript: Any, model: str, **kw: Any) -> list[Any]:
    return [e async for e in c.generate(transcript, model=model, **kw)]


async def test_record_then_replay_offline(serve: Any, transcript: Any, tmp_path: Path) -> None:
    fixture = tmp_path / "ex.jsonl"
    srv = serve([stream_reply("gemini"), Reply(200, chunks=[(REAL / "gemini/pai_google_thinking_part.1.response.json").read_bytes()])])
    async with Client("gemini", api_key=SENTINEL, base_url=srv.url, timeouts=FAST, transport=RecordingTransport(fixture)) as c:
        live = await _events(c, transcript, "gemini-2.5-flash")
        live_whole = await c.generate(transcript, model="gemini-2.5-flash", stream=False)

    text = fixture.read_text()
    assert SENTINEL not in text
    exchanges = load_fixture(fixture)
    assert [e["request"]["headers"]["x-goog-api-key"] for e in exchanges] == ["REDACTED", "REDACTED"]
    assert exchanges[0]["request"]["url"].endswith("/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
    assert "".join(exchanges[0]["response"]["chunks"]).encode() == (REAL / "gemini/pai_google_streaming_tool_call_thought_signature.1.response.sse").read_bytes()
    assert json.loads(exchanges[0]["request"]["body"]) == json.loads(srv.received[0].body)

    replay = ReplayTransport(fixture)
    async with Client("gemini", api_key="other", base_url="https://nowhere.invalid/v1beta", transport=replay) as c:
        again = await _events(c, transcript, "gemini-2.5-flash")
        again_whole = await c.generate(transcript, model="gemini-2.5-flash", stream=False)
    assert [repr(e) for e in again[:-1]] == [repr(e) for e in live[:-1]]
    assert to_builtins(again[-1].response.items) == to_builtins(live[-1].response.items)
    assert to_builtins(again_whole.items) == to_builtins(live_whole.items)
    assert len(replay.requests) == 2


async def test_replay_refuses_a_different_request(tmp_path: Path, transcript: Any) -> None:
    fixture = tmp_path / "ex.jsonl"
    fixture.write_text(json.dumps({"version": 1, "request": {"method": "POST", "url": "http://x/v1/messages", "headers": {}, "body": ""}, "response": {"status": 200, "headers": {}, "chunks": []}}) + "\n")
    async with Client("openai-chat", api_key=SENTINEL, transport=ReplayTransport(fixture)) as c:
        with pytest.raises(TransportError, match="replay exchange 0 is POST /v1/messages"):
            await c.generate(transcript, model="gpt-4o", stream=False)
        events = await _events(c, transcript, "gpt-4o")
    assert isinstance(events[-1], StreamError) and events[-1].error.code == "invalid_request"


def test_bad_fixture_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"version": 99}\n')
    with pytest.raises(TransportError, match="line 1"):
        load_fixture(bad)


async def test_recorded_broken_stream_replays_as_truncated(serve: Any, transcript: Any, tmp_path: Path) -> None:
    fixture = tmp_path / "ex.jsonl"
    reply = stream_reply("anthropic")
    reply.drop_after = len(reply.chunks) - 2
    srv = serve([reply])
    async with Client("anthropic", api_key=SENTINEL, base_url=srv.url, timeouts=FAST, retry=QUICK_RETRY, transport=RecordingTransport(fixture)) as c:
        live = await _events(c, transcript, "claude-sonnet-4-5")
    assert live[-1].error.code == "truncated"
    (exchange,) = load_fixture(fixture)
    assert exchange["response"]["disconnect"] is True
    async with Client("anthropic", api_key=SENTINEL, transport=ReplayTransport(fixture), retry=QUICK_RETRY) as c:
        again = await _events(c, transcript, "claude-sonnet-4-5")
    assert again[-1].error.code == "truncated" and [repr(e) for e in again] == [repr(e) for e in live]


async def test_cross_provider_replay_obeys_the_target_rules(serve: Any, tmp_path: Path) -> None:
    """An Anthropic answer (thinking + signature) recorded, then continued on a Gemini stand-in."""
    fixture = tmp_path / "anthropic.jsonl"
    question = msgspec.json.decode(b'{"schema_version":"1.0","items":[{"type":"text","role":"system","text":"Be brief."},{"type":"text","role":"user","text":"How do I cross the street?"}]}', type=Transcript)
    data = (REAL / "anthropic/pai_anthropic_thinking_part_stream.0.response.sse").read_bytes()
    source = serve([Reply(200, headers={"content-type": "text/event-stream"}, chunks=[data])])
    async with Client("anthropic", api_key=SENTINEL, base_url=source.url, timeouts=FAST, transport=RecordingTransport(fixture)) as c:
        await _events(c, question, "claude-sonnet-4-5")

    async with Client("anthropic", api_key=SENTINEL, transport=ReplayTransport(fixture)) as c:
        answer = await c.generate(question, model="claude-sonnet-4-5")
    signatures = [i.opaque.value for i in answer.items if isinstance(i, ReasoningItem) and i.opaque]
    assert signatures, "the recorded Anthropic answer carries a thinking signature"

    follow_up = Transcript(schema_version="1.0", items=[*question.items, *answer.items, TextItem(text="And at night?", role="user")])
    target = serve([stream_reply("gemini")])
    async with Client("gemini", api_key=SENTINEL, base_url=target.url + "/v1beta", timeouts=FAST) as c:
        generation = c.generate(follow_up, model="gemini-2.5-flash", policy="drop")
        events = [e async for e in generation]
    assert isinstance(events[-1], StreamDone)

    (req,) = target.received
    assert req.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert req.headers["x-goog-api-key"] == SENTINEL and SENTINEL not in req.path
    body = json.loads(req.body)
    assert set(body) <= {"contents", "systemInstruction", "tools", "toolConfig", "generationConfig"}
    assert body["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    roles = [c["role"] for c in body["contents"]]
    assert roles == ["user", "model", "user"]
    raw = req.body.decode()
    for sig in signatures:
        assert sig not in raw  # Anthropic's opaque state never reaches Gemini
    assert "thoughtSignature" not in raw
    assert any("signature" in str(entry) or "opaque" in str(entry) for entry in generation.report)
