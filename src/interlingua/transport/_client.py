"""The generic async client: one class for every wire format.

Provider rules (paths, auth headers, body settings, error bodies, reset headers)
come from a :class:`~interlingua.transport._spec.ProviderSpec`; this module has no
provider branching.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import msgspec

from ..capabilities import Resolver, preflight, resolve
from ..errors import ConversionError, TransportError
from ..items import ErrorItem, ModelCapabilities, Transcript
from ..mapping import Mapper, ModelResponse, Report, get_mapper
from ..mapping.report import Policy
from ..streaming import StreamDone, StreamError, StreamEvent, aiter_stream
from ._anthropic import anthropic
from ._errors import error_item, from_response, transport_error, translate
from ._gemini import gemini
from ._ollama import ollama
from ._openai import openai_chat, openai_responses
from ._redact import redact
from ._retry import RetryPolicy, retry_delay
from ._spec import ProviderSpec

__all__ = ["PROVIDERS", "Client", "Generation", "Timeouts", "http2_available"]

logger = logging.getLogger("interlingua.transport")

PROVIDERS: dict[str, ProviderSpec] = {s.name: s for s in (openai_chat, openai_responses, anthropic, gemini, ollama)}
"""Built-in provider HTTP rules by mapper registry name."""

_MAX_ERROR_BODY = 64 * 1024


def http2_available() -> bool:
    """Whether the optional ``h2`` package is installed (``pip install interlingua[http2]``)."""
    import importlib.util

    return importlib.util.find_spec("h2") is not None


@dataclass(frozen=True)
class Timeouts:
    """Transport timeouts in seconds (caller cancellation works besides these).

    Attributes:
        connect: Establishing the connection.
        read: Waiting for a non-stream response (no byte arriving for this long).
        idle: Gap between stream data (also the wait for a stream's response headers).
        write: Sending the request.
    """

    connect: float = 30.0
    read: float = 30.0
    idle: float = 60.0
    write: float = 30.0

    def for_request(self, stream: bool) -> httpx.Timeout:
        """The httpx timeout for one request."""
        return httpx.Timeout(connect=self.connect, read=self.idle if stream else self.read, write=self.write, pool=self.connect)


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


class Generation:
    """One model call: ``async for`` yields stream events; ``await`` gives the response.

    Iterating yields canonical stream events ending with exactly one ``StreamDone`` or
    ``StreamError`` (transport failures become a ``StreamError`` too). In non-stream mode
    it yields one terminal event. Awaiting returns the
    :class:`~interlingua.mapping.ModelResponse` (output items, usage, stop reason) or
    raises :class:`~interlingua.errors.TransportError`.

    Attributes:
        report: What the request mapper dropped or changed building the request.
    """

    def __init__(self, client: Client, prepared: _Prepared) -> None:
        self._client = client
        self._prepared = prepared
        self.report = prepared.report

    def __repr__(self) -> str:
        return f"Generation(provider={self._client.provider!r}, model={self._prepared.model!r}, stream={self._prepared.stream})"

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        if self._prepared.stream:
            return self._client._stream(self._prepared)
        return self._one_event()

    async def _one_event(self) -> AsyncIterator[StreamEvent]:
        try:
            response = await self._client._complete(self._prepared)
        except TransportError as err:
            yield StreamError(error_item(err), partial=ModelResponse())
            return
        yield StreamDone(response)

    async def response(self) -> ModelResponse:
        """Run the call and return the whole response.

        Raises:
            TransportError: the call failed (a stream's error, including ``truncated``).
        """
        if not self._prepared.stream:
            return await self._client._complete(self._prepared)
        async for event in self._client._stream(self._prepared):
            if isinstance(event, StreamDone):
                return event.response  # type: ignore[return-value]
            if isinstance(event, StreamError):
                raise _from_item(event.error, self._client.provider)
        raise AssertionError("stream ended without a terminal event")  # pragma: no cover - the driver guarantees one

    def __await__(self) -> Generator[Any, None, ModelResponse]:
        return self.response().__await__()


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
            ``gemini``, ``ollama``) or a :class:`ProviderSpec` for another server.
        api_key: The key; when ``None``, read from the provider's usual environment
            variables (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``GEMINI_API_KEY`` then
            ``GOOGLE_API_KEY``; Ollama needs none). Sent only in a header.
        base_url: API root (OpenAI-compatible servers, proxies, local Ollama); the
            provider's public endpoint when ``None``.
        timeouts: Connect, read, idle and write timeouts.
        retry: Retry settings (at most 2 retries by default, only before the first event).
        http2: Use HTTP/2 when ``h2`` is installed (``None``: whenever it is); without ``h2``
            the client falls back to HTTP/1.1.
        transport: An httpx transport (e.g. :class:`RecordingTransport`, :class:`ReplayTransport`).
        options: Provider request settings the mapper does not write (``max_tokens`` for
            Anthropic, ``stream_usage`` for OpenAI Chat).
        headers: Extra headers for every request.
        mapper: The mapper; looked up by the provider name when ``None``.

    The key never appears in reprs, logs, errors or recorded fixtures.
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
    ) -> None:
        if isinstance(provider, ProviderSpec):
            self._spec = provider
        elif provider in PROVIDERS:
            self._spec = PROVIDERS[provider]
        else:
            raise TransportError("invalid_request", f"no HTTP rules for provider {provider!r}; known: {', '.join(sorted(PROVIDERS))}", provider=str(provider))
        self.provider = self._spec.name
        self.mapper = mapper or get_mapper(self._spec.name)
        key = api_key if api_key is not None else next((os.environ[v] for v in self._spec.env_vars if os.environ.get(v)), None)
        self._key = _Secret(key) if key else None
        self.base_url = (base_url or self._spec.default_base_url).rstrip("/")
        self.timeouts = timeouts
        self.retry = retry
        self.options = dict(options or {})
        use_h2 = http2_available() if http2 is None else (http2 and http2_available())
        self.http2 = bool(use_h2)
        self._headers = {**self._spec.extra_headers, **(headers or {})}
        self._http = httpx.AsyncClient(http2=self.http2, transport=transport, timeout=timeouts.for_request(True), follow_redirects=False)

    def __repr__(self) -> str:
        key = "<set>" if self._key else "<unset>"
        return f"Client(provider={self.provider!r}, base_url={redact(self.base_url, self._secrets(), kind='url')!r}, api_key={key})"

    def _secrets(self) -> tuple[str, ...]:
        return (self._key.reveal(),) if self._key else ()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

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
    ) -> Generation:
        """Preflight and build the request now; send it when the result is iterated or awaited.

        Args:
            transcript: The conversation to send.
            model: Target model.
            stream: Stream the response (``async for``) or take it whole.
            capabilities: The model's capabilities; resolved (resolver, table, mapper
                defaults) when ``None``.
            policy: What the mapper does with content the target cannot carry.
            resolver: Caller's capability lookup, asked first.

        Raises:
            CapabilityError: the model cannot take some items (nothing is sent).
            ConversionError: policy ``error`` met content the wire format cannot carry.
            TransportError: ``auth`` when the provider needs a key and none was found.
        """
        caps = capabilities or resolve(self.provider, model, mapper=self.mapper, resolver=resolver).capabilities
        preflight(transcript, caps, model=model, provider=self.provider, stream=stream)
        if self._key is None and self._spec.requires_key:
            names = " or ".join(self._spec.env_vars) or "api_key"
            raise transport_error("auth", f"no API key: pass api_key or set {names}", provider=self.provider)
        conversion = self.mapper.encode_request(transcript, model=model, policy=policy)
        body = self._spec.prepare_body(conversion.value, model, stream, self.options)
        url = self.base_url + self._spec.path(model, stream)
        return Generation(self, _Prepared(model, stream, url, msgspec.json.encode(body), conversion.report))

    def _request(self, prepared: _Prepared) -> httpx.Request:
        headers = {"content-type": "application/json", **self._headers}
        if self._key is not None:
            headers.update(self._spec.auth_headers(self._key.reveal()))
        return self._http.build_request(
            "POST",
            prepared.url,
            content=prepared.body,
            headers=headers,
            timeout=self.timeouts.for_request(prepared.stream),
        )

    def _log(self, message: str, *args: object) -> None:
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(redact(message % args, self._secrets()))

    async def _backoff(self, err: TransportError, headers: Mapping[str, str], attempt: int) -> bool:
        """Sleep before a retry; ``False`` when no retry is due."""
        if not err.retryable:
            return False
        delay = retry_delay(headers, attempt, self.retry, self._spec)
        if delay is None:
            return False
        self._log("%s: %s, retry %d in %.2f s", self.provider, err.code, attempt + 1, delay)
        await asyncio.sleep(delay)
        return True

    # ------------------------------------------------------------------ sending

    async def _complete(self, prepared: _Prepared) -> ModelResponse:
        attempt = 0
        while True:
            headers: Mapping[str, str] = {}
            try:
                self._log("POST %s (attempt %d)", redact(prepared.url, self._secrets(), kind="url"), attempt + 1)
                with translate(self.provider):
                    response = await self._http.send(self._request(prepared))
                    headers = response.headers
                self._log("%s: HTTP %d", self.provider, response.status_code)
                if response.status_code >= 300:
                    raise from_response(self._spec, response.status_code, response.content[:_MAX_ERROR_BODY], secrets=self._secrets())
                try:
                    body = msgspec.json.decode(response.content)
                    return self.mapper.decode_response(body).value
                except (msgspec.DecodeError, ConversionError, KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
                    raise transport_error("provider_error", "the response body is not a valid response of this format", provider=self.provider, status=response.status_code) from exc
            except TransportError as err:
                if await self._backoff(err, headers, attempt):
                    attempt += 1
                    continue
                raise

    async def _stream(self, prepared: _Prepared) -> AsyncIterator[StreamEvent]:
        attempt = 0
        while True:
            headers: Mapping[str, str] = {}
            started = False
            try:
                self._log("POST %s stream (attempt %d)", redact(prepared.url, self._secrets(), kind="url"), attempt + 1)
                with translate(self.provider, idle=self.timeouts.idle):
                    response = await self._http.send(self._request(prepared), stream=True)
                try:
                    headers = response.headers
                    self._log("%s: HTTP %d", self.provider, response.status_code)
                    if response.status_code >= 300:
                        with translate(self.provider, idle=self.timeouts.idle):
                            body = await _read_limited(response)
                        raise from_response(self._spec, response.status_code, body, secrets=self._secrets())
                    events: AsyncGenerator[StreamEvent, None] = aiter_stream(self.mapper, response)  # type: ignore[assignment]
                    try:
                        while True:
                            with translate(self.provider, reading=True, started=started, idle=self.timeouts.idle):
                                try:
                                    event = await events.__anext__()
                                except StopAsyncIteration:
                                    return
                            started = True
                            yield event
                    finally:
                        await events.aclose()
                finally:
                    await response.aclose()
            except TransportError as err:
                if not started and await self._backoff(err, headers, attempt):
                    attempt += 1
                    continue
                self._log("%s: %s", self.provider, err)
                yield StreamError(error_item(err), partial=ModelResponse())
                return


async def _read_limited(response: httpx.Response) -> bytes:
    out = b""
    async for chunk in response.aiter_bytes():
        out += chunk
        if len(out) >= _MAX_ERROR_BODY:
            break
    return out[:_MAX_ERROR_BODY]
