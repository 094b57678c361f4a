"""Mistral chat HTTP rules.

Sources: Mistral API reference "Chat Completion" (``POST https://api.mistral.ai/v1/chat/completions``,
bearer key, SSE stream ending with ``data: [DONE]``, usage on the last chunk without any
``stream_options``), ``mistralai`` SDK ``models/httpvalidationerror.py`` (422 ``{"detail": [...]}``)
and the OpenAI-style error object ``{"object": "error", "message", "type", "code"}`` the API returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._openai import _bearer
from ._openai import _error_code as _openai_error_code
from ._spec import ProviderSpec, error_token

__all__ = ["mistral"]


def _error_code(status: int, body: Any) -> tuple[str | None, str | None]:
    if isinstance(body, dict) and body.get("object") == "error":
        token = error_token(body.get("code")) or error_token(body.get("type"))
        return _openai_error_code(status, {"error": body})[0], token
    if isinstance(body, dict) and isinstance(body.get("detail"), list):
        return "invalid_request", None  # request validation failed (HTTPValidationError)
    return _openai_error_code(status, body)


def _body(body: dict[str, Any], model: str, stream: bool, options: Mapping[str, Any]) -> dict[str, Any]:
    return {**body, "model": body.get("model", model), "stream": stream}


mistral = ProviderSpec(
    name="mistral",
    default_base_url="https://api.mistral.ai/v1",
    env_vars=("MISTRAL_API_KEY",),
    path=lambda model, stream: "/chat/completions",
    auth_headers=_bearer,
    prepare_body=_body,
    error_code=_error_code,
)
"""Mistral ``/v1/chat/completions`` (SSE stream; no ``stream_options``)."""
