"""Amazon Bedrock Converse mapper (``POST /model/{modelId}/converse`` and ``/converse-stream``).

Exports the module-level :data:`mapper` (registry name ``bedrock-converse``). Shapes are the
botocore ``bedrock-runtime`` service model (``ConverseRequest``, ``ConverseResponse``,
``ConverseStreamOutput``) and the AWS Bedrock API reference pages "Converse" and "ConverseStream";
the rules this mapper applies are listed in ``docs/providers/bedrock_converse.md``. The mapper is pure:
SigV4 signing and event-stream framing live in the optional transport (``interlingua[bedrock]``).
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
from ._models import CLAUDE_MODELS
from ._blocks import ID_RULE, ISSUER, NAME
from ._request import decode_request, encode_request
from ._response import decode_response, encode_response
from ._request import SETTINGS_TABLE
from ._fields import ITEM_FIELDS
from ._stream import BedrockConverseAccumulator

__all__ = ["BedrockConverseAccumulator", "BedrockConverseMapper", "mapper"]


@keeps_spelling
class BedrockConverseMapper(MapperBase):
    """Bedrock Converse both ways; implements :class:`interlingua.mapping.Mapper`.

    Attributes:
        name: ``"bedrock-converse"``.
        issuer: ``"bedrock-converse"`` (reasoning signatures, redacted content and raw blocks).
        framing: ``"ndjson"``: the accumulator reads one event a line (``{"contentBlockDelta": {...}}``,
            boto3's event form); the transport decodes the AWS event-stream binary framing into these.
        id_rule: ``toolUseId`` matches ``[a-zA-Z0-9_.:-]+``, at most 64 characters; derived ids start with ``tooluse_``.
    """

    name: str = NAME
    issuer: str = ISSUER
    framing: Framing = "ndjson"
    stream_end_markers: frozenset[str] = frozenset()
    id_rule: IdRule | None = ID_RULE
    vendor_models: tuple[VendorModels, ...] = (CLAUDE_MODELS,)
    """Claude on Bedrock (``[region.]anthropic.<Anthropic id>-v<N>:0``): the model carries to and from Anthropic, renamed."""

    def window_dependent(self, item: Any) -> bool:
        """True for a document, top-level or in a tool result: an untitled one is named
        ``document-N`` by its place among the conversation's documents (``DocumentBlock.name`` is
        required; see :class:`interlingua.mapping.Mapper`)."""
        from ...items import DocumentItem, HandoffResultItem, ToolResultItem

        if isinstance(item, DocumentItem):
            return True
        return isinstance(item, (ToolResultItem, HandoffResultItem)) and any(isinstance(part, DocumentItem) for part in item.content)

    wire = WireFunctions(decode_request, encode_request, decode_response, encode_response, BedrockConverseAccumulator)
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
        structured_output=True,
        prompt_caching=True,
        stop_sequences=True,
        assistant_prefill=True,
        raw_round_trip=True,
    )
    """Defaults for Converse (used when no model table entry matches).

    Text, image and document input (video is carried as a raw block); text output; tools with
    parallel calls, tool definitions required when the history holds tool calls (toolConfig must
    be present); reasoning; streaming; prompt caching (cachePoint); stop sequences; assistant
    prefill; raw round trip. Structured output through ``outputConfig``. Model families differ:
    the model table narrows them.
    """

    def kind_of(self, body: Mapping[str, Any]) -> Literal["request", "response"] | None:
        """``"request"``: ``messages`` whose content holds one-member blocks (no ``type`` key) or ``modelId``/``inferenceConfig``;
        ``"response"``: ``output.message`` with ``stopReason``."""
        if not isinstance(body, Mapping):
            return None
        output = body.get("output")
        if isinstance(output, Mapping) and isinstance(output.get("message"), Mapping) and "stopReason" in body:
            return "response"
        messages = body.get("messages")
        if not isinstance(messages, list):
            return None
        if "modelId" in body or "inferenceConfig" in body or "toolConfig" in body:
            return "request"
        blocks = [b for m in messages if isinstance(m, Mapping) and isinstance(m.get("content"), list) for b in m["content"]]
        if blocks and all(isinstance(b, Mapping) and len(b) == 1 and "type" not in b for b in blocks):
            return "request"
        return None


mapper = BedrockConverseMapper()
"""The Bedrock Converse mapper."""
