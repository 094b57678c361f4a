"""Ollama ``/api/chat`` NDJSON stream -> canonical stream events (the providers' API references).

Each line is ``{model, created_at, message:{role, content, thinking?, tool_calls?}, done:false}``; the
completion marker is the line with ``done: true`` (with ``done_reason`` and the counts). Content and thinking
arrive as deltas; tool calls arrive whole. A ``{"error": "..."}`` line (HTTP status stays 200) ends the
stream with a :class:`StreamError` (stable code, safe message); the end of input before ``done: true`` gives
``truncated``. ``/api/generate`` lines (``response`` text, top-level ``thinking``) are read as content and
reasoning deltas.

The final response is :func:`decode_response` of the equivalent non-streamed body (the done line with the
joined content, thinking and images, every tool call and the other message fields), so stream and response
items are equal. What joining changes is reported on :class:`StreamDone` with the line index and a pointer
into the stream read as an array of lines (``/3/message/<field>``): a message field first seen after the
first line (it now covers the whole message), another value for a field already held (left out). Because an
id-less call's canonical id is derived from the final record's ``created_at``, :class:`ToolCallComplete`
events are emitted when ``done: true`` arrives (Ollama sends tool calls at the end of a turn anyway).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ...items import ErrorItem, ToolCallItem
from ...mapping.protocol import ModelResponse
from ...mapping.report import Report
from ...mapping.wire import check_shape, decode_event, fast_event
from ...streaming.events import (
    RawEvent,
    ReasoningDelta,
    StreamDone,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    UsageUpdate,
)
from ._common import NAME, error_item, jcopy
from ._response import decode_response

__all__ = ["OllamaAccumulator"]


class _Message(msgspec.Struct):
    role: str | None = None
    content: str | None = None
    thinking: str | None = None
    tool_calls: list[dict[str, Any]] | None = None


class _Line(msgspec.Struct):
    """One ``/api/chat`` (or ``/api/generate``) stream line: the fields the decoder reads
    (ollama-python ``ChatResponse``/``GenerateResponse``)."""

    model: str | None = None
    created_at: str | None = None
    message: _Message | None = None
    response: str | None = None
    thinking: str | None = None
    done: bool | None = None
    done_reason: str | None = None
    total_duration: int | None = None
    load_duration: int | None = None
    prompt_eval_count: int | None = None
    prompt_eval_duration: int | None = None
    eval_count: int | None = None
    eval_duration: int | None = None


class _FastMessage(msgspec.Struct, forbid_unknown_fields=True):
    content: str
    role: str | None = None
    thinking: str | None = None
    images: None = None


class _FastLine(msgspec.Struct, forbid_unknown_fields=True):
    """A ``done: false`` line carrying a text (or thinking) delta and nothing else: the fast path's shape
    (see :func:`interlingua.mapping.wire.fast_event`)."""

    message: _FastMessage
    model: str | msgspec.UnsetType = msgspec.UNSET
    created_at: str | msgspec.UnsetType = msgspec.UNSET
    done: bool | None = None


_fast_line = msgspec.json.Decoder(_FastLine)


class OllamaAccumulator:
    """Accumulates one Ollama NDJSON stream (see the module docstring)."""

    def __init__(self) -> None:
        self._content = ""
        self._thinking = ""
        self._calls: list[Any] = []
        self._last: dict[str, Any] = {}
        self._done = False
        self._line = -1  # index of the line being read (report entries point into the stream as an array of lines)
        self._images: list[Any] = []
        self._extras: dict[str, Any] = {}  # message fields besides role, content, thinking, images, tool_calls
        self._report = Report()

    def _body(self, final: Mapping[str, Any]) -> dict[str, Any]:
        body = {k: jcopy(v) for k, v in final.items() if k not in ("message", "response", "thinking")}
        message: dict[str, Any] = {"role": "assistant", "content": self._content}
        if self._thinking:
            message["thinking"] = self._thinking
        if self._images:
            message["images"] = jcopy(self._images)
        if self._calls:
            message["tool_calls"] = jcopy(self._calls)
        for k, v in self._extras.items():
            message.setdefault(k, jcopy(v))
        body["message"] = message
        return body

    def _partial(self) -> ModelResponse:
        body = self._body({k: v for k, v in self._last.items() if k in ("model", "created_at")})
        return decode_response(body).value

    def partial(self) -> ModelResponse:
        """What arrived so far, as a response (for a StreamError's ``partial``)."""
        return self._partial()

    def _fail(self, error: ErrorItem) -> list[StreamEvent]:
        self._done = True
        return [StreamError(error, partial=self._partial(), report=Report([*self._report]))]

    def feed(self, event: RawEvent) -> list[StreamEvent]:
        """One NDJSON line -> events."""
        if self._done:
            return []
        self._line += 1
        fast = fast_event(_fast_line, event.data)
        if fast is not None and fast.done is not True:
            # The checked path's result for a delta line (see _FastLine); the done line takes that path.
            last: dict[str, Any] = {}
            if fast.model is not msgspec.UNSET:
                last["model"] = fast.model
            if fast.created_at is not msgspec.UNSET:
                last["created_at"] = fast.created_at
            self._last = last  # only model and created_at are read from it (for a partial)
            out: list[StreamEvent] = []
            thinking, content = fast.message.thinking, fast.message.content
            if thinking:
                self._thinking += thinking
                out.append(ReasoningDelta(thinking))
            if content:
                self._content += content
                out.append(TextDelta(content))
            return out
        line = decode_event(event.data, provider=NAME)
        if not isinstance(line, Mapping):
            return self._fail(ErrorItem(code="provider_error", message="Ollama stream line is not a JSON object", retryable=False, provider=NAME))
        if "error" in line:
            return self._fail(error_item(line["error"]))
        check_shape(line, _Line, provider=NAME)
        self._last = dict(line)
        out = []
        msg = line.get("message")
        if isinstance(msg, Mapping):
            thinking, content = msg.get("thinking"), msg.get("content")
            if isinstance(thinking, str) and thinking:
                self._thinking += thinking
                out.append(ReasoningDelta(thinking))
            if isinstance(content, str) and content:
                self._content += content
                out.append(TextDelta(content))
            if isinstance(msg.get("tool_calls"), list):
                self._calls.extend(jcopy(msg["tool_calls"]))
            if isinstance(msg.get("images"), list):
                self._images.extend(jcopy(msg["images"]))
            self._join_extras(msg)
        else:  # /api/generate: ``thinking`` and ``response`` at the top level
            thinking, text = line.get("thinking"), line.get("response")
            if isinstance(thinking, str) and thinking:
                self._thinking += thinking
                out.append(ReasoningDelta(thinking))
            if isinstance(text, str) and text:
                self._content += text
                out.append(TextDelta(text))
        if line.get("done") is True:
            self._done = True
            conv = decode_response(self._body(line))
            response = conv.value
            out.extend(ToolCallComplete(i) for i in response.items if isinstance(i, ToolCallItem))
            if response.usage is not None:
                out.append(UsageUpdate(response.usage))
            out.append(StreamDone(response, report=Report([*self._report, *conv.report])))
        return out

    def _join_extras(self, msg: Mapping[str, Any]) -> None:
        """Message fields beside the joined ones go onto the final message: a field first seen after the
        first line now covers the whole message (reported ``changed``), another value for a field already
        held is left out (reported ``dropped``); both name the line."""
        for key, value in msg.items():
            if key in ("role", "content", "thinking", "images", "tool_calls") or value is None:
                continue
            where = f"/{self._line}/message/{key}"
            if key not in self._extras:
                self._extras[key] = jcopy(value)
                if self._line > 0:
                    self._report.add("changed", f"stream line {self._line}: message field {key!r} now covers the whole joined message", pointer=where)
            elif self._extras[key] != value:
                self._report.add("dropped", f"stream line {self._line}: message field {key!r} differs from an earlier line's; the first value is kept", pointer=where)

    def finish(self) -> list[StreamEvent]:
        """End of input: ``truncated`` unless a ``done: true`` line was seen."""
        if self._done:
            return []
        self._done = True
        return [
            StreamError(
                ErrorItem(code="truncated", message="Ollama stream ended before a line with done: true", retryable=True, provider=NAME),
                partial=self._partial(),
            )
        ]
