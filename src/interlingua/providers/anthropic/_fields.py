"""What the Anthropic mapper does with every item field (ADR 0044), for ``MessageParam`` content blocks.

Source: Anthropic API reference "Messages" (``anthropic.types.MessageParam`` and its block params:
``TextBlockParam``, ``ImageBlockParam``, ``DocumentBlockParam``, ``ToolUseBlockParam``,
``ToolResultBlockParam``, ``ThinkingBlockParam``, ``RedactedThinkingBlockParam``).

Response: ``anthropic.types.Message`` (``content``: ``TextBlock``, ``ToolUseBlock``, ``ThinkingBlock``,
``RedactedThinkingBlock``, server tool blocks).
"""

from __future__ import annotations

from ...mapping.item_fields import RESPONSE_ROLE, ItemFieldTable, ItemRow, Mapped, NotSent, Unsupported, WholeItem, as_in_request, bookkeeping, rows_for

__all__ = ["ITEM_FIELDS"]

_CACHE = Mapped("content[].cache_control", "{ttl?} <-> {type: ephemeral, ttl?}")
_ROLE = Mapped("messages[].role / system", "system and developer text go to `system`; other content there is reported")

_KINDS: dict[str, WholeItem] = {
    "audio": WholeItem("no audio block: degraded to a text marker, reported"),
    "video": WholeItem("no video block: degraded to a text marker, reported"),
    "artifact_ref": WholeItem("no block for a reference kept elsewhere: degraded to a text marker, reported"),
    "handoff_call": WholeItem("no handoff block: degraded to a text marker, reported"),
    "handoff_result": WholeItem("no handoff block: degraded to a text marker, reported"),
    "structured": WholeItem("sent as JSON text, reported as changed"),
    "refusal": WholeItem("no refusal block (a refusal is a stop reason): degraded to a text marker, reported"),
    "error": WholeItem("a runtime record, not sent to a model: degraded to a text marker, reported"),
}
"""Kinds a request does not carry as themselves."""

_ROWS: dict[str, ItemRow] = {
    **bookkeeping(),
    **rows_for(("text", "image", "document", "tool_call", "tool_result"), "cache_breakpoint", _CACHE),
    **rows_for(("text", "image", "document"), "role", _ROLE),
    "text.text": Mapped("content[].text"),
    "text.annotations": Unsupported("a request's text block takes citations only in the shape Anthropic returned them; other annotations are reported"),
    "image.source": Mapped("content[].source", "base64 / url / file -> {type: base64|url|file}; other sources reported"),
    "image.detail": Unsupported("no image detail hint"),
    "document.source": Mapped("content[].source", "base64 PDF, plain text, url, file; other sources reported"),
    "document.media_type": NotSent("the source's own media type is what is written"),
    "document.title": Mapped("content[].title"),
    "document.filename": Unsupported("a document block has no file name"),
    "document.context": Mapped("content[].context"),
    "document.citations": Mapped("content[].citations"),
    "tool_call.id": Mapped("content[].id", "rewritten to ^[a-zA-Z0-9_-]+$ where needed, reported"),
    "tool_call.name": Mapped("content[].name"),
    "tool_call.arguments": Mapped("content[].input"),
    "tool_call.arguments_raw": NotSent("read only when `arguments` is absent: such a call (its arguments did not parse) is dropped as a whole and reported"),
    "tool_call.arguments_error": NotSent("read only when `arguments` is absent (see arguments_raw)"),
    "tool_result.call_id": Mapped("content[].tool_use_id", "the call's id as rewritten"),
    "tool_result.content": Mapped("content[].content", "text and image parts; other parts degraded or reported"),
    "tool_result.name": NotSent("the name of the call it answers: the block pairs by tool_use_id"),
    "tool_result.is_error": Mapped("content[].is_error"),
    "reasoning.text": Mapped("content[].thinking"),
    "reasoning.summary": Unsupported("a thinking block carries the thinking text only"),
    "reasoning.opaque": Mapped("content[].signature / redacted_thinking.data", "Anthropic's own state only; another issuer's is left out with its reasoning, reported"),
    "reasoning.redacted": NotSent("read from the opaque state: a redacted_thinking block goes back as its data"),
    "raw.provider": Mapped("the block itself", "an Anthropic raw item only; another provider's is dropped, reported"),
    "raw.value": Mapped("content[] (the block as given)", "a JSON object only; anything else is dropped, reported"),
    "raw.role": Mapped("messages[].role"),
}
"""The request direction (``encode_request`` / ``decode_request``)."""

_RESPONSE_KINDS: dict[str, WholeItem] = {
    "audio": WholeItem("not model output: degraded to a text marker in the response's content, reported"),
    "video": WholeItem("not model output: degraded to a text marker in the response's content, reported"),
    "document": WholeItem("not model output: degraded to a text marker in the response's content, reported"),
    "artifact_ref": WholeItem("not model output: degraded to a text marker in the response's content, reported"),
    "tool_result": WholeItem("not model output: degraded to a text marker in the response's content, reported"),
    "handoff_call": WholeItem("not model output: degraded to a text marker in the response's content, reported"),
    "handoff_result": WholeItem("not model output: degraded to a text marker in the response's content, reported"),
    "error": WholeItem("not model output: degraded to a text marker in the response's content, reported"),
    "structured": WholeItem("written as JSON text, reported as changed"),
    "refusal": WholeItem("a refusal is a stop reason: written as stop_reason refusal, reported as changed"),
}
"""Kinds a response body (``encode_response``) does not carry as themselves."""

_RESPONSE: dict[str, ItemRow] = {
    **as_in_request(_ROWS, "text", "image", "tool_call", "reasoning", "raw"),
    **rows_for(("text", "image", "raw"), "role", RESPONSE_ROLE),
}
"""The response direction (``encode_response`` / ``decode_response``)."""

ITEM_FIELDS = ItemFieldTable("anthropic", _KINDS, _ROWS, _RESPONSE, _RESPONSE_KINDS)
"""The Anthropic mapper's item-field declarations (both directions)."""
