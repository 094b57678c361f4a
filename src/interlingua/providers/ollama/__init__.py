"""Ollama native ``/api/chat`` mapper (the providers' API references; OLL ``docs/api.md``, ``api/types.go``).

Rules: :mod:`._messages` (messages <-> items, images, thinking, tool calls and results), :mod:`._request`,
:mod:`._response`, :mod:`._stream` (NDJSON accumulator). Overview with sources: ``docs/providers/ollama.md``.
Ollama's OpenAI-compatible ``/v1/chat/completions`` is the ``openai-chat`` mapper's business.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from ...items import ModelCapabilities, Transcript
from ...mapping.ids import IdRule
from ...mapping.base import MapperBase, WireFunctions
from ...mapping.item_fields import ItemFieldTable
from ...mapping.settings_table import SettingsTable
from ...mapping.spelling import keeps_spelling
from ...mapping.protocol import Conversion, Framing, ModelResponse
from ...mapping.report import Policy
from ._common import NAME
from ._request import decode_request, encode_request
from ._response import decode_response, encode_response
from ._settings import SETTINGS_TABLE
from ._fields import ITEM_FIELDS
from ._stream import OllamaAccumulator

__all__ = ["OllamaMapper", "foreign_request_fields", "mapper", "ollama_markers"]


def foreign_request_fields(body: Mapping[str, Any]) -> str | None:
    """What in a ``messages`` body no Ollama ``/api/chat`` request holds, or ``None``.

    ``ChatRequest`` (``api/types.go``) has no top-level ``system``; ``Message.content`` is a string
    (images ride in ``images``), so a list of content blocks is another format; tools are
    ``{"type": "function", "function": {...}}``, never a tool with ``input_schema``; Chat Completions'
    top-level settings (:data:`_CHAT_ONLY_FIELDS`) are not ``ChatRequest`` fields.
    """
    if "system" in body:
        return "a top-level 'system'"
    chat_only = [key for key in _CHAT_ONLY_FIELDS if key in body]
    if chat_only:
        return f"top-level {', '.join(repr(k) for k in chat_only)} (Chat Completions fields; Ollama takes sampling in 'options')"
    tools = body.get("tools")
    if isinstance(tools, list) and any(isinstance(t, Mapping) and "input_schema" in t for t in tools):
        return "a tool with 'input_schema'"
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else ():
        if isinstance(message, Mapping) and isinstance(message.get("content"), list):
            return "a message whose content is a list of blocks"
    return None


_OLLAMA_ONLY_FIELDS = ("think", "format", "options", "keep_alive")
_CHAT_ONLY_FIELDS = ("tool_choice", "parallel_tool_calls", "max_tokens", "max_completion_tokens", "stream_options", "response_format", "temperature", "top_p", "n", "presence_penalty", "frequency_penalty")
"""Top-level fields of an OpenAI Chat Completions request that ``ollama._types.ChatRequest`` (``api/types.go``
``ChatRequest``) does not have: a ``messages`` body holding one is Ollama's OpenAI-compatible
``/v1/chat/completions`` (read it as ``openai-chat``), not ``/api/chat``."""
_OLLAMA_ONLY_MESSAGE_FIELDS = ("thinking", "images", "tool_name")


def ollama_markers(body: Mapping[str, Any]) -> bool:
    """Whether a ``messages`` body holds what only an Ollama ``/api/chat`` request holds.

    ``ChatRequest`` (``api/types.go``): top-level ``think``, ``format``, ``options``, ``keep_alive``,
    or ``stream`` given as a boolean (:func:`encode_request` always writes it: Ollama streams unless
    told not to, while a Chat Completions body leaves it out by default); ``Message``: ``thinking``,
    ``images``, ``tool_name``, or a tool call whose ``function.arguments`` is a JSON object (Chat
    Completions sends a string). Used to read a body written without ``model`` back as Ollama.
    """
    if any(name in body for name in _OLLAMA_ONLY_FIELDS) or isinstance(body.get("stream"), bool):
        return True
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else ():
        if not isinstance(message, Mapping):
            continue
        if any(name in message for name in _OLLAMA_ONLY_MESSAGE_FIELDS):
            return True
        calls = message.get("tool_calls")
        for call in calls if isinstance(calls, list) else ():
            fn = call.get("function") if isinstance(call, Mapping) else None
            if isinstance(fn, Mapping) and isinstance(fn.get("arguments"), Mapping):
                return True
    return False


@keeps_spelling
class OllamaMapper(MapperBase):
    """The Ollama ``/api/chat`` wire format, both ways (see the package docstring)."""

    name: str = NAME
    issuer: str = NAME
    framing: Framing = "ndjson"
    stream_end_markers: frozenset[str] = frozenset()
    id_rule: IdRule | None = None
    spelling_fixed: tuple[tuple[str, ...], ...] = (("stream",),)
    """``stream`` is always written (Ollama streams when it is absent): kept out of the source's spelling (ADR 0027)."""

    wire = WireFunctions(decode_request, encode_request, decode_response, encode_response, OllamaAccumulator)
    settings_table: SettingsTable = SETTINGS_TABLE
    item_fields: ItemFieldTable = ITEM_FIELDS
    default_capabilities = ModelCapabilities(
        input_modalities=["text", "image"],
        output_modalities=["text"],
        tools=True,
        parallel_tool_calls=True,
        reasoning=True,
        streaming=True,
        structured_output=True,
        prompt_caching=False,
        stop_sequences=True,
        assistant_prefill=True,
        raw_round_trip=True,
    )
    """Conservative defaults for a local model: text and images in, tools, thinking, streaming, JSON format."""

    def kind_of(self, body: Mapping[str, Any]) -> Literal["request", "response"] | None:
        """``request``: ``messages`` and ``model`` without ``done`` (or, without ``model``, with a field
        only Ollama has: :func:`ollama_markers`, so ``encode_request`` without a model reads back);
        ``response``: ``message`` and ``done``, or an error answer ``{"error": "<text>"}``.

        A ``messages`` body that holds what no ``/api/chat`` request can (see
        :func:`foreign_request_fields`) is ``None``: it belongs to another format.
        """
        if not isinstance(body, Mapping):
            return None
        if "messages" in body and "done" not in body and ("model" in body or ollama_markers(body)):
            return None if foreign_request_fields(body) else "request"
        if "message" in body and "done" in body:
            return "response"
        if isinstance(body.get("error"), str) and "messages" not in body:
            return "response"  # an error answer: {"error": "..."} (docs/api/errors.mdx)
        return None


mapper = OllamaMapper()
"""The module-level mapper the registry loads."""
