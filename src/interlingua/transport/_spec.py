"""What the generic client needs to know about one provider's HTTP API.

Each provider module (``_openai.py``, ``_anthropic.py``, ``_gemini.py``,
``_ollama.py``) builds one :class:`ProviderSpec`; the client in
``_client.py`` reads only these fields and never branches on a provider name.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import httpx

    from ..streaming.events import RawEvent

__all__ = ["ProviderSpec", "Signer", "error_token", "parse_duration", "parse_reset_time"]


class Signer(Protocol):
    """Per-request authentication for providers whose credentials sign each request (AWS SigV4).

    Made once per client by :attr:`ProviderSpec.signer`; :meth:`sign` runs for every attempt
    (retries are signed again, with a fresh timestamp).

    Attributes:
        base_url: The endpoint the credentials are for (e.g. a region's), used when the
            caller gives no ``base_url``; ``None``: the spec's ``default_base_url``.
        secrets: Values that must never appear in logs, errors or fixtures.
    """

    base_url: str | None
    secrets: tuple[str, ...]

    def sign(self, method: str, url: str, headers: Mapping[str, str], body: bytes) -> dict[str, str]:
        """The headers to send: ``headers`` plus the authentication ones (a new dict)."""
        ...


@dataclass(frozen=True)
class ProviderSpec:
    """One provider's HTTP rules.

    Attributes:
        name: Mapper registry name (``openai-chat``, ``anthropic``, ...).
        default_base_url: Base URL used when the caller gives none.
        env_vars: Environment variables read for the API key, in order.
        path: ``(model, stream) -> path`` appended to the base URL (no query secrets).
        auth_headers: ``api_key -> headers`` carrying the key (the only place it goes).
        extra_headers: Fixed headers sent on every request.
        prepare_body: ``(body, model, stream, options) -> body``: adds the stream flag and
            required settings the mapper does not write; returns a new dict.
        error_code: ``(status, parsed error body) -> (code or None, provider error type or None)``.
        reset_delay: ``(headers, now=None) -> seconds or None``: wait until the provider's rate-limit
            reset, only when a matching ``remaining`` header says zero (``now``: wall-clock seconds for
            reset times given as dates; a one-argument callable is accepted too).
        requires_key: Whether a missing key is an ``auth`` error before anything is sent.
        options: Names of the transport options ``prepare_body`` reads (``Client(options=...)``);
            any other name is refused (generation settings go in ``settings=``).
        option_settings: Options that are defaults for a settings field (``{"max_tokens":
            "max_output_tokens"}``): used when the call's settings leave that field unset.
        signer: ``(api_key or None, options) -> Signer`` for providers that sign each request
            (called once when the client is made; may raise ``TransportError``); ``None``: the key
            goes in :attr:`auth_headers`.
        frames: ``streaming response -> RawEvent`` records, for a stream framing other than the
            mapper's SSE/NDJSON (AWS event-stream); it raises ``MalformedInputError`` on a bad frame.
        error_body: ``(response headers, body) -> body`` read by :attr:`error_code` (a provider
            that puts the error type in a header folds it in here).
        accept: The ``accept`` header of ``(stream) -> value``; ``None``: none sent.
        no_key_hint: Added to the ``auth`` error for a missing key when the client was given
            another ``base_url`` than the default (e.g. the keyless names of local servers).
        stream_by_url: The path, not the body, says whether to stream (Gemini's
            ``streamGenerateContent``, Bedrock's ``converse-stream``): the client leaves
            ``settings.stream`` unset for the mapper, which has no body field for it.
        body_reset: ``parsed error body -> seconds or None``: a reset time the provider writes in
            its error body (Gemini's ``google.rpc.RetryInfo.retryDelay``), trusted after the headers.
        quota_error: ``parsed error body -> bool``: the error says a quota or the credit is used up
            (OpenAI ``insufficient_quota``); such an error is retried only with a trusted reset time.
        models: How to list the provider's models (:class:`~interlingua.transport._models.ModelsEndpoint`);
            ``None``: no list endpoint.
        count: How to count a request's input tokens (:class:`~interlingua.transport._count.CountEndpoint`);
            ``None``: the provider has no count endpoint.
    """

    name: str
    default_base_url: str
    env_vars: tuple[str, ...]
    path: Callable[[str, bool], str]
    auth_headers: Callable[[str], dict[str, str]]
    prepare_body: Callable[[dict[str, Any], str, bool, Mapping[str, Any]], dict[str, Any]]
    error_code: Callable[[int, Any], tuple[str | None, str | None]]
    reset_delay: Callable[..., float | None] = lambda headers, now=None: None
    extra_headers: Mapping[str, str] = field(default_factory=dict)
    requires_key: bool = True
    options: frozenset[str] = frozenset()
    option_settings: Mapping[str, str] = field(default_factory=dict)
    signer: Callable[[str | None, Mapping[str, Any]], Signer] | None = None
    frames: Callable[[httpx.Response], AsyncIterator[RawEvent]] | None = None
    error_body: Callable[[Mapping[str, str], bytes], bytes] | None = None
    accept: Callable[[bool], str] | None = None
    no_key_hint: str = ""
    stream_by_url: bool = False
    body_reset: Callable[[Any], float | None] = lambda body: None
    quota_error: Callable[[Any], bool] = lambda body: False
    models: Any = None
    count: Any = None


    def missing_key(self, base_url: str) -> str:
        """The message of the ``auth`` error for a missing key: the environment variable(s) to set
        (what the CLI reads; ``api_key=`` is the Python argument) and, for a base URL that is not the
        provider's own, :attr:`no_key_hint` (the host names that take no key, e.g. a local server)."""
        names = " or ".join(f"the environment variable {v}" for v in self.env_vars[:1]) + "".join(f" or {v}" for v in self.env_vars[1:])
        where = f"set {names}" if names else "give the key"
        hint = f"; {self.no_key_hint}" if self.no_key_hint and base_url.rstrip("/") != self.default_base_url.rstrip("/") else ""
        return f"no API key: {where} (in Python, Client(api_key=...) also takes it){hint}"


_TOKEN = re.compile(r"[^A-Za-z0-9_.:-]")


def error_token(value: Any) -> str | None:
    """A provider error type/code reduced to a short safe token (``None`` when absent)."""
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        return None
    token = _TOKEN.sub("", str(value))[:64]
    return token or None


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


def parse_duration(text: str) -> float | None:
    """``"6m0s"``, ``"1.5s"``, ``"20ms"`` (OpenAI reset headers) or plain seconds -> seconds."""
    text = text.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    return sum(float(n) * scale[u] for n, u in parts)


def parse_reset_time(text: str, now: float | None = None) -> float | None:
    """An RFC 3339 / HTTP date reset time -> seconds from now (``None`` if unreadable)."""
    from datetime import datetime

    now = time.time() if now is None else now
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00")).timestamp()
    except ValueError:
        try:
            when = parsedate_to_datetime(text).timestamp()
        except (TypeError, ValueError):
            return None
    return max(0.0, when - now)


def spec_reset_delay(spec: ProviderSpec, headers: Mapping[str, str], now: float | None = None) -> float | None:
    """``spec.reset_delay(headers, now=now)``; a one-argument ``reset_delay`` (older custom specs) gets ``headers`` only."""
    try:
        return spec.reset_delay(headers, now=now)
    except TypeError:
        return spec.reset_delay(headers)
