"""Ollama native chat HTTP rules.

Sources: ollama ``docs/api.md`` (POST ``/api/chat``, ``stream`` defaults to true, NDJSON)
and ``docs/api/errors.mdx`` (``{"error": "..."}`` bodies, HTTP status carries the kind).
A local server needs no key; one given (Ollama Cloud) is sent as a bearer token.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._spec import ProviderSpec

__all__ = ["ollama"]


def _error_code(status: int, body: Any) -> tuple[str | None, str | None]:
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, str):
        return None, None
    # Read, never passed on: Ollama's error is free text.
    if status == 404 or ("model" in error and "not found" in error):
        return "not_found", None
    return None, None


def _body(body: dict[str, Any], model: str, stream: bool, options: Mapping[str, Any]) -> dict[str, Any]:
    return {**body, "model": body.get("model", model), "stream": stream}


ollama = ProviderSpec(
    name="ollama",
    default_base_url="http://localhost:11434",
    env_vars=(),
    path=lambda model, stream: "/api/chat",
    auth_headers=lambda key: {"authorization": f"Bearer {key}"},
    prepare_body=_body,
    error_code=_error_code,
    requires_key=False,
)
"""Ollama ``/api/chat`` (NDJSON stream)."""
