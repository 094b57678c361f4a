"""Rate limits per client instance, retry timing from the most trusted source, against a local server.

Every header kind a provider sends on a 429 (and the reset time in an error body) is served by a
scripted server on 127.0.0.1; the limiter's clock and sleep are fake, so the waits are read, never
waited for.
"""

from __future__ import annotations

from email.utils import format_datetime
from datetime import datetime, timezone
from typing import Any

import pytest

from interlingua.errors import TransportError
from interlingua.streaming import StreamDone, StreamError
from interlingua.transport import Client, RateLimiter, RetryPolicy, Timeouts

from ._server import Reply
from .conftest import SENTINEL, stream_reply

FAST = Timeouts(connect=2, read=2, idle=2, write=2)
WALL0 = 1_780_000_000.0


class FakeTime:
    """A monotonic clock, a wall clock and a sleep that only moves them (and records each wait)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def wall(self) -> float:
        return WALL0 + self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds

    def limiter(self, rpm: int = 0) -> RateLimiter:
        return RateLimiter(rpm, clock=self.clock, wall=self.wall, sleep=self.sleep)


def iso(seconds_from_now: float, fake: FakeTime) -> str:
    return datetime.fromtimestamp(fake.wall() + seconds_from_now, timezone.utc).isoformat().replace("+00:00", "Z")


def http_date(seconds_from_now: float, fake: FakeTime) -> str:
    return format_datetime(datetime.fromtimestamp(fake.wall() + seconds_from_now, timezone.utc), usegmt=True)


def json_reply(status: int, body: bytes, **headers: str) -> Reply:
    return Reply(status, headers={"content-type": "application/json", **{k.replace("_", "-"): v for k, v in headers.items()}}, chunks=[body])


OPENAI_429 = b'{"error":{"message":"Rate limit reached for gpt-4o on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}'
ANTHROPIC_429 = b'{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}'


async def call(provider: str, url: str, transcript: Any, fake: FakeTime, *, limiter: RateLimiter | None = None, retry: RetryPolicy = RetryPolicy(), model: str = "m") -> list[Any]:
    async with Client(provider, api_key=SENTINEL, base_url=url, timeouts=FAST, retry=retry, limiter=limiter or fake.limiter()) as c:
        return [e async for e in c.generate(transcript, model=model)]


def header_cases(fake: FakeTime) -> list[tuple[str, str, dict[str, str], bytes, float]]:
    return [
        ("retry-after-ms", "openai-chat", {"retry-after-ms": "1500", "retry-after": "9"}, OPENAI_429, 1.5),
        ("Retry-After seconds", "openai-chat", {"retry-after": "3"}, OPENAI_429, 3.0),
        ("Retry-After HTTP date", "anthropic", {"retry-after": http_date(7, fake)}, ANTHROPIC_429, 7.0),
        (
            "OpenAI reset with remaining zero",
            "openai-chat",
            {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1s", "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "20ms"},
            OPENAI_429,
            1.0,
        ),
        ("OpenAI reset 20ms", "openai-responses", {"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "20ms"}, OPENAI_429, 0.02),
        (
            "Anthropic reset RFC 3339",
            "anthropic",
            {"anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": iso(4, fake), "anthropic-ratelimit-tokens-remaining": "100"},
            ANTHROPIC_429,
            4.0,
        ),
        (
            "OpenAI reset in the error body",
            "openai-chat",
            {},
            b'{"error":{"message":"Rate limit reached for gpt-4 in organization org-x on tokens per min (TPM): Limit 10000, Used 9000, Requested 2000. Please try again in 6.5s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}',
            6.5,
        ),
        (
            "Gemini RetryInfo in the error body",
            "gemini",
            {},
            b'{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}]}}',
            2.0,
        ),
    ]


@pytest.mark.parametrize("index", range(8), ids=[c[0] for c in header_cases(FakeTime())])
async def test_the_wait_comes_from_the_most_trusted_source(index: int, serve: Any, transcript: Any) -> None:
    fake = FakeTime()
    _, provider, headers, body, expected = header_cases(fake)[index]
    srv = serve([json_reply(429, body, **headers), stream_reply(provider)])
    events = await call(provider, srv.url, transcript, fake)
    assert isinstance(events[-1], StreamDone)
    assert fake.sleeps == [pytest.approx(expected)] and len(srv.received) == 2


async def test_a_reset_header_with_remaining_left_is_not_trusted(serve: Any, transcript: Any) -> None:
    fake = FakeTime()
    srv = serve([json_reply(429, OPENAI_429, x_ratelimit_remaining_requests="5", x_ratelimit_reset_requests="30s"), stream_reply("openai-chat")])
    events = await call("openai-chat", srv.url, transcript, fake)
    assert isinstance(events[-1], StreamDone)
    (wait,) = fake.sleeps
    assert 0.25 <= wait <= 0.5  # the backoff step (base 0.5, jitter 0.5-1), not the 30 s reset


async def test_a_5xx_is_a_rate_limit_only_when_its_headers_say_so(serve: Any, transcript: Any) -> None:
    fake = FakeTime()
    limiter = fake.limiter()
    srv = serve([json_reply(503, b'{"error":{"message":"busy","type":"server_error"}}', x_ratelimit_remaining_requests="0", x_ratelimit_reset_requests="2s")])
    events = await call("openai-chat", srv.url, transcript, fake, limiter=limiter, retry=RetryPolicy(max_retries=0))
    assert isinstance(events[-1], StreamError) and events[-1].error.code == "rate_limit"
    assert limiter.cooling_for() == pytest.approx(2.0)

    fake2 = FakeTime()
    limiter2 = fake2.limiter()
    srv2 = serve([json_reply(500, b'{"error":{"message":"oops","type":"server_error"}}', retry_after="2")])
    events = await call("openai-chat", srv2.url, transcript, fake2, limiter=limiter2, retry=RetryPolicy(max_retries=0))
    assert events[-1].error.code == "server" and limiter2.cooling_for() == 0  # a plain 5xx cools nothing down


async def test_a_5xx_is_a_rate_limit_when_its_body_says_so(serve: Any, transcript: Any) -> None:
    fake = FakeTime()
    body = b'{"error":{"code":503,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3s"}]}}'
    srv = serve([json_reply(503, body), stream_reply("gemini")])
    events = await call("gemini", srv.url, transcript, fake, model="gemini-2.5-flash")
    assert isinstance(events[-1], StreamDone) and fake.sleeps == [3.0]


async def test_a_quota_error_without_a_trusted_reset_is_not_retried(serve: Any, transcript: Any) -> None:
    fake = FakeTime()
    body = b'{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}'
    srv = serve([json_reply(429, body), stream_reply("openai-chat")])
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv.url, limiter=fake.limiter()) as c:
        with pytest.raises(TransportError) as err:
            await c.generate(transcript, model="gpt-4o")
    assert err.value.code == "rate_limit" and err.value.retryable is False and err.value.details["quota"] == "true"
    assert len(srv.received) == 1 and fake.sleeps == []


async def test_a_quota_error_with_a_trusted_reset_is_retried(serve: Any, transcript: Any) -> None:
    fake = FakeTime()
    body = b'{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"5s"}]}}'
    srv = serve([json_reply(429, body), stream_reply("gemini")])
    events = await call("gemini", srv.url, transcript, fake, model="gemini-2.5-flash")
    assert isinstance(events[-1], StreamDone) and fake.sleeps == [5.0]

    no_reset = body.replace(b',{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"5s"}', b"")
    srv2 = serve([json_reply(429, no_reset), stream_reply("gemini")])
    events = await call("gemini", srv2.url, transcript, FakeTime(), model="gemini-2.5-flash")
    assert events[-1].error.code == "rate_limit" and events[-1].error.retryable is False and len(srv2.received) == 1


async def test_a_429_cools_down_every_call_through_the_instance_and_its_sharers(serve: Any, transcript: Any) -> None:
    fake = FakeTime()
    shared = fake.limiter()
    srv = serve([json_reply(429, OPENAI_429, retry_after="5"), stream_reply("openai-chat"), stream_reply("openai-chat")])
    once = RetryPolicy(max_retries=0)
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv.url, retry=once, limiter=shared) as a, Client(
        "openai-chat", api_key=SENTINEL, base_url=srv.url, retry=once, limiter=shared
    ) as b:
        first = [e async for e in a.generate(transcript, model="gpt-4o")]
        assert first[-1].error.code == "rate_limit" and fake.sleeps == []
        second = [e async for e in b.generate(transcript, model="gpt-4o")]  # another client, the same limiter
        assert isinstance(second[-1], StreamDone) and fake.sleeps == [5.0]
        third = [e async for e in a.generate(transcript, model="gpt-4o")]
        assert isinstance(third[-1], StreamDone) and fake.sleeps == [5.0]  # the cool-down is over

    other = FakeTime()
    srv2 = serve([json_reply(429, OPENAI_429, retry_after="5"), stream_reply("openai-chat")])
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv2.url, retry=once, limiter=fake.limiter()) as c, Client(
        "openai-chat", api_key=SENTINEL, base_url=srv2.url, retry=once, limiter=other.limiter()
    ) as d:
        [e async for e in c.generate(transcript, model="gpt-4o")]
        assert isinstance([e async for e in d.generate(transcript, model="gpt-4o")][-1], StreamDone)
    assert other.sleeps == []  # a client with its own limiter is not slowed by another's 429


async def test_a_cool_down_longer_than_max_wait_refuses_without_sending(serve: Any, transcript: Any) -> None:
    fake = FakeTime()
    limiter = fake.limiter()
    srv = serve([json_reply(429, OPENAI_429, retry_after="3600"), stream_reply("openai-chat")])
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv.url, limiter=limiter) as c:
        first = [e async for e in c.generate(transcript, model="gpt-4o")]
        second = [e async for e in c.generate(transcript, model="gpt-4o")]
    assert first[-1].error.code == second[-1].error.code == "rate_limit"
    assert "3600 s" in second[-1].error.message and len(srv.received) == 1 and fake.sleeps == []


async def test_requests_per_minute_spaces_the_requests(serve: Any, transcript: Any) -> None:
    fake = FakeTime()
    srv = serve([stream_reply("openai-chat") for _ in range(3)])
    limiter = fake.limiter(rpm=2)
    async with Client("openai-chat", api_key=SENTINEL, base_url=srv.url, limiter=limiter) as c:
        for _ in range(3):
            events = [e async for e in c.generate(transcript, model="gpt-4o")]
            assert isinstance(events[-1], StreamDone)
    assert fake.sleeps == [60.0] and len(srv.received) == 3


def test_requests_per_minute_zero_means_none_and_bad_values_are_refused() -> None:
    assert RateLimiter(0).wait_time() == 0
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="requests_per_minute"):
            RateLimiter(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="shared RateLimiter"):
        Client("openai-chat", api_key=SENTINEL, requests_per_minute=5, limiter=RateLimiter())
    assert Client("openai-chat", api_key=SENTINEL, requests_per_minute=5).limiter.requests_per_minute == 5
