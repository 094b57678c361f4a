"""Gemini helpers shared by the request, response and stream modules.

Key spelling: the REST API writes camelCase (``functionCall``); the google-genai
SDK and recordings made through it also send snake_case (``function_call``,
``parameters_json_schema``, ``thought_signature``). :func:`get` reads either;
the mapper always writes camelCase (GEN ``types.py`` ``_Part_to_mldev``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

import msgspec

from ...mapping.wire import json_copy

__all__ = ["ISSUER", "NAME", "SIG_NAMESPACE", "camel", "error_item", "get", "has", "jcopy", "keyset", "snake", "tag_of"]

NAME = "gemini"
"""Registry name, also written into ``origin.provider`` and ``raw.provider``."""

ISSUER = "gemini"
"""Issuer of thought signatures (``reasoning.opaque.issuer``)."""

SIG_NAMESPACE = "gemini.thought_signature"
"""Namespace of a thought signature in ``reasoning.opaque``."""

_SNAKE_RE = re.compile(r"(?<!^)([A-Z])")


@functools.lru_cache(maxsize=1024)  # a pure function of a few hundred distinct keys, called per key per chunk
def snake(key: str) -> str:
    """``thoughtSignature`` -> ``thought_signature``."""
    return _SNAKE_RE.sub(r"_\1", key).lower()


@functools.lru_cache(maxsize=1024)
def camel(key: str) -> str:
    """``thought_signature`` -> ``thoughtSignature`` (camelCase keys are returned unchanged)."""
    head, *rest = key.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def get(obj: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """Value of camelCase ``key`` in ``obj``, falling back to its snake_case spelling."""
    if key in obj:
        return obj[key]
    return obj.get(snake(key), default)


def has(obj: Mapping[str, Any], key: str) -> bool:
    """Whether ``obj`` holds camelCase ``key`` in either spelling."""
    return key in obj or snake(key) in obj


def keyset(obj: Mapping[str, Any]) -> set[str]:
    """The keys of ``obj`` in camelCase."""
    return {camel(k) for k in obj}


def jcopy(value: Any) -> Any:
    """A deep copy of a JSON value, so items never alias the caller's input."""
    return json_copy(value)


_STATUS_CODES = {400: "invalid_request", 401: "auth", 403: "auth", 404: "not_found", 408: "timeout", 413: "invalid_request",
                 422: "invalid_request", 429: "rate_limit", 499: "cancelled", 500: "server", 503: "overloaded", 504: "timeout"}
_RETRYABLE = {"rate_limit", "server", "overloaded", "timeout"}


def error_item(error: Any) -> Any:
    """A Gemini ``{"error": {code, message, status}}`` object -> ``ErrorItem``.

    The message is built from the HTTP code and the status enum only (never the upstream text).
    """
    from ...items import ErrorItem

    http = error.get("code") if isinstance(error, Mapping) else None
    status = error.get("status") if isinstance(error, Mapping) else None
    http = http if isinstance(http, int) and 100 <= http <= 599 else None
    code = _STATUS_CODES.get(http or 0, "server" if http and http >= 500 else "provider_error")
    if isinstance(status, str) and status == "RESOURCE_EXHAUSTED":
        code = "rate_limit"
    label = status if isinstance(status, str) and status.replace("_", "").isalnum() and status.isupper() else "error"
    message = f"Gemini reported {label}" + (f" (HTTP {http})" if http else "")
    return ErrorItem(
        code=code,  # type: ignore[arg-type]
        message=message,
        retryable=code in _RETRYABLE,
        status=http if http is not None else msgspec.UNSET,
        provider=NAME,
    )


def tag_of(obj: Any) -> str:
    """The canonical ``type`` tag of an item or source struct."""
    return str(type(obj).__struct_config__.tag)
