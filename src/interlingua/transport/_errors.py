"""Normalize provider failures to stable codes.

HTTP statuses and provider error bodies become a
:class:`~interlingua.errors.TransportError` with a stable ``code``; httpx
exceptions are translated in :func:`translate`, the one place httpx is called,
always ``raise ... from exc``. Messages are short and built here; the raw
upstream body is read for its error type and never passed on.

=================  ===============================================  =========
code               from                                             retryable
=================  ===============================================  =========
auth               401, 403                                          no
rate_limit         429; a 5xx only when the body says throttling     yes
invalid_request    400, 413, 422                                     no
not_found          404 / provider "model not found"                  no
context_length     provider error type/code for an over-long prompt  no
content_filter     provider error code for filtered content          no
overloaded         Anthropic 529 / ``overloaded_error``              yes
server             other 5xx                                         yes
timeout            connect/read/idle timeouts, deadline, 408         yes
network            connection failures before a response             yes
truncated          a 2xx stream (or body) broke or ended early       yes
=================  ===============================================  =========
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import httpx
import msgspec

from ..errors import TransportError
from ..items import ErrorItem
from ._redact import redact, scrub_exception
from ._spec import ProviderSpec, spec_reset_delay

__all__ = ["RETRYABLE", "error_item", "from_response", "sendable", "status_code", "transport_error", "translate"]

RETRYABLE = frozenset({"rate_limit", "overloaded", "server", "timeout", "network", "truncated"})
"""Codes a retry may cure."""

_STATUS = {400: "invalid_request", 401: "auth", 403: "auth", 404: "not_found", 408: "timeout", 413: "invalid_request", 422: "invalid_request", 429: "rate_limit", 529: "overloaded"}
_SERVER_SIDE = frozenset({"overloaded", "rate_limit", "server", "timeout"})


def transport_error(code: str, message: str, *, provider: str | None, status: int | None = None, secrets: Iterable[str] = (), details: Mapping[str, str] | None = None) -> TransportError:
    """Build a :class:`TransportError` with ``retryable`` from the code and the message redacted."""
    return TransportError(
        code=code,
        message=redact(message, secrets),
        status=status,
        provider=provider,
        retryable=code in RETRYABLE,
        details=dict(details or {}),
    )


def sendable(request: httpx.Request, provider: str) -> httpx.Request:
    """``request`` when its URL's port is one a socket can use (1 to 65535, or none given).

    httpx takes ``http://127.0.0.1:99999/v1`` as a URL; the connect then fails deep in the socket
    layer with an ``OverflowError`` (inside an exception group), not an httpx error.

    Raises:
        TransportError: ``invalid_request`` naming the port (nothing was sent).
    """
    port = request.url.port
    if port is not None and not 0 < port < 65536:
        raise transport_error("invalid_request", f"the base URL cannot be used: port {port} is out of range (1 to 65535)", provider=provider)
    return request


def status_code(status: int) -> str:
    """The code an HTTP status alone gives (``provider_error`` for other non-2xx statuses)."""
    if status in _STATUS:
        return _STATUS[status]
    return "server" if status >= 500 else "provider_error"


def from_response(
    spec: ProviderSpec, status: int, body: bytes, *, secrets: Iterable[str] = (), headers: Mapping[str, str] | None = None, now: float | None = None
) -> TransportError:
    """Normalize a non-2xx response.

    Args:
        spec: The provider's rules (its ``error_code`` reads the body).
        status: HTTP status.
        body: Response body bytes (parsed for the error type, never copied into the error).
        secrets: Values to redact from the message.
        headers: The response headers: a 5xx whose rate-limit headers say a remaining count is zero
            is ``rate_limit``; the wait they ask for (else the body's reset time) goes in
            ``details["retry_after"]`` (seconds, as text).
        now: Wall-clock seconds for reset times given as dates (``time.time()`` when ``None``).

    A quota error (``spec.quota_error``) gets ``details["quota"] = "true"`` and is retryable only
    with a trusted reset time.
    """
    try:
        parsed: Any = msgspec.json.decode(body) if body else None
    except msgspec.DecodeError:
        parsed = None
    body_code, etype = spec.error_code(status, parsed)
    code = status_code(status)
    if body_code:
        # A 5xx becomes rate_limit (or another server-side code) only on the body's explicit word.
        if status < 500 or body_code in _SERVER_SIDE:
            code = body_code
    if status >= 500 and code == "server" and headers is not None and spec_reset_delay(spec, headers, now) is not None:
        code = "rate_limit"  # the rate-limit headers say a remaining count is zero: a throttle, not a fault
    message = f"{spec.name} returned HTTP {status}" + (f" ({etype})" if etype else "")
    details = {"provider_error": etype} if etype else {}
    reset = None
    if code in ("rate_limit", "overloaded"):
        from ._retry import header_delay

        reset = header_delay(headers, spec, now=now) if headers is not None else None
        if reset is None:
            try:
                reset = spec.body_reset(parsed)
            except (TypeError, ValueError, AttributeError):
                reset = None
        if reset is not None:
            details["retry_after"] = f"{reset:.3f}"
    err = transport_error(code, message, provider=spec.name, status=status, secrets=secrets, details=details)
    if code == "rate_limit" and spec.quota_error(parsed):
        err.details["quota"] = "true"
        if reset is None:
            err = TransportError(code=err.code, message=err.message + ", quota used up, no reset time given: not retried", status=err.status, provider=err.provider, retryable=False, details=err.details)
    return err


@contextmanager
def translate(provider: str, *, reading: bool = False, started: bool = False, idle: float | None = None, secrets: Iterable[str] = ()) -> Iterator[None]:
    """Turn httpx exceptions raised inside the block into :class:`TransportError`.

    The httpx exception stays the ``__cause__``; its text arguments (and those of its
    chained causes) are first redacted of ``secrets`` in place, so no secret survives in a
    traceback.

    Args:
        provider: Provider name for the error.
        reading: The block reads a response body (a broken connection there is ``truncated``
            once ``started``).
        started: A 2xx response's body had begun (its status and headers arrived).
        idle: The idle timeout in force, named in the message of a read timeout.
        secrets: Values to remove from the httpx exception chain.
    """
    try:
        yield
    except (httpx.HTTPError, httpx.StreamError, httpx.InvalidURL) as exc:
        scrub_exception(exc, secrets)
        _raise_translated(exc, provider, reading=reading, started=started, idle=idle)


class IdleTimeout(httpx.ReadTimeout):
    """No stream event arrived within the idle timeout (keep-alive comments do not count)."""


def _raise_translated(exc: httpx.HTTPError | httpx.StreamError | httpx.InvalidURL, provider: str, *, reading: bool, started: bool, idle: float | None) -> None:
    if isinstance(exc, httpx.TimeoutException):
        if isinstance(exc, httpx.ConnectTimeout):
            message = "connect timed out"
        elif isinstance(exc, httpx.ReadTimeout) and idle is not None:
            message = str(exc) if isinstance(exc, IdleTimeout) else f"no data from the server for {idle:g} s"
        elif isinstance(exc, httpx.PoolTimeout):
            message = "no free connection in the pool"
        else:
            message = f"{type(exc).__name__.lower().replace('timeout', '')} timed out".strip()
        raise transport_error("timeout", message, provider=provider) from exc
    if isinstance(exc, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
        raise transport_error("invalid_request", "the base URL cannot be used", provider=provider) from exc
    if isinstance(exc, (httpx.NetworkError, httpx.RemoteProtocolError)):
        if reading and started:
            raise transport_error("truncated", "the connection broke in the middle of the stream", provider=provider) from exc
        raise transport_error("network", f"connection failed ({type(exc).__name__})", provider=provider) from exc
    if isinstance(exc, httpx.HTTPError):
        raise transport_error("network", f"HTTP exchange failed ({type(exc).__name__})", provider=provider) from exc
    raise transport_error("network", f"response stream unusable ({type(exc).__name__})", provider=provider) from exc


def error_item(err: TransportError) -> ErrorItem:
    """The error as a canonical :class:`~interlingua.items.ErrorItem` (for a ``StreamError``)."""
    return ErrorItem(
        code=err.code,  # type: ignore[arg-type]
        message=err.message,
        retryable=err.retryable,
        status=err.status if err.status is not None else msgspec.UNSET,
        provider=err.provider if err.provider is not None else msgspec.UNSET,
    )
