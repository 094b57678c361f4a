"""One provider connection: key, signer, headers, limiter, retries and deadline, and the send loops.

A :class:`Connection` is what a :class:`~interlingua.transport.Client` sends through: ``generate``'s
requests (:meth:`Connection.complete`, :meth:`Connection.stream`) and the JSON calls of ``_calls``
(list models, count tokens) share its limiter, retry rule, deadline and error normalization. It knows
nothing of the client that owns it, so the modules using it import no client.

The retry rule (docs/replay.md, ADR 0006): at most 1 + max_retries requests per call, every cause
counted together; only while nothing was handed to the caller; never after a stall (read/idle
timeout) or past the deadline; a request whose 2xx response had begun is re-sent at most
max_stream_restarts times.
"""

from __future__ import annotations

import dataclasses
import logging
import random
from collections.abc import AsyncGenerator, Mapping
from typing import Any

import httpx
import msgspec

from ..errors import MappingError, TransportError
from ..mapping import Mapper, ModelResponse, Report
from ..streaming import StreamDone, StreamError, StreamEvent, UsageUpdate, aiter_stream, collect
from ..streaming.framing import aiter_frames, idle_bounded
from ._errors import IdleTimeout, error_item, from_response, sendable, transport_error, translate
from ._generation import Prepared
from ._limits import RateLimiter
from ._redact import redact, scrub_exception, secret_forms
from ._retry import RetryPolicy, header_delay
from ._spec import ProviderSpec, Signer
from ._timeouts import Clock, Timeouts, is_stall

__all__ = ["MAX_ERROR_BODY", "Connection", "Secret", "media_type", "read_limited", "where"]

logger = logging.getLogger("interlingua.transport")

MAX_ERROR_BODY = 64 * 1024
"""Bytes of an error answer read (the rest is not needed to say what went wrong)."""

_STREAM_MEDIA = frozenset({"text/event-stream", "application/x-ndjson", "application/ndjson", "application/jsonl", "application/vnd.amazon.eventstream"})
"""Media types a streamed answer comes as (SSE; Ollama's NDJSON; Bedrock's AWS event-stream)."""


