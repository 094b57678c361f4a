"""Anthropic Messages API mapper (``POST /v1/messages``).

Exports the module-level :data:`mapper` (registry name ``anthropic``). Wire facts and their
sources: the providers' API references; the rules this mapper applies are
listed in ``docs/providers/anthropic.md``.
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
from ...mapping.vendor_models import VendorModels
from ._blocks import ID_RULE, ISSUER, NAME
from ._request import decode_request, encode_request
from ._response import decode_response, encode_response
from ._fields import ITEM_FIELDS
from ._settings import SETTINGS_TABLE
from ._stream import AnthropicAccumulator

__all__ = ["AnthropicAccumulator", "AnthropicMapper", "foreign_request_fields", "mapper"]

_FOREIGN_MESSAGE_KEYS = ("tool_calls", "tool_call_id", "function_call", "images", "tool_name")


def foreign_request_fields(body: Mapping[str, Any]) -> str | None:
    """What in a ``messages`` body no Messages API request holds, or ``None``.

    ``MessageParam`` (``anthropic.types.MessageParam``; API reference "Messages") has no ``tool``,
    ``developer`` or ``function`` role and no ``tool_calls``/``tool_call_id``/``function_call``/
    ``images``/``tool_name`` keys (tool use rides in ``tool_use``/``tool_result`` blocks); tools are
    ``{name, input_schema}`` or typed server tools, never ``{"type": "function", "function": {...}}``.
    """
    tools = body.get("tools")
    if isinstance(tools, list) and any(isinstance(t, Mapping) and ("function" in t or t.get("type") == "function") for t in tools):
        return "a function tool ({'type': 'function', 'function': ...})"
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else ():
        if not isinstance(message, Mapping):
            continue
        if message.get("role") in ("tool", "developer", "function"):
            return f"a message with role {message['role']!r}"
        for key in _FOREIGN_MESSAGE_KEYS:
            if key in message:
                return f"a message with {key!r}"
    return None


@keeps_spelling
class AnthropicMapper(MapperBase):
    """Anthropic Messages both ways; implements :class:`interlingua.mapping.Mapper`.

    Attributes:
        name: ``"anthropic"``.
        issuer: ``"anthropic"`` (opaque thinking signatures and raw items).
        framing: ``"sse"``.
        id_rule: ``tool_use.id`` must match ``^[a-zA-Z0-9_-]+$``; derived ids start with ``toolu_``.
    """

    name: str = NAME
    issuer: str = ISSUER
    framing: Framing = "sse"
    stream_end_markers: frozenset[str] = frozenset()
    id_rule: IdRule | None = ID_RULE
    vendor_models: tuple[VendorModels, ...] = (VendorModels("anthropic", ("claude-*",)),)
    """Anthropic's Claude ids (Bedrock names the dated ones too: the model carries there, renamed)."""

    wire = WireFunctions(decode_request, encode_request, decode_response, encode_response, AnthropicAccumulator)
    settings_table: SettingsTable = SETTINGS_TABLE
    item_fields: ItemFieldTable = ITEM_FIELDS
    default_capabilities = ModelCapabilities(
        input_modalities=["text", "image", "document"],
        output_modalities=["text"],
        tools=True,
        parallel_tool_calls=True,
        requires_tool_definitions=True,
        reasoning=True,
        streaming=True,
        structured_output=False,
        prompt_caching=True,
        stop_sequences=True,
        assistant_prefill=True,
        raw_round_trip=True,
    )
    """Defaults for current Claude models (used when no model table entry matches).

    Text, image and document (PDF/plain text) input; text output; tools with parallel calls,
    and tool definitions required whenever the history holds tool calls; extended thinking;
    streaming; prompt caching; stop sequences; assistant prefill; raw round trip of
    Anthropic blocks with no canonical form. No audio.
    """

    def kind_of(self, body: Mapping[str, Any]) -> Literal["request", "response"] | None:
        """``"request"`` when ``body`` has ``messages``; ``"response"`` when ``type == "message"`` with ``content``.

        A ``messages`` body that holds what no Messages request can (see :func:`foreign_request_fields`)
        is ``None``: it belongs to another format.
        """
        if not isinstance(body, Mapping):
            return None
        if isinstance(body.get("messages"), list):
            return None if foreign_request_fields(body) else "request"
        if body.get("type") == "message" and isinstance(body.get("content"), list):
            return "response"
        return None


mapper = AnthropicMapper()
"""The Anthropic Messages mapper."""
