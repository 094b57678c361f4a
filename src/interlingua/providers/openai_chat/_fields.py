"""What the OpenAI Chat mapper does with every item field, per dialect (ADR 0044).

Source: OpenAI API reference "Create chat completion" (``openai.types.chat.ChatCompletionMessageParam``
and its content parts: ``ChatCompletionContentPartTextParam``, ``...ImageParam``, ``...InputAudioParam``,
``File``); the dialects' reasoning fields from the host registry (:data:`interlingua.hosts.HOSTS`, each
with its public source).

Response: ``openai.types.chat.ChatCompletion`` (``choices[0].message``: ``ChatCompletionMessage``, whose
``content`` is a string).
"""

from __future__ import annotations

from ...mapping.item_fields import RESPONSE_ROLE, ItemFieldTable, ItemRow, Mapped, NotSent, Unsupported, WholeItem, as_in_request, bookkeeping, rows_for
from ._common import DIALECTS, NAME
from ._dialects import DIALECT_RULES

__all__ = ["ITEM_FIELD_TABLES", "item_field_table"]

_CONTENT = ("text", "image", "audio", "document")


_OPENROUTER_CACHE: dict[str, ItemRow] = {
    **rows_for(_CONTENT, "cache_breakpoint", Mapped("messages[].content[].cache_control", "{ttl?} <-> {type: ephemeral, ttl?} (openrouter.ai/docs prompt caching)")),
    "tool_result.cache_breakpoint": Mapped("messages[].content[-1].cache_control", "on the tool message's last part, read back as that part's breakpoint", read_back=False),
    "tool_call.cache_breakpoint": Unsupported("a tool_calls entry is no content part"),
}
"""OpenRouter takes Anthropic-style ``cache_control`` on content parts."""


def _rows(dialect: str) -> dict[str, ItemRow]:
    rules = DIALECT_RULES[dialect]
    field = rules.reasoning_field or "reasoning"
    return {
        **bookkeeping(),
        **rows_for((*_CONTENT, "tool_call", "tool_result"), "cache_breakpoint", Unsupported(f"the {dialect} dialect takes no cache_control (it caches prompts automatically or not at all)")),
        **(_OPENROUTER_CACHE if dialect == "openrouter" else {}),
        **rows_for(_CONTENT, "role", Mapped("messages[].role", "media only in user messages: elsewhere reported")),
        "text.text": Mapped("messages[].content[].text"),
        "text.annotations": Unsupported("a request message has no annotations"),
        "image.source": Mapped("messages[].content[].image_url.url", "a data URL or an http(s) URL; other sources reported"),
        "image.detail": Mapped("messages[].content[].image_url.detail", "auto, low or high; another value is reported"),
        "audio.source": Mapped("messages[].content[].input_audio.data", "base64 wav or mp3; other sources reported"),
        "audio.format": Mapped("messages[].content[].input_audio.format", "wav or mp3, agreeing with the source's media type; otherwise reported"),
        "audio.transcript": Unsupported("input_audio has no transcript"),
        "document.source": Mapped("messages[].content[].file.file_data / file_id", "a base64 PDF or a file id; other sources degraded, reported"),
        "document.media_type": Unsupported("a file part has no media type (the data URL carries it)"),
        "document.title": Unsupported("a file part has no title"),
        "document.filename": Mapped("messages[].content[].file.filename"),
        "document.context": Unsupported("a file part has no context"),
        "document.citations": Unsupported("a file part has no citation switch"),
        "tool_call.id": Mapped("messages[].tool_calls[].id"),
        "tool_call.name": Mapped("messages[].tool_calls[].function.name"),
        "tool_call.arguments": Mapped("messages[].tool_calls[].function.arguments", "a JSON text"),
        "tool_call.arguments_raw": NotSent("read only when `arguments` is absent: such a call is written from its text or degraded, reported"),
        "tool_call.arguments_error": NotSent("read only when `arguments` is absent (see arguments_raw)"),
        "tool_result.call_id": Mapped("messages[].tool_call_id", "a result whose call is not in the conversation is reported"),
        "tool_result.content": Mapped("messages[].content", "text parts; other parts degraded or reported"),
        "tool_result.name": NotSent("the name of the call it answers: a tool message pairs by tool_call_id"),
        "tool_result.is_error": Unsupported("a tool message has no error flag"),
        "refusal.text": Mapped("messages[].refusal"),
        "reasoning.text": Mapped(f"messages[].{field}", "on assistant turns"),
        "reasoning.summary": Unsupported(f"`{field}` carries the reasoning text only"),
        "reasoning.opaque": Mapped("messages[].reasoning_details", "OpenRouter's own reasoning_details only; any other is left out, reported")
        if dialect == "openrouter"
        else Unsupported(f"the {dialect} dialect takes no opaque reasoning state"),
        "reasoning.redacted": NotSent("a flag of the opaque state, written (or reported) with it"),
        "raw.provider": Mapped("the message, tool call, part or fields itself", "an OpenAI Chat raw item only; another provider's is dropped, reported"),
        "raw.value": Mapped("messages[] / tool_calls[] / content[] (as given)", "a JSON object only; anything else is dropped, reported"),
        "raw.role": Mapped("messages[].role", "for a part or message fields: the message it joins"),
    }


