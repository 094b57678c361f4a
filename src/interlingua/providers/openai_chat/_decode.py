"""OpenAI Chat messages -> canonical items (used by requests, responses and streams).

Message shapes: openai-python ``types/chat/chat_completion_*_message_param.py`` (requests) and
``chat_completion_message.py`` (responses); reasoning extensions: DeepSeek ``reasoning_content``,
OpenRouter ``reasoning`` + ``reasoning_details``, Ollama ``reasoning`` (the providers' API references).
"""

from __future__ import annotations

import copy
import re
from typing import Any

import msgspec

from ...codec import Item
from ...items import (
    Annotation,
    AudioItem,
    Base64Source,
    CacheBreakpoint,
    DocumentItem,
    FileSource,
    ImageItem,
    Origin,
    ReasoningItem,
    RefusalItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
)
from ...items import RawItem
from ...mapping.extras import keep_fields, unknown_fields
from ...mapping.arguments import parse_arguments, tool_call_from_text
from ...mapping.report import Report
from ._common import (
    ARGUMENTS_ABSENT_KEY,
    CACHE_CONTROL_KEY,
    ID_RULE,
    NAME,
    Dialect,
    REASONING_FIELDS_KEY,
    REQUEST_FIELDS_KEY,
    WIRE_ID_KEY,
    image_source,
    openrouter_opaque,
    parse_data_url,
)

__all__ = ["AUDIO_MEDIA_TYPES", "MessageDecoder"]

U = msgspec.UNSET

AUDIO_MEDIA_TYPES: dict[str, str] = {"wav": "audio/wav", "mp3": "audio/mpeg"}
"""``input_audio.format`` -> media type (openai-python ``chat_completion_content_part_input_audio_param.py``)."""

_ASSISTANT_KEYS = frozenset(
    {"role", "content", "refusal", "tool_calls", "function_call", "reasoning_content", "reasoning", "reasoning_details", "annotations"}
)
_CONTENT_KEYS = frozenset({"role", "content"})
_TOOL_KEYS = frozenset({"role", "content", "tool_call_id"})
_PART_KEYS = {
    "text": frozenset({"type", "text", "cache_control"}),
    "refusal": frozenset({"type", "refusal"}),
    "image_url": frozenset({"type", "image_url", "cache_control"}),
    "input_audio": frozenset({"type", "input_audio", "cache_control"}),
    "file": frozenset({"type", "file", "cache_control"}),
}
_TTL = re.compile(r"^[0-9]+[smh]$")
_accepts = ID_RULE.accepts


def extra_free(part: dict[str, Any], extras: dict[str, Any]) -> dict[str, Any]:
    """``part`` without the keys of ``extras``."""
    return {k: v for k, v in part.items() if k not in extras}


def _json_copy(value: Any) -> Any:
    return copy.deepcopy(value)


def _annotation(raw: Any) -> Annotation | None:
    """``{type:"url_citation", url_citation:{start_index, end_index, title, url}}`` -> :class:`Annotation`."""
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str) or not raw["type"]:
        return None
    kind = raw["type"]
    body = raw.get(kind)
    if kind != "url_citation" or not isinstance(body, dict):
        return Annotation(kind=kind, provider_data=_json_copy(raw))
    known = {"url", "title", "start_index", "end_index"}
    rest = {k: v for k, v in body.items() if k not in known}
    return Annotation(
        kind=kind,
        url=body["url"] if isinstance(body.get("url"), str) else U,
        title=body["title"] if isinstance(body.get("title"), str) else U,
        start_index=body["start_index"] if isinstance(body.get("start_index"), int) and not isinstance(body["start_index"], bool) and body["start_index"] >= 0 else U,
        end_index=body["end_index"] if isinstance(body.get("end_index"), int) and not isinstance(body["end_index"], bool) and body["end_index"] >= 0 else U,
        provider_data=_json_copy(rest) if rest else U,
    )


def _dialect_writes(dialect: Dialect, fields: list[str], *, has_calls: bool, request: bool) -> bool:
    """Whether the ``dialect``'s encoder alone writes reasoning read from ``fields`` back to them
    (see :data:`._common.Dialect`)."""
    if dialect == "deepseek":
        return fields == ["reasoning_content"] and (has_calls or not request)
    if dialect == "openrouter":
        return fields in (["reasoning"], ["reasoning", "reasoning_details"], ["reasoning_details"])
    if dialect == "ollama":
        return fields == ["reasoning"]
    return False


