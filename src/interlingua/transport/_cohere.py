"""Cohere v2 chat HTTP rules.

Sources: Cohere API reference "Chat" (v2: ``POST https://api.cohere.com/v2/chat``, bearer key, ``stream:
true`` for the SSE stream of ``message-start`` ... ``message-end`` events) and cohere-python
``client.py`` (the key from ``CO_API_KEY``, else ``COHERE_API_KEY``; the base URL
``https://api.cohere.com``) and ``errors/`` (HTTP 498 ``InvalidTokenError``: a bad key; error bodies are
``{"id", "message"}`` with no type field).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._openai import _bearer
from ._spec import ProviderSpec

__all__ = ["cohere"]


def _error_code(status: int, body: Any) -> tuple[str | None, str | None]:
    if status == 498:  # cohere-python InvalidTokenError: the key is not valid
        return "auth", "invalid_token"
    return None, None  # the status decides (the body has no machine-readable type)


def _body(body: dict[str, Any], model: str, stream: bool, options: Mapping[str, Any]) -> dict[str, Any]:
    return {**body, "model": body.get("model", model), "stream": stream}


cohere = ProviderSpec(
    name="cohere",
    default_base_url="https://api.cohere.com",
    env_vars=("CO_API_KEY", "COHERE_API_KEY"),
    path=lambda model, stream: "/v2/chat",
    auth_headers=_bearer,
    prepare_body=_body,
    error_code=_error_code,
)
"""Cohere ``/v2/chat`` (SSE stream when ``stream`` is true)."""
