"""The retry rule of docs/replay.md, counted request by request against a scripted server.

Rule: at most 1 + max_retries (3) requests per call, every cause counted together; a retry
only while nothing was handed to the caller; a stall (no byte for the idle timeout) is never
retried; a request whose 2xx response had begun (role-only chunk, ``response.created``,
Anthropic ``message_start``) but broke before its first content-bearing event is re-sent at
most once; the deadline bounds the whole call.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.codec import to_builtins
from interlingua.errors import TransportError
from interlingua.streaming import StreamDone, StreamError, TextDelta, UsageUpdate
from interlingua.transport import Client, RetryPolicy, Timeouts

from ._server import Reply
from .conftest import REAL, SENTINEL, STREAMS, stream_reply

FAST = Timeouts(connect=2, read=0.3, idle=0.3, write=2)
QUICK = RetryPolicy(base=0.01, cap=0.02)
MODELS = {"openai-chat": "gpt-4o", "openai-responses": "gpt-4o", "anthropic": "claude-sonnet-4-5", "gemini": "gemini-2.5-flash", "ollama": "llama3.2"}
OPENAI = ["openai-chat", "openai-responses"]


def _stream_bytes(provider: str) -> bytes:
    return (REAL / STREAMS[provider][0]).read_bytes()


def _first_event(provider: str) -> tuple[bytes, bytes]:
    """The stream cut after its first event: the role-only chunk / ``response.created`` / ``message_start``."""
    data = _stream_bytes(provider)
    end = data.index(b"\n\n") + 2
    return data[:end], data[end:]


def _opening(provider: str, **kw: Any) -> Reply:
    head, rest = _first_event(provider)
    return Reply(200, headers={"content-type": "text/event-stream"}, chunks=[head, rest], **kw)


def _after_content(provider: str, **kw: Any) -> Reply:
    """The stream with a break placed after its first content-bearing event."""
    data = _stream_bytes(provider)
    marker = {"openai-chat": b'"content":"', "openai-responses": b"response.output_text.delta", "anthropic": b"text_delta"}[provider]
    first = data.index(marker)
    # the end of the event holding the first text, skipping an empty-content role chunk
    if provider == "openai-chat":
        first = data.index(marker, data.index(b"\n\n") + 2)
    end = data.index(b"\n\n", first) + 2
    return Reply(200, headers={"content-type": "text/event-stream"}, chunks=[data[:end], data[end:]], **kw)


async def _run(provider: str, url: str, transcript: Any, **kw: Any) -> list[Any]:
    kw.setdefault("timeouts", FAST)
    kw.setdefault("retry", QUICK)
    async with Client(provider, api_key=SENTINEL, base_url=url, **kw) as c:
        return [e async for e in c.generate(transcript, model=MODELS[provider])]


def _clean_events(provider: str) -> list[Any]:
    from interlingua.mapping import get_mapper
    from interlingua.streaming import collect

    return collect(get_mapper(provider), _stream_bytes(provider))


def _shape(events: list[Any]) -> list[Any]:
    return [to_builtins(e.response.items) if isinstance(e, StreamDone) else repr(e) for e in events]


def _error(events: list[Any]) -> Any:
    assert isinstance(events[-1], StreamError), events[-1]
    assert sum(isinstance(e, (StreamDone, StreamError)) for e in events) == 1
    return events[-1].error


def test_the_first_events_carry_no_content() -> None:
    """What the scenarios rely on: the cut point really is before any content."""
    from interlingua.mapping import get_mapper
    from interlingua.streaming import collect

    for provider in [*OPENAI, "anthropic"]:
        head, _ = _first_event(provider)
        events = collect(get_mapper(provider), head)
        assert all(isinstance(e, (UsageUpdate, StreamError)) for e in events), (provider, events)
        assert isinstance(events[-1], StreamError) and events[-1].error.code == "truncated"


# --------------------------------------------------------------------------- the documented scenarios


@pytest.mark.parametrize("provider", OPENAI)
async def test_cut_after_the_opening_chunk_is_sent_again_once(provider: str, serve: Any, transcript: Any) -> None:
    srv = serve([_opening(provider, drop_after=1) for _ in range(3)])
    err = _error(await _run(provider, srv.url, transcript))
    assert err.code == "truncated"
    assert len(srv.received) == 2  # one re-send of a begun generation, never two


@pytest.mark.parametrize("provider", [*OPENAI, "anthropic"])
async def test_cut_after_the_opening_chunk_then_success_leaves_no_trace(provider: str, serve: Any, transcript: Any) -> None:
    srv = serve([_opening(provider, drop_after=1), stream_reply(provider)])
    events = await _run(provider, srv.url, transcript)
    assert len(srv.received) == 2
    # the caller sees exactly the events of a clean stream: nothing of the broken attempt
    assert _shape(events) == _shape(_clean_events(provider))


@pytest.mark.parametrize("provider", OPENAI)
async def test_clean_end_after_the_opening_chunk_counts_as_a_cut(provider: str, serve: Any, transcript: Any) -> None:
    head, _ = _first_event(provider)
    srv = serve([Reply(200, headers={"content-type": "text/event-stream"}, chunks=[head]) for _ in range(3)])
    err = _error(await _run(provider, srv.url, transcript))
    assert err.code == "truncated" and len(srv.received) == 2


@pytest.mark.parametrize("provider", OPENAI)
async def test_stall_after_the_opening_chunk_is_not_retried(provider: str, serve: Any, transcript: Any) -> None:
    srv = serve([_opening(provider, stall_after=1), stream_reply(provider), stream_reply(provider)])
    err = _error(await _run(provider, srv.url, transcript))
    assert err.code == "timeout" and "no data from the server for 0.3 s" in err.message
    assert len(srv.received) == 1


@pytest.mark.parametrize("provider", OPENAI)
async def test_500_then_success(provider: str, serve: Any, transcript: Any) -> None:
    srv = serve([Reply(500, chunks=[b'{"error":{"type":"server_error"}}']), stream_reply(provider)])
    events = await _run(provider, srv.url, transcript)
    assert isinstance(events[-1], StreamDone) and len(srv.received) == 2


@pytest.mark.parametrize("provider", OPENAI)
async def test_cut_after_content_is_truncated_and_not_retried(provider: str, serve: Any, transcript: Any) -> None:
    srv = serve([_after_content(provider, drop_after=1), stream_reply(provider)])
    events = await _run(provider, srv.url, transcript)
    assert _error(events).code == "truncated"
    assert any(isinstance(e, TextDelta) for e in events)
    assert len(srv.received) == 1


@pytest.mark.parametrize("provider", OPENAI)
async def test_stall_after_content_is_a_timeout_and_not_retried(provider: str, serve: Any, transcript: Any) -> None:
    srv = serve([_after_content(provider, stall_after=1), stream_reply(provider)])
    events = await _run(provider, srv.url, transcript)
    err = _error(events)
    assert err.code == "timeout" and "0.3 s" in err.message
    assert any(isinstance(e, TextDelta) for e in events)
    assert len(srv.received) == 1


class _Counting(httpx.AsyncBaseTransport):
    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.attempts = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.attempts += 1
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("provider", OPENAI)
async def test_connect_refused_is_tried_three_times(provider: str, transcript: Any) -> None:
    counter = _Counting()
    err = _error(await _run(provider, f"http://127.0.0.1:{_closed_port()}", transcript, transport=counter))
    assert (err.code, err.retryable) == ("network", True)
    assert counter.attempts == 3


# --------------------------------------------------------------------------- one budget, end to end


async def test_every_cause_shares_one_budget(serve: Any, transcript: Any) -> None:
    srv = serve([Reply(500), _opening("openai-chat", drop_after=1), Reply(503), stream_reply("openai-chat")])
    err = _error(await _run("openai-chat", srv.url, transcript))
    assert (err.code, err.status) == ("server", 503)
    assert len(srv.received) == 3


async def test_a_restart_and_a_status_retry_then_success(serve: Any, transcript: Any) -> None:
    srv = serve([Reply(429, headers={"retry-after": "0"}), _opening("openai-responses", drop_after=1), stream_reply("openai-responses")])
    events = await _run("openai-responses", srv.url, transcript)
    assert isinstance(events[-1], StreamDone) and len(srv.received) == 3


async def test_three_5xx_are_three_requests(serve: Any, transcript: Any) -> None:
    srv = serve([Reply(500), Reply(502), Reply(503), stream_reply("openai-chat")])
    assert _error(await _run("openai-chat", srv.url, transcript)).code == "server"
    assert len(srv.received) == 3


async def test_more_restarts_when_the_policy_allows(serve: Any, transcript: Any) -> None:
    srv = serve([_opening("openai-chat", drop_after=1) for _ in range(4)])
    policy = RetryPolicy(base=0.01, cap=0.02, max_stream_restarts=2)
    assert _error(await _run("openai-chat", srv.url, transcript, retry=policy)).code == "truncated"
    assert len(srv.received) == 3  # still bounded by max_retries


async def test_no_retries_at_all(serve: Any, transcript: Any) -> None:
    srv = serve([_opening("openai-chat", drop_after=1), stream_reply("openai-chat")])
    assert _error(await _run("openai-chat", srv.url, transcript, retry=RetryPolicy(max_retries=0))).code == "truncated"
    assert len(srv.received) == 1


# --------------------------------------------------------------------------- deadline


async def test_a_wait_past_the_deadline_is_not_taken(serve: Any, transcript: Any) -> None:
    srv = serve([Reply(429, headers={"retry-after": "5"}), stream_reply("openai-chat")])
    timeouts = Timeouts(connect=2, read=2, idle=2, deadline=1)
    err = _error(await _run("openai-chat", srv.url, transcript, timeouts=timeouts))
    assert err.code == "rate_limit" and len(srv.received) == 1


async def test_a_trickling_stream_ends_at_the_deadline(serve: Any, transcript: Any) -> None:
    reply = stream_reply("openai-chat", delay=0.05)  # never silent for the idle timeout
    srv = serve([reply, stream_reply("openai-chat")])
    timeouts = Timeouts(connect=2, read=2, idle=2, deadline=0.3)
    err = _error(await _run("openai-chat", srv.url, transcript, timeouts=timeouts))
    assert err.code == "timeout" and "deadline of 0.3 s" in err.message
    assert len(srv.received) == 1


async def test_non_stream_respects_the_deadline(serve: Any, transcript: Any) -> None:
    srv = serve([Reply(200, header_delay=1.0)])
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv.url, timeouts=Timeouts(read=5, deadline=0.2), retry=QUICK) as c:
        with pytest.raises(TransportError) as info:
            await c.generate(transcript, model="gpt-4o", stream=False)
    assert info.value.code == "timeout" and "deadline" in info.value.message
    assert len(srv.received) == 1


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), True, "1"])
def test_timeouts_must_be_positive_seconds(bad: Any) -> None:
    with pytest.raises(ValueError, match="positive number of seconds"):
        Timeouts(idle=bad)
    with pytest.raises(ValueError, match="deadline"):
        Timeouts(deadline=bad)


# --------------------------------------------------------------------------- non-stream calls follow the same rule


async def test_non_stream_read_timeout_is_not_retried(serve: Any, transcript: Any) -> None:
    srv = serve([Reply(200, header_delay=1.0), Reply(200, chunks=[(REAL / "openai_chat/openai_python.completion_text.response.json").read_bytes()])])
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv.url, timeouts=FAST, retry=QUICK) as c:
        with pytest.raises(TransportError) as info:
            await c.generate(transcript, model="gpt-4o", stream=False)
    assert info.value.code == "timeout" and len(srv.received) == 1


async def test_non_stream_body_cut_is_sent_again_once(serve: Any, transcript: Any) -> None:
    body = (REAL / "openai_chat/openai_python.completion_text.response.json").read_bytes()
    srv = serve([Reply(200, chunks=[body[:40], body[40:]], drop_after=1) for _ in range(3)])
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv.url, timeouts=FAST, retry=QUICK) as c:
        with pytest.raises(TransportError) as info:
            await c.generate(transcript, model="gpt-4o", stream=False)
    assert info.value.code == "truncated" and len(srv.received) == 2


async def test_non_stream_500_then_success(serve: Any, transcript: Any) -> None:
    body = (REAL / "openai_chat/openai_python.completion_text.response.json").read_bytes()
    srv = serve([Reply(500), Reply(200, chunks=[body])])
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv.url, timeouts=FAST, retry=QUICK) as c:
        response = await c.generate(transcript, model="gpt-4o", stream=False)
    assert response.items and len(srv.received) == 2


# --------------------------------------------------------------------------- the CLI flags


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    path = tmp_path / "t.json"
    path.write_text('{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"hi"}]}')
    return path


def test_cli_idle_timeout(serve: Any, doc: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    srv = serve([_opening("openai-chat", stall_after=1), stream_reply("openai-chat")])
    result = CliRunner().invoke(app, ["replay", str(doc), "--provider", "openai-chat", "--model", "gpt-4o", "--base-url", srv.url, "--idle-timeout", "0.3", "--connect-timeout", "2"])
    assert result.exit_code == 1
    assert "error: timeout: no data from the server for 0.3 s" in result.stderr
    assert len(srv.received) == 1


def test_cli_deadline(serve: Any, doc: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    srv = serve([stream_reply("openai-chat", delay=0.05)])
    result = CliRunner().invoke(app, ["replay", str(doc), "--provider", "openai-chat", "--model", "gpt-4o", "--base-url", srv.url, "--deadline", "0.3", "--read-timeout", "5"])
    assert result.exit_code == 1 and "deadline of 0.3 s" in result.stderr


def test_cli_read_timeout_applies_to_non_stream(serve: Any, doc: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    srv = serve([Reply(200, header_delay=1.0)])
    result = CliRunner().invoke(app, ["replay", str(doc), "--provider", "openai-chat", "--model", "gpt-4o", "--base-url", srv.url, "--no-stream", "--read-timeout", "0.2"])
    assert result.exit_code == 1 and "error: timeout" in result.stderr
    assert len(srv.received) == 1


@pytest.mark.parametrize("flag", ["--connect-timeout", "--read-timeout", "--idle-timeout", "--deadline"])
@pytest.mark.parametrize("value", ["0", "-2", "nan", "inf"])
def test_cli_bad_timeout_is_a_usage_error(flag: str, value: str, doc: Path) -> None:
    result = CliRunner().invoke(app, ["replay", str(doc), "--provider", "openai-chat", "--model", "gpt-4o", flag, value])
    assert result.exit_code == 2
    assert f"{flag} must be a positive number of seconds" in result.stderr
