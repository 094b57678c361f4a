"""What the Cohere mapper does with every item field (ADR 0044).

Source: Cohere API reference "Chat" v2 (``cohere.ChatMessageV2``: ``UserChatMessageV2``,
``AssistantChatMessageV2`` with ``tool_calls`` and thinking content, ``ToolChatMessageV2``,
``SystemChatMessageV2``; ``ImageUrlContent``).

Response: ``cohere.ChatResponse`` v2 (``message``: ``AssistantMessageResponse`` with ``content``, ``tool_calls``).
"""

from __future__ import annotations

from ...mapping.item_fields import RESPONSE_ROLE, ItemFieldTable, ItemRow, Mapped, NotSent, Unsupported, WholeItem, as_in_request, bookkeeping, rows_for

__all__ = ["ITEM_FIELDS"]

_KINDS: dict[str, WholeItem] = {
    "audio": WholeItem("no audio content: degraded to a text marker, reported"),
    "video": WholeItem("no video content: degraded to a text marker, reported"),
    "document": WholeItem("documents are a request field of their own, not message content: degraded to a text marker, reported"),
    "artifact_ref": WholeItem("no content for a reference kept elsewhere: degraded to a text marker, reported"),
    "handoff_call": WholeItem("no handoff message: degraded to a text marker, reported"),
    "handoff_result": WholeItem("no handoff message: degraded to a text marker, reported"),
    "structured": WholeItem("sent as JSON text, reported as changed"),
    "refusal": WholeItem("no refusal field: degraded to a text marker, reported"),
    "error": WholeItem("a runtime record, not sent to a model: dropped, reported"),
}
"""Kinds a request does not carry as themselves."""

_ROWS: dict[str, ItemRow] = {
    **bookkeeping(),
    **rows_for(("text", "image", "tool_call", "tool_result"), "cache_breakpoint", Unsupported("Cohere caches prompts on its own, with no breakpoint field")),
    **rows_for(("text", "image"), "role", Mapped("messages[].role", "developer as system (changed); content a role cannot hold is reported")),
    "text.text": Mapped("messages[].content[].text"),
    "text.annotations": Unsupported("a message's text content has no citations in a request"),
    "image.source": Mapped("messages[].content[].image_url.url", "a data URL or an http(s) URL; other sources reported"),
    "image.detail": Mapped("messages[].content[].image_url.detail", "auto, low or high; another value is reported"),
    "tool_call.id": Mapped("messages[].tool_calls[].id"),
    "tool_call.name": Mapped("messages[].tool_calls[].function.name"),
    "tool_call.arguments": Mapped("messages[].tool_calls[].function.arguments", "a JSON text"),
    "tool_call.arguments_raw": NotSent("read only when `arguments` is absent: such a call is degraded as a whole and reported"),
    "tool_call.arguments_error": NotSent("read only when `arguments` is absent (see arguments_raw)"),
    "tool_result.call_id": Mapped("messages[].tool_call_id"),
    "tool_result.content": Mapped("messages[].content", "text and document parts; other parts degraded or reported"),
    "tool_result.name": NotSent("the name of the call it answers: a tool message pairs by tool_call_id"),
    "tool_result.is_error": Unsupported("a tool message has no error flag"),
    "reasoning.text": Mapped("messages[].content[].thinking"),
    "reasoning.summary": Unsupported("a thinking content carries the thinking text only (sent in its place when there is no text)"),
    "reasoning.opaque": Unsupported("Cohere takes no opaque reasoning state"),
    "reasoning.redacted": NotSent("a flag of the opaque state, which Cohere does not take (reported)"),
    "raw.provider": Mapped("the message itself", "a Cohere raw item only; another provider's is dropped, reported"),
    "raw.value": Mapped("messages[] (the message as given)", "a JSON object only; anything else is dropped, reported"),
    "raw.role": NotSent("the raw message carries its own role"),
}
"""The request direction (``encode_request`` / ``decode_request``)."""

_RESPONSE_KINDS: dict[str, WholeItem] = {
    "image": WholeItem("not model output: a response holds the assistant message only; left out, reported"),
    "audio": WholeItem("not model output: a response holds the assistant message only; left out, reported"),
    "video": WholeItem("not model output: a response holds the assistant message only; left out, reported"),
    "document": WholeItem("not model output: a response holds the assistant message only; left out, reported"),
    "artifact_ref": WholeItem("not model output: a response holds the assistant message only; left out, reported"),
    "tool_result": WholeItem("not model output: a response holds the assistant message only; left out, reported"),
    "handoff_result": WholeItem("not model output: a response holds the assistant message only; left out, reported"),
    "handoff_call": WholeItem("no handoff message: degraded to a text marker, reported"),
    "structured": WholeItem("written as JSON text, reported as changed"),
    "refusal": WholeItem("no refusal field: degraded to a text marker, reported"),
    "error": WholeItem("a runtime record with no Cohere response form: left out, reported"),
    "raw": WholeItem("a raw Cohere message is no response's message: left out, reported"),
}
"""Kinds a response body (``encode_response``) does not carry as themselves."""

_RESPONSE: dict[str, ItemRow] = {
    **as_in_request(_ROWS, "text", "tool_call", "reasoning", at={"messages[].": "message."}),
    **rows_for(("text",), "role", RESPONSE_ROLE),
}
"""The response direction (``encode_response`` / ``decode_response``)."""

ITEM_FIELDS = ItemFieldTable("cohere", _KINDS, _ROWS, _RESPONSE, _RESPONSE_KINDS)
"""The Cohere mapper's item-field declarations (both directions)."""
