"""The ``mistralai`` SDK's types as a strict oracle for the bodies the ``mistral`` mapper writes.

Requests: ``ChatCompletionRequest`` (``stream`` absent or false) / ``ChatCompletionStreamRequest``;
responses: ``ChatCompletionResponse``. Strict as ``oracle.check_model`` is: pydantic strict JSON
mode, then every key of the body must be a field of the model the SDK chose for it (the SDK's
models allow extra keys; this refuses them). ``MISTRAL_SERVER_KEYS``: usage keys the API returns
(seen in every recorded response, tests/fixtures/real/mistral) that ``UsageInfo`` lags behind.
"""

from __future__ import annotations

from typing import Any

from .oracle import check_model

MISTRAL_SERVER_KEYS: dict[str, frozenset[str]] = {"UsageInfo": frozenset({"num_cached_tokens", "prompt_tokens_details"})}

__all__ = ["MISTRAL_SERVER_KEYS", "check_mistral_request", "check_mistral_response"]


def check_mistral_request(body: Any) -> list[str]:
    """Problems with a Mistral request body (empty list: accepted)."""
    from mistralai.client.models import ChatCompletionRequest, ChatCompletionStreamRequest

    if not isinstance(body, dict):
        return [": not an object"]
    model = ChatCompletionStreamRequest if body.get("stream") is True else ChatCompletionRequest
    # A tool's ``parameters`` is a JSON Schema (the SDK types it as a free dict), open like the others.
    return check_model(model, body)


def check_mistral_response(body: Any) -> list[str]:
    """Problems with a Mistral response body (empty list: accepted)."""
    from mistralai.client.models import ChatCompletionResponse

    return check_model(ChatCompletionResponse, body, extra_keys=MISTRAL_SERVER_KEYS)
