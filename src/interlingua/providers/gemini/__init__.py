"""Google Gemini ``generateContent`` mapper (the providers' API references; GEN ``types.py``).

Rules: :mod:`._request` (history, system instruction, tools), :mod:`._parts` (parts <-> items, thought
signatures, function call ids), :mod:`._response` (candidates, finish reasons, usage), :mod:`._stream`
(SSE accumulator). Overview with sources: ``docs/providers/gemini.md``.
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
from ._common import ISSUER, NAME, has
from ._request import decode_request, encode_request
from ._response import decode_response, encode_response
from ._settings import SETTINGS_TABLE
from ._fields import ITEM_FIELDS
from ._stream import GeminiAccumulator

__all__ = ["GeminiMapper", "mapper"]


@keeps_spelling
class GeminiMapper(MapperBase):
    """The Gemini ``generateContent`` wire format, both ways (see the package docstring)."""

    name: str = NAME
    issuer: str = ISSUER
    framing: Framing = "sse"
    stream_end_markers: frozenset[str] = frozenset()
    id_rule: IdRule | None = None
    model_in_body: bool = False
    """Gemini takes the model in the URL (``models/{model}:generateContent``), never in the body."""

    wire = WireFunctions(decode_request, encode_request, decode_response, encode_response, GeminiAccumulator)
    settings_table: SettingsTable = SETTINGS_TABLE
    item_fields: ItemFieldTable = ITEM_FIELDS
    default_capabilities = ModelCapabilities(
        input_modalities=["text", "image", "audio", "video", "document"],
        output_modalities=["text"],
        tools=True,
        parallel_tool_calls=True,
        reasoning=True,
        streaming=True,
        structured_output=True,
        prompt_caching=True,
        stop_sequences=True,
        assistant_prefill=False,
        raw_round_trip=True,
    )
    """Defaults for Gemini models: multimodal input, tools, thinking, streaming, structured output."""

    def kind_of(self, body: Mapping[str, Any]) -> Literal["request", "response"] | None:
        """``request`` when ``contents`` is present, ``response`` for ``candidates`` or ``promptFeedback``."""
        if not isinstance(body, Mapping):
            return None
        if has(body, "contents"):
            return "request"
        if has(body, "candidates") or has(body, "promptFeedback"):
            return "response"
        return None


mapper = GeminiMapper()
"""The module-level mapper the registry loads."""
