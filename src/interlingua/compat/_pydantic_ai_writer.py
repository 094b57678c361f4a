"""A transcript -> a pydantic-ai message history (``ModelMessagesTypeAdapter`` JSON).

The inverse of :mod:`interlingua.compat._pydantic_ai` (whose docstring gives the shapes; source:
pydantic-ai ``pydantic_ai/messages.py``). Items go into ``ModelRequest`` messages (system, developer
and user content, tool results) and ``ModelResponse`` messages (assistant content, tool calls,
reasoning); a new message starts where the side or the item's ``message`` key changes.

* ``text(system)`` -> ``system-prompt`` (a ``developer`` text too, reported); a system text the reader
  made from ``instructions`` (``message`` ``instructions{i}``) -> ``instructions`` of the next request.
* User content -> one ``user-prompt`` part per message: a string, or a list of strings and
  ``image-url``/``audio-url``/``document-url`` (URL sources) and ``binary`` (base64) objects. A user
  text the reader made from a ``retry-prompt`` is one again.
* ``tool_result`` -> ``tool-return`` (``tool_name`` from the result, else from its call; text content a
  string, media a list of file objects; ``is_error`` -> ``outcome: "failed"``).
* ``text(assistant)`` -> ``text``; ``tool_call`` -> ``tool-call`` (``args`` the object, or the raw
  text of malformed arguments); ``reasoning`` -> ``thinking`` with the opaque state as ``signature``
  and ``provider_name`` of its issuer (Anthropic signature or redacted thinking, OpenAI Responses
  encrypted content, Gemini thought signature); assistant media -> ``file``.
* Message fields: ``origin.model`` -> ``model_name``, ``origin.response_id`` -> ``provider_response_id``,
  ``origin.provider`` -> ``provider_name``, ``origin.item_id`` -> the part's ``id``; the
  ``metadata["pydantic_ai"]`` the reader kept (usage, finish_reason, timestamp, ...) back on the
  response. The transcript's own usage, stop reason and response metadata go on the last response.
* ``raw(provider="pydantic-ai")`` is written back as it was read. ``error`` items, foreign ``raw``
  items, file-id and video sources have no pydantic-ai form: the policy decides.

Every field that does not come back unchanged through the reader is reported per item
(:mod:`interlingua.compat._writing`); tools, tool choice and settings have no place in a
message history (reported).
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
    ImageItem,
    RawItem,
    ReasoningItem,
    RefusalItem,
    StructuredItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
    Transcript,
    UrlSource,
    VideoItem,
)
from ..mapping import Conversion, Policy, Report
from . import _pydantic_ai
from ._writing import call_arguments, kind, report_loss

__all__ = ["write"]

FORMAT = _pydantic_ai.FORMAT
U = msgspec.UNSET

_PROVIDER_NAMES = {"anthropic": "anthropic", "gemini": "google-gla", "openai-chat": "openai", "openai-responses": "openai", "ollama": "ollama"}
"""Registry name -> pydantic-ai ``provider_name`` (the reader's table, inverted)."""

_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_call", "content_filter": "content_filter", "refusal": "content_filter", "error": "error"}
"""Canonical stop reason -> pydantic-ai ``FinishReason``."""

_URL_KINDS = {"image": "image-url", "audio": "audio-url", "document": "document-url"}


def _side(item: Any) -> str:
    if isinstance(item, ToolResultItem):
        return "request"
    if isinstance(item, ToolCallItem | ReasoningItem | RefusalItem | StructuredItem):
        return "response"
    if isinstance(item, RawItem):
        return "response" if item.origin is not U or item.role == "assistant" else "request"
    role = getattr(item, "role", U)
    return "response" if role == "assistant" else "request"


class _Writer:
    def __init__(self, transcript: Transcript, policy: Policy, report: Report) -> None:
        self.transcript = transcript
        self.policy = policy
        self.report = report
        self.names = {i.id: i.name for i in transcript.items if isinstance(i, ToolCallItem)}
        self.pending: list[tuple[dict[str, Any], dict[str, Any], Any, int]] = []

    # ----------------------------------------------------------------- pieces

    def file(self, item: Any, index: int) -> dict[str, Any] | str | None:
        """A media item -> a pydantic-ai file object; when it has none, the policy's text marker or ``None``."""
        src = item.source
        t = kind(item)
        if isinstance(item, VideoItem) or not isinstance(src, UrlSource | Base64Source | ArtifactSource):
            what = "video" if isinstance(item, VideoItem) else f"a {kind(src)} source"
            markers = self.report.unsupported(self.policy, f"{t} with {what} has no pydantic-ai file form", index=index, item_type=t)
            return markers[0].text if markers else None
        if isinstance(src, Base64Source):
            return {"kind": "binary", "data": src.data, "media_type": src.media_type}
        url = src.url if isinstance(src, UrlSource) else src.uri
        out: dict[str, Any] = {"kind": _URL_KINDS[t], "url": url}
        mime = src.media_type if src.media_type is not U else (item.media_type if isinstance(item, DocumentItem) else U)
        if isinstance(mime, str):
            out["media_type"] = mime
        return out

    def user_value(self, item: Any, index: int) -> Any:
        """One value of a ``user-prompt`` content list (``None``: left out, reported)."""
        if isinstance(item, TextItem):
            return item.text
        if isinstance(item, ImageItem | AudioItem | DocumentItem | VideoItem):
            return self.file(item, index)
        marker = self.unsupported(item, index)
        return marker["content"] if marker else None

    def tool_return(self, item: ToolResultItem, index: int) -> dict[str, Any]:
        name = item.name if item.name is not U else self.names.get(item.call_id)
        if name is None:
            name = "unknown"
            self.report.add("changed", f"tool result {item.call_id!r} names no tool and answers no call in the transcript; tool_name 'unknown' written", index=index, item_type="tool_result")
        content: Any
        texts = [c for c in item.content if isinstance(c, TextItem)]
        if len(item.content) == len(texts) and len(texts) <= 1:
            content = texts[0].text if texts else ""
        else:
            content = []
            for c in item.content:
                if isinstance(c, TextItem):
                    content.append(c.text)
                elif isinstance(c, StructuredItem):
                    content.append(copy.deepcopy(c.data))
                elif isinstance(c, ImageItem | AudioItem | DocumentItem | VideoItem):
                    f = self.file(c, index)
                    if f is not None:
                        content.append(f)  # a file object, or the policy's text marker
        outcome = "failed" if item.is_error is True else "success"
        meta = item.metadata.get(FORMAT) if item.metadata is not U else None
        if isinstance(meta, Mapping) and isinstance(meta.get("outcome"), str):
            outcome = meta["outcome"]
        return {"part_kind": "tool-return", "tool_name": name, "tool_call_id": item.call_id, "content": content, "outcome": outcome}

    def thinking(self, item: ReasoningItem) -> dict[str, Any]:
        text = item.text if item.text is not U else ("\n\n".join(item.summary) if item.summary is not U else "")
        part: dict[str, Any] = {"part_kind": "thinking", "content": text}
        op = item.opaque
        if op is not U and isinstance(op.value, str):
            part["signature"] = op.value
            if op.namespace == "anthropic.redacted_thinking":
                part["id"] = "redacted_thinking"
            part["provider_name"] = _PROVIDER_NAMES.get(op.issuer, op.issuer)
        elif item.origin is not U and isinstance(item.origin.provider, str) and item.origin.provider != FORMAT:
            part["provider_name"] = _PROVIDER_NAMES.get(item.origin.provider, item.origin.provider)
        if item.origin is not U and isinstance(item.origin.item_id, str) and "id" not in part:
            part["id"] = item.origin.item_id
        return part

    def response_part(self, item: Any, index: int) -> dict[str, Any] | None:
        part: dict[str, Any] | None
        if isinstance(item, TextItem):
            part = {"part_kind": "text", "content": item.text}
        elif isinstance(item, ToolCallItem):
            args: Any = call_arguments(item, self.report, FORMAT, index)
            part = {"part_kind": "tool-call", "tool_name": item.name, "args": args, "tool_call_id": item.id}
        elif isinstance(item, ReasoningItem):
            return self.thinking(item)
        elif isinstance(item, RefusalItem):
            part = {"part_kind": "text", "content": item.text}
        elif isinstance(item, StructuredItem):
            part = {"part_kind": "text", "content": msgspec.json.encode(item.data).decode()}
        elif isinstance(item, ImageItem | AudioItem | DocumentItem | VideoItem):
            f = self.file(item, index)
            part = {"part_kind": "file", "content": f} if isinstance(f, dict) else {"part_kind": "text", "content": f} if isinstance(f, str) else None
        else:
            return self.unsupported(item, index)
        origin = getattr(item, "origin", U)
        if part is not None and origin is not U and isinstance(origin.item_id, str):
            part["id"] = origin.item_id
        return part

    def unsupported(self, item: Any, index: int) -> dict[str, Any] | None:
        """Apply the policy to an item with no pydantic-ai form: a text part holding the marker, or ``None``."""
        t = kind(item)
        extra = f" (a {item.provider} raw item)" if isinstance(item, RawItem) else ""
        markers = self.report.unsupported(self.policy, f"{t} item has no pydantic-ai form{extra}", index=index, item_type=t)
        return {"part_kind": "text", "content": markers[0].text} if markers else None

    # ----------------------------------------------------------------- messages

    def response_fields(self, item: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        origin = getattr(item, "origin", U)
        if origin is not U:
            if isinstance(origin.model, str):
                out["model_name"] = origin.model
            if isinstance(origin.response_id, str):
                out["provider_response_id"] = origin.response_id
            if isinstance(origin.provider, str) and origin.provider != FORMAT:
                out["provider_name"] = _PROVIDER_NAMES.get(origin.provider, origin.provider)
        meta = item.metadata.get(FORMAT) if getattr(item, "metadata", U) is not U else None
        if isinstance(meta, Mapping):
            for name in ("usage", "finish_reason", "timestamp", "run_id", "provider_url", "provider_details", "metadata"):
                if name in meta:
                    out[name] = copy.deepcopy(meta[name])
        return out

    def write(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        items = list(self.transcript.items)
        current: dict[str, Any] | None = None
        key: Any = None
        instructions: str | None = None
        for index, item in enumerate(items):
            if isinstance(item, TextItem) and item.role == "system" and isinstance(item.message, str) and item.message.startswith("instructions"):
                instructions = item.text
                report_loss(self.report, FORMAT, item, _pydantic_ai.read([{"kind": "request", "parts": [], "instructions": item.text}]).transcript.items, index)
                continue
            side = _side(item)
            item_key = getattr(item, "message", U)
            if current is None or current["kind"] != side or (item_key is not U and key is not U and item_key != key) or (item_key is U) != (key is U):
                current = {"kind": side, "parts": []}
                messages.append(current)
                key = item_key
                if side == "response":
                    current.update(self.response_fields(item))
            if side == "request" and instructions is not None:
                current["instructions"] = instructions
                instructions = None
            self.add(current, item, index)
        if instructions is not None:
            messages.append({"kind": "request", "parts": [], "instructions": instructions})
        messages = [m for m in messages if m["parts"] or m.get("instructions")]
        self.document(messages)
        self.run_checks()
        return messages

    def add(self, msg: dict[str, Any], item: Any, index: int) -> None:
        """Add ``item`` to ``msg`` and report what of it does not read back."""
        if isinstance(item, RawItem) and item.provider == FORMAT and isinstance(item.value, Mapping):
            part: Any = copy.deepcopy(dict(item.value))
        elif msg["kind"] == "response":
            part = self.response_part(item, index)
        elif isinstance(item, ToolResultItem):
            part = self.tool_return(item, index)
        elif isinstance(item, TextItem) and item.role in ("system", "developer"):
            part = {"part_kind": "system-prompt", "content": item.text}
        elif isinstance(item, TextItem) and item.metadata is not U and isinstance(item.metadata.get(FORMAT), Mapping) and item.metadata[FORMAT].get("part_kind") == "retry-prompt":
            part = {"part_kind": "retry-prompt", "content": item.text}
        else:
            value = self.user_value(item, index)
            if value is None:
                return
            last = msg["parts"][-1] if msg["parts"] else None
            if last is not None and last.get("_merge"):  # a user-prompt part this writer is filling
                last["content"] = (last["content"] if isinstance(last["content"], list) else [last["content"]]) + [value]
            else:
                msg["parts"].append({"part_kind": "user-prompt", "content": value if isinstance(value, str) else [value], "_merge": True})
            self.check(msg, {"part_kind": "user-prompt", "content": value if isinstance(value, str) else [value]}, item, index)
            return
        if part is None:
            return
        msg["parts"].append(part)
        self.check(msg, part, item, index)

    def check(self, msg: dict[str, Any], part: dict[str, Any], item: Any, index: int) -> None:
        """Remember to compare ``item`` with what the reader makes of ``part`` (done when the messages are final)."""
        self.pending.append((msg, part, item, index))

    def run_checks(self) -> None:
        """Read each written piece alone, in its final message, and report what does not come back."""
        for msg, part, item, index in self.pending:
            if isinstance(item, TextItem) and item.role == "developer":
                self.report.add("changed", "developer text written as a system prompt (pydantic-ai has no developer role)", index=index, item_type="text")
                continue
            mini = {k: v for k, v in msg.items() if k not in ("parts", "instructions")}
            if msg["kind"] == "response":
                # The reader names the provider after the message, else its first part naming one; it keeps
                # the response's other fields on the message's first item only.
                named = msg.get("provider_name") or next((p.get("provider_name") for p in msg["parts"] if p.get("provider_name")), None)
                if named:
                    mini["provider_name"] = named
                if msg["parts"] and part is not msg["parts"][0]:
                    mini = {k: v for k, v in mini.items() if k in ("kind", "model_name", "provider_response_id", "provider_name")}
            mini["parts"] = [part]
            try:
                back = _pydantic_ai.read([mini]).transcript.items
            except Exception:  # noqa: BLE001 - a piece the reader refuses reads back as nothing: reported as such
                back = []
            report_loss(self.report, FORMAT, item, back, index)

    def document(self, messages: list[dict[str, Any]]) -> None:
        t: Any = self.transcript
        for m in messages:
            for p in m["parts"]:
                p.pop("_merge", None)
        last = next((m for m in reversed(messages) if m["kind"] == "response"), None)
        if t.usage is not U or t.stop_reason is not U or t.response is not U:
            if last is None:
                self.report.add("dropped", "the transcript's usage, stop reason and response metadata: no response message to hold them")
            else:
                if t.usage is not U and "usage" not in last:
                    u = t.usage
                    last["usage"] = {k: getattr(u, f) for k, f in (("input_tokens", "input_tokens"), ("output_tokens", "output_tokens"), ("cache_read_tokens", "cache_read_tokens"), ("cache_write_tokens", "cache_write_tokens")) if getattr(u, f) is not U}
                if t.stop_reason is not U and "finish_reason" not in last:
                    last["finish_reason"] = _FINISH.get(t.stop_reason.reason)
                if t.response is not U:
                    if t.response.id is not U:
                        last.setdefault("provider_response_id", t.response.id)
                    if t.response.model is not U:
                        last.setdefault("model_name", t.response.model)
                self.report.add("changed", "the transcript's usage, stop reason and response metadata written on the last response (pydantic-ai keeps them per response; read back as that response's metadata)")
        for name, what in (("tools", "tool definitions"), ("tool_choice", "tool_choice"), ("settings", "settings"), ("metadata", "metadata")):
            if getattr(t, name) is not U:
                self.report.add("dropped", f"the transcript's {what}: a pydantic-ai message history has no place for them")


def write(transcript: Transcript, *, policy: Policy = "error", report: Report | None = None) -> Conversion[list[dict[str, Any]]]:
    """A transcript -> a pydantic-ai message history (the JSON ``ModelMessagesTypeAdapter.validate_json`` reads).

    Args:
        transcript: The conversation.
        policy: For items pydantic-ai has no form for (``error`` items, foreign ``raw`` items, video,
            file-id sources): refuse, leave out or write a text marker, each reported.
        report: Entries are appended here (a new report when not given).

    Returns:
        ``Conversion(value=[message, ...], report)``; the input is not mutated.

    Raises:
        ConversionError: under policy ``error``, an item pydantic-ai has no form for.
    """
    report = report if report is not None else Report()
    return Conversion(_Writer(transcript, policy, report).write(), report)
