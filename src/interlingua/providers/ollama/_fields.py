"""What the Ollama mapper does with every item field (ADR 0044).

Source: Ollama API reference "Generate a chat completion" (``POST /api/chat``: ``messages[]`` with
``role``, ``content``, ``images``, ``tool_calls``, ``tool_name``, ``thinking``; ``ollama.Message``).

Response: ``ollama.ChatResponse`` (``message``); an error body ``{error: text}`` (Ollama API reference "Errors").
"""

from __future__ import annotations

from ...mapping.item_fields import RESPONSE_ROLE, ItemFieldTable, ItemRow, Mapped, NotSent, Unsupported, WholeItem, as_in_request, bookkeeping, rows_for

__all__ = ["ITEM_FIELDS"]

_KINDS: dict[str, WholeItem] = {
    "audio": WholeItem("no audio field: degraded to a text marker, reported"),
    "video": WholeItem("no video field: degraded to a text marker, reported"),
    "document": WholeItem("no document field: degraded to a text marker, reported"),
    "artifact_ref": WholeItem("no field for a reference kept elsewhere: degraded to a text marker, reported"),
    "handoff_call": WholeItem("no handoff message: degraded to a text marker, reported"),
    "handoff_result": WholeItem("no handoff message: degraded to a text marker, reported"),
    "structured": WholeItem("sent as JSON text, reported as changed"),
    "refusal": WholeItem("no refusal field: degraded to a text marker, reported"),
    "error": WholeItem("a runtime record, not sent to a model: dropped, reported"),
}
"""Kinds a request does not carry as themselves."""

_ROWS: dict[str, ItemRow] = {
    **bookkeeping(),
    **rows_for(("text", "image", "tool_call", "tool_result"), "cache_breakpoint", Unsupported("Ollama has no prompt-cache breakpoint; it keeps its own cache of the prompt")),
    **rows_for(("text", "image"), "role", Mapped("messages[].role", "developer as system (changed)")),
    "text.text": Mapped("messages[].content"),
    "text.annotations": Unsupported("a message has no citations"),
    "image.source": Mapped("messages[].images[]", "base64 data only; url and file sources reported"),
    "image.detail": Unsupported("no image detail hint"),
    "tool_call.id": Mapped("messages[].tool_calls[].id"),
    "tool_call.name": Mapped("messages[].tool_calls[].function.name"),
    "tool_call.arguments": Mapped("messages[].tool_calls[].function.arguments", "an object"),
    "tool_call.arguments_raw": NotSent("read only when `arguments` is absent: such a call is dropped as a whole and reported"),
    "tool_call.arguments_error": NotSent("read only when `arguments` is absent (see arguments_raw)"),
    "tool_result.call_id": Mapped("messages[].tool_call_id"),
    "tool_result.content": Mapped("messages[].content / images", "text, and images as images; other parts degraded or reported"),
    "tool_result.name": Mapped("messages[].tool_name", "the call's name when not set"),
    "tool_result.is_error": Unsupported("a tool message has no error flag"),
    "reasoning.text": Mapped("messages[].thinking"),
    "reasoning.summary": Unsupported("`thinking` carries the thinking text only (the summary is sent in its place when there is no text)"),
    "reasoning.opaque": Unsupported("Ollama takes no opaque reasoning state"),
    "reasoning.redacted": NotSent("a flag of the opaque state, which Ollama does not take (reported)"),
    "raw.provider": Mapped("the message itself", "an Ollama raw item only; another provider's is dropped, reported"),
    "raw.value": Mapped("messages[] (the message as given)", "a JSON object only; anything else is dropped, reported"),
    "raw.role": NotSent("the raw message carries its own role"),
}
"""The request direction (``encode_request`` / ``decode_request``)."""

_RESPONSE_KINDS: dict[str, WholeItem] = {
    "audio": WholeItem("not model output: a response holds the assistant message only; left out, reported"),
    "video": WholeItem("not model output: a response holds the assistant message only; left out, reported"),
    "document": WholeItem("not model output: a response holds the assistant message only; left out, reported"),
    "artifact_ref": WholeItem("not model output: a response holds the assistant message only; left out, reported"),
    "tool_result": WholeItem("not model output: a response holds the assistant message only; left out, reported"),
    "handoff_result": WholeItem("not model output: a response holds the assistant message only; left out, reported"),
    "handoff_call": WholeItem("no handoff message: degraded to a text marker, reported"),
    "structured": WholeItem("written as JSON text, reported as changed"),
    "refusal": WholeItem("no refusal field: degraded to a text marker, reported"),
    "raw": WholeItem("a raw Ollama message is no response's message: left out, reported"),
}
"""Kinds a response body (``encode_response``) does not carry as themselves."""

_RESPONSE: dict[str, ItemRow] = {
    **as_in_request(_ROWS, "text", "image", "tool_call", "reasoning", at={"messages[].": "message."}),
    **rows_for(("text", "image"), "role", RESPONSE_ROLE),
    "error.code": Unsupported("an Ollama error body is {error: text}: the code is read back from the text (not_found or provider_error); another is reported"),
    "error.status": Unsupported("the HTTP status is not part of the body: reported"),
    "error.retryable": Unsupported("no field: read back as false; true is reported"),
    "error.provider": NotSent("provenance: the error body is Ollama's own and is read back as Ollama's"),
    "error.id": NotSent("the item's canonical id within the transcript, not conversation content"),
    "error.metadata": NotSent("the application's own annotations, kept by the transcript, never sent to a model"),
    "error.origin": NotSent("provenance (which provider, model and response produced the item), kept by the transcript"),
}
"""The response direction (``encode_response`` / ``decode_response``)."""

ITEM_FIELDS = ItemFieldTable("ollama", _KINDS, _ROWS, _RESPONSE, _RESPONSE_KINDS)
"""The Ollama mapper's item-field declarations (both directions)."""
