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
from ...mapping.spelling import keeps_spelling
from ...mapping.protocol import Conversion, Framing, ModelResponse
from ...mapping.report import Policy
from ._common import ISSUER, NAME, has
from ._request import decode_request, encode_request
from ._response import decode_response, encode_response
from ._stream import GeminiAccumulator

__all__ = ["GeminiMapper", "mapper"]


@keeps_spelling
class GeminiMapper:
    """The Gemini ``generateContent`` wire format, both ways (see the package docstring)."""

    name: str = NAME
    issuer: str = ISSUER
    framing: Framing = "sse"
    id_rule: IdRule | None = None
    model_in_body: bool = False
    """Gemini takes the model in the URL (``models/{model}:generateContent``), never in the body."""

    def decode_request(self, body: Mapping[str, Any]) -> Conversion[Transcript]:
        """Request body -> transcript."""
        return decode_request(body)

    def encode_request(self, transcript: Transcript, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
        """Transcript -> request body (``model`` is checked against signatures, not written: it is in the URL)."""
        return encode_request(transcript, model=model, policy=policy)

    def decode_response(self, body: Mapping[str, Any]) -> Conversion[ModelResponse]:
        """Response body -> model response."""
        return decode_response(body)

    def encode_response(self, response: ModelResponse, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
        """Model response -> response body."""
        return encode_response(response, model=model, policy=policy)

    def kind_of(self, body: Mapping[str, Any]) -> Literal["request", "response"] | None:
        """``request`` when ``contents`` is present, ``response`` for ``candidates`` or ``promptFeedback``."""
        if not isinstance(body, Mapping):
            return None
        if has(body, "contents"):
            return "request"
        if has(body, "candidates") or has(body, "promptFeedback"):
            return "response"
        return None

    def accumulator(self) -> GeminiAccumulator:
        """A fresh accumulator for one ``streamGenerateContent?alt=sse`` stream."""
        return GeminiAccumulator()

    def capabilities(self, model: str | None) -> ModelCapabilities:
        """Defaults for Gemini models: multimodal input, tools, thinking, streaming, structured output."""
        return ModelCapabilities(
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


mapper = GeminiMapper()
"""The module-level mapper the registry loads."""