class Secret:
    """A value whose repr never shows it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def __repr__(self) -> str:
        return "<redacted>"

    __str__ = __repr__

    def reveal(self) -> str:
        """The value itself (for the one header that carries it)."""
        return self._value


@dataclasses.dataclass(eq=False, repr=False)
class Connection:
    """The sending half of a client (built by :class:`~interlingua.transport.Client`, never by users).

    Attributes:
        spec: The provider's HTTP rules.
        mapper: Decodes the provider's responses and stream events.
        key: The API key (``None``: none, or a signer signs instead).
        signer: Signs each request (Bedrock SigV4), else ``None``.
        options: The provider's transport options (``max_tokens``, ``region``, ...).
        base_url: API root, without a trailing slash.
        timeouts: Connect, read, idle, write timeouts and the deadline, in seconds.
        retry: The retry settings.
        limiter: The rate limiter (shared with other clients or not).
        headers: Extra headers of every request.
        http: The pooled ``httpx.AsyncClient``.
    """

    spec: ProviderSpec
    mapper: Mapper
    key: Secret | None
    signer: Signer | None
    options: dict[str, Any]
    base_url: str
    timeouts: Timeouts
    retry: RetryPolicy
    limiter: RateLimiter
    headers: dict[str, str]
    http: httpx.AsyncClient

    @property
    def provider(self) -> str:
        """The provider's mapper registry name."""
        return self.spec.name

    def secrets(self) -> tuple[str, ...]:
        """Every secret value to keep out of logs, errors and reports (the key, the signer's)."""
        return ((self.key.reveal(),) if self.key else ()) + (tuple(self.signer.secrets) if self.signer is not None else ())

    def log(self, message: str, *args: object) -> None:
        """A debug record on ``interlingua.transport``, redacted of the secrets."""
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(redact(message % args, self.secrets()))

    def error_body(self, response: httpx.Response, body: bytes) -> bytes:
        """The JSON error body of an error answer (a provider may wrap it, e.g. in an event-stream frame)."""
        return self.spec.error_body(response.headers, body) if self.spec.error_body is not None else body

    def authorize(self, method: str, url: str, headers: dict[str, str], body: bytes) -> dict[str, str]:
        """``headers`` with the request's credentials: signed by the signer, else the key's auth headers."""
        if self.signer is not None:
            return self.signer.sign(method, url, headers, body)
        if self.key is not None:
            headers.update(self.spec.auth_headers(self.key.reveal()))
        return headers

    def request(self, prepared: Prepared) -> httpx.Request:
        """The POST request of a prepared ``generate`` call."""
        headers = {"content-type": "application/json", **self.headers}
        if self.spec.accept is not None:
            headers.setdefault("accept", self.spec.accept(prepared.stream))
        headers = self.authorize("POST", prepared.url, headers, prepared.body)
        return sendable(self.http.build_request("POST", prepared.url, content=prepared.body, headers=headers, timeout=self.timeouts.for_request(prepared.stream)), self.provider)

    def clean(self, event: StreamEvent) -> StreamEvent:
        """A terminal event with its error message and report redacted of the key."""
        secrets = self.secrets()
        if not secrets or not isinstance(event, (StreamDone, StreamError)):
            return event
        forms = secret_forms(secrets)
        for entry in event.report.entries:
            if any(f in str(entry) for f in forms):
                event.report.entries = [
                    dataclasses.replace(e, reason=redact(e.reason, secrets), pointer=None if e.pointer is None else redact(e.pointer, secrets))
                    for e in event.report.entries
                ]
                break
        if isinstance(event, StreamError) and any(f in event.error.message for f in forms):
            event = dataclasses.replace(event, error=msgspec.structs.replace(event.error, message=redact(event.error.message, secrets)))
        return event

    async def backoff(self, err: TransportError, headers: Mapping[str, str], attempt: int, clock: Clock) -> bool:
        """Cool the limiter down after a rate limit; wait before a retry. ``False``: no retry is due.

        The wait comes from the most trusted source first: ``retry-after-ms``, ``Retry-After``, the
        provider's reset headers when a remaining count is zero, a reset time in the error body
        (``details["retry_after"]``); otherwise capped exponential backoff with jitter. A quota error
        without such a time is not retried (``err.retryable`` is false).
        """
        trusted = header_delay(headers, self.spec, now=self.limiter.wall()) if headers else None
        if trusted is None and "retry_after" in err.details:
            trusted = float(err.details["retry_after"])
        if err.code == "rate_limit" and err.retryable:
            self.limiter.cool_down(trusted if trusted is not None else _backoff_step(attempt, self.retry))
        if not err.retryable or is_stall(err) or attempt >= self.retry.max_retries:
            return False
        delay = trusted if trusted is not None else _backoff_step(attempt, self.retry)
        if delay > self.retry.max_wait:
            self.log("%s: %s, no retry: the server asks for %.2f s, more than max_wait", self.provider, err.code, delay)
            return False
        left = clock.left()
        if left is not None and delay >= left:
            self.log("%s: %s, no retry: the wait of %.2f s would pass the deadline", self.provider, err.code, delay)
            return False
        self.log("%s: %s, retry %d in %.2f s", self.provider, err.code, attempt + 1, delay)
        if err.code != "rate_limit":
            await self.limiter.sleep(delay)  # a rate limit's wait is the cool-down, waited in acquire
        return True

    async def acquire(self, clock: Clock) -> None:
        """Wait for the limiter (cool-down, requests per minute) before a request.

        Raises:
            TransportError: ``rate_limit`` when the cool-down left is longer than ``RetryPolicy.max_wait``
                (nothing is sent; the provider asked for a long wait); ``timeout`` past the deadline.
        """
        cooling = self.limiter.cooling_for()
        if cooling > self.retry.max_wait:
            raise transport_error(
                "rate_limit", f"rate limited: the provider asked to wait {cooling:.0f} s more, longer than RetryPolicy.max_wait ({self.retry.max_wait:g} s); nothing was sent", provider=self.provider
            )
        if self.limiter.wait_time() > 0 or self.limiter.requests_per_minute:
            await clock.run(self.limiter.acquire(), self.provider)

    def decode_whole(self, content: bytes, headers: Mapping[str, str], status: int, secrets: tuple[str, ...], *, streamed: bool = False) -> ModelResponse:
        """``content`` decoded as one whole response of the mapper's format.

        Raises:
            TransportError: ``provider_error`` (never retried): it is not one; the message says when
                it is a stream instead (non-stream call) or what content type came (stream call).
        """
        try:
            body = msgspec.json.decode(content)
            return self.mapper.decode_response(body).value
        except (msgspec.DecodeError, MappingError, KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
            scrub_exception(exc, secrets)  # a decoder's message may quote the body
            what = "the response body is not a valid response of this format"
            if streamed:
                what = (
                    f"the 2xx answer to a stream request is {media_type(headers)}, not a stream, and it is neither a stream "
                    "nor a whole response of this format"
                )
            elif "event-stream" in headers.get("content-type", "") or content.lstrip().startswith((b"data:", b"event:")):
                what += " (it is a stream, text/event-stream: the server, or the recorded exchange, streamed; call with stream=True, or drop --no-stream)"
            elif "ndjson" in headers.get("content-type", ""):
                what += " (it is a stream, application/x-ndjson: call with stream=True, or drop --no-stream)"
            raise transport_error("provider_error", what, provider=self.provider, status=status) from exc

    def not_a_stream(self, content: bytes, headers: Mapping[str, str], status: int, secrets: tuple[str, ...]) -> list[StreamEvent]:
        """The events of a stream request's 2xx answer whose content type is not a stream's.

        A whole response gives one ``StreamDone`` whose report says the answer was not streamed; a
        complete stream under another label (SSE sent as ``application/json``) gives its events.

        Raises:
            TransportError: ``provider_error`` (never retried): neither.
        """
        media = media_type(headers)
        try:
            response = self.decode_whole(content, headers, status, secrets, streamed=True)
        except TransportError:
            if self.spec.frames is None:  # a text framing (SSE, NDJSON) can be read from the bytes
                events = collect(self.mapper, content)
                if events and isinstance(events[-1], StreamDone):
                    events[-1].report.add("changed", f"the stream came as content type {media}, not a stream's; it was read as a stream")
                    return events
            raise
        report = Report()
        report.add("changed", f"the stream request was answered with one whole response (content type {media}, not a stream); it was decoded as a whole response")
        return [StreamDone(response, report)]

    async def complete(self, prepared: Prepared) -> ModelResponse:
        """Send ``prepared`` (a non-stream request) under the retry rule and decode the whole answer.

        Raises:
            TransportError: the call failed (a ``network``/``timeout`` error names the host and attempts).
        """
        clock = Clock(self.timeouts.deadline)
        secrets = self.secrets()
        attempt = restarts = 0
        while True:
            headers: Mapping[str, str] = {}
            began = False
            try:
                await self.acquire(clock)
                self.log("POST %s (attempt %d)", redact(prepared.url, secrets, kind="url"), attempt + 1)
                with translate(self.provider, secrets=secrets):
                    response = await clock.run(self.http.send(self.request(prepared), stream=True), self.provider)
                try:
                    headers = response.headers
                    self.log("%s: HTTP %d", self.provider, response.status_code)
                    if response.status_code >= 300:
                        with translate(self.provider, secrets=secrets):
                            body = await clock.run(read_limited(response), self.provider)
                        raise from_response(self.spec, response.status_code, self.error_body(response, body), secrets=secrets, headers=headers, now=self.limiter.wall())
                    began = True
                    with translate(self.provider, reading=True, started=True, secrets=secrets):
                        content = await clock.run(response.aread(), self.provider)
                finally:
                    await response.aclose()
                return self.decode_whole(content, headers, response.status_code, secrets)
            except TransportError as err:
                if began and restarts >= self.retry.max_stream_restarts:
                    raise
                if await self.backoff(err, headers, attempt, clock):
                    attempt += 1
                    restarts += began
                    continue
                raise where(err, prepared.url, attempt + 1) from err.__cause__

    async def stream(self, prepared: Prepared) -> AsyncGenerator[StreamEvent, None]:
        """Send ``prepared`` (a stream request) under the retry rule; yield its events, the last a
        ``StreamDone`` or ``StreamError`` (a failure is a ``StreamError``; ``prepared.failure`` keeps the error)."""
        clock = Clock(self.timeouts.deadline)
        secrets = self.secrets()
        idle = self.timeouts.idle
        attempt = restarts = 0
        while True:
            headers: Mapping[str, str] = {}
            began = False  # the 2xx response of this attempt arrived
            delivered = False  # an event of this attempt was handed to the caller
            held: list[StreamEvent] = []  # events without content, kept until content comes
            try:
                await self.acquire(clock)
                self.log("POST %s stream (attempt %d)", redact(prepared.url, secrets, kind="url"), attempt + 1)
                with translate(self.provider, idle=idle, secrets=secrets):
                    response = await clock.run(self.http.send(self.request(prepared), stream=True), self.provider)
                try:
                    headers = response.headers
                    self.log("%s: HTTP %d", self.provider, response.status_code)
                    if response.status_code >= 300:
                        with translate(self.provider, idle=idle, secrets=secrets):
                            body = await clock.run(read_limited(response), self.provider)
                        raise from_response(self.spec, response.status_code, self.error_body(response, body), secrets=secrets, headers=headers, now=self.limiter.wall())
                    began = True
                    media = media_type(headers)
                    if media and media not in _STREAM_MEDIA:
                        # A 2xx answer that is not a stream (a server that ignores the stream flag):
                        # read as a whole response, or a stream under the wrong label; else provider_error,
                        # never retried (docs/replay.md).
                        with translate(self.provider, reading=True, started=True, idle=idle, secrets=secrets):
                            content = await clock.run(response.aread(), self.provider)
                        for event in self.not_a_stream(content, headers, response.status_code, secrets):
                            delivered = True
                            yield self.clean(event)
                        return
                    framed = self.spec.frames(response) if self.spec.frames is not None else aiter_frames(self.mapper.framing, response)
                    frames = idle_bounded(framed, idle, IdleTimeout)
                    events: AsyncGenerator[StreamEvent, None] = aiter_stream(self.mapper, response, frames)  # type: ignore[assignment]
                    try:
                        while True:
                            with translate(self.provider, reading=True, started=True, idle=idle, secrets=secrets):
                                try:
                                    event = await clock.run(events.__anext__(), self.provider)
                                except StopAsyncIteration:
                                    return
                            event = self.clean(event)
                            if not delivered:
                                if isinstance(event, UsageUpdate):
                                    held.append(event)
                                    continue
                                if isinstance(event, StreamError) and event.error.code == "truncated":
                                    # Ended cleanly but early, before any content: a cut like any other.
                                    raise transport_error("truncated", event.error.message, provider=self.provider)
                                for kept in held:
                                    yield kept
                                held = []
                                delivered = True
                            yield event
                            if isinstance(event, (StreamDone, StreamError)):
                                return
                    finally:
                        await events.aclose()
                finally:
                    await response.aclose()
            except TransportError as err:
                retry = not delivered and not (began and restarts >= self.retry.max_stream_restarts)
                if retry and await self.backoff(err, headers, attempt, clock):
                    attempt += 1
                    restarts += began
                    continue
                self.log("%s: %s", self.provider, err)
                for kept in held:
                    yield kept
                prepared.failure = where(err, prepared.url, attempt + 1)
                yield StreamError(error_item(prepared.failure), partial=ModelResponse())
                return


def media_type(headers: Mapping[str, str]) -> str:
    """The response's media type, lower case, without parameters (``""`` when there is none)."""
    return headers.get("content-type", "").split(";", 1)[0].strip().lower()


def _backoff_step(attempt: int, policy: RetryPolicy) -> float:
    """Capped exponential backoff with jitter: ``min(cap, base * 2**attempt)`` times 0.5 to 1."""
    step = min(policy.cap, policy.base * (2**attempt))
    return step * (0.5 + 0.5 * random.random())


def where(err: TransportError, url: str, attempts: int) -> TransportError:
    """A ``network`` or ``timeout`` ``err`` with the host it was sent to and, after retries, how many
    requests were made (``connection failed (ConnectError) [127.0.0.1:8080, 3 attempts]``); no path or
    query. Other errors already say what answered (``anthropic returned HTTP 401``) and stay as they are."""
    if err.code not in ("network", "timeout"):
        return err
    try:
        parsed = httpx.URL(url)
        host = parsed.host + (f":{parsed.port}" if parsed.port else "")
    except (httpx.InvalidURL, TypeError, ValueError):
        host = ""
    parts = [p for p in (host, f"{attempts} attempts" if attempts > 1 else "") if p]
    if not parts:
        return err
    return dataclasses.replace(err, message=f"{err.message} [{', '.join(parts)}]")


async def read_limited(response: httpx.Response) -> bytes:
    """The first :data:`MAX_ERROR_BODY` bytes of an (error) answer's body."""
    out = b""
    async for chunk in response.aiter_bytes():
        out += chunk
        if len(out) >= MAX_ERROR_BODY:
            break
    return out[:MAX_ERROR_BODY]
