"""What the Mistral mapper does with every item field (ADR 0044): the ``mistral`` Chat dialect's table,
with what Mistral's own chunks change.

Source: Mistral API reference "Chat Completion" (``mistralai.models``: ``UserMessage``,
``AssistantMessage``, ``ToolMessage``, ``ImageURLChunk``, ``InputAudioChunk``, ``DocumentURLChunk``,
``ThinkChunk``; tool call ids of nine letters and digits).

Response: ``mistralai.models.ChatCompletionResponse`` (``choices[0].message``: ``AssistantMessage``).
"""

from __future__ import annotations

from ...mapping.item_fields import ItemRow, Mapped, Unsupported, WholeItem
from ..openai_chat._fields import item_field_table

__all__ = ["ITEM_FIELDS"]

_OWN_ROWS: dict[str, ItemRow] = {
    "tool_call.id": Mapped("messages[].tool_calls[].id", "rewritten to nine letters and digits where needed, reported"),
    "reasoning.text": Mapped("messages[].content[] thinking chunk"),
    "reasoning.summary": Unsupported("a thinking chunk carries the thinking text only"),
    "raw.provider": Mapped("the chunk itself", "a Mistral raw item only; another provider's is dropped, reported"),
    "raw.value": Mapped("messages[].content[] (the chunk as given)", "a JSON object only"),
}
"""Where Mistral's own chunks differ from the ``mistral`` Chat dialect, in both directions."""

ITEM_FIELDS = item_field_table("mistral").replace(
    "mistral",
    response_kinds={"refusal": WholeItem("Mistral messages have no refusal field: degraded to a text marker, reported")},
    response={
        "tool_call.id": Mapped("choices[0].message.tool_calls[].id", "nine letters and digits; another id is rewritten, reported"),
        "reasoning.text": Mapped("choices[0].message.content[] thinking chunk"),
        "reasoning.summary": Unsupported("a thinking chunk carries the thinking text only"),
        "raw.provider": Mapped("the chunk itself", "a Mistral raw item only; another provider's is dropped, reported"),
        "raw.value": Mapped("choices[0].message.content[] (the chunk as given)", "a JSON object only"),
    },
    kinds={
        "document": WholeItem("a PDF by URL is a document_url chunk (changed: its media type is in the URL); other documents degraded, reported"),
        "audio": WholeItem("sent as an input_audio chunk, which carries no format: the format is dropped, reported"),
        "refusal": WholeItem("Mistral messages have no refusal field: degraded to a text marker, reported"),
    },
    rows=_OWN_ROWS,
)
"""The Mistral mapper's item-field declarations (both directions)."""