def _table(dialect: str) -> ItemFieldTable:
    """The item-field table of one dialect (its reasoning rules: :data:`DIALECT_RULES`)."""
    rules = DIALECT_RULES[dialect]
    kinds = {
        "video": WholeItem("no video part: degraded to a text marker, reported"),
        "artifact_ref": WholeItem("no part for a reference kept elsewhere: degraded to a text marker, reported"),
        "handoff_call": WholeItem("no handoff message: degraded to a text marker, reported"),
        "handoff_result": WholeItem("no handoff message: degraded to a text marker, reported"),
        "structured": WholeItem("sent as JSON text, reported as changed"),
        "error": WholeItem("a runtime record, not sent to a model: dropped, reported"),
    }
    if rules.reasoning_field is None:
        kinds["reasoning"] = WholeItem(f"the {dialect} dialect takes no reasoning input: left out, reported")
    elif rules.reasoning_with_calls_only:
        kinds["reasoning"] = WholeItem(f"written to `{rules.reasoning_field}` on assistant turns with tool calls only; elsewhere left out, reported")
    rows = _rows(dialect)
    response_kinds = {
        **{kind: WholeItem("not model output: a response holds assistant output only; left out, reported") for kind in ("image", "audio", "video", "document", "artifact_ref")},
        "tool_result": WholeItem("not model output: degraded to a text marker, reported"),
        "handoff_call": WholeItem("no handoff message: degraded to a text marker, reported"),
        "handoff_result": WholeItem("no handoff message: degraded to a text marker, reported"),
        "structured": WholeItem("written as JSON text, reported as changed"),
        "error": WholeItem("a runtime record with no place in a chat.completion: left out, reported"),
    }
    carried = ["text", "tool_call", "refusal", "raw"]
    if dialect == "openai":  # a compatible host's response may carry `reasoning` whatever its request takes
        response_kinds["reasoning"] = WholeItem("a chat.completion has no reasoning field: left out, reported")
    else:
        carried.append("reasoning")
    response = {**as_in_request(rows, *carried, at={"messages[].": "choices[0].message.", "messages[] /": "choices[0].message /"}), **_RESPONSE_ROWS}
    return ItemFieldTable(NAME if dialect == "openai" else f"{NAME}:{dialect}", kinds, rows, response, response_kinds)


_RESPONSE_ROWS: dict[str, ItemRow] = {
    **rows_for(("text", "tool_call"), "cache_breakpoint", Unsupported("a chat.completion message holds its text as a string and its calls as tool_calls entries: no part carries cache_control")),
    **rows_for(("text", "raw"), "role", RESPONSE_ROLE),
    "text.text": Mapped("choices[0].message.content", "the texts joined as one string"),
}
"""Where a ``chat.completion`` body (``choices[0].message``) differs from a request message, in every dialect."""


ITEM_FIELD_TABLES: dict[str, ItemFieldTable] = {dialect: _table(dialect) for dialect in DIALECTS}
"""What each dialect does with every item field, by dialect; built (and checked) at import."""


def item_field_table(dialect: str) -> ItemFieldTable:
    """The item-field table of ``dialect`` (:data:`ITEM_FIELD_TABLES`; built from its rules for a host added later)."""
    table = ITEM_FIELD_TABLES.get(dialect)
    return table if table is not None else _table(dialect)
