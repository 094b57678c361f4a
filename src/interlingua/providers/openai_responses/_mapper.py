"""The OpenAI Responses mapper object (``openai-responses``)."""

from __future__ import annotations

from collections.abc import Mapping

import msgspec
from typing import Any, Literal

from ...items import ModelCapabilities, Transcript
from ...mapping.protocol import Conversion, Framing, ModelResponse
from ...mapping.report import Policy
from ...mapping.vendor_models import VendorModels
from ..openai_chat._common import OPENAI_MODELS
from ...mapping.base import MapperBase, WireFunctions
from ...mapping.item_fields import ItemFieldTable
from ...mapping.settings_table import SettingsTable
from ...mapping.spelling import keeps_spelling
from ._common import ID_RULE, ISSUER, NAME
from ._request import decode_request, encode_request
from ._response import decode_response, encode_response
from ._settings import SETTINGS_TABLE
from ._fields import ITEM_FIELDS
from ._stream import ResponsesAccumulator

__all__ = ["OpenAIResponsesMapper"]

_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5", "codex")


@keeps_spelling
class OpenAIResponsesMapper(MapperBase):
    """OpenAI Responses API (``POST /v1/responses``) both ways.

    Attributes:
        name: ``openai-responses``.
        issuer: ``openai-responses`` (opaque ``openai.encrypted_content`` and raw items).
        framing: ``sse`` (``event:`` names, no ``[DONE]``).
        id_rule: ``call_id`` at most 64 characters; derived ids start with ``call_``.
    """

    name: str = NAME
    issuer: str = ISSUER
    framing: Framing = "sse"
    stream_end_markers: frozenset[str] = frozenset({"[DONE]"})
    """SSE data that ends a stream without being JSON (OpenAI-compatible servers send it; also after the terminal event)."""
    id_rule = ID_RULE
    vendor_models: tuple[VendorModels, ...] = (OPENAI_MODELS,)
    """OpenAI's model ids, the same as on Chat Completions (the model carries between the two)."""

    wire = WireFunctions(decode_request, encode_request, decode_response, encode_response, ResponsesAccumulator)
    settings_table: SettingsTable = SETTINGS_TABLE
    item_fields: ItemFieldTable = ITEM_FIELDS
    default_capabilities = ModelCapabilities(
        input_modalities=["text", "image", "document"],
        output_modalities=["text"],
        tools=True,
        parallel_tool_calls=True,
        requires_tool_definitions=False,
        reasoning=False,
        streaming=True,
        structured_output=True,
        prompt_caching=True,
        stop_sequences=False,
        assistant_prefill=False,
        raw_round_trip=True,
    )
    """Defaults for the Responses API: text, image and file input; function tools with parallel
    calls; streaming; structured output (``text.format``); prompt caching; raw items round-trip.
    No stop sequences (the create params have no ``stop``), no assistant prefill. Reasoning for
    o-series, gpt-5 and codex model names (:meth:`capabilities`)."""

    def kind_of(self, body: Mapping[str, Any]) -> Literal["request", "response"] | None:
        """``response``: ``output`` with ``object == "response"``; ``request``: ``input``, or
        ``instructions`` with ``model`` and no ``output``; else ``None``."""
        if not isinstance(body, Mapping):
            return None
        if "output" in body and body.get("object") == "response":
            return "response"
        if "output" in body:
            return None
        if "input" in body or ("instructions" in body and "model" in body):
            return "request"
        return None

    def capabilities(self, model: str | None) -> ModelCapabilities:
        """:attr:`default_capabilities`, with reasoning for o-series, gpt-5 and codex model names."""
        reasoning = bool(model) and model.lower().startswith(_REASONING_PREFIXES)  # type: ignore[union-attr]
        return msgspec.structs.replace(super().capabilities(model), reasoning=reasoning)
