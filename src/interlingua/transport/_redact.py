"""The one redaction function used by logging, recording and errors.

Credentials travel only in request headers; everything that leaves the
transport as text (log lines, fixture files, error messages, reprs) goes
through :func:`redact` first, which blanks credential headers and query
parameters and removes any known secret value wherever it appears.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["MIN_SECRET_LENGTH", "REDACTED", "SENSITIVE_HEADERS", "SENSITIVE_PARAMS", "redact"]

REDACTED = "REDACTED"

MIN_SECRET_LENGTH = 8
"""Shorter values are not searched for in free text (a one-letter "key" would blank every
occurrence of that letter); credential headers and parameters are still replaced by name."""

SENSITIVE_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "cookie",
        "set-cookie",
        "openai-organization",
        "openai-project",
    }
)
"""Header names (lower case) whose values are always replaced."""

SENSITIVE_PARAMS = frozenset({"key", "api_key", "apikey", "access_token", "token"})
"""URL query parameters whose values are always replaced."""


def _scrub(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    return text


def _url(url: str, secrets: Iterable[str]) -> str:
    parts = urlsplit(url)
    if parts.query:
        query = [(k, REDACTED if k.lower() in SENSITIVE_PARAMS else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
        parts = parts._replace(query=urlencode(query, safe=":/"))
    if parts.password or parts.username:
        host = parts.hostname or ""
        parts = parts._replace(netloc=host if parts.port is None else f"{host}:{parts.port}")
    return _scrub(urlunsplit(parts), secrets)


def redact(value: Any, secrets: Iterable[str] = (), *, kind: str = "text") -> Any:
    """Return ``value`` with every credential removed.

    Args:
        value: A header mapping (``kind="headers"``), a URL (``kind="url"``), or any text
            (``kind="text"``); lists and dicts of text are redacted element by element.
        secrets: Secret values (API keys) to remove wherever they occur (those of at least
            :data:`MIN_SECRET_LENGTH` characters).
        kind: How to read ``value``.

    Returns:
        A new object of the same shape; the input is not changed.
    """
    secrets = tuple(s for s in secrets if len(s) >= MIN_SECRET_LENGTH)
    if kind == "headers":
        return {
            k: (REDACTED if k.lower() in SENSITIVE_HEADERS else _scrub(str(v), secrets))
            for k, v in (value.items() if isinstance(value, Mapping) else value)
        }
    if kind == "url":
        return _url(str(value), secrets)
    if isinstance(value, str):
        return _scrub(value, secrets)
    if isinstance(value, list):
        return [redact(v, secrets) for v in value]
    if isinstance(value, dict):
        return {k: redact(v, secrets) for k, v in value.items()}
    return value
