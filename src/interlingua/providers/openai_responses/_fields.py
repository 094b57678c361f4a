"""What the OpenAI Responses mapper does with every item field (ADR 0044).

Source: OpenAI API reference "Create a model response" (``openai.types.responses.ResponseInputItemParam``:
``EasyInputMessageParam`` with ``input_text``/``input_image``/``input_file`` parts,
``ResponseFunctionToolCallParam``, ``FunctionCallOutput``, ``ResponseReasoningItemParam``).

Response: ``openai.types.responses.Response`` (``output`` items, ``error``: ``ResponseError``).
"""

from __future__ import annotations

from ...mapping.item_fields import RESPONSE_ROLE, ItemFieldTable, ItemRow, Mapped, NotSent, Unsupported, WholeItem, as_in_request, bookkeeping, rows_for

__all__ = ["ITEM_FIELDS"]

_OWN_ID = "the item id of an item OpenAI Responses produced (origin.provider openai-responses); any other origin is provenance, not sent"

_KINDS: dict[str, WholeItem] = {
    "audio": WholeItem("no audio input part: degraded to a text marker, reported"),
    "video": WholeItem("no video input part: degraded to a text marker, reported"),
    "artifact_ref": WholeItem("no part for a reference kept elsewhere: degraded to a text marker, reported"),
    "handoff_call": WholeItem("no handoff item: degraded to a text marker, reported"),
    "handoff_result": WholeItem("no handoff item: degraded to a text marker, reported"),
    "structured": WholeItem("sent as JSON text, reported as changed"),
    "refusal": WholeItem("sent as a refusal part of an assistant output message, reported as changed"),
    "error": WholeItem("a runtime record, not sent to a model: dropped, reported"),
}
"""Kinds a request does not carry as themselves."""

_ROWS: dict[str, ItemRow] = {
    **bookkeeping(sent=("text.origin", "tool_call.origin", "reasoning.origin")),
    **rows_for(("text", "image", "document", "tool_call", "tool_result"), "cache_breakpoint", Unsupported("OpenAI caches prompts automatically, with no breakpoint field")),
    **rows_for(("text", "image", "document"), "role", Mapped("input[].role", "media only in user messages: elsewhere reported")),
    "text.text": Mapped("input[].content[].text"),
    "text.origin": Mapped("input[].id", _OWN_ID),
    "text.annotations": Unsupported("an input text part has no annotations"),
    "image.source": Mapped("input[].content[].image_url / file_id", "a data URL, an http(s) URL or a file id; other sources reported"),
    "image.detail": Mapped("input[].content[].detail"),
    "document.source": Mapped("input[].content[].file_data / file_id / file_url", "a base64 file, a file id or a URL; plain text degraded, reported"),
    "document.media_type": NotSent("the source's own media type is what is written (in the data URL)"),
    "document.title": Unsupported("an input_file part has no title"),
    "document.filename": Mapped("input[].content[].filename"),
    "document.context": Unsupported("an input_file part has no context"),
    "document.citations": Unsupported("an input_file part has no citation switch"),
    "tool_call.id": Mapped("input[].call_id"),
    "tool_call.name": Mapped("input[].name"),
    "tool_call.arguments": Mapped("input[].arguments", "a JSON text"),
    "tool_call.origin": Mapped("input[].id", _OWN_ID),
    "tool_call.arguments_raw": NotSent("read only when `arguments` is absent: such a call is written from its text or degraded, reported"),
    "tool_call.arguments_error": NotSent("read only when `arguments` is absent (see arguments_raw)"),
    "tool_result.call_id": Mapped("input[].call_id"),
    "tool_result.content": Mapped("input[].output", "text, image and file parts; other parts degraded or reported"),
    "tool_result.name": NotSent("the name of the call it answers: function_call_output pairs by call_id"),
    "tool_result.is_error": Unsupported("function_call_output has no error flag"),
    "reasoning.text": Mapped("input[].content[].text", "reasoning_text parts"),
    "reasoning.summary": Mapped("input[].summary[].text"),
    "reasoning.opaque": Mapped("input[].encrypted_content", "OpenAI Responses' own state only; another issuer's is left out, reported"),
    "reasoning.origin": Mapped("input[].id", _OWN_ID),
    "reasoning.redacted": Unsupported("a reasoning item has no redacted flag"),
    "raw.provider": Mapped("the input item itself", "an OpenAI Responses raw item only; another provider's is dropped, reported"),
    "raw.value": Mapped("input[] (the item as given)", "a JSON object only; anything else is dropped, reported"),
    "raw.role": NotSent("the raw input item carries its own role"),
}
"""The request direction (``encode_request`` / ``decode_request``)."""

_RESPONSE_KINDS: dict[str, WholeItem] = {
    "image": WholeItem("not model output: a response holds only assistant output; left out, reported"),
    "audio": WholeItem("not model output: a response holds only assistant output; left out, reported"),
    "video": WholeItem("not model output: a response holds only assistant output; left out, reported"),
    "document": WholeItem("not model output: a response holds only assistant output; left out, reported"),
    "artifact_ref": WholeItem("not model output: a response holds only assistant output; left out, reported"),
    "tool_result": WholeItem("not model output: a response holds only assistant output; left out, reported"),
    "handoff_call": WholeItem("no handoff item: degraded to a text marker, reported"),
    "handoff_result": WholeItem("no handoff item: degraded to a text marker, reported"),
    "structured": WholeItem("written as JSON text, reported as changed"),
}
"""Kinds a response body (``encode_response``) does not carry as themselves."""

_RESPONSE: dict[str, ItemRow] = {
    **as_in_request(_ROWS, "text", "tool_call", "reasoning", "raw", at={"input[]": "output[]", "the input item": "the output item"}),
    **rows_for(("text", "raw"), "role", RESPONSE_ROLE),
    "refusal.text": Mapped("output[].content[].refusal", "a refusal part of an assistant output message"),
    "refusal.origin": Mapped("output[].id", _OWN_ID),
    "refusal.id": NotSent("the item's canonical id within the transcript, not conversation content"),
    "refusal.metadata": NotSent("the application's own annotations, kept by the transcript, never sent to a model"),
    "error.code": Mapped("error.code", "rate_limit and server as ResponseError codes (status failed); another is written server_error, reported"),
    "error.status": Unsupported("a ResponseError has no HTTP status: reported"),
    "error.retryable": Unsupported("no field: derived from the code when read back; another value is reported"),
    "error.provider": NotSent("provenance: the error object is the Responses API's own and is read back as its"),
    "error.id": NotSent("the item's canonical id within the transcript, not conversation content"),
    "error.metadata": NotSent("the application's own annotations, kept by the transcript, never sent to a model"),
    "error.origin": NotSent("provenance (which provider, model and response produced the item), kept by the transcript"),
}
"""The response direction (``encode_response`` / ``decode_response``)."""

ITEM_FIELDS = ItemFieldTable("openai-responses", _KINDS, _ROWS, _RESPONSE, _RESPONSE_KINDS)
"""The OpenAI Responses mapper's item-field declarations (both directions)."""
