"""Anthropic Messages HTTP rules.

Sources: API reference "Messages" (POST ``/v1/messages``, ``x-api-key``,
``anthropic-version: 2023-06-01``, ``max_tokens`` required), "Errors" (``error.type``:
``overloaded_error`` is HTTP 529) and "Rate limits" (``anthropic-ratelimit-*-remaining`` /
``-reset`` RFC 3339 times).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._spec import ProviderSpec, error_token, parse_reset_time

__all__ = ["DEFAULT_MAX_TOKENS", "anthropic"]

DEFAULT_MAX_TOKENS = 4096
"""``max_tokens`` sent when neither the body nor the ``max_tokens`` option sets it."""

_TYPES = {
    "invalid_request_error": "invalid_request",
    "authentication_error": "auth",
    "permission_error": "auth",
    "not_found_error": "not_found",
    "request_too_large": "invalid_request",
    "rate_limit_error": "rate_limit",
    "api_error": "server",
    "overloaded_error": "overloaded",
    "timeout_error": "timeout",
}


def _error_code(status: int, body: Any) -> tuple[str | None, str | None]:
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None, None
    token = error_token(error.get("type"))
    code = _TYPES.get(token or "")
    message = error.get("message")
    # Read, never passed on: the only signal for an over-long prompt is the message text.
    if code == "invalid_request" and isinstance(message, str) and "prompt is too long" in message.lower():
        code = "context_length"
    return code, token


def _reset_delay(headers: Mapping[str, str], now: float | None = None) -> float | None:
    waits = []
    for kind in ("requests", "tokens", "input-tokens", "output-tokens"):
        if headers.get(f"anthropic-ratelimit-{kind}-remaining", "").strip() == "0":
            wait = parse_reset_time(headers.get(f"anthropic-ratelimit-{kind}-reset", ""), now)
            if wait is not None:
                waits.append(wait)
    return max(waits) if waits else None


def _body(body: dict[str, Any], model: str, stream: bool, options: Mapping[str, Any]) -> dict[str, Any]:
    out = {**body, "model": body.get("model", model), "stream": stream}
    out.setdefault("max_tokens", int(options.get("max_tokens", DEFAULT_MAX_TOKENS)))
    return out


anthropic = ProviderSpec(
    name="anthropic",
    default_base_url="https://api.anthropic.com",
    env_vars=("ANTHROPIC_API_KEY",),
    path=lambda model, stream: "/v1/messages",
    auth_headers=lambda key: {"x-api-key": key},
    extra_headers={"anthropic-version": "2023-06-01"},
    prepare_body=_body,
    error_code=_error_code,
    reset_delay=_reset_delay,
    options=frozenset({"max_tokens"}),
    option_settings={"max_tokens": "max_output_tokens"},
)
"""Anthropic Messages; option ``max_tokens`` (default :data:`DEFAULT_MAX_TOKENS`) when neither the
body nor the settings set it (prefer ``settings={"max_output_tokens": N}``)."""
