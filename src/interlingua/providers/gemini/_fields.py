"""What the Gemini mapper does with every item field (ADR 0044).

Source: Gemini API reference "generateContent" (``Content``, ``Part``: ``text``, ``inlineData``,
``fileData``, ``functionCall``, ``functionResponse``, ``thought``, ``thoughtSignature``;
``google.genai.types.Part``).
"""

from __future__ import annotations

from ...mapping.item_fields import ItemFieldTable, Mapped, NotSent, Unsupported, WholeItem, bookkeeping, rows_for

__all__ = ["ITEM_FIELDS"]

_NO_CACHE = Unsupported("Gemini caches implicitly or through the cachedContents API: no per-part breakpoint")

ITEM_FIELDS = ItemFieldTable(
    "gemini",
    kinds={
        "audio": WholeItem("audio is sent as inlineData only in the media types Gemini documents: others dropped, reported"),
        "artifact_ref": WholeItem("no part for a reference kept elsewhere: degraded to a text marker, reported"),
        "handoff_call": WholeItem("no handoff part: degraded to a text marker, reported"),
        "handoff_result": WholeItem("no handoff part: degraded to a text marker, reported"),
        "structured": WholeItem("sent as JSON text, reported as changed"),
        "refusal": WholeItem("no refusal part: degraded to a text marker, reported"),
        "error": WholeItem("a runtime record, not sent to a model: dropped, reported"),
    },
    rows={
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
    },
)
"""The Gemini mapper's item-field declarations (request direction)."""
