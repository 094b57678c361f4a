"""What the Gemini mapper does with every item field (ADR 0044).

Source: Gemini API reference "generateContent" (``Content``, ``Part``: ``text``, ``inlineData``,
``fileData``, ``functionCall``, ``functionResponse``, ``thought``, ``thoughtSignature``;
``google.genai.types.Part``).

Response: ``google.genai.types.GenerateContentResponse`` (``candidates[0].content.parts``); an error body
``{error: {code, message, status}}`` (Gemini API troubleshooting guide).
"""

from __future__ import annotations

from ...mapping.item_fields import RESPONSE_ROLE, ItemFieldTable, ItemRow, Mapped, NotSent, Unsupported, WholeItem, as_in_request, bookkeeping, rows_for

__all__ = ["ITEM_FIELDS"]

_NO_CACHE = Unsupported("Gemini caches implicitly or through the cachedContents API: no per-part breakpoint")

_KINDS: dict[str, WholeItem] = {
    "audio": WholeItem("audio is sent as inlineData only in the media types Gemini documents: others dropped, reported"),
    "artifact_ref": WholeItem("no part for a reference kept elsewhere: degraded to a text marker, reported"),
    "handoff_call": WholeItem("no handoff part: degraded to a text marker, reported"),
    "handoff_result": WholeItem("no handoff part: degraded to a text marker, reported"),
    "structured": WholeItem("sent as JSON text, reported as changed"),
    "refusal": WholeItem("no refusal part: degraded to a text marker, reported"),
    "error": WholeItem("a runtime record, not sent to a model: dropped, reported"),
}
"""Kinds a request does not carry as themselves."""

_ROWS: dict[str, ItemRow] = {
    **bookkeeping(),
    **rows_for(("text", "image", "video", "document", "tool_call", "tool_result"), "cache_breakpoint", _NO_CACHE),
    **rows_for(("text", "image", "video", "document"), "role", Mapped("contents[].role / systemInstruction", "assistant <-> model; system and developer text go to systemInstruction")),
    "text.text": Mapped("contents[].parts[].text"),
    "text.annotations": Unsupported("a text part has no citations in a request"),
    "image.source": Mapped("contents[].parts[].inlineData / fileData", "base64 -> inlineData, url and file -> fileData; other sources reported"),
    "image.detail": Unsupported("no per-part detail (mediaResolution is a request setting)"),
    "video.source": Mapped("contents[].parts[].fileData / inlineData", "YouTube and file URIs -> fileData, base64 -> inlineData; other sources reported"),
    "document.source": Mapped("contents[].parts[].inlineData / fileData", "a PDF as inlineData or fileData, plain text as a text part (changed)"),
    "document.media_type": NotSent("the source's own media type is what is written (mimeType)"),
    "document.title": Unsupported("a part has no title"),
    "document.filename": Unsupported("a part has no file name"),
    "document.context": Unsupported("a part has no context"),
    "document.citations": Unsupported("a part has no citation switch"),
    "tool_call.id": Mapped("contents[].parts[].functionCall.id"),
    "tool_call.name": Mapped("contents[].parts[].functionCall.name"),
    "tool_call.arguments": Mapped("contents[].parts[].functionCall.args"),
    "tool_call.arguments_raw": NotSent("read only when `arguments` is absent: such a call is dropped as a whole and reported"),
    "tool_call.arguments_error": NotSent("read only when `arguments` is absent (see arguments_raw)"),
    "tool_result.call_id": Mapped("contents[].parts[].functionResponse.id", "paired with its call's id"),
    "tool_result.content": Mapped("contents[].parts[].functionResponse.response", "text as {output} or {result}, JSON as it is, media as parts; others reported"),
    "tool_result.name": Mapped("contents[].parts[].functionResponse.name", "the call's name when not set"),
    "tool_result.is_error": Mapped("contents[].parts[].functionResponse.response.error", "an error result's text goes in `error`"),
    "reasoning.text": Mapped("contents[].parts[].text with thought: true"),
    "reasoning.summary": Unsupported("a thought part carries one text (the summary is sent in its place when there is no text)"),
    "reasoning.opaque": Mapped("contents[].parts[].thoughtSignature", "Gemini's own signature for the same model only; another's is left out, reported"),
    "reasoning.redacted": NotSent("Gemini has no redacted thoughts: the flag belongs to another issuer's opaque state"),
    "raw.provider": Mapped("the part itself", "a Gemini raw item only; another provider's is dropped, reported"),
    "raw.value": Mapped("contents[].parts[] (the part as given)", "a JSON object only; anything else is dropped, reported"),
    "raw.role": Mapped("contents[].role"),
}
"""The request direction (``encode_request`` / ``decode_request``)."""

_RESPONSE_KINDS: dict[str, WholeItem] = {
    "video": WholeItem("not model output: written as a model part (changed) or degraded, reported"),
    "document": WholeItem("not model output: written as a model part (changed) or degraded, reported"),
    "tool_result": WholeItem("not model output: written as a model part (changed) or degraded, reported"),
    "handoff_result": WholeItem("not model output: written as a model part (changed) or degraded, reported"),
    "audio": WholeItem("audio is written as inlineData only in the media types Gemini documents: others dropped, reported"),
    "artifact_ref": WholeItem("no part for a reference kept elsewhere: degraded to a text marker, reported"),
    "handoff_call": WholeItem("no handoff part: degraded to a text marker, reported"),
    "structured": WholeItem("written as JSON text, reported as changed"),
    "refusal": WholeItem("no refusal part: degraded to a text marker, reported"),
    "raw": WholeItem("a raw Gemini part in a response is written as a model part only when the item says so: reported as changed"),
}
"""Kinds a response body (``encode_response``) does not carry as themselves."""

_RESPONSE: dict[str, ItemRow] = {
    **as_in_request(_ROWS, "text", "image", "tool_call", "reasoning", at={"contents[].parts[]": "candidates[0].content.parts[]"}),
    **rows_for(("text", "image"), "role", RESPONSE_ROLE),
    "error.code": Mapped("error.status / error.code", "a response of one error item is the API's error body: the code as its google.rpc status name and HTTP code; one read back as another code is reported"),
    "error.status": Mapped("error.code", "the HTTP status (read back as the code's own where it differs: reported)"),
    "error.retryable": Unsupported("no field: derived from the code when read back; another value is reported"),
    "error.provider": NotSent("provenance: the error body is Gemini's own and is read back as Gemini's"),
    "error.id": NotSent("the item's canonical id within the transcript, not conversation content"),
    "error.metadata": NotSent("the application's own annotations, kept by the transcript, never sent to a model"),
    "error.origin": NotSent("provenance (which provider, model and response produced the item), kept by the transcript"),
}
"""The response direction (``encode_response`` / ``decode_response``)."""

ITEM_FIELDS = ItemFieldTable("gemini", _KINDS, _ROWS, _RESPONSE, _RESPONSE_KINDS)
"""The Gemini mapper's item-field declarations (both directions)."""
