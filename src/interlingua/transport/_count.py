"""Token counting by the providers' own count endpoints (the request is built as ``generate`` builds it).

Sources: Anthropic API reference "Count tokens in a Message" (``POST /v1/messages/count_tokens``, body:
``model``, ``messages``, ``system``, ``tools``, ``tool_choice``, ``thinking``; answer ``{"input_tokens": N}``);
Gemini "models.countTokens" (``POST /v1beta/models/{model}:countTokens`` with
``{"generateContentRequest": {"model": "models/{model}", "contents", ...}}``; answer ``{"totalTokens": N}``);
OpenAI "Get input token counts" (``POST /v1/responses/input_tokens``, the Responses request's input fields;
answer ``{"object": "response.input_tokens", "input_tokens": N}``). Other providers have no count endpoint.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

__all__ = ["CountEndpoint", "count_endpoints"]


@dataclass(frozen=True)
class CountEndpoint:
    """How to count a request's input tokens on one provider.

    Attributes:
        path: ``model -> path`` appended to the base URL.
        body: ``(the generate request body, model) -> the count request body``.
        result: ``parsed answer -> token count`` (raises ``ValueError`` on an answer without one).
    """

    path: Callable[[str], str]
    body: Callable[[dict[str, Any], str], dict[str, Any]]
    result: Callable[[Any], int]


def _field(name: str) -> Callable[[Any], int]:
    def read(body: Any) -> int:
        value = body.get(name) if isinstance(body, dict) else None
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"the count response has no {name!r} count")
        return value

    return read


_ANTHROPIC_FIELDS = ("model", "messages", "system", "tools", "tool_choice", "thinking", "mcp_servers", "context_management", "output_config")
_RESPONSES_FIELDS = ("model", "input", "instructions", "tools", "tool_choice", "reasoning", "text", "truncation", "parallel_tool_calls", "previous_response_id", "conversation")


def count_endpoints() -> dict[str, CountEndpoint]:
    """The count endpoint of each built-in provider that has one, by spec name."""
    return {
        "anthropic": CountEndpoint(
            path=lambda model: "/v1/messages/count_tokens",
            body=lambda body, model: {k: v for k, v in body.items() if k in _ANTHROPIC_FIELDS},
            result=_field("input_tokens"),
        ),
        "gemini": CountEndpoint(
            path=lambda model: f"/models/{quote(model.removeprefix('models/'), safe='-._~')}:countTokens",
            body=lambda body, model: {"generateContentRequest": {"model": "models/" + model.removeprefix("models/"), **body}},
            result=_field("totalTokens"),
        ),
        "openai-responses": CountEndpoint(
            path=lambda model: "/responses/input_tokens",
            body=lambda body, model: {k: v for k, v in body.items() if k in _RESPONSES_FIELDS},
            result=_field("input_tokens"),
        ),
    }
