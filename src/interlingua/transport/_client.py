"""The generic async client: one class for every wire format.

Provider rules (paths, auth headers, body settings, error bodies, reset headers)
come from a :class:`~interlingua.transport._spec.ProviderSpec`; this module has no
provider branching. The client builds requests (preflight, settings, mapping) and
sends them through its :class:`~interlingua.transport._connection.Connection`; a
:class:`~interlingua.transport.Generation` sends one when iterated or awaited.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

import httpx
import msgspec

from .._built import checked_transcript
from ..capabilities import Resolver, deprecation_warning, fit, resolve, unknown_model_warning
from ..errors import TransportError
from ..items import ModelCapabilities, Settings, Transcript
from ..mapping import Mapper, Report, get_mapper
from ..mapping.report import Policy
from ..mapping.settings import merge_settings
from ._anthropic import anthropic
from ._bedrock import bedrock_converse
from ._calls import ConfigProblem, count_endpoint, count_tokens, list_models, validate_config
from ._cohere import cohere
from ._connection import Connection, Secret
from ._errors import transport_error
from ._fallback import FallbackClient
from ._gemini import gemini
from ._generation import Generation, Prepared
from ._limits import RateLimiter
from ._mistral import mistral
from ._models import ModelInfo
from ._ollama import ollama
from ._openai import openai_chat, openai_chat_host, openai_responses
from ._redact import protect_logs, redact
from ._retry import RetryPolicy
from ._spec import ProviderSpec
from ._timeouts import Timeouts

__all__ = ["PROVIDERS", "Client", "Generation", "Timeouts", "check_config", "http2_available", "provider_spec"]

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


def http2_available() -> bool:
    """Whether the optional ``h2`` package is installed (``pip install interlingua[http2]``)."""
    import importlib.util

    return importlib.util.find_spec("h2") is not None


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
        mapper = mapper or get_mapper(spec.name)
        key = api_key if api_key is not None else next((os.environ[v] for v in spec.env_vars if os.environ.get(v)), None)
        if key and (not key.isascii() or any(ord(c) < 0x21 or ord(c) == 0x7F for c in key)):
            # An HTTP header cannot carry it; say so without showing any of it.
            where = "api_key" if api_key is not None else " or ".join(spec.env_vars) or "api_key"
            raise TransportError("auth", f"the API key in {where} holds characters an HTTP header cannot carry (non-ASCII, spaces or control characters)", provider=spec.name)
        options = dict(options or {})
        unknown = sorted(set(options) - spec.options)
        if unknown:
            allowed = ", ".join(sorted(spec.options)) or "none"
            raise ValueError(
                f"unknown option(s) {', '.join(map(repr, unknown))} for {spec.name} (its options: {allowed}); "
                "generation settings (temperature, max_output_tokens, ...) go in settings="
            )
        signer = spec.signer(key or None, options) if spec.signer is not None else None
        if limiter is not None and requests_per_minute:
            raise ValueError("give requests_per_minute to the shared RateLimiter(requests_per_minute=...), not to each client")
        self.settings = merge_settings(None, settings) if settings is not None else None
        use_h2 = http2_available() if http2 is None else (http2 and http2_available())
        self.http2 = bool(use_h2)
        default_url = (signer.base_url if signer is not None else None) or spec.default_base_url
        self._conn = Connection(
            spec=spec,
            mapper=mapper,
            key=Secret(key) if key else None,
            signer=signer,
            options=options,
            base_url=(base_url or default_url).rstrip("/"),
            timeouts=timeouts,
            retry=retry,
            limiter=limiter if limiter is not None else RateLimiter(requests_per_minute),
            headers={**spec.extra_headers, **(headers or {})},
            http=httpx.AsyncClient(http2=self.http2, transport=transport, timeout=timeouts.for_request(True), follow_redirects=False),
        )
        protect_logs(self, self._conn.secrets())

    @property
    def provider(self) -> str:
        """The provider's mapper registry name (``openai-chat:groq`` for a host variant)."""
        return self._conn.provider

    @property
    def mapper(self) -> Mapper:
        """The mapper building requests and reading responses."""
        return self._conn.mapper

    @property
    def options(self) -> dict[str, Any]:
        """The provider's transport options given."""
        return self._conn.options

    @property
    def base_url(self) -> str:
        """The API root requests go to (no trailing slash)."""
        return self._conn.base_url

    @property
    def timeouts(self) -> Timeouts:
        """The timeouts and deadline, in seconds."""
        return self._conn.timeouts

    @property
    def retry(self) -> RetryPolicy:
        """The retry settings."""
        return self._conn.retry

    @property
    def limiter(self) -> RateLimiter:
        """The rate limiter (this client's own, or the shared one given)."""
        return self._conn.limiter

    def __repr__(self) -> str:
        key = "<set>" if self._conn.key else "<unset>"
        return f"Client(provider={self.provider!r}, base_url={redact(self.base_url, self._conn.secrets(), kind='url')!r}, api_key={key})"

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._conn.http.aclose()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def with_fallbacks(self, model: str, *routes: tuple[Client, str], fall_back_on: frozenset[str] | None = None) -> FallbackClient:
        """A :class:`FallbackClient` trying this client with ``model`` first, then each ``(client, model)`` route.

        Raises:
            ValueError: a route that is not a ``(Client, str)`` pair.
        """
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
        return validate_config(self._conn, model, self.settings)

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
        return await list_models(self._conn)

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
        endpoint = count_endpoint(self._conn)  # before building the request: a provider without one says so first
        body = msgspec.json.decode(self._prepare(transcript, model=model, stream=False, **kwargs).body)
        return await count_tokens(self._conn, endpoint, body, model)

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
        return Generation(self._conn, self._prepare(transcript, model=model, stream=stream, capabilities=capabilities, policy=policy, resolver=resolver, settings=settings))

    def _prepare(
        self,
        transcript: Transcript,
        *,
        model: str,
        stream: bool,
        capabilities: ModelCapabilities | None = None,
        policy: Policy = "error",
        resolver: Resolver | None = None,
        settings: Settings | Mapping[str, Any] | None = None,
    ) -> Prepared:
        """The request :meth:`generate` sends (raises as it does)."""
        transcript = checked_transcript(transcript)
        effective = merge_settings(merge_settings(transcript.settings, self.settings), settings)
        defaults = {f: self.options[o] for o, f in self._conn.spec.option_settings.items() if o in self.options and getattr(effective, f) is msgspec.UNSET}
        if defaults:
            effective = merge_settings(effective, defaults)
        transcript = msgspec.structs.replace(transcript, settings=msgspec.structs.replace(effective, stream=msgspec.UNSET if self._conn.spec.stream_by_url else stream))
        resolution = None if capabilities else resolve(self.provider, model, mapper=self.mapper, resolver=resolver)
        caps = capabilities or resolution.capabilities  # type: ignore[union-attr]
        # The policy governs what the model cannot take too (as `interlingua convert` does).
        fitted = fit(transcript, caps, model=model, provider=self.provider, policy=policy, stream=stream)
        unknown = unknown_model_warning(resolution, transcript, provider=self.provider, model=model, stream=stream) if resolution else None
        if self._conn.key is None and self._conn.spec.requires_key:
            raise transport_error("auth", self._conn.spec.missing_key(self.base_url), provider=self.provider)
        conversion = self.mapper.encode_request(fitted.transcript, model=model, policy=policy)
        report = Report()
        if unknown is not None:
            report.add("changed", unknown)
        elif (past := deprecation_warning(self.provider, model)) is not None:
            report.add("changed", past, pointer="/model")
        report.extend(fitted.report)
        report.extend(fitted.translate(conversion.report))
        body = self._conn.spec.prepare_body(conversion.value, model, stream, self.options)
        url = self.base_url + self._conn.spec.path(model, stream)
        return Prepared(model, stream, url, msgspec.json.encode(body), report)


def check_config(provider: Any, *, model: str | None = None, **kwargs: Any) -> list[ConfigProblem]:
    """:meth:`Client.validate_config` for a client not made yet: what ``Client(provider, **kwargs)`` would
    refuse (an unknown provider or ``openai-chat:<host>`` dialect, an unknown option, a key a header cannot
    carry) is a problem in the list too, instead of an exception. No network.

    Args:
        provider: As :class:`Client`.
        model: Also check this model (see :meth:`Client.validate_config`).
        **kwargs: :class:`Client`'s keywords (``api_key``, ``base_url``, ``options``, ``settings``, ...).
    """
    try:
        client = Client(provider, **kwargs)
    except TransportError as exc:
        return [ConfigProblem("provider" if exc.code == "invalid_request" else "api_key", exc.message)]
    except ValueError as exc:
        return [ConfigProblem("options", str(exc))]
    return client.validate_config(model)
