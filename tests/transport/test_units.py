"""Error normalization, retry timing and redaction, without a server."""

from __future__ import annotations

import inspect
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone

import httpx
import pytest

import interlingua.transport as transport
from interlingua.errors import TransportError
from interlingua.transport import PROVIDERS, REDACTED, RetryPolicy, redact
from interlingua.transport._errors import from_response, status_code, translate
from interlingua.transport._retry import header_delay, retry_delay
from interlingua.transport._spec import parse_duration

from .conftest import SENTINEL


def _httpx_errors() -> list[type[BaseException]]:
    out = []
    for obj in vars(httpx).values():
        if inspect.isclass(obj) and issubclass(obj, (httpx.HTTPError, httpx.StreamError)) and obj is not httpx.HTTPStatusError:
            out.append(obj)
    return out


@pytest.mark.parametrize("exc_type", _httpx_errors(), ids=lambda t: t.__name__)
def test_every_httpx_error_is_translated(exc_type: type[BaseException]) -> None:
    request = httpx.Request("POST", "http://127.0.0.1/x", headers={"x-api-key": SENTINEL})
    try:
        exc = exc_type("boom", request=request)  # type: ignore[call-arg]
    except TypeError:
        try:
            exc = exc_type("boom")  # type: ignore[call-arg]
        except TypeError:
            exc = exc_type()  # StreamError subclasses take no message
    with pytest.raises(TransportError) as info, translate("anthropic", idle=0.5):
        raise exc
    err = info.value
    assert err.__cause__ is exc
    assert err.code in {"timeout", "network", "invalid_request"}
    assert err.retryable == (err.code != "invalid_request")
    assert "boom" not in err.message and SENTINEL not in str(err)


def test_broken_read_after_first_event_is_truncated() -> None:
    with pytest.raises(TransportError) as info, translate("gemini", reading=True, started=True):
        raise httpx.RemoteProtocolError("peer closed")
    assert info.value.code == "truncated"
    with pytest.raises(TransportError) as info, translate("gemini", reading=True, started=False):
        raise httpx.ReadError("reset")
    assert info.value.code == "network"


@pytest.mark.parametrize(
    ("status", "code"),
    [(400, "invalid_request"), (401, "auth"), (403, "auth"), (404, "not_found"), (422, "invalid_request"), (429, "rate_limit"), (500, "server"), (503, "server"), (529, "overloaded"), (418, "provider_error")],
)
def test_status_codes(status: int, code: str) -> None:
    assert status_code(status) == code
    err = from_response(PROVIDERS["ollama"], status, b"<html>not json</html>")
    assert err.code == code and "html" not in err.message


def test_error_message_is_redacted_and_short() -> None:
    body = b'{"error": {"type": "' + SENTINEL.encode() + b'", "message": "leak ' + SENTINEL.encode() + b'"}}'
    err = from_response(PROVIDERS["anthropic"], 400, body, secrets=[SENTINEL])
    assert SENTINEL not in str(err) and "leak" not in str(err)


def test_retry_delay_order() -> None:
    policy = RetryPolicy()
    anthropic = PROVIDERS["anthropic"]
    assert retry_delay({"retry-after-ms": "250", "retry-after": "9"}, 0, policy, anthropic) == 0.25
    assert retry_delay({"retry-after": "3"}, 0, policy, anthropic) == 3.0
    when = datetime.now(timezone.utc) + timedelta(seconds=20)
    assert 15 < retry_delay({"retry-after": format_datetime(when, usegmt=True)}, 0, policy, anthropic) <= 20  # type: ignore[operator]
    reset = (datetime.now(timezone.utc) + timedelta(seconds=10)).isoformat().replace("+00:00", "Z")
    assert 5 < retry_delay({"anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": reset}, 0, policy, anthropic) <= 10  # type: ignore[operator]
    # a reset header without zero remaining is not a reason to wait: backoff instead
    assert retry_delay({"anthropic-ratelimit-requests-remaining": "5", "anthropic-ratelimit-requests-reset": reset}, 0, policy, anthropic, rng=lambda: 0.0) == 0.25
    openai = PROVIDERS["openai-chat"]
    assert retry_delay({"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "1m2.5s"}, 0, policy, openai) is None  # > max_wait
    assert header_delay({"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "1m2.5s"}, openai) == 62.5
    assert header_delay({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "20ms"}, openai) == 0.02


def test_backoff_is_capped_with_jitter_and_limited() -> None:
    policy = RetryPolicy(max_retries=5, base=1, cap=4)
    assert [retry_delay({}, n, policy, rng=lambda: 0.999999) for n in range(5)] == pytest.approx([1, 2, 4, 4, 4], rel=1e-3)
    assert [retry_delay({}, n, policy, rng=lambda: 0.0) for n in range(3)] == [0.5, 1, 2]
    assert retry_delay({}, 2, RetryPolicy()) is None  # two retries at most by default
    assert retry_delay({"retry-after": "3600"}, 0, RetryPolicy()) is None  # longer than max_wait: give up


def test_parse_duration() -> None:
    assert parse_duration("6m0s") == 360 and parse_duration("1.5") == 1.5 and parse_duration("soon") is None


def test_redact_headers_urls_and_text() -> None:
    headers = {"Authorization": f"Bearer {SENTINEL}", "x-goog-api-key": SENTINEL, "x-api-key": SENTINEL, "x-trace": f"id {SENTINEL}", "accept": "*/*"}
    out = redact(headers, [SENTINEL], kind="headers")
    assert out == {"Authorization": REDACTED, "x-goog-api-key": REDACTED, "x-api-key": REDACTED, "x-trace": f"id {REDACTED}", "accept": "*/*"}
    assert headers["x-api-key"] == SENTINEL  # input untouched
    url = redact(f"https://u:{SENTINEL}@h.example/v1/m:gen?alt=sse&key={SENTINEL}", kind="url")
    assert SENTINEL not in url and "alt=sse" in url and "key=REDACTED" in url
    assert redact({"a": [f"x{SENTINEL}"]}, [SENTINEL]) == {"a": [f"x{REDACTED}"]}
    # a very short "key" (tests, local servers) must not blank ordinary text; headers still go by name
    assert redact("transfer-encoding: chunked", ["k"]) == "transfer-encoding: chunked"
    assert redact({"x-api-key": "k"}, ["k"], kind="headers") == {"x-api-key": REDACTED}


def test_public_surface() -> None:
    assert sorted(transport.__all__) == sorted(
        ["BedrockClient", "FIXTURE_VERSION", "FallbackAttempt", "FallbackClient", "FallbackGeneration", "PROVIDERS", "REDACTED", "RETRYABLE", "Client", "ConfigProblem", "Generation", "ModelInfo", "ProviderSpec", "RateLimiter", "RecordingTransport", "ReplayTransport", "RetryPolicy", "Signer", "Timeouts", "TransportError", "check_config", "http2_available", "load_fixture", "provider_spec", "redact"]
    )
    assert transport.Client.__module__ == "interlingua.transport"
    assert set(PROVIDERS) == {"openai-chat", "openai-responses", "anthropic", "gemini", "ollama", "bedrock-converse", "mistral", "cohere"}


def test_client_has_no_provider_branching() -> None:
    from pathlib import Path

    source = (Path(transport.__file__).parent / "_client.py").read_text()
    body = source.split('__all__', 1)[1]
    body = body.split("PROVIDERS: dict", 1)[1].split("\n", 2)[2]
    for name in ("anthropic", "gemini", "ollama", "openai"):
        assert f'"{name}' not in body and f"'{name}" not in body
