"""OpenAI HTTP rules: Chat Completions and Responses (also OpenAI-compatible servers).

Sources: API reference "Chat Completions" / "Responses" (POST ``/v1/chat/completions``,
``/v1/responses``), "Error codes" and "Rate limits" (``x-ratelimit-remaining-*`` /
``x-ratelimit-reset-*`` headers, durations like ``6m0s``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..hosts import HOSTS
from ._spec import ProviderSpec, error_token, parse_duration

__all__ = ["openai_chat", "openai_chat_host", "openai_responses"]

_CODES = {
    "context_length_exceeded": "context_length",
    "string_above_max_length": "context_length",
    "rate_limit_exceeded": "rate_limit",
    "insufficient_quota": "rate_limit",
    "model_not_found": "not_found",
    "content_filter": "content_filter",
    "content_policy_violation": "content_filter",
    "invalid_api_key": "auth",
    "invalid_request_error": "invalid_request",
    "authentication_error": "auth",
    "permission_error": "auth",
    "not_found_error": "not_found",
    "server_error": "server",
    "rate_limit_error": "rate_limit",
}


def _error_code(status: int, body: Any) -> tuple[str | None, str | None]:
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None, None
    for key in ("code", "type"):
        token = error_token(error.get(key))
        if token and token in _CODES:
            return _CODES[token], token
    return None, error_token(error.get("code")) or error_token(error.get("type"))


def _reset_delay(headers: Mapping[str, str], now: float | None = None) -> float | None:
    waits = []
    for kind in ("requests", "tokens"):
        if headers.get(f"x-ratelimit-remaining-{kind}", "").strip() == "0":
            wait = parse_duration(headers.get(f"x-ratelimit-reset-{kind}", ""))
            if wait is not None:
                waits.append(wait)
    return max(waits) if waits else None


_TRY_AGAIN = re.compile(r"try again in (\d+(?:\.\d+)?(?:ms|s|m|h)(?:\d+(?:\.\d+)?(?:ms|s|m|h))*)")


def _body_reset(body: Any) -> float | None:
    """The wait in a 429's message ("... Please try again in 6m0s. ..." / "in 20ms"), read, never passed on."""
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    match = _TRY_AGAIN.search(message) if isinstance(message, str) else None
    return parse_duration(match.group(1)) if match else None


def _quota_error(body: Any) -> bool:
    """``insufficient_quota``: the account's credit or monthly quota is used up (API reference "Error codes")."""
    error = body.get("error") if isinstance(body, dict) else None
    return isinstance(error, dict) and "insufficient_quota" in (error.get("code"), error.get("type"))


def _bearer(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}


def _chat_body(body: dict[str, Any], model: str, stream: bool, options: Mapping[str, Any]) -> dict[str, Any]:
    out = {**body, "model": body.get("model", model), "stream": stream}
    if stream and options.get("stream_usage", True) and "stream_options" not in out:
        out["stream_options"] = {"include_usage": True}
    return out


def _responses_body(body: dict[str, Any], model: str, stream: bool, options: Mapping[str, Any]) -> dict[str, Any]:
    return {**body, "model": body.get("model", model), "stream": stream}


openai_chat = ProviderSpec(
    name="openai-chat",
    default_base_url="https://api.openai.com/v1",
    env_vars=("OPENAI_API_KEY",),
    path=lambda model, stream: "/chat/completions",
    auth_headers=_bearer,
    prepare_body=_chat_body,
    error_code=_error_code,
    reset_delay=_reset_delay,
    body_reset=_body_reset,
    quota_error=_quota_error,
    options=frozenset({"stream_usage"}),
    no_key_hint=(
        "a local OpenAI-compatible server that takes no key needs none under its own name: "
        + ", ".join(f"openai-chat:{h.name}" for h in HOSTS.values() if h.local)
        + " (--provider or Client(...)), with the base URL"
    ),
)
"""Chat Completions; ``stream_options.include_usage`` is set on streams (option ``stream_usage=False`` turns it off)."""

openai_responses = ProviderSpec(
    name="openai-responses",
    default_base_url="https://api.openai.com/v1",
    env_vars=("OPENAI_API_KEY",),
    path=lambda model, stream: "/responses",
    auth_headers=_bearer,
    prepare_body=_responses_body,
    error_code=_error_code,
    reset_delay=_reset_delay,
    body_reset=_body_reset,
    quota_error=_quota_error,
)
"""Responses API."""


def openai_chat_host(dialect: str) -> ProviderSpec | None:
    """The HTTP rules of ``openai-chat:<dialect>``: Chat Completions at the host's own API root, the key
    from the host's own environment variable (none for local servers), both from the host registry
    (:data:`interlingua.hosts.HOSTS`). ``None`` for a dialect with no host of its own (pass
    ``base_url=`` and use ``openai-chat``)."""
    if dialect == "openai":
        return replace(openai_chat, name="openai-chat:openai")
    host = HOSTS.get(dialect)
    if host is None or host.base_url is None:
        return None
    env = host.env_vars
    return replace(openai_chat, name=f"openai-chat:{dialect}", default_base_url=host.base_url, env_vars=env, requires_key=bool(env), no_key_hint="")
