"""Cohere v2 Chat mapper (``POST https://api.cohere.com/v2/chat``).

Exports the module-level :data:`mapper` (registry name ``cohere``). Shapes are the Cohere API
reference pages "Chat" and "Chat with Streaming" (v2) and the cohere-python SDK types
(``ChatMessageV2``, ``V2ChatResponse``, ``V2ChatStreamResponse``); the rules this mapper applies are
listed in ``docs/providers/cohere.md``.
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
from ._stream import CohereAccumulator

__all__ = ["CohereAccumulator", "CohereMapper", "mapper"]


@keeps_spelling
class CohereMapper(MapperBase):
    """Cohere v2 Chat both ways; implements :class:`interlingua.mapping.Mapper`.

    Attributes:
        name: ``"cohere"``.
        issuer: ``"cohere"`` (raw items).
        framing: ``"sse"``.
        id_rule: ``None``: Cohere takes any tool call id string.
    """

    name: str = NAME
    issuer: str = NAME
    framing: Framing = "sse"
    stream_end_markers: frozenset[str] = frozenset({"[DONE]"})
    """SSE data that ends a stream without being JSON (OpenAI-compatible servers send it; also after the terminal event)."""
    id_rule: IdRule | None = None

    wire = WireFunctions(decode_request, encode_request, decode_response, encode_response, CohereAccumulator)
    settings_table: SettingsTable = SETTINGS_TABLE
    item_fields: ItemFieldTable = ITEM_FIELDS
    default_capabilities = ModelCapabilities(
        input_modalities=["text", "image"],
        output_modalities=["text"],
        tools=True,
        parallel_tool_calls=True,
        requires_tool_definitions=True,
        reasoning=True,
        streaming=True,
        structured_output=True,
        prompt_caching=False,
        stop_sequences=True,
        assistant_prefill=False,
        raw_round_trip=True,
    )
    """Defaults for Cohere v2 chat (used when no model table entry matches).

    Text and image input (Command A Vision; the model table narrows per model), text output;
    tools with parallel calls (tool definitions needed for tool calls in the history); reasoning
    (Command A Reasoning, ``thinking``); streaming; structured output (``response_format``);
    stop sequences; raw round trip. No prompt caching control and no assistant prefill.
    """

    def kind_of(self, body: Mapping[str, Any]) -> Literal["request", "response"] | None:
        """``"response"``: a ``message`` object beside ``finish_reason``; ``"request"``: ``messages``
        (with a Cohere-only field such as ``tool_plan`` or ``p``/``k``, or the plain shape)."""
        if not isinstance(body, Mapping):
            return None
        if isinstance(body.get("message"), Mapping) and "finish_reason" in body:
            return "response"
        return "request" if isinstance(body.get("messages"), list) else None


mapper = CohereMapper()
"""The Cohere v2 Chat mapper."""
