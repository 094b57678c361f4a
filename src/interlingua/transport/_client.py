"""The generic async client: one class for every wire format.

Provider rules (paths, auth headers, body settings, error bodies, reset headers)
come from a :class:`~interlingua.transport._spec.ProviderSpec`; this module has no
provider branching.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
import msgspec

from .._built import checked_transcript
from ..capabilities import Resolver, deprecation_warning, fit, resolve, unknown_model_warning
from ..errors import ConversionError, MappingError, TransportError
from ..items import ErrorItem, ModelCapabilities, Settings, Transcript
from ..mapping import Mapper, ModelResponse, Report, get_mapper
from ..mapping.report import Policy
from ..mapping.settings import merge_settings
from ..streaming import StreamDone, StreamError, StreamEvent, UsageUpdate, aiter_stream, collect
from ..streaming.framing import aiter_frames, idle_bounded
from ._anthropic import anthropic
from ._bedrock import bedrock_converse
from ._cohere import cohere
from ._errors import IdleTimeout, error_item, from_response, transport_error, translate
from ._gemini import gemini
from ._mistral import mistral
from ._ollama import ollama
from ._openai import openai_chat, openai_chat_host, openai_responses
from ._redact import protect_logs, redact, scrub_exception, secret_forms
from ._limits import RateLimiter
from ._retry import RetryPolicy, header_delay
from ._spec import ProviderSpec

if TYPE_CHECKING:
    from ._calls import ConfigProblem
    from ._fallback import FallbackClient
    from ._models import ModelInfo

__all__ = ["PROVIDERS", "Client", "Generation", "Timeouts", "http2_available"]

logger = logging.getLogger("interlingua.transport")

_VARIANTS: dict[str, Callable[[str], ProviderSpec | None]] = {"openai-chat": openai_chat_host}
"""``<provider>:<variant>`` names with HTTP rules of their own (``openai-chat:groq``)."""

PROVIDERS: dict[str, ProviderSpec] = {s.name: s for s in (openai_chat, openai_responses, anthropic, gemini, ollama, bedrock_converse, mistral, cohere)}
"""Built-in provider HTTP rules by mapper registry name."""


def provider_spec(name: str) -> ProviderSpec | None:
    """The HTTP rules for mapper registry name ``name`` (a built-in provider, or a variant such as
    ``openai-chat:groq``: the host's API root and key variable); ``None`` when there are none."""
    if name in PROVIDERS:
        return PROVIDERS[name]
    base, sep, variant = name.partition(":")
    factory = _VARIANTS.get(base) if sep else None
    return factory(variant) if factory is not None else None

_MAX_ERROR_BODY = 64 * 1024


def http2_available() -> bool:
    """Whether the optional ``h2`` package is installed (``pip install interlingua[http2]``)."""
    import importlib.util

    return importlib.util.find_spec("h2") is not None


@dataclass(frozen=True)
class Timeouts:
    """Transport timeouts, all in seconds (caller cancellation works besides these).

    Attributes:
        connect: Establishing the connection (each attempt).
        read: Waiting for a non-stream response (no byte arriving for this long).
        idle: Gap between stream data (also the wait for a stream's response headers);
            a stream silent this long ends with ``timeout`` and is not retried.
        write: Sending the request.
        deadline: Overall bound on the whole call, retries and their waits included
            (``None``: no bound beyond the others). When it passes, the call ends with
            ``timeout``; a retry whose wait would end after it is not made.

    Raises:
        ValueError: a value that is not a positive number.
    """

    connect: float = 30.0
    read: float = 30.0
    idle: float = 60.0
    write: float = 30.0
    deadline: float | None = None

    def __post_init__(self) -> None:
        for name in ("connect", "read", "idle", "write", "deadline"):
            value = getattr(self, name)
            if value is None and name == "deadline":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or value == float("inf"):
                raise ValueError(f"Timeouts.{name} must be a positive number of seconds, got {value!r}")

    def for_request(self, stream: bool) -> httpx.Timeout:
        """The httpx timeout for one request."""
        return httpx.Timeout(connect=self.connect, read=self.idle if stream else self.read, write=self.write, pool=self.connect)


T = TypeVar("T")


class _Clock:
    """The overall deadline of one call (``None``: unbounded)."""

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self._end = None if deadline is None else time.monotonic() + deadline

    def left(self) -> float | None:
        return None if self._end is None else self._end - time.monotonic()

    def expired(self, provider: str) -> TransportError:
        err = transport_error("timeout", f"the call took longer than its deadline of {self.deadline:g} s", provider=provider)
        err.details["timeout"] = "deadline"
        return err

    async def run(self, step: Awaitable[T], provider: str) -> T:
        left = self.left()
        if left is None:
            return await step
        if left <= 0:
            if asyncio.iscoroutine(step):
                step.close()
            raise self.expired(provider)
        try:
            return await asyncio.wait_for(step, left)
        except TimeoutError:
            raise self.expired(provider) from None


def _is_stall(err: TransportError) -> bool:
    """A read timeout: the server went silent after receiving the request."""
    return isinstance(err.__cause__, (httpx.ReadTimeout, httpx.PoolTimeout)) or err.details.get("timeout") == "deadline"


class _Secret:
    """A value whose repr never shows it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def __repr__(self) -> str:
        return "<redacted>"

    __str__ = __repr__

    def reveal(self) -> str:
        return self._value


@dataclass
class _Prepared:
    model: str
    stream: bool
    url: str
    body: bytes
    report: Report
    failure: TransportError | None = None  # the error a stream ended with, raised as it was by an await


class Generation:
    """One model call: ``async for`` yields stream events; ``await`` gives the response.

    Iterating yields canonical stream events ending with exactly one ``StreamDone`` or
    ``StreamError`` (transport failures become a ``StreamError`` too). In non-stream mode
    it yields one terminal event. Awaiting returns the
    :class:`~interlingua.mapping.ModelResponse` (output items, usage, stop reason) or
    raises :class:`~interlingua.errors.TransportError`.

    A generation sends its request once, whatever is done with it: awaiting it after
    iterating it returns the streamed response (or raises the streamed error); awaiting it
    again returns the same response; iterating it again yields the same events again. None
    of these sends anything.

    Attributes:
        report: What the request mapper dropped or changed building the request.

    Raises:
        RuntimeError: awaiting or iterating it while an iteration of it has not reached its terminal
            event (still running, or left by ``break``): the request is not sent a second time.
    """

    def __init__(self, client: Client, prepared: _Prepared) -> None:
        self._client = client
        self._prepared = prepared
        self.report = prepared.report
        self._events: list[StreamEvent] | None = None  # every event of the finished run
        self._running = False
        self._abandoned = False
        self._failure: TransportError | None = None  # a non-stream call's own error, raised again as it was

    def __repr__(self) -> str:
        return f"Generation(provider={self._client.provider!r}, model={self._prepared.model!r}, stream={self._prepared.stream})"

    def _begin(self) -> None:
        if self._running or self._abandoned:
            raise RuntimeError(
                "this generation's request was sent by an iteration that has not reached its terminal event (still running, "
                "or stopped early by break): the request is not sent again; finish that iteration, or call generate() again"
            )
        self._running = True

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        if self._events is not None:
            return _replay(self._events)
        self._begin()
        return self._run()

    async def _run(self) -> AsyncGenerator[StreamEvent, None]:
        seen: list[StreamEvent] = []
        events = self._client._stream(self._prepared) if self._prepared.stream else self._one_event()
        try:
            async for event in events:
                seen.append(event)
                if isinstance(event, (StreamDone, StreamError)):
                    self._events = seen  # before the yield: a caller may stop at the terminal event
                yield event
        finally:
            await events.aclose()  # the response is closed now, not when the generator is collected
            self._running = False
            if self._events is None:
                self._abandoned = True

    async def _one_event(self) -> AsyncGenerator[StreamEvent, None]:
        try:
            response = await self._client._complete(self._prepared)
        except TransportError as err:
            self._failure = err
            yield StreamError(error_item(err), partial=ModelResponse())
            return
        yield StreamDone(response)

    async def response(self) -> ModelResponse:
        """Run the call (unless it ran already) and return the whole response.

        Raises:
            TransportError: the call failed (a stream's error, including ``truncated``).
            RuntimeError: see the class.
        """
        if self._events is None:
            if not self._prepared.stream:
                self._begin()
                try:
                    response = await self._client._complete(self._prepared)
                except TransportError as err:
                    self._events = [StreamError(error_item(err), partial=ModelResponse())]
                    self._failure = err
                    raise
                finally:
                    self._running = False
                self._events = [StreamDone(response)]
                return response
            async for _ in self:
                pass
        assert self._events is not None
        last = self._events[-1]
        if isinstance(last, StreamDone):
            return last.response  # type: ignore[return-value]
        assert isinstance(last, StreamError)
        raise self._failure or self._prepared.failure or _from_item(last.error, self._client.provider)

    def __await__(self) -> Generator[Any, None, ModelResponse]:
        return self.response().__await__()


async def _replay(events: list[StreamEvent]) -> AsyncGenerator[StreamEvent, None]:
    for event in events:
        yield event


def _from_item(item: ErrorItem, provider: str) -> TransportError:
    status = item.status if isinstance(item.status, int) else None
    return TransportError(
        code=str(item.code),
        message=item.message,
        status=status,
        provider=item.provider if isinstance(item.provider, str) else provider,
        retryable=bool(item.retryable) if item.retryable is not msgspec.UNSET else False,
    )


class Client:
    """Async client for one wire format over ``httpx.AsyncClient`` (connections reused).

    Args:
        provider: Mapper registry name (``openai-chat``, ``openai-responses``, ``anthropic``,
            ``gemini``, ``ollama``, ``bedrock-converse``, ``mistral``, ``cohere``) or a :class:`ProviderSpec` for another server.
        api_key: The key; when ``None``, read from the provider's usual environment
            variables (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``GEMINI_API_KEY`` then
            ``GOOGLE_API_KEY``, ``MISTRAL_API_KEY``; Ollama needs none; Bedrock: a Bedrock API key from
            ``AWS_BEARER_TOKEN_BEDROCK``, else SigV4 with the AWS credential chain, needing
            ``pip install interlingua[bedrock]``). Sent only in a header.
        base_url: API root (OpenAI-compatible servers, proxies, local Ollama); the
            provider's public endpoint when ``None``.
        timeouts: Connect, read, idle and write timeouts and the overall deadline, in
            seconds (:class:`Timeouts`).
        retry: Retry settings (at most 2 retries per call by default, only before anything
            was handed to the caller; see :class:`RetryPolicy`).
        http2: Use HTTP/2 when ``h2`` is installed (``None``: whenever it is); without ``h2``
            the client falls back to HTTP/1.1.
        transport: An httpx transport (e.g. :class:`RecordingTransport`, :class:`ReplayTransport`).
        options: Transport options of the provider (``max_tokens`` fallback for Anthropic,
            ``stream_usage`` for OpenAI Chat, ``region`` and ``profile`` for Bedrock); an unknown
            name raises ``ValueError``.
        settings: Generation settings for every call (:class:`~interlingua.items.Settings` or a
            mapping of its fields, e.g. ``{"max_output_tokens": 512, "temperature": 0.2}``); they
            override the transcript's and are overridden by :meth:`generate`'s ``settings``.
        headers: Extra headers for every request.
        mapper: The mapper; looked up by the provider name when ``None``.
        requests_per_minute: At most this many requests start through this client in any 60 s
            (``0``: no limit); for clients sharing a limiter, give it to the :class:`RateLimiter`.
        limiter: A :class:`RateLimiter` shared with other clients (one account, one quota); ``None``:
            a limiter of this client's own. A ``rate_limit`` answer cools down every call through
            the limiter for the wait the provider asked for (else the backoff step).

    The key never appears in reprs, logs, errors or recorded fixtures.

    Raises:
        TransportError: ``invalid_request`` for a provider with no HTTP rules, or whose optional
            extra is missing (``bedrock-converse`` without botocore names
            ``pip install interlingua[bedrock]``); ``auth`` for a key an HTTP header cannot carry,
            or Bedrock with no credentials at all.
        ValueError: an unknown or malformed option; ``requests_per_minute`` given with a ``limiter``.
    """

    def __init__(
        self,
        provider: str | ProviderSpec,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeouts: Timeouts = Timeouts(),
        retry: RetryPolicy = RetryPolicy(),
        http2: bool | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        options: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        mapper: Mapper | None = None,
        settings: Settings | Mapping[str, Any] | None = None,
        requests_per_minute: int = 0,
        limiter: RateLimiter | None = None,
    ) -> None:
        spec = provider if isinstance(provider, ProviderSpec) else provider_spec(provider)
        if spec is None:
            raise TransportError(
                "invalid_request",
                f"no HTTP rules for provider {provider!r}; known: {', '.join(sorted(PROVIDERS))}, and "
                f"{', '.join(f'{base}:<host>' for base in sorted(_VARIANTS))} for a known host (e.g. openai-chat:groq)",
                provider=str(provider),
            )
        self._spec = spec
        self.provider = self._spec.name
        self.mapper = mapper or get_mapper(self._spec.name)
        key = api_key if api_key is not None else next((os.environ[v] for v in self._spec.env_vars if os.environ.get(v)), None)
        if key and (not key.isascii() or any(ord(c) < 0x21 or ord(c) == 0x7F for c in key)):
            # An HTTP header cannot carry it; say so without showing any of it.
            where = "api_key" if api_key is not None else " or ".join(self._spec.env_vars) or "api_key"
            raise TransportError("auth", f"the API key in {where} holds characters an HTTP header cannot carry (non-ASCII, spaces or control characters)", provider=self._spec.name)
        self._key = _Secret(key) if key else None
        self.options = dict(options or {})
        unknown = sorted(set(self.options) - self._spec.options)
        if unknown:
            allowed = ", ".join(sorted(self._spec.options)) or "none"
            raise ValueError(
                f"unknown option(s) {', '.join(map(repr, unknown))} for {self.provider} (its options: {allowed}); "
                "generation settings (temperature, max_output_tokens, ...) go in settings="
            )
        self._signer = self._spec.signer(key or None, self.options) if self._spec.signer is not None else None
        protect_logs(self, self._secrets())
        default_url = (self._signer.base_url if self._signer is not None else None) or self._spec.default_base_url
        self.base_url = (base_url or default_url).rstrip("/")
        self.timeouts = timeouts
        self.retry = retry
        if limiter is not None and requests_per_minute:
            raise ValueError("give requests_per_minute to the shared RateLimiter(requests_per_minute=...), not to each client")
        self.limiter = limiter if limiter is not None else RateLimiter(requests_per_minute)
        self.settings = merge_settings(None, settings) if settings is not None else None
        use_h2 = http2_available() if http2 is None else (http2 and http2_available())
        self.http2 = bool(use_h2)
        self._headers = {**self._spec.extra_headers, **(headers or {})}
        self._http = httpx.AsyncClient(http2=self.http2, transport=transport, timeout=timeouts.for_request(True), follow_redirects=False)

    def __repr__(self) -> str:
        key = "<set>" if self._key else "<unset>"
        return f"Client(provider={self.provider!r}, base_url={redact(self.base_url, self._secrets(), kind='url')!r}, api_key={key})"

    def _secrets(self) -> tuple[str, ...]:
        signer = getattr(self, "_signer", None)
        return ((self._key.reveal(),) if self._key else ()) + (tuple(signer.secrets) if signer is not None else ())

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def with_fallbacks(self, model: str, *routes: tuple[Client, str], fall_back_on: frozenset[str] | None = None) -> FallbackClient:
        """A :class:`FallbackClient` trying this client with ``model`` first, then each ``(client, model)`` route.

        Raises:
            ValueError: a route that is not a ``(Client, str)`` pair.
        """
        from ._fallback import FallbackClient

        kw = {} if fall_back_on is None else {"fall_back_on": fall_back_on}
        return FallbackClient([(self, model), *routes], **kw)

    def validate_config(self, model: str | None = None) -> list[ConfigProblem]:
        """Problems of this client's configuration, found without any network call (empty list: none).

        Args:
            model: Also check this model: known to the model table, and able to take the client's
                settings (output budget within its limit, reasoning, stop sequences).

        Returns:
            :class:`ConfigProblem` entries (``setting``, ``message``): a missing key and the variables it
            is read from, a malformed or non-http(s) base URL, plain http to a remote host with a key, a key
            given to a local server that takes none, an unknown model, a setting the model cannot take.
        """
        from ._calls import validate_config

        return validate_config(self, model)

    async def list_models(self) -> list[ModelInfo]:
        """The models the provider lists (every page), as :class:`ModelInfo`, merged with the catalogue's facts.

        Uses the provider's own list endpoint: OpenAI and compatible hosts ``GET /v1/models``, Anthropic
        ``GET /v1/models``, Gemini ``models.list`` (with its token limits), Ollama ``GET /api/tags``,
        Bedrock ``ListFoundationModels`` (control-plane host), Cohere ``GET /v1/models``, Mistral
        ``GET /v1/models``. Cancelling the awaiting task closes the connection. Same key, limiter,
        retries, timeouts and error codes as :meth:`generate`.

        Raises:
            TransportError: ``invalid_request`` for a provider without a list endpoint, ``auth`` without a
                key, the call's own failure otherwise, ``provider_error`` for an answer not in the list's shape.
        """
        from ._calls import list_models

        return await list_models(self)

    async def count_tokens(self, transcript: Transcript, *, model: str, **kwargs: Any) -> int:
        """Input tokens of the request :meth:`generate` would send, counted by the provider's count endpoint.

        Anthropic ``POST /v1/messages/count_tokens``, Gemini ``models.countTokens``, OpenAI Responses
        ``POST /v1/responses/input_tokens``. For an offline estimate (any provider, no network) use
        ``interlingua.count_tokens``.

        Args:
            transcript: The conversation, built into the request exactly as :meth:`generate` builds it.
            model: Target model.
            **kwargs: :meth:`generate`'s ``policy``, ``capabilities``, ``resolver``, ``settings``.

        Raises:
            TransportError: ``invalid_request`` for a provider without a count endpoint (before any network
                call); the call's own failure otherwise.
            CapabilityError, ConversionError, DocumentError: as :meth:`generate`.
        """
        from ._calls import count_tokens

        return await count_tokens(self, transcript, model=model, **kwargs)

    # ------------------------------------------------------------------ request building

    def generate(
        self,
        transcript: Transcript,
        *,
        model: str,
        stream: bool = True,
        capabilities: ModelCapabilities | None = None,
        policy: Policy = "error",
        resolver: Resolver | None = None,
        settings: Settings | Mapping[str, Any] | None = None,
    ) -> Generation:
        """Preflight and build the request now; send it when the result is iterated or awaited.

        Args:
            transcript: The conversation to send.
            model: Target model.
            stream: Stream the response (``async for``) or take it whole (it sets ``settings.stream``).
            settings: Generation settings for this call (:class:`~interlingua.items.Settings` or a
                mapping of its fields); each field given overrides the client's and the
                transcript's own (a stored session's settings are used unless overridden). The
                mapper writes them in the provider's terms and reports what it cannot carry.
            capabilities: The model's capabilities; resolved (resolver, table, mapper
                defaults) when ``None``.
            policy: What the mapper does with content the target cannot carry.
            resolver: Caller's capability lookup, asked first.

        Raises:
            CapabilityError: the model cannot take some items and the policy cannot fix it (nothing is sent;
                under `drop`/`degrade` media the model does not take is left out or marked, and a tool
                history without definitions gets definitions made from its calls, each reported).
            ConversionError: policy ``error`` met content (or a setting that changes the output's
                meaning) the wire format cannot carry.
            DocumentError: ``transcript`` is not valid as a file read would judge it (an item built in code
                with a value the schema refuses, such as ``TextItem(role="robot")``; a plain ``dict`` among
                the items), with the JSON pointer; or ``settings`` is not valid settings (unknown field,
                wrong type). Raised here, before any request.
            TransportError: ``auth`` when the provider needs a key and none was found.
        """
        transcript = checked_transcript(transcript)
        effective = merge_settings(merge_settings(transcript.settings, self.settings), settings)
        defaults = {f: self.options[o] for o, f in self._spec.option_settings.items() if o in self.options and getattr(effective, f) is msgspec.UNSET}
        if defaults:
            effective = merge_settings(effective, defaults)
        transcript = msgspec.structs.replace(transcript, settings=msgspec.structs.replace(effective, stream=msgspec.UNSET if self._spec.stream_by_url else stream))
        resolution = None if capabilities else resolve(self.provider, model, mapper=self.mapper, resolver=resolver)
        caps = capabilities or resolution.capabilities  # type: ignore[union-attr]
        # The policy governs what the model cannot take too (as `interlingua convert` does).
        fitted = fit(transcript, caps, model=model, provider=self.provider, policy=policy, stream=stream)
        unknown = unknown_model_warning(resolution, transcript, provider=self.provider, model=model, stream=stream) if resolution else None
        if self._key is None and self._spec.requires_key:
            raise transport_error("auth", self._spec.missing_key(self.base_url), provider=self.provider)
        conversion = self.mapper.encode_request(fitted.transcript, model=model, policy=policy)
        report = Report()
        if unknown is not None:
            report.add("changed", unknown)
        elif (past := deprecation_warning(self.provider, model)) is not None:
            report.add("changed", past, pointer="/model")
        report.extend(fitted.report)
        report.extend(fitted.translate(conversion.report))
        body = self._spec.prepare_body(conversion.value, model, stream, self.options)
        url = self.base_url + self._spec.path(model, stream)
        return Generation(self, _Prepared(model, stream, url, msgspec.json.encode(body), report))

    def _request(self, prepared: _Prepared) -> httpx.Request:
        headers = {"content-type": "application/json", **self._headers}
        if self._spec.accept is not None:
            headers.setdefault("accept", self._spec.accept(prepared.stream))
        if self._signer is not None:
            headers = self._signer.sign("POST", prepared.url, headers, prepared.body)
        elif self._key is not None:
            headers.update(self._spec.auth_headers(self._key.reveal()))
        return self._http.build_request(
            "POST",
            prepared.url,
            content=prepared.body,
            headers=headers,
            timeout=self.timeouts.for_request(prepared.stream),
        )

    def _error_body(self, response: httpx.Response, body: bytes) -> bytes:
        return self._spec.error_body(response.headers, body) if self._spec.error_body is not None else body

    def _log(self, message: str, *args: object) -> None:
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(redact(message % args, self._secrets()))

    def _clean(self, event: StreamEvent) -> StreamEvent:
        """A terminal event with its error message and report redacted of the key."""
        secrets = self._secrets()
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

    async def _backoff(self, err: TransportError, headers: Mapping[str, str], attempt: int, clock: _Clock) -> bool:
        """Cool the limiter down after a rate limit; wait before a retry. ``False``: no retry is due.

        The wait comes from the most trusted source first: ``retry-after-ms``, ``Retry-After``, the
        provider's reset headers when a remaining count is zero, a reset time in the error body
        (``details["retry_after"]``); otherwise capped exponential backoff with jitter. A quota error
        without such a time is not retried (``err.retryable`` is false).
        """
        trusted = header_delay(headers, self._spec, now=self.limiter.wall()) if headers else None
        if trusted is None and "retry_after" in err.details:
            trusted = float(err.details["retry_after"])
        if err.code == "rate_limit" and err.retryable:
            self.limiter.cool_down(trusted if trusted is not None else _backoff_step(attempt, self.retry))
        if not err.retryable or _is_stall(err) or attempt >= self.retry.max_retries:
            return False
        delay = trusted if trusted is not None else _backoff_step(attempt, self.retry)
        if delay > self.retry.max_wait:
            self._log("%s: %s, no retry: the server asks for %.2f s, more than max_wait", self.provider, err.code, delay)
            return False
        left = clock.left()
        if left is not None and delay >= left:
            self._log("%s: %s, no retry: the wait of %.2f s would pass the deadline", self.provider, err.code, delay)
            return False
        self._log("%s: %s, retry %d in %.2f s", self.provider, err.code, attempt + 1, delay)
        if err.code != "rate_limit":
            await self.limiter.sleep(delay)  # a rate limit's wait is the cool-down, waited in _acquire
        return True

    async def _acquire(self, clock: _Clock) -> None:
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

    # ------------------------------------------------------------------ sending
    #
    # The retry rule (docs/replay.md, ADR 0006): at most 1 + max_retries requests per call,
    # every cause counted together; only while nothing was handed to the caller; never after
    # a stall (read/idle timeout) or past the deadline; a request whose 2xx response had begun
    # is re-sent at most max_stream_restarts times.

    def _decode_whole(self, content: bytes, headers: Mapping[str, str], status: int, secrets: tuple[str, ...], *, streamed: bool = False) -> ModelResponse:
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
                    f"the 2xx answer to a stream request is {_media_type(headers)}, not a stream, and it is neither a stream "
                    "nor a whole response of this format"
                )
            elif "event-stream" in headers.get("content-type", "") or content.lstrip().startswith((b"data:", b"event:")):
                what += " (it is a stream, text/event-stream: the server, or the recorded exchange, streamed; call with stream=True, or drop --no-stream)"
            elif "ndjson" in headers.get("content-type", ""):
                what += " (it is a stream, application/x-ndjson: call with stream=True, or drop --no-stream)"
            raise transport_error("provider_error", what, provider=self.provider, status=status) from exc

    def _not_a_stream(self, content: bytes, headers: Mapping[str, str], status: int, secrets: tuple[str, ...]) -> list[StreamEvent]:
        """The events of a stream request's 2xx answer whose content type is not a stream's.

        A whole response gives one ``StreamDone`` whose report says the answer was not streamed; a
        complete stream under another label (SSE sent as ``application/json``) gives its events.

        Raises:
            TransportError: ``provider_error`` (never retried): neither.
        """
        media = _media_type(headers)
        try:
            response = self._decode_whole(content, headers, status, secrets, streamed=True)
        except TransportError:
            if self._spec.frames is None:  # a text framing (SSE, NDJSON) can be read from the bytes
                events = collect(self.mapper, content)
                if events and isinstance(events[-1], StreamDone):
                    events[-1].report.add("changed", f"the stream came as content type {media}, not a stream's; it was read as a stream")
                    return events
            raise
        report = Report()
        report.add("changed", f"the stream request was answered with one whole response (content type {media}, not a stream); it was decoded as a whole response")
        return [StreamDone(response, report)]

    async def _complete(self, prepared: _Prepared) -> ModelResponse:
        clock = _Clock(self.timeouts.deadline)
        secrets = self._secrets()
        attempt = restarts = 0
        while True:
            headers: Mapping[str, str] = {}
            began = False
            try:
                await self._acquire(clock)
                self._log("POST %s (attempt %d)", redact(prepared.url, secrets, kind="url"), attempt + 1)
                with translate(self.provider, secrets=secrets):
                    response = await clock.run(self._http.send(self._request(prepared), stream=True), self.provider)
                try:
                    headers = response.headers
                    self._log("%s: HTTP %d", self.provider, response.status_code)
                    if response.status_code >= 300:
                        with translate(self.provider, secrets=secrets):
                            body = await clock.run(_read_limited(response), self.provider)
                        raise from_response(self._spec, response.status_code, self._error_body(response, body), secrets=secrets, headers=headers, now=self.limiter.wall())
                    began = True
                    with translate(self.provider, reading=True, started=True, secrets=secrets):
                        content = await clock.run(response.aread(), self.provider)
                finally:
                    await response.aclose()
                return self._decode_whole(content, headers, response.status_code, secrets)
            except TransportError as err:
                if began and restarts >= self.retry.max_stream_restarts:
                    raise
                if await self._backoff(err, headers, attempt, clock):
                    attempt += 1
                    restarts += began
                    continue
                raise _where(err, prepared.url, attempt + 1) from err.__cause__

    async def _stream(self, prepared: _Prepared) -> AsyncGenerator[StreamEvent, None]:
        clock = _Clock(self.timeouts.deadline)
        secrets = self._secrets()
        idle = self.timeouts.idle
        attempt = restarts = 0
        while True:
            headers: Mapping[str, str] = {}
            began = False  # the 2xx response of this attempt arrived
            delivered = False  # an event of this attempt was handed to the caller
            held: list[StreamEvent] = []  # events without content, kept until content comes
            try:
                await self._acquire(clock)
                self._log("POST %s stream (attempt %d)", redact(prepared.url, secrets, kind="url"), attempt + 1)
                with translate(self.provider, idle=idle, secrets=secrets):
                    response = await clock.run(self._http.send(self._request(prepared), stream=True), self.provider)
                try:
                    headers = response.headers
                    self._log("%s: HTTP %d", self.provider, response.status_code)
                    if response.status_code >= 300:
                        with translate(self.provider, idle=idle, secrets=secrets):
                            body = await clock.run(_read_limited(response), self.provider)
                        raise from_response(self._spec, response.status_code, self._error_body(response, body), secrets=secrets, headers=headers, now=self.limiter.wall())
                    began = True
                    media = _media_type(headers)
                    if media and media not in _STREAM_MEDIA:
                        # A 2xx answer that is not a stream (a server that ignores the stream flag):
                        # read as a whole response, or a stream under the wrong label; else provider_error,
                        # never retried (docs/replay.md).
                        with translate(self.provider, reading=True, started=True, idle=idle, secrets=secrets):
                            content = await clock.run(response.aread(), self.provider)
                        for event in self._not_a_stream(content, headers, response.status_code, secrets):
                            delivered = True
                            yield self._clean(event)
                        return
                    framed = self._spec.frames(response) if self._spec.frames is not None else aiter_frames(self.mapper.framing, response)
                    frames = idle_bounded(framed, idle, IdleTimeout)
                    events: AsyncGenerator[StreamEvent, None] = aiter_stream(self.mapper, response, frames)  # type: ignore[assignment]
                    try:
                        while True:
                            with translate(self.provider, reading=True, started=True, idle=idle, secrets=secrets):
                                try:
                                    event = await clock.run(events.__anext__(), self.provider)
                                except StopAsyncIteration:
                                    return
                            event = self._clean(event)
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
                if retry and await self._backoff(err, headers, attempt, clock):
                    attempt += 1
                    restarts += began
                    continue
                self._log("%s: %s", self.provider, err)
                for kept in held:
                    yield kept
                prepared.failure = _where(err, prepared.url, attempt + 1)
                yield StreamError(error_item(prepared.failure), partial=ModelResponse())
                return


_STREAM_MEDIA = frozenset({"text/event-stream", "application/x-ndjson", "application/ndjson", "application/jsonl", "application/vnd.amazon.eventstream"})
"""Media types a streamed answer comes as (SSE; Ollama's NDJSON; Bedrock's AWS event-stream)."""


def _media_type(headers: Mapping[str, str]) -> str:
    """The response's media type, lower case, without parameters (``""`` when there is none)."""
    return headers.get("content-type", "").split(";", 1)[0].strip().lower()


def _backoff_step(attempt: int, policy: RetryPolicy) -> float:
    """Capped exponential backoff with jitter: ``min(cap, base * 2**attempt)`` times 0.5 to 1."""
    step = min(policy.cap, policy.base * (2**attempt))
    return step * (0.5 + 0.5 * random.random())


def _where(err: TransportError, url: str, attempts: int) -> TransportError:
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


async def _read_limited(response: httpx.Response) -> bytes:
    out = b""
    async for chunk in response.aiter_bytes():
        out += chunk
        if len(out) >= _MAX_ERROR_BODY:
            break
    return out[:_MAX_ERROR_BODY]
