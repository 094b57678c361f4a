"""A transcript -> LangChain ``messages_to_dict`` output (what ``messages_from_dict`` reads).

The inverse of :mod:`interlingua.compat._langchain` (whose docstring gives the shapes; source:
langchain-core ``langchain_core/messages``: ``message_to_dict``/``messages_from_dict``, ``AIMessage``
``tool_calls``/``invalid_tool_calls``, ``ToolMessage``). One LangChain message per canonical message
(items sharing a ``message`` key and a side):

* ``text(system)`` -> ``system``; ``text(developer)`` -> ``chat`` with ``role: "developer"``;
  user content -> ``human``; content is a string for one text, else a list of blocks: ``text``,
  ``image_url`` (a data URL for base64 bytes; ``detail``), and for audio, documents and video the
  standard blocks ``{"type": "audio"|"file"|"video", "url"|"base64"|"file_id", "mime_type"}``.
* Assistant items -> ``ai``: texts as above; ``tool_call`` -> ``tool_calls`` (``invalid_tool_calls`` with
  the raw text and error when the arguments did not parse); reasoning with Anthropic state ->
  ``thinking``/``redacted_thinking`` blocks, with OpenAI Responses state ->
  ``additional_kwargs.reasoning`` (``id``, ``summary``, ``encrypted_content``), other reasoning ->
  ``additional_kwargs.reasoning_content`` (a further one: a ``thinking`` block). ``origin`` ->
  ``response_metadata`` (``model_name``, ``model_provider``, ``id``); the ``metadata["langchain"]`` the
  reader kept (``usage_metadata``, ``response_metadata``, ``id``) goes back on the message. Where the
  order of items would not survive (LangChain holds reasoning, then content, then tool calls), the
  message is split, reported.
* ``tool_result`` -> ``tool`` (``tool_call_id``, ``name``, ``status: "error"`` for ``is_error``,
  ``artifact`` from ``metadata["langchain"]``).
* ``refusal`` and ``structured`` -> text (reported); ``raw(provider="langchain")`` is written back as it
  was read; ``error`` items and foreign ``raw`` items have no LangChain form: the policy decides.

Every field that does not come back unchanged through the reader is reported per item
(:mod:`interlingua.compat._writing`); tools, tool choice and settings have no place in a message
list (reported); the transcript's usage and stop reason go on the last ``ai`` message (reported).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ..items import (
    ArtifactSource,
    AudioItem,
    Base64Source,
    DocumentItem,
    FileSource,
    ImageItem,
    RawItem,
    ReasoningItem,
    RefusalItem,
    StructuredItem,
    TextItem,
    TextSource,
    ToolCallItem,
    ToolResultItem,
    Transcript,
    UrlSource,
    VideoItem,
)
from ..mapping import Conversion, Policy, Report
from . import _langchain
from ._writing import kind, report_loss

__all__ = ["write"]

FORMAT = _langchain.FORMAT
U = msgspec.UNSET

_PROVIDER_NAMES = {"openai-chat": "openai", "openai-responses": "openai", "anthropic": "anthropic", "gemini": "google_genai", "ollama": "ollama"}
"""Registry name -> LangChain ``model_provider`` (the reader's table, inverted)."""

_MEDIA = (ImageItem, AudioItem, DocumentItem, VideoItem)

# Where the reader puts what it reads from an ai message, in this order.
_ORDER_REASONING_CONTENT, _ORDER_REASONING, _ORDER_CONTENT, _ORDER_CALLS, _ORDER_INVALID = range(5)


def _type(item: Any) -> str:
    """The LangChain message type of an item."""
    if isinstance(item, ToolResultItem):
        return "tool"
    if isinstance(item, ToolCallItem | ReasoningItem | RefusalItem | StructuredItem):
        return "ai"
    if isinstance(item, RawItem) and isinstance(item.value, Mapping) and isinstance(item.value.get("type"), str) and item.value["type"] in _langchain.TYPES and isinstance(item.value.get("data"), Mapping):
        return "whole"
    role: Any = getattr(item, "role", None)
    return {"system": "system", "developer": "developer", "user": "human", "assistant": "ai"}.get(role, "ai" if isinstance(item, RawItem) else "human")


class _Writer:
    def __init__(self, transcript: Transcript, policy: Policy, report: Report) -> None:
        self.transcript = transcript
        self.policy = policy
        self.report = report
        self.pending: list[tuple[dict[str, Any], dict[str, Any], Any, int]] = []

    # ----------------------------------------------------------------- blocks

    def media_block(self, item: Any, index: int) -> dict[str, Any] | None:
        src = item.source
        t = kind(item)
        if isinstance(item, ImageItem) and isinstance(src, UrlSource | Base64Source):
            url = src.url if isinstance(src, UrlSource) else f"data:{src.media_type};base64,{src.data}"
            spec: dict[str, Any] = {"url": url}
            if item.detail in ("auto", "low", "high"):
                spec["detail"] = item.detail
            return {"type": "image_url", "image_url": spec}
        block: dict[str, Any] = {"type": {"image": "image", "audio": "audio", "video": "video"}.get(t, "file")}
        if isinstance(src, UrlSource):
            block["url"] = src.url
        elif isinstance(src, ArtifactSource):
            block["url"] = src.uri
        elif isinstance(src, Base64Source):
            block["base64"] = src.data
        elif isinstance(src, FileSource):
            block["file_id"] = src.file_id
        elif isinstance(src, TextSource):
            block = {"type": "text-plain", "text": src.text}
        mime = getattr(src, "media_type", U)
        if mime is U and isinstance(item, DocumentItem):
            mime = item.media_type
        if isinstance(mime, str):
            block["mime_type"] = mime
        return block

    def content_block(self, item: Any, index: int) -> dict[str, Any] | None:
        """A content item -> one block (``None``: no form; the policy was applied)."""
        if isinstance(item, TextItem):
            return {"type": "text", "text": item.text}
        if isinstance(item, RefusalItem):
            return {"type": "text", "text": item.text}
        if isinstance(item, StructuredItem):
            return {"type": "text", "text": msgspec.json.encode(item.data).decode()}
        if isinstance(item, _MEDIA):
            return self.media_block(item, index)
        if isinstance(item, RawItem) and item.provider == FORMAT and isinstance(item.value, Mapping):
            return copy.deepcopy(dict(item.value))
        t = kind(item)
        extra = f" (a {item.provider} raw item)" if isinstance(item, RawItem) else ""
        markers = self.report.unsupported(self.policy, f"{t} item has no LangChain form{extra}", index=index, item_type=t)
        return {"type": "text", "text": markers[0].text} if markers else None

    # ----------------------------------------------------------------- messages

    def origin_fields(self, item: Any) -> dict[str, Any]:
        data: dict[str, Any] = {}
        origin = getattr(item, "origin", U)
        meta: dict[str, Any] = {}
        if origin is not U:
            if isinstance(origin.model, str):
                meta["model_name"] = origin.model
            if isinstance(origin.provider, str) and origin.provider != FORMAT:
                meta["model_provider"] = _PROVIDER_NAMES.get(origin.provider, origin.provider)
            if isinstance(origin.response_id, str):
                meta["id"] = origin.response_id
        kept = item.metadata.get(FORMAT) if getattr(item, "metadata", U) is not U else None
        if isinstance(kept, Mapping):
            for k in ("usage_metadata", "response_metadata", "id"):
                if k in kept:
                    data[k] = copy.deepcopy(kept[k])
        if meta:
            data["response_metadata"] = {**meta, **data.get("response_metadata", {})}
        return data

    def new(self, mtype: str, item: Any) -> dict[str, Any]:
        if mtype == "developer":
            return {"type": "chat", "data": {"content": [], "role": "developer"}}
        msg: dict[str, Any] = {"type": mtype, "data": {"content": []}}
        if mtype == "ai":
            msg["data"].update({"tool_calls": [], "invalid_tool_calls": [], "additional_kwargs": {}})
            msg["data"].update(self.origin_fields(item))
            msg["_order"] = -1
        return msg

    def write(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        current: dict[str, Any] | None = None
        key: Any = None
        mtype_now: str | None = None
        whole: list[dict[str, Any]] = []  # raw LangChain messages, written back as they were read
        for index, item in enumerate(self.transcript.items):
            mtype = _type(item)
            if mtype == "whole":
                whole.append(copy.deepcopy(dict(item.value)))  # type: ignore[union-attr]
                messages.append(whole[-1])
                current = None
                continue
            item_key = getattr(item, "message", U)
            order = self.ai_order(item) if mtype == "ai" else 0
            split = current is not None and mtype == "ai" and mtype_now == "ai" and order < current["_order"] and item_key == key
            if split:
                self.report.add("changed", "LangChain holds an ai message's reasoning, then its content, then its tool calls: the message is split here to keep the items' order", index=index, item_type=kind(item))
            if current is None or split or mtype != mtype_now or mtype == "tool" or item_key != key:
                current = self.new(mtype, item)
                messages.append(current)
                key, mtype_now = item_key, mtype
            self.add(current, mtype, item, index)
        # The reader drops an empty text beside other content of an ai message (LangChain stores "" beside
        # tool calls): such a text is not written, reported.
        # (each message's pieces looked up by the message, not searched for in every piece: a scan per
        # message made a window's write quadratic in its items)
        by_message: dict[int, list[tuple[dict[str, Any], dict[str, Any], Any, int]]] = {}
        for entry in self.pending:
            by_message.setdefault(id(entry[0]), []).append(entry)
        removed: set[int] = set()
        for m in messages:
            pieces = by_message.get(id(m), [])
            if m["type"] != "ai" or len(pieces) < 2:
                continue
            for entry in list(pieces):
                _, piece, item, index = entry
                if isinstance(item, TextItem) and item.text == "" and len(pieces) > 1:
                    m["data"]["content"].remove(piece["content"][0])
                    removed.add(id(entry))
                    pieces.remove(entry)
                    self.report.add("dropped", "empty text beside other content of an ai message (LangChain reads it as no content)", index=index, item_type="text")
        if removed:
            self.pending = [entry for entry in self.pending if id(entry) not in removed]
        # A message nothing was written into (its only item was left out) is no message.
        used = {id(m) for m, _, _, _ in self.pending} | {id(m) for m in whole}
        messages = [m for m in messages if id(m) in used]
        self.document(messages)
        for m in messages:
            m.pop("_order", None)
            data = m["data"]
            if isinstance(data.get("content"), list):
                blocks = data["content"]
                if len(blocks) == 1 and blocks[0].get("type") == "text" and set(blocks[0]) == {"type", "text"}:
                    data["content"] = blocks[0]["text"]
                elif not blocks:
                    data["content"] = ""
            if m["type"] == "ai" and not data["additional_kwargs"]:
                del data["additional_kwargs"]
        self.run_checks()
        return messages

    def ai_order(self, item: Any) -> int:
        if isinstance(item, ToolCallItem):
            return _ORDER_CALLS if item.arguments is not U else _ORDER_INVALID
        if isinstance(item, ReasoningItem):
            return self.reasoning_slot(item, None)
        return _ORDER_CONTENT

    def reasoning_slot(self, item: ReasoningItem, msg: dict[str, Any] | None) -> int:
        op = item.opaque
        if op is not U and op.namespace in ("anthropic.signature", "anthropic.redacted_thinking"):
            return _ORDER_CONTENT
        if op is not U and op.issuer == "openai-responses" or (op is U and item.summary is not U and item.text is U):
            return _ORDER_REASONING
        if item.text is U or not item.text:  # reasoning_content "" reads back as nothing: a thinking block holds it
            return _ORDER_CONTENT
        return _ORDER_REASONING_CONTENT

    def add(self, msg: dict[str, Any], mtype: str, item: Any, index: int) -> None:
        data = msg["data"]
        if isinstance(item, ToolResultItem):
            self.tool(msg, item, index)
            return
        piece: dict[str, Any]
        if isinstance(item, ToolCallItem):
            if item.arguments is not U:
                call = {"name": item.name, "args": copy.deepcopy(item.arguments), "id": item.id, "type": "tool_call"}
                data["tool_calls"].append(call)
                piece = {"tool_calls": [call]}
            else:
                if item.arguments_raw is U:  # neither form (validate refuses it): an invalid tool call with empty args, said
                    self.report.add("changed", "a tool_call with no arguments written to langchain as an invalid_tool_call with empty args", index=index, item_type="tool_call")
                bad = {"name": item.name, "args": item.arguments_raw if item.arguments_raw is not U else "", "id": item.id, "error": item.arguments_error if item.arguments_error is not U else None, "type": "invalid_tool_call"}
                data["invalid_tool_calls"].append(bad)
                piece = {"invalid_tool_calls": [bad]}
            msg["_order"] = max(msg["_order"], self.ai_order(item))
        elif isinstance(item, ReasoningItem):
            piece = self.reasoning(msg, item)
        else:
            block = self.content_block(item, index)
            if block is None:
                return
            data["content"].append(block)
            piece = {"content": [block]}
            if mtype == "ai":
                msg["_order"] = max(msg["_order"], _ORDER_CONTENT)
        self.pending.append((msg, piece, item, index))

    def reasoning(self, msg: dict[str, Any], item: ReasoningItem) -> dict[str, Any]:
        data = msg["data"]
        kwargs = data["additional_kwargs"]
        op = item.opaque
        slot = self.reasoning_slot(item, msg)
        if slot == _ORDER_CONTENT or (slot == _ORDER_REASONING_CONTENT and "reasoning_content" in kwargs) or (slot == _ORDER_REASONING and "reasoning" in kwargs):
            if op is not U and op.namespace == "anthropic.redacted_thinking":
                block: dict[str, Any] = {"type": "redacted_thinking", "data": op.value}
            else:
                text = item.text if item.text is not U else "\n\n".join(item.summary) if item.summary is not U else ""
                block = {"type": "thinking", "thinking": text}
                if op is not U and op.namespace == "anthropic.signature":
                    block["signature"] = op.value
            data["content"].append(block)
            msg["_order"] = max(msg["_order"], _ORDER_CONTENT)
            return {"content": [block]}
        msg["_order"] = max(msg["_order"], slot)
        if slot == _ORDER_REASONING:
            r: dict[str, Any] = {"type": "reasoning", "summary": [{"type": "summary_text", "text": s} for s in (item.summary if item.summary is not U else [])]}
            if item.origin is not U and isinstance(item.origin.item_id, str):
                r["id"] = item.origin.item_id
            if op is not U:
                r["encrypted_content"] = op.value
            kwargs["reasoning"] = r
            return {"additional_kwargs": {"reasoning": r}}
        kwargs["reasoning_content"] = item.text if item.text is not U else "\n\n".join(item.summary) if item.summary is not U else ""
        return {"additional_kwargs": {"reasoning_content": kwargs["reasoning_content"]}}

    def tool(self, msg: dict[str, Any], item: ToolResultItem, index: int) -> None:
        data = msg["data"]
        data["tool_call_id"] = item.call_id
        for c in item.content:
            block = self.content_block(c, index)
            if block is not None:
                data["content"].append(block)
        if item.name is not U:
            data["name"] = item.name
        if item.is_error is True:
            data["status"] = "error"
        kept = item.metadata.get(FORMAT) if item.metadata is not U else None
        if isinstance(kept, Mapping) and "artifact" in kept:
            data["artifact"] = copy.deepcopy(kept["artifact"])
        self.pending.append((msg, {}, item, index))

    def run_checks(self) -> None:
        """Read each written piece alone, in its final message, and report what does not come back."""
        first_of: dict[int, Any] = {}  # each message's first written item
        for msg, _, item, _ in self.pending:
            first_of.setdefault(id(msg), item)
        for msg, piece, item, index in self.pending:
            data = msg["data"]
            if msg["type"] == "tool":
                mini = copy.deepcopy(msg)
            else:
                base = {k: v for k, v in data.items() if k not in ("content", "tool_calls", "invalid_tool_calls", "additional_kwargs")}
                first = first_of[id(msg)] is item
                if msg["type"] == "ai" and not first:  # the reader keeps the message's fields on its first item only
                    base = {k: v for k, v in base.items() if k != "usage_metadata"}
                    if "response_metadata" in base:
                        base["response_metadata"] = {k: v for k, v in base["response_metadata"].items() if k in ("model_name", "model", "model_provider", "ls_provider", "id")}
                mini = {"type": msg["type"], "data": {**base, "content": [], **copy.deepcopy(piece)}}
            try:
                back = _langchain.read([mini]).transcript.items
            except Exception:  # noqa: BLE001 - a piece the reader refuses reads back as nothing: reported as such
                back = []
            report_loss(self.report, FORMAT, item, back, index)

    def document(self, messages: list[dict[str, Any]]) -> None:
        t: Any = self.transcript
        last = next((m for m in reversed(messages) if m["type"] == "ai"), None)
        if t.usage is not U or t.stop_reason is not U or t.response is not U:
            if last is None:
                self.report.add("dropped", "the transcript's usage, stop reason and response metadata: no ai message to hold them")
            else:
                data = last["data"]
                if t.usage is not U and "usage_metadata" not in data:
                    u = t.usage
                    i, o = u.input_tokens if u.input_tokens is not U else 0, u.output_tokens if u.output_tokens is not U else 0
                    data["usage_metadata"] = {"input_tokens": i, "output_tokens": o, "total_tokens": u.total_tokens if u.total_tokens is not U else i + o}
                meta = data.setdefault("response_metadata", {})
                if t.stop_reason is not U:
                    meta.setdefault("stop_reason", t.stop_reason.raw if t.stop_reason.raw is not U else t.stop_reason.reason)
                if t.response is not U:
                    if t.response.id is not U:
                        meta.setdefault("id", t.response.id)
                    if t.response.model is not U:
                        meta.setdefault("model_name", t.response.model)
                self.report.add("changed", "the transcript's usage, stop reason and response metadata written on the last ai message (usage_metadata, response_metadata; read back as that message's metadata)")
        for name, what in (("tools", "tool definitions"), ("tool_choice", "tool_choice"), ("settings", "settings"), ("metadata", "metadata")):
            if getattr(t, name) is not U:
                self.report.add("dropped", f"the transcript's {what}: a LangChain message list has no place for them")


def write(transcript: Transcript, *, policy: Policy = "error", report: Report | None = None) -> Conversion[list[dict[str, Any]]]:
    """A transcript -> ``messages_to_dict`` output (``[{"type", "data"}, ...]``, what ``messages_from_dict`` reads).

    Args:
        transcript: The conversation.
        policy: For items LangChain has no form for (``error`` items, foreign ``raw`` items): refuse,
            leave out or write a text marker, each reported.
        report: Entries are appended here (a new report when not given).

    Returns:
        ``Conversion(value=[message, ...], report)``; the input is not mutated.

    Raises:
        ConversionError: under policy ``error``, an item LangChain has no form for.
    """
    report = report if report is not None else Report()
    return Conversion(_Writer(transcript, policy, report).write(), report)
