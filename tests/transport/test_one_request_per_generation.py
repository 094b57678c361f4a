"""A Generation sends its request once: iterate-then-await, await twice, iterate twice (counted on a local server)."""

from __future__ import annotations

from typing import Any

import pytest

from interlingua.errors import TransportError
from interlingua.streaming import StreamDone, StreamError
from interlingua.transport import Client, RetryPolicy, Timeouts

from ._server import Reply
from .conftest import REAL, RESPONSES, SENTINEL, stream_reply

FAST = Timeouts(connect=2, read=2, idle=2, write=2)
NO_RETRY = RetryPolicy(max_retries=0)


def make(url: str) -> Client:
    return Client("anthropic", api_key=SENTINEL, base_url=url, timeouts=FAST, retry=NO_RETRY)


async def test_iterate_then_await_returns_the_streamed_response(serve: Any, transcript: Any) -> None:
    srv = serve([stream_reply("anthropic"), stream_reply("anthropic")])
    async with make(srv.url) as c:
        generation = c.generate(transcript, model="claude-sonnet-4-5")
        events = [e async for e in generation]
        response = await generation
        again = await generation
    assert isinstance(events[-1], StreamDone)
    assert response is events[-1].response and again is response
    assert len(srv.received) == 1  # before the fix: 2


async def test_await_twice_sends_once(serve: Any, transcript: Any) -> None:
    body = (REAL / RESPONSES["anthropic"]).read_bytes()
    srv = serve([Reply(200, headers={"content-type": "application/json"}, chunks=[body])] * 2)
    async with make(srv.url) as c:
        generation = c.generate(transcript, model="claude-sonnet-4-5", stream=False)
        first = await generation
        second = await generation
        replayed = [e async for e in generation]
    assert second is first and isinstance(replayed[-1], StreamDone) and replayed[-1].response is first
    assert len(srv.received) == 1


async def test_iterate_twice_replays_the_same_events(serve: Any, transcript: Any) -> None:
    srv = serve([stream_reply("anthropic"), stream_reply("anthropic")])
    async with make(srv.url) as c:
        generation = c.generate(transcript, model="claude-sonnet-4-5")
        first = [e async for e in generation]
        second = [e async for e in generation]
    assert [repr(e) for e in first] == [repr(e) for e in second]
    assert len(srv.received) == 1


async def test_a_failed_call_raises_the_same_error_again_without_resending(serve: Any, transcript: Any) -> None:
    error = b'{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}'
    srv = serve([Reply(400, headers={"content-type": "application/json"}, chunks=[error])] * 2)
    async with make(srv.url) as c:
        generation = c.generate(transcript, model="claude-sonnet-4-5")
        events = [e async for e in generation]
        with pytest.raises(TransportError) as first:
            await generation
        with pytest.raises(TransportError) as second:
            await generation
    assert isinstance(events[-1], StreamError) and first.value.code == second.value.code == "invalid_request"
    assert len(srv.received) == 1


async def test_an_abandoned_iteration_is_not_sent_again(serve: Any, transcript: Any) -> None:
    srv = serve([stream_reply("anthropic"), stream_reply("anthropic")])
    async with make(srv.url) as c:
        generation = c.generate(transcript, model="claude-sonnet-4-5")
        async for _ in generation:
            break
        with pytest.raises(RuntimeError, match="not sent again"):
            await generation
    assert len(srv.received) == 1


async def test_awaiting_inside_its_own_iteration_is_refused(serve: Any, transcript: Any) -> None:
    srv = serve([stream_reply("anthropic"), stream_reply("anthropic")])
    async with make(srv.url) as c:
        generation = c.generate(transcript, model="claude-sonnet-4-5")
        async for _ in generation:
            with pytest.raises(RuntimeError, match="not sent again"):
                await generation
            break
    assert len(srv.received) == 1
