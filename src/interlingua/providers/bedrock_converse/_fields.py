"""What the Bedrock Converse mapper does with every item field (ADR 0044).

Source: Amazon Bedrock API reference "Converse" (``Message``, ``ContentBlock``, ``SystemContentBlock``,
``ToolUseBlock``, ``ToolResultBlock``, ``ReasoningContentBlock``, ``CachePointBlock``).

Response: Converse ``ConverseOutput`` (``output.message``, the same ``ContentBlock`` union).
"""

from __future__ import annotations

from ...mapping.item_fields import RESPONSE_ROLE, ItemFieldTable, ItemRow, Mapped, NotSent, Unsupported, WholeItem, as_in_request, bookkeeping, rows_for

__all__ = ["ITEM_FIELDS"]

_KINDS: dict[str, WholeItem] = {
    "audio": WholeItem("no audio block: degraded to a text marker, reported"),
    "video": WholeItem("a video block takes bytes or an S3 location only: degraded to a text marker, reported"),
    "document": WholeItem("sent as a document block with a name made up from its title or index, reported as changed"),
    "artifact_ref": WholeItem("no block for a reference kept elsewhere: degraded to a text marker, reported"),
    "handoff_call": WholeItem("no handoff block: degraded to a text marker, reported"),
    "handoff_result": WholeItem("no handoff block: degraded to a text marker, reported"),
    "structured": WholeItem("sent as JSON text, reported as changed"),
    "refusal": WholeItem("no refusal block: degraded to a text marker, reported"),
    "error": WholeItem("a runtime record, not sent to a model: degraded to a text marker, reported"),
}
"""Kinds a request does not carry as themselves."""

_ROWS: dict[str, ItemRow] = {
    **bookkeeping(),
    **rows_for(("text", "image", "tool_call", "tool_result"), "cache_breakpoint", Mapped("content[].cachePoint", "a cachePoint block after the item's blocks")),
    **rows_for(("text", "image"), "role", Mapped("messages[].role / system", "system and developer text go to `system`; other content there is reported")),
    "text.text": Mapped("content[].text"),
    "text.annotations": Unsupported("a text block has no citations in a request"),
    "image.source": Mapped("content[].image.source.bytes", "base64 png, jpeg, gif or webp (format from the media type); other sources reported"),
    "image.detail": Unsupported("no image detail hint"),
    "tool_call.id": Mapped("content[].toolUse.toolUseId", "rewritten to ^[a-zA-Z0-9_-]+$ where needed, reported"),
    "tool_call.name": Mapped("content[].toolUse.name"),
    "tool_call.arguments": Mapped("content[].toolUse.input"),
    "tool_call.arguments_raw": NotSent("read only when `arguments` is absent: such a call is dropped as a whole and reported"),
    "tool_call.arguments_error": NotSent("read only when `arguments` is absent (see arguments_raw)"),
    "tool_result.call_id": Mapped("content[].toolResult.toolUseId", "the call's id as rewritten"),
    "tool_result.content": Mapped("content[].toolResult.content", "text, image and JSON parts; other parts degraded or reported"),
    "tool_result.name": NotSent("the name of the call it answers: the block pairs by toolUseId"),
    "tool_result.is_error": Mapped("content[].toolResult.status", "true <-> error, false <-> success"),
    "reasoning.text": Mapped("content[].reasoningContent.reasoningText.text"),
    "reasoning.summary": Unsupported("reasoningText carries the reasoning text only"),
    "reasoning.opaque": Mapped("reasoningText.signature / redactedContent", "Bedrock's own state only; another issuer's is left out with its reasoning, reported"),
    "reasoning.redacted": NotSent("read from the opaque state: a redactedContent block goes back as its data"),
    "raw.provider": Mapped("the block itself", "a Bedrock Converse raw item only; another provider's is dropped, reported"),
    "raw.value": Mapped("content[] (the block as given)", "a JSON object only; anything else is dropped, reported"),
    "raw.role": Mapped("messages[].role"),
}
"""The request direction (``encode_request`` / ``decode_request``)."""

_RESPONSE_KINDS: dict[str, WholeItem] = {
    "audio": WholeItem("not model output: degraded to a text marker in output.message, reported"),
    "video": WholeItem("not model output: degraded to a text marker in output.message, reported"),
    "document": WholeItem("not model output: degraded to a text marker in output.message, reported"),
    "artifact_ref": WholeItem("not model output: degraded to a text marker in output.message, reported"),
    "tool_result": WholeItem("not model output: degraded to a text marker in output.message, reported"),
    "handoff_call": WholeItem("not model output: degraded to a text marker in output.message, reported"),
    "handoff_result": WholeItem("not model output: degraded to a text marker in output.message, reported"),
    "error": WholeItem("not model output: degraded to a text marker in output.message, reported"),
    "structured": WholeItem("written as JSON text, reported as changed"),
    "refusal": WholeItem("no refusal block: degraded to a text marker, reported"),
}
"""Kinds a response body (``encode_response``) does not carry as themselves."""

_RESPONSE: dict[str, ItemRow] = {
    **as_in_request(_ROWS, "text", "image", "tool_call", "reasoning", "raw", at={"content[]": "output.message.content[]"}),
    **rows_for(("text", "image", "raw"), "role", RESPONSE_ROLE),
}
"""The response direction (``encode_response`` / ``decode_response``)."""

ITEM_FIELDS = ItemFieldTable("bedrock-converse", _KINDS, _ROWS, _RESPONSE, _RESPONSE_KINDS)
"""The Bedrock Converse mapper's item-field declarations (both directions)."""
