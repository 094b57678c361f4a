"""Gemini ``generateContent`` HTTP rules.

Sources: API reference "generateContent" / "streamGenerateContent" (model in the URL
path: ``/v1beta/models/{model}:generateContent``, ``:streamGenerateContent?alt=sse`` for
SSE), "API keys" (``x-goog-api-key`` header; the key never goes in the URL here) and
"Troubleshooting" (``error.status`` values such as ``RESOURCE_EXHAUSTED``), "Rate limits" (a 429
carries ``google.rpc.QuotaFailure`` and ``google.rpc.RetryInfo`` in ``error.details``; googleapis
``google/rpc/error_details.proto``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from ._spec import ProviderSpec, error_token, parse_duration

__all__ = ["gemini"]

_STATUS = {
    "INVALID_ARGUMENT": "invalid_request",
    "FAILED_PRECONDITION": "invalid_request",
    "OUT_OF_RANGE": "invalid_request",
    "UNAUTHENTICATED": "auth",
    "PERMISSION_DENIED": "auth",
    "NOT_FOUND": "not_found",
    "RESOURCE_EXHAUSTED": "rate_limit",
    "INTERNAL": "server",
    "UNAVAILABLE": "server",
    "DEADLINE_EXCEEDED": "timeout",
}


def _error_code(status: int, body: Any) -> tuple[str | None, str | None]:
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(body, list) and body and isinstance(body[0], dict):
        error = body[0].get("error")
    if not isinstance(error, dict):
        return None, None
    token = error_token(error.get("status"))
    code = _STATUS.get(token or "")
    message = error.get("message")
    # Read, never passed on: an over-long prompt is INVALID_ARGUMENT told apart only by its text.
    if code == "invalid_request" and isinstance(message, str) and "token count" in message.lower() and "exceeds" in message.lower():
        code = "context_length"
    return code, token


def _details(body: Any) -> list[Any]:
    error = body[0].get("error") if isinstance(body, list) and body and isinstance(body[0], dict) else body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    return [d for d in details if isinstance(d, dict)] if isinstance(details, list) else []


def _body_reset(body: Any) -> float | None:
    """``google.rpc.RetryInfo.retryDelay`` (a protobuf Duration in JSON: ``"17s"``, ``"0.5s"``) in ``error.details``."""
    for detail in _details(body):
        if str(detail.get("@type", "")).endswith("google.rpc.RetryInfo") and isinstance(detail.get("retryDelay"), str):
            return parse_duration(detail["retryDelay"])
    return None


def _quota_error(body: Any) -> bool:
    """A ``google.rpc.QuotaFailure`` in ``error.details``: a quota (per minute or per day) is used up."""
    return any(str(d.get("@type", "")).endswith("google.rpc.QuotaFailure") for d in _details(body))


def _path(model: str, stream: bool) -> str:
    name = quote(model.removeprefix("models/"), safe="-._~")
    return f"/models/{name}:streamGenerateContent?alt=sse" if stream else f"/models/{name}:generateContent"


def _body(body: dict[str, Any], model: str, stream: bool, options: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "model"}


gemini = ProviderSpec(
    name="gemini",
    default_base_url="https://generativelanguage.googleapis.com/v1beta",
    env_vars=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    path=_path,
    auth_headers=lambda key: {"x-goog-api-key": key},
    prepare_body=_body,
    error_code=_error_code,
    body_reset=_body_reset,
    quota_error=_quota_error,
    stream_by_url=True,
)
"""Gemini; the stream choice is the URL, not a body flag."""
