"""Cohere v2 chat SSE stream -> canonical stream events (Cohere docs "A Guide to Streaming Responses"
and "RAG Streaming" (v2); cohere-python ``V2ChatStreamResponse``).

Events (each ``data:`` a JSON object with ``type``): ``message-start`` (``id``), ``content-start`` /
``content-delta`` / ``content-end`` (``index``; ``delta.message.content`` with ``text`` or
``thinking``), ``tool-plan-delta`` (``delta.message.tool_plan``), ``tool-call-start`` /
``tool-call-delta`` / ``tool-call-end`` (``index``; ``delta.message.tool_calls`` with ``id``,
``function.name`` and ``function.arguments`` fragments), ``citation-start`` / ``citation-end``
(``delta.message.citations``), ``message-end`` (``delta.finish_reason``, ``delta.usage``), which is
the completion marker. A ``[DONE]`` line is ignored; ``debug`` and unknown event types are skipped.

The final response is :func:`decode_response` of the equivalent non-streamed body (the content
parts in index order, the plan, the calls and citations), so stream and response items are equal.
The end of input before ``message-end`` gives ``truncated``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ...items import ErrorItem, Origin
from ...mapping.arguments import tool_call_from_text
from ...mapping.protocol import ModelResponse
from ...mapping.wire import check_shape, decode_event
from ...streaming.events import RawEvent, ReasoningDelta, StreamDone, StreamError, StreamEvent, TextDelta, ToolCallComplete, UsageUpdate
from ._common import NAME, jcopy
from ._response import decode_response

__all__ = ["CohereAccumulator"]


class _Function(msgspec.Struct):
    name: str | None = None
    arguments: str | None = None


class _Call(msgspec.Struct):
    id: str | None = None
    type: str | None = None
    function: _Function | None = None


class _Content(msgspec.Struct):
    type: str | None = None
    text: str | None = None
    thinking: str | None = None


class _DeltaMessage(msgspec.Struct):
    role: str | None = None
    content: _Content | list[Any] | None = None
    tool_plan: str | None = None
    tool_calls: _Call | list[_Call] | None = None
    citations: dict[str, Any] | list[Any] | None = None


class _Delta(msgspec.Struct):
    message: _DeltaMessage | None = None
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    error: str | None = None


class _Event(msgspec.Struct):
    """One stream event: the fields the accumulator reads (cohere-python ``V2ChatStreamResponse``)."""

    type: str
    id: str | None = None
    index: int | None = None
    delta: _Delta | None = None


def _one(value: Any) -> Any:
    """``tool_calls``/``citations`` arrive as one object (some servers wrap it in a one-item list)."""
    if isinstance(value, list):
        return value[0] if value else {}
    return value if value is not None else {}


class CohereAccumulator:
    """Accumulates one Cohere v2 chat stream (see the module docstring)."""

    def __init__(self) -> None:
        self._id: str | None = None
        self._content: dict[int, dict[str, Any]] = {}
        self._plan = ""
        self._calls: dict[int, dict[str, Any]] = {}
        self._citations: list[dict[str, Any]] = []
        self._done = False

    def _body(self, end: Mapping[str, Any] | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant"}
        if self._content:
            message["content"] = [jcopy(self._content[k]) for k in sorted(self._content)]
        if self._plan:
            message["tool_plan"] = self._plan
        if self._calls:
            message["tool_calls"] = [jcopy(self._calls[k]) for k in sorted(self._calls)]
        if self._citations:
            message["citations"] = jcopy(self._citations)
        body: dict[str, Any] = {}
        if self._id:
            body["id"] = self._id
        if end is not None and isinstance(end.get("finish_reason"), str):
            body["finish_reason"] = end["finish_reason"]
        body["message"] = message
        if end is not None and isinstance(end.get("usage"), Mapping):
            body["usage"] = jcopy(dict(end["usage"]))
        return body

    def partial(self) -> ModelResponse:
        """What arrived so far, as a response (for a StreamError's ``partial``)."""
        return decode_response(self._body()).value

    def feed(self, event: RawEvent) -> list[StreamEvent]:
        """One SSE event -> events."""
        if self._done or event.data.strip() == "[DONE]":
            return []
        data = decode_event(event.data, provider=NAME)
        if not isinstance(data, Mapping):
            self._done = True
            return [StreamError(ErrorItem(code="provider_error", message="Cohere stream event is not a JSON object", retryable=False, provider=NAME), partial=self.partial())]
        check_shape(data, _Event, provider=NAME)
        kind = data["type"]
        delta = data.get("delta") or {}
        msg = delta.get("message") or {}
        index: int = data["index"] if isinstance(data.get("index"), int) else 0
        out: list[StreamEvent] = []
        if kind == "message-start":
            self._id = data.get("id") or self._id
        elif kind in ("content-start", "content-delta"):
            piece = msg.get("content") or {}
            piece = piece if isinstance(piece, Mapping) else {}
            part = self._content.setdefault(index, {"type": piece.get("type") or ("thinking" if "thinking" in piece else "text")})
            if part["type"] == "thinking":
                text = piece.get("thinking") or ""
                part["thinking"] = part.get("thinking", "") + text
                if text:
                    out.append(ReasoningDelta(text))
            else:
                text = piece.get("text") or ""
                part["text"] = part.get("text", "") + text
                if text:
                    out.append(TextDelta(text))
        elif kind == "tool-plan-delta":
            text = msg.get("tool_plan") or ""
            self._plan += text
            if text:
                out.append(TextDelta(text))
        elif kind in ("tool-call-start", "tool-call-delta"):
            call = _one(msg.get("tool_calls"))
            fn = call.get("function") or {}
            cur = self._calls.setdefault(index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
            if call.get("id"):
                cur["id"] = call["id"]
            if fn.get("name"):
                cur["function"]["name"] = fn["name"] if kind == "tool-call-start" else cur["function"]["name"] + fn["name"]
            cur["function"]["arguments"] += fn.get("arguments") or ""
        elif kind == "tool-call-end":
            done = self._calls.get(index)
            if done is not None and done["id"] and done["function"]["name"]:
                origin = Origin(provider=NAME, response_id=self._id or msgspec.UNSET, item_id=done["id"])
                out.append(ToolCallComplete(tool_call_from_text(done["id"], done["function"]["name"], done["function"]["arguments"] or "{}", origin=origin, message="resp")))
        elif kind == "citation-start":
            cite = _one(msg.get("citations"))
            if isinstance(cite, Mapping) and cite:
                self._citations.append(jcopy(dict(cite)))
        elif kind == "message-end":
            self._done = True
            response = decode_response(self._body(delta)).value
            if response.usage is not None:
                out.append(UsageUpdate(response.usage))
            out.append(StreamDone(response))
        return out

    def finish(self) -> list[StreamEvent]:
        """End of input: ``truncated`` unless ``message-end`` arrived."""
        if self._done:
            return []
        self._done = True
        return [StreamError(ErrorItem(code="truncated", message="Cohere stream ended before message-end", retryable=True, provider=NAME), partial=self.partial())]