class MessageDecoder:
    """Decodes the messages of one request or one response into canonical items.

    One instance per conversion: it carries the report and pending deprecated ``function_call``
    ids (so a later ``role:"function"`` message links to its call).
    """

    def __init__(self, report: Report, origin: Origin | None = None, *, request: bool = False, dialect: Dialect = "openai") -> None:
        self.report = report
        self.origin: Any = origin if origin is not None else U
        self.request = request
        self.dialect = dialect
        self._pending_function: dict[str, str] = {}

    # ------------------------------------------------------------------ entry point

    def message(self, msg: Any, *, index: int, key: str, plain: bool = True) -> list[Item]:
        """One wire message -> items sharing ``message=key`` (never an empty list for a dict).

        ``plain=False``: the caller has tried :meth:`plain` on this message already.
        """
        if plain and type(msg) is dict:
            got = self.plain(msg, key)
            if got is not None:
                return got
        pointer = f"/messages/{index}"
        if not isinstance(msg, dict):
            self.report.add("dropped", "message is not a JSON object", index=index, pointer=pointer)
            return []
        role = msg.get("role")
        if role in ("system", "developer", "user"):
            return self._content_message(msg, role, index=index, key=key)
        if role == "assistant":
            return self.assistant(msg, index=index, key=key)
        if role == "tool":
            return self._tool_message(msg, index=index, key=key)
        if role == "function":
            return self._function_message(msg, index=index, key=key)
        self.report.add("changed", f"message role {role!r} has no canonical form; kept as a raw item", index=index, pointer=pointer)
        return [RawItem(provider=NAME, value=_json_copy(msg), message=key)]

    def plain(self, msg: dict[str, Any], key: str) -> list[Item] | None:
        """The usual messages read directly, or ``None``: then the general path reads the message.

        ``{role: user|system|developer, content: str}``, ``{role: tool, tool_call_id: str, content: str}``
        and ``{role: assistant, content?: str|null, tool_calls?: [...]}`` whose calls are all
        ``{id, type: "function", function: {name, arguments: str}}`` with ids OpenAI accepts, and no
        other key anywhere: the items are exactly those the general path builds (nothing is
        reported for these shapes; no field is left unread).
        """
        role = msg.get("role")
        content = msg.get("content")
        if role == "user" or role == "system" or role == "developer":
            if len(msg) == 2 and type(content) is str:
                return [TextItem(text=content, role=role, message=key)]
            return None
        if role == "tool":
            call_id = msg.get("tool_call_id")
            if len(msg) == 3 and type(content) is str and type(call_id) is str and call_id:
                return [ToolResultItem(call_id=call_id, content=[TextItem(text=content)] if content else [], message=key)]
            return None
        if role != "assistant" or (content is not None and type(content) is not str):
            return None
        calls = msg.get("tool_calls")
        if len(msg) != 1 + ("content" in msg) + ("tool_calls" in msg):
            return None
        origin = self.origin
        if calls is None:
            return [TextItem(text=content if content is not None else "", role="assistant", message=key, origin=origin)]
        if type(calls) is not list:
            return None
        items: list[Item] = []
        for entry in calls:
            if type(entry) is not dict or len(entry) != 3 or entry.get("type") != "function":
                return None
            fn, call_id = entry.get("function"), entry.get("id")
            if type(fn) is not dict or len(fn) != 2 or type(call_id) is not str or not _accepts(call_id):
                return None
            name, arguments = fn.get("name"), fn.get("arguments")
            if type(name) is not str or not name or type(arguments) is not str:
                return None
            args, error = parse_arguments(arguments)
            if error is None:
                items.append(ToolCallItem(id=call_id, name=name, arguments=args, message=key, origin=origin))  # type: ignore[arg-type]
            else:
                items.append(tool_call_from_text(call_id, name, arguments, message=key, origin=origin))
        # the general path's rule: an empty text next to other items is no content; a message never vanishes
        if content:
            items.insert(0, TextItem(text=content, role="assistant", message=key, origin=origin))
        elif not items:
            items.append(TextItem(text="", role="assistant", message=key, origin=origin))
        return items

    # ------------------------------------------------------------------ helpers

    def _extras(self, msg: dict[str, Any], known: frozenset[str], *, key: str, role: Any) -> list[Item]:
        extras = {k: v for k, v in msg.items() if k not in known}
        if not extras:
            return []
        return [RawItem(provider=NAME, value=_json_copy(extras), message=key, role=role, origin=self.origin)]

    def _check_part_keys(self, part: dict[str, Any], kind: str, *, index: int, pointer: str) -> None:
        extra = sorted(set(part) - _PART_KEYS[kind])
        if extra:
            self.report.add("dropped", f"{kind} part fields {extra} have no canonical form", index=index, item_type=kind, pointer=pointer)

    def _cache_hint(self, item: Any, part: Any) -> Any:
        """``item`` marked as read from a part with ``cache_control`` (``CACHE_CONTROL_KEY``) when the
        breakpoint became its ``cache_breakpoint`` and the dialect would not write it back (only
        ``openrouter`` does): written back as ``cache_control`` for the same model."""
        if self.dialect == "openrouter" or not self.request:
            return item
        if isinstance(part, dict) and isinstance(part.get("cache_control"), dict) and getattr(item, "cache_breakpoint", U) is not U:
            return keep_fields(item, NAME, {CACHE_CONTROL_KEY: True})
        return item

    def cache_breakpoint(self, part: dict[str, Any], *, index: int, pointer: str) -> Any:
        """A part's ``cache_control:{type:"ephemeral", ttl?}`` (OpenRouter, Anthropic-style) -> :class:`CacheBreakpoint`.

        Read in every dialect; another shape is left out and reported.
        """
        cc = part.get("cache_control")
        if cc is None:
            return U
        ttl = cc.get("ttl") if isinstance(cc, dict) else None
        if isinstance(cc, dict) and cc.get("type") == "ephemeral" and set(cc) <= {"type", "ttl"} and (ttl is None or (isinstance(ttl, str) and _TTL.match(ttl))):
            return CacheBreakpoint(ttl=ttl if ttl is not None else U)
        self.report.add("dropped", f"cache_control {cc!r} is not an ephemeral breakpoint", index=index, pointer=f"{pointer}/cache_control")
        return U

    def _part(self, part: Any, role: Any, *, index: int, key: str, pointer: str) -> Item | None:
        """One content part -> item (``None`` when it is dropped, with a report entry).

        A user/system/developer part of a known type with fields this mapper does not model (OpenRouter
        ``prompt_cache_breakpoint``, ...) keeps its content; those fields go to the item's
        ``provider_data["openai-chat"]`` (written back to OpenAI Chat, reported dropped elsewhere).
        """
        if role in ("system", "developer", "user") and isinstance(part, dict) and part.get("type") in _PART_KEYS:
            extras = unknown_fields(part, _PART_KEYS[part["type"]])
            if extras:
                saved, self.report = self.report, Report()
                try:
                    item = self._part_fields(extra_free(part, extras), role, index=index, key=key, pointer=pointer)
                    sub = self.report
                finally:
                    self.report = saved
                if isinstance(item, (TextItem, ImageItem, AudioItem, DocumentItem)):
                    self.report.extend(sub)
                    return self._cache_hint(keep_fields(item, NAME, extras), part)
        return self._cache_hint(self._part_fields(part, role, index=index, key=key, pointer=pointer), part)

    def _part_fields(self, part: Any, role: Any, *, index: int, key: str, pointer: str) -> Item | None:
        if not isinstance(part, dict):
            self.report.add("dropped", "content part is not a JSON object", index=index, pointer=pointer)
            return None
        kind = part.get("type")
        common: dict[str, Any] = {"message": key}
        if kind in ("text", "image_url", "input_audio", "file") and "cache_control" in part:
            common["cache_breakpoint"] = self.cache_breakpoint(part, index=index, pointer=pointer)
        if role is not U:
            common["role"] = role
        if kind == "text" and isinstance(part.get("text"), str):
            self._check_part_keys(part, "text", index=index, pointer=pointer)
            return TextItem(text=part["text"], origin=self.origin, **common)
        if kind == "refusal" and isinstance(part.get("refusal"), str):
            self._check_part_keys(part, "refusal", index=index, pointer=pointer)
            return RefusalItem(text=part["refusal"], message=key, origin=self.origin)
        if kind == "image_url" and isinstance(part.get("image_url"), dict) and isinstance(part["image_url"].get("url"), str):
            self._check_part_keys(part, "image_url", index=index, pointer=pointer)
            body = part["image_url"]
            detail = body.get("detail")
            extra = sorted(set(body) - {"url", "detail"})
            if extra:
                self.report.add("dropped", f"image_url fields {extra} have no canonical form", index=index, item_type="image_url", pointer=pointer)
            return ImageItem(source=image_source(body["url"]), detail=detail if detail in ("auto", "low", "high") else U, **common)
        if kind == "input_audio" and isinstance(part.get("input_audio"), dict) and isinstance(part["input_audio"].get("data"), str):
            self._check_part_keys(part, "input_audio", index=index, pointer=pointer)
            body = part["input_audio"]
            fmt = body.get("format") if isinstance(body.get("format"), str) else None
            media = AUDIO_MEDIA_TYPES.get(fmt or "", f"audio/{fmt}" if fmt else "application/octet-stream")
            return AudioItem(source=Base64Source(media_type=media, data=body["data"]), format=fmt if fmt else U, **common)
        if kind == "thinking" and role == "assistant":
            reasoning = self._thinking(part, key=key)
            if reasoning is not None:
                return reasoning
        if kind == "file" and isinstance(part.get("file"), dict):
            doc = self._file(part["file"], common, index=index, pointer=pointer)
            if doc is not None:
                self._check_part_keys(part, "file", index=index, pointer=pointer)
                return doc
        self.report.add("changed", f"content part {kind!r} has no canonical form; kept as a raw item", index=index, item_type=str(kind), pointer=pointer)
        common.pop("cache_breakpoint", None)  # the raw part keeps its cache_control
        return RawItem(provider=NAME, value=_json_copy(part), **common)

    def _thinking(self, part: dict[str, Any], *, key: str) -> ReasoningItem | None:
        """Mistral's assistant ``{"type": "thinking", "thinking": [{"type": "text", "text": ...}], "closed"?}``
        content chunk (Mistral API reference, ``ThinkChunk``; docs.mistral.ai "Reasoning") -> ``reasoning``.

        The text is the chunk texts joined. The chunk's other fields (``type``, ``closed``) and, when it had
        more than one text, the list itself go to ``provider_data["openai-chat"]`` so the chunk is written
        back exactly to OpenAI-compatible servers; other targets get the reasoning text. ``None``: another
        shape (kept raw).
        """
        chunks = part.get("thinking")
        if not isinstance(chunks, list) or not chunks:
            return None
        if not all(isinstance(c, dict) and set(c) == {"type", "text"} and c["type"] == "text" and isinstance(c["text"], str) for c in chunks):
            return None
        own: dict[str, Any] = {"content_part": {k: _json_copy(v) for k, v in part.items() if k != "thinking"}}
        if len(chunks) != 1:
            own["thinking"] = _json_copy(chunks)
        return ReasoningItem(text="".join(c["text"] for c in chunks), message=key, origin=self.origin, provider_data={NAME: own})

    def _file(self, body: dict[str, Any], common: dict[str, Any], *, index: int, pointer: str) -> DocumentItem | None:
        """``file:{file_data?, file_id?, filename?}`` -> :class:`DocumentItem` (``None``: keep raw)."""
        if set(body) - {"file_data", "file_id", "filename"}:
            return None
        filename = body["filename"] if isinstance(body.get("filename"), str) else U
        if isinstance(body.get("file_data"), str) and "file_id" not in body:
            source = parse_data_url(body["file_data"])
            if source is None:
                return None  # bare base64 without a media type: kept raw so it round-trips exactly
            return DocumentItem(source=source, media_type=source.media_type, filename=filename, **common)
        if isinstance(body.get("file_id"), str) and body["file_id"] and "file_data" not in body:
            return DocumentItem(source=FileSource(file_id=body["file_id"], provider="openai"), filename=filename, **common)
        return None

    # ------------------------------------------------------------------ roles

    def _content_message(self, msg: dict[str, Any], role: str, *, index: int, key: str) -> list[Item]:
        content = msg.get("content")
        malformed = False
        items: list[Item] = []
        if isinstance(content, str):
            items.append(TextItem(text=content, role=role, message=key))  # type: ignore[arg-type]
        elif isinstance(content, list):
            for j, part in enumerate(content):
                item = self._part(part, role, index=index, key=key, pointer=f"/messages/{index}/content/{j}")
                if item is not None:
                    items.append(item)
        elif content is not None:
            self.report.add("dropped", "message content is neither a string nor a list of parts", index=index, pointer=f"/messages/{index}/content")
            malformed = True
        items.extend(self._extras(msg, _CONTENT_KEYS, key=key, role=role))
        if not items and not malformed:
            # an empty message of the source (``""``, ``[]``) is kept as one, so it comes back; a message
            # whose content was dropped as malformed leaves nothing (no empty text stands in for it)
            items.append(TextItem(text="", role=role, message=key))  # type: ignore[arg-type]
        return items

    def reasoning(self, msg: dict[str, Any], *, index: int, key: str) -> list[Item]:
        """DeepSeek ``reasoning_content`` / OpenRouter+Ollama ``reasoning`` / OpenRouter ``reasoning_details``."""
        primary = msg.get("reasoning_content")
        alternate = msg.get("reasoning")
        text: str | None = None
        if isinstance(primary, str) and primary:
            text = primary
            if isinstance(alternate, str) and alternate and alternate != primary:
                self.report.add("dropped", "message has both reasoning_content and a different reasoning; reasoning left out", index=index, item_type="reasoning")
        elif isinstance(alternate, str) and alternate:
            text = alternate
        details = msg.get("reasoning_details")
        opaque: Any = openrouter_opaque(details) if isinstance(details, list) and details else U
        if text is None and opaque is U:
            return []
        # Which wire fields held it (REASONING_FIELDS_KEY): written back to the same fields whatever the
        # dialect, so a compatible host gets its own reasoning back (ADR 0009 rule, issue 13); read
        # from a response, into response bodies only (ChatCompletionAssistantMessageParam has no
        # reasoning field, so a request gets what the dialect writes).
        wire = [k for k in ("reasoning_content", "reasoning") if text is not None and msg.get(k) == text]
        if opaque is not U:
            wire.append("reasoning_details")
        item = ReasoningItem(text=text if text is not None else U, opaque=opaque, message=key, origin=self.origin)
        if _dialect_writes(self.dialect, wire, has_calls=bool(msg.get("tool_calls")), request=self.request):
            return [item]  # the dialect alone writes these fields back: no hint
        hint: dict[str, Any] = {REASONING_FIELDS_KEY: wire}
        if self.request:
            hint = {REQUEST_FIELDS_KEY: hint}  # read from a request: written back into requests too
        return [keep_fields(item, NAME, hint)]

    def tool_call(self, entry: Any, *, index: int, position: int, key: str) -> Item | None:
        """One ``tool_calls[]`` entry -> :class:`ToolCallItem` (custom and unknown calls -> raw)."""
        pointer = f"/messages/{index}/tool_calls/{position}"
        if not isinstance(entry, dict):
            self.report.add("dropped", "tool call is not a JSON object", index=index, item_type="tool_call", pointer=pointer)
            return None
        fn = entry.get("function")
        kind = entry.get("type", "function")
        if kind != "function" or not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not fn["name"]:
            self.report.add("changed", f"tool call of type {kind!r} has no canonical form; kept as a raw item", index=index, item_type="tool_call", pointer=pointer)
            return RawItem(provider=NAME, value=_json_copy(entry), message=key, role="assistant", origin=self.origin)
        call_id = entry.get("id")
        extra = unknown_fields(entry, ("id", "type", "function"))
        if call_id == "" and self.request:
            pass  # an empty id: linked to its result by position after decoding (interlingua.mapping.empty_ids)
        elif not isinstance(call_id, str) or not call_id:
            if call_id == "" and not self.request:
                extra[WIRE_ID_KEY] = ""  # a host's empty id goes back into its response as it was
            call_id = f"call_{index}_{position}"
            self.report.add("changed", f"tool call without an id; given {call_id!r}", index=index, item_type="tool_call", pointer=pointer)
        elif not ID_RULE.accepts(call_id):
            extra[WIRE_ID_KEY] = call_id  # longer than OpenAI's 40 characters, yet the host issued (or took) it
        call = self._call(call_id, fn["name"], fn.get("arguments"), key=key, index=index, pointer=pointer)
        # Fields this mapper does not model (``index``, Snowflake ``custom``, ...) go back to OpenAI Chat;
        # those read from a request (Mistral replays ``index``) go back into requests as well.
        fn_extra = unknown_fields(fn, ("name", "arguments"))
        if "arguments" not in fn:
            fn_extra[ARGUMENTS_ABSENT_KEY] = True  # OpenRouter: a call with no parameters and no arguments key
        if fn_extra:
            extra["function"] = fn_extra
        if self.request:
            hint = {k: extra.pop(k) for k in list(extra) if k != WIRE_ID_KEY}
            if hint:
                extra[REQUEST_FIELDS_KEY] = hint
        return keep_fields(call, NAME, extra)

    def _call(self, call_id: str, name: str, arguments: Any, *, key: str, index: int, pointer: str) -> ToolCallItem:
        if isinstance(arguments, dict):
            # Some compatible servers send an object; the canonical form is the same object.
            return ToolCallItem(id=call_id, name=name, arguments=_json_copy(arguments), message=key, origin=self.origin)
        if arguments is None:
            arguments = ""
        if not isinstance(arguments, str):
            arguments = msgspec.json.encode(arguments).decode()
        return tool_call_from_text(call_id, name, arguments, message=key, origin=self.origin)

    def assistant(self, msg: dict[str, Any], *, index: int, key: str) -> list[Item]:
        """An assistant message: reasoning, content (text/refusal parts), refusal, tool calls, extras."""
        items: list[Item] = self.reasoning(msg, index=index, key=key)
        content = msg.get("content")
        texts: list[TextItem] = []
        if isinstance(content, str):
            texts.append(TextItem(text=content, role="assistant", message=key, origin=self.origin))
            items.append(texts[-1])
        elif isinstance(content, list):
            for j, part in enumerate(content):
                item = self._part(part, "assistant", index=index, key=key, pointer=f"/messages/{index}/content/{j}")
                if item is not None:
                    items.append(item)
                    if isinstance(item, TextItem):
                        texts.append(item)
        elif content is not None:
            self.report.add("dropped", "assistant content is neither a string nor a list of parts", index=index, pointer=f"/messages/{index}/content")
        annotations = msg.get("annotations")
        if isinstance(annotations, list) and annotations:
            anns = [a for a in (_annotation(x) for x in annotations) if a is not None]
            if len(texts) == 1 and anns:
                pos = items.index(texts[0])
                items[pos] = msgspec.structs.replace(texts[0], annotations=anns)
            else:
                self.report.add("dropped", "annotations without exactly one text to attach to", index=index, pointer=f"/messages/{index}/annotations")
        refusal = msg.get("refusal")
        if isinstance(refusal, str) and refusal:
            items.append(RefusalItem(text=refusal, message=key, origin=self.origin))
        calls = msg.get("tool_calls")
        if isinstance(calls, list):
            for j, entry in enumerate(calls):
                item = self.tool_call(entry, index=index, position=j, key=key)
                if item is not None:
                    items.append(item)
        fc = msg.get("function_call")
        if isinstance(fc, dict) and isinstance(fc.get("name"), str) and fc["name"]:
            call_id = f"call_function_{index}"
            self._pending_function[fc["name"]] = call_id
            self.report.add("changed", f"deprecated function_call read as tool call {call_id!r}", index=index, item_type="tool_call", pointer=f"/messages/{index}/function_call")
            items.append(self._call(call_id, fc["name"], fc.get("arguments"), key=key, index=index, pointer=f"/messages/{index}/function_call"))
        elif fc is not None:
            items.extend(self._extras({"function_call": fc}, frozenset(), key=key, role="assistant"))
        items.extend(self._extras(msg, _ASSISTANT_KEYS, key=key, role="assistant"))
        # An empty reasoning field is no reasoning, yet DeepSeek wants ``reasoning_content`` on every
        # tool-call turn (api-docs.deepseek.com thinking mode): kept as message fields, written back here.
        empty = {k: "" for k in ("reasoning_content", "reasoning") if msg.get(k) == "" and not any(isinstance(it, ReasoningItem) and it.text is not U for it in items)}
        if empty:
            items.append(RawItem(provider=NAME, value=empty, message=key, role="assistant", origin=self.origin))
        # Empty text next to other content is no content (hazard 5); a message never vanishes.
        if len(items) > 1:
            items = [it for it in items if not (isinstance(it, TextItem) and it.text == "" and it.annotations is U)]
        if not items:
            items.append(TextItem(text="", role="assistant", message=key, origin=self.origin))
        return items

    def _tool_text(self, content: Any, *, index: int) -> list[Any]:
        if isinstance(content, str):
            return [TextItem(text=content)] if content else []
        out: list[Any] = []
        if isinstance(content, list):
            for j, part in enumerate(content):
                if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                    where = f"/messages/{index}/content/{j}"
                    self._check_part_keys(part, "text", index=index, pointer=where)
                    out.append(self._cache_hint(TextItem(text=part["text"], cache_breakpoint=self.cache_breakpoint(part, index=index, pointer=where)), part))
                else:
                    # OpenAI-compatible hosts send media in tool messages (``image_url`` beside text, LiteLLM
                    # #20403): read as the tool result's content; the target's encoder and the policy decide
                    item = self._tool_part(part, index=index, pointer=f"/messages/{index}/content/{j}")
                    if item is not None:
                        out.append(item)
        elif content is not None:
            self.report.add("dropped", "tool message content is neither a string nor a list of parts", index=index, pointer=f"/messages/{index}/content")
        return out

    def _tool_part(self, part: Any, *, index: int, pointer: str) -> Any:
        """A tool message part other than text -> tool result content (image, audio, document), or
        ``None`` (reported dropped): a part with no canonical form has no place inside a tool result
        (``ToolResultContent`` holds content items and structured data, not raw items)."""
        saved = len(self.report.entries)
        item = self._part_fields(part, U, index=index, key="", pointer=pointer)
        if isinstance(item, (ImageItem, AudioItem, DocumentItem)):
            return msgspec.structs.replace(item, message=U)
        del self.report.entries[saved:]  # the raw-item entry: replaced by the drop below
        kind = part.get("type") if isinstance(part, dict) else None
        self.report.add("dropped", f"tool message part {kind!r} cannot be read into a tool result (its content holds text, media and structured data only)", index=index, item_type=str(kind), pointer=pointer)
        return None

    def _tool_message(self, msg: dict[str, Any], *, index: int, key: str) -> list[Item]:
        call_id = msg.get("tool_call_id")
        if not isinstance(call_id, str) or (not call_id and not self.request):  # "" in a request: linked by position
            self.report.add("changed", "tool message without tool_call_id; kept as a raw item", index=index, item_type="tool_result")
            return [RawItem(provider=NAME, value=_json_copy(msg), message=key)]
        items: list[Item] = [ToolResultItem(call_id=call_id, content=self._tool_text(msg.get("content"), index=index), message=key)]
        items.extend(self._extras(msg, _TOOL_KEYS, key=key, role=U))
        return items

    def _function_message(self, msg: dict[str, Any], *, index: int, key: str) -> list[Item]:
        name = msg.get("name")
        call_id = self._pending_function.pop(name, None) if isinstance(name, str) else None
        if call_id is None:
            self.report.add("changed", "function message answers no function_call; kept as a raw item", index=index, item_type="tool_result")
            return [RawItem(provider=NAME, value=_json_copy(msg), message=key)]
        self.report.add("changed", f"deprecated function message read as the result of {call_id!r}", index=index, item_type="tool_result")
        items: list[Item] = [ToolResultItem(call_id=call_id, name=name, content=self._tool_text(msg.get("content"), index=index), message=key)]  # type: ignore[arg-type]
        items.extend(self._extras(msg, frozenset({"role", "content", "name"}), key=key, role=U))
        return items
