"""Anthropic Messages SSE stream -> canonical stream events.

Event order (ANT ``types/raw_message_stream_event.py``, docs.claude.com streaming page):
``message_start`` -> per block ``content_block_start`` / ``content_block_delta`` /
``content_block_stop`` -> ``message_delta`` (stop reason, cumulative usage) -> ``message_stop``
(the completion marker). ``ping`` may come anywhere and is ignored; ``event: error`` carries
``{type:"error", error:{type, message}}`` and ends the stream. Events out of this order (content or
``message_delta``/``message_stop`` before ``message_start``, a second ``message_start``, content blocks
after ``message_delta``) end the stream with a ``provider_error`` StreamError: the model and message id
come only in ``message_start``, so such a stream cannot be reported as a success.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ...codec import Item
from ...errors import MalformedInputError
from ...items import ErrorItem, ToolCallItem
from ...mapping.arguments import tool_call_from_text
from ...mapping.wire import check_shape, decode_event, fast_event, json_copy
from ...mapping.protocol import ModelResponse
from ...mapping.report import Report
from ...streaming.events import (
    RawEvent,
    ReasoningDelta,
    RefusalDelta,
    StreamDone,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    UsageUpdate,
)
from ._blocks import NAME, DecodeContext, call_fields, decode_block
from ._response import decode_stop, decode_usage, kept_fields, message_context, refusal_item

__all__ = ["AnthropicAccumulator", "ERROR_CODES"]

ERROR_CODES: dict[str, str] = {
    "overloaded_error": "overloaded",
    "rate_limit_error": "rate_limit",
    "api_error": "server",
    "invalid_request_error": "invalid_request",
    "authentication_error": "auth",
    "permission_error": "auth",
    "not_found_error": "not_found",
    "request_too_large": "invalid_request",
    "timeout_error": "timeout",
}
"""Anthropic error ``type`` -> stable error code (API errors page); anything else -> ``provider_error``."""

_RETRYABLE = {"overloaded", "rate_limit", "server", "timeout"}
_JSON_BLOCKS = {"tool_use", "server_tool_use", "mcp_tool_use"}
_DIRECT = {"type": "direct"}
_decoder = msgspec.json.Decoder()

_Obj = dict[str, Any]


class _Block(msgspec.Struct):
    """A content block as the stream decoder reads it (ANT ``types/content_block.py`` and friends)."""

    type: str
    id: str | None = None
    name: str | None = None
    text: str | None = None
    thinking: str | None = None
    signature: str | None = None
    data: str | None = None
    caller: _Obj | None = None
    citations: list[_Obj] | None = None
    tool_use_id: str | None = None


class _Message(msgspec.Struct):
    """``message_start.message`` (ANT ``types/message.py``): the fields the stream decoder reads."""

    id: str | None = None
    model: str | None = None
    usage: _Obj | None = None
    content: list[_Block] | None = None


class _MessageStart(msgspec.Struct):
    message: _Message


class _BlockStart(msgspec.Struct):
    index: int
    content_block: _Block


class _DeltaBase(msgspec.Struct):
    type: str


class _BlockDelta(msgspec.Struct):
    index: int
    delta: _DeltaBase


class _TextDelta(msgspec.Struct):
    text: str


class _ThinkingDelta(msgspec.Struct):
    thinking: str


class _SignatureDelta(msgspec.Struct):
    signature: str


class _CitationsDelta(msgspec.Struct):
    citation: _Obj


class _InputJsonDelta(msgspec.Struct):
    partial_json: str | None = None


class _BlockStop(msgspec.Struct):
    index: int


class _MessageDeltaBody(msgspec.Struct):
    stop_reason: str | None = None
    stop_sequence: str | None = None
    stop_details: _Obj | None = None


class _MessageDelta(msgspec.Struct):
    delta: _MessageDeltaBody | None = None
    usage: _Obj | None = None


_EVENT_SHAPES: dict[str, Any] = {
    "message_start": _MessageStart,
    "content_block_start": _BlockStart,
    "content_block_delta": _BlockDelta,
    "content_block_stop": _BlockStop,
    "message_delta": _MessageDelta,
}
"""Typed shape of each event the accumulator reads (ANT ``types/raw_*_event.py``)."""

_DELTA_SHAPES: dict[str, Any] = {
    "text_delta": _TextDelta,
    "thinking_delta": _ThinkingDelta,
    "signature_delta": _SignatureDelta,
    "citations_delta": _CitationsDelta,
    "input_json_delta": _InputJsonDelta,
}
"""Typed shape of each ``content_block_delta.delta`` type (ANT ``types/raw_content_block_delta.py``)."""


class _FastText(msgspec.Struct, tag_field="type", tag="text_delta", forbid_unknown_fields=True):
    text: str


class _FastThinking(msgspec.Struct, tag_field="type", tag="thinking_delta", forbid_unknown_fields=True):
    thinking: str


class _FastSignature(msgspec.Struct, tag_field="type", tag="signature_delta", forbid_unknown_fields=True):
    signature: str


class _FastJson(msgspec.Struct, tag_field="type", tag="input_json_delta", forbid_unknown_fields=True):
    partial_json: str


class _FastDelta(msgspec.Struct, tag_field="type", tag="content_block_delta", forbid_unknown_fields=True):
    """A ``content_block_delta`` carrying a text, thinking, signature or input_json delta and nothing else."""

    index: int
    delta: _FastText | _FastThinking | _FastSignature | _FastJson


class _FastStop(msgspec.Struct, tag_field="type", tag="content_block_stop", forbid_unknown_fields=True):
    """A ``content_block_stop``: its index and nothing else."""

    index: int


class _FastStart(msgspec.Struct, tag_field="type", tag="content_block_start", forbid_unknown_fields=True):
    """A ``content_block_start`` whose block holds only strings, and objects of strings under ``input`` and
    ``caller``: a text, thinking, redacted_thinking or tool_use block as the stream starts it. The block is
    decoded as a dict so that it keeps the wire's keys and order; :meth:`AnthropicAccumulator._fast`
    refuses the keys :class:`_Block` types otherwise."""

    index: int
    content_block: dict[str, str | dict[str, str]]


_FastEvent = _FastDelta | _FastStop | _FastStart
_fast_decoder = msgspec.json.Decoder(_FastEvent)
"""The fast path's shapes (see :func:`interlingua.mapping.wire.fast_event`): closed Structs, typed fields only."""
_FAST_EVENTS = frozenset({"content_block_delta", "content_block_stop", "content_block_start"})
_OBJECTS_IN_BLOCK = frozenset({"caller", "input"})
"""Block keys that may hold an object (:class:`_Block` types ``caller`` as one, ``input`` is free-form); the
others it types as strings, but ``citations`` (a list), which takes the checked path."""


class AnthropicAccumulator:
    """Accumulates one Anthropic stream; see :class:`~interlingua.streaming.events.StreamAccumulator`.

    Blocks are rebuilt like the SDK's message snapshot (``lib/streaming/_messages.py``): text and
    thinking deltas are appended, ``signature_delta`` sets the signature, ``citations_delta``
    appends a citation, ``input_json_delta`` fragments are joined per block index (interleaving
    allowed) and parsed when the block stops. A tool_use whose joined JSON does not parse keeps
    the raw text with ``arguments_error`` (never ``{}``). The final items are made by the same
    block decoder ``decode_response`` uses.
    """

    def __init__(self) -> None:
        self._message: dict[str, Any] | None = None
        self._blocks: dict[int, dict[str, Any]] = {}
        self._order: list[int] = []
        self._json: dict[int, list[str]] = {}
        self._done_calls: dict[int, ToolCallItem] = {}
        self._usage: dict[str, Any] = {}
        self._stop_reason: Any = None
        self._stop_sequence: str | None = None
        self._stop_details: Any = None
        self._delta_fields: dict[str, Any] = {}  # message_delta's other fields (container, context_management, ...)
        self._finished = False
        self._delta_seen = False
        self._report = Report()
        self._open: tuple[int, str] | None = None  # the block and field the pending text deltas belong to
        self._pieces: list[str] = []

    # -- helpers -------------------------------------------------------------

    def _ctx(self) -> DecodeContext:
        msg = self._message or {}
        return message_context(msg.get("id"), msg.get("model"), self._report)

    def _block_item(self, index: int) -> Item:
        self._flush()
        block = self._blocks[index]
        ctx = self._ctx()
        if block.get("type") == "tool_use" and index in self._json and block.get("caller") in (None, _DIRECT):
            text = "".join(self._json[index])
            call_id = str(block.get("id") or f"toolu_stream_{index}")
            name = str(block.get("name") or "unknown")
            return tool_call_from_text(call_id, name, text, **call_fields(ctx, block))
        if block.get("type") in _JSON_BLOCKS and index in self._json:
            block = dict(block)
            parsed = self._parse(index)
            if parsed is not None:
                block["input"] = parsed
        return decode_block(block, ctx, index)

    def _parse(self, index: int) -> dict[str, Any] | None:
        text = "".join(self._json.get(index, []))
        if text.strip() == "":
            return {}
        try:
            value = _decoder.decode(text)
        except msgspec.DecodeError:
            return None
        return value if isinstance(value, dict) else None

    def _response(self) -> ModelResponse:
        self._flush()
        ctx = self._ctx()
        items: list[Item] = [self._block_item(i) for i in self._order]
        refusal = refusal_item(self._stop_reason, self._stop_details, ctx)
        if refusal is not None:
            items.append(refusal)
        msg = self._message or {}
        return ModelResponse(
            items=items,
            usage=decode_usage(self._usage) if self._usage else None,
            stop_reason=decode_stop(self._stop_reason),
            model=msg.get("model") if isinstance(msg.get("model"), str) else None,
            response_id=msg.get("id") if isinstance(msg.get("id"), str) else None,
            provider_data=self._kept(),
        )

    def _kept(self) -> dict[str, Any] | None:
        """What :func:`decode_response` keeps of the same message (:func:`kept_fields` on the message the events
        amount to: ``message_start.message`` with ``message_delta``'s fields and the final usage)."""
        body: dict[str, Any] = {**(self._message or {}), **self._delta_fields}
        body.update(stop_reason=self._stop_reason, stop_sequence=self._stop_sequence, stop_details=self._stop_details, usage=self._usage)
        return kept_fields(body)

    def _error(self, code: str, message: str, retryable: bool) -> list[StreamEvent]:
        self._finished = True
        return [StreamError(ErrorItem(code=code, message=message, retryable=retryable, provider=NAME), partial=self._response())]  # type: ignore[arg-type]

    def _append(self, index: int, field: str, text: str) -> bool:
        """``block[field] += text`` for a run of deltas to one block, joined once (see :meth:`_flush`);
        ``False`` (nothing done) when the block holds something else than a string there."""
        if self._open != (index, field):
            self._flush()
            current = self._blocks[index].get(field)
            if current is not None and type(current) is not str:
                return False
            self._open = (index, field)
        self._pieces.append(text)
        return True

    def _flush(self) -> None:
        """Join the pending text deltas onto their block (before the blocks are read or changed otherwise)."""
        if self._open is not None:
            index, field = self._open
            block = self._blocks[index]
            block[field] = (block.get(field) or "") + "".join(self._pieces)
            self._open, self._pieces = None, []

    def _fast(self, fast: _FastDelta | _FastStop | _FastStart) -> list[StreamEvent] | None:
        """The checked path's result for a fast-path event, or ``None`` (then the checked path runs)."""
        index = fast.index
        if type(fast) is _FastDelta:
            if index not in self._blocks:
                return None
            delta = fast.delta
            if type(delta) is _FastText:
                if not self._append(index, "text", delta.text):
                    return None
                return [TextDelta(delta.text)] if delta.text else []
            if type(delta) is _FastThinking:
                if not self._append(index, "thinking", delta.thinking):
                    return None
                return [ReasoningDelta(delta.thinking)] if delta.thinking else []
            self._flush()
            if type(delta) is _FastSignature:
                self._blocks[index]["signature"] = delta.signature
            else:
                self._json.setdefault(index, []).append(delta.partial_json)  # type: ignore[union-attr]
            return []
        self._flush()
        if type(fast) is _FastStop:
            return self._stop_block(index) if index in self._blocks else None
        block = fast.content_block  # type: ignore[union-attr]
        if type(block.get("type")) is not str or "citations" in block or ("caller" in block and type(block["caller"]) is not dict):
            return None
        for key, value in block.items():
            if type(value) is not str and key not in _OBJECTS_IN_BLOCK:
                return None
        self._start_block(index, block)  # freshly decoded: nobody else holds it
        return []

    # -- protocol ------------------------------------------------------------

    def feed(self, event: RawEvent) -> list[StreamEvent]:
        """Consume one SSE event; return the canonical events it completes."""
        if self._finished:
            return []
        if event.event in _FAST_EVENTS and self._message is not None and not self._delta_seen:
            # Fast path for the frequent events; any other shape takes the checked path below.
            fast = fast_event(_fast_decoder, event.data)
            if fast is not None:
                out = self._fast(fast)
                if out is not None:
                    return out
        self._flush()
        data = decode_event(event.data, provider=NAME) if event.data.strip() else None
        if event.event == "ping" and isinstance(data, dict):
            return []  # a keep-alive; its data is still JSON like every event's (checked above)
        if not isinstance(data, dict):
            if event.event is None and data is None:
                return []
            return self._error("provider_error", "Anthropic stream sent an event that is not a JSON object", False)
        kind = data.get("type") if isinstance(data.get("type"), str) else event.event
        if event.event == "error" or kind == "error":
            err: dict[str, Any] = data["error"] if isinstance(data.get("error"), dict) else {}
            etype = err.get("type")
            code = ERROR_CODES.get(etype, "provider_error") if isinstance(etype, str) else "provider_error"
            label = etype if isinstance(etype, str) and etype in ERROR_CODES else "an error"
            return self._error(code, f"Anthropic stream reported {label}", code in _RETRYABLE)
        if not isinstance(kind, str):
            return []
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:
            return []  # ping and event types added later are ignored
        shape = _EVENT_SHAPES.get(kind)
        if shape is not None:
            check_shape(data, shape, provider=NAME)
            if kind == "content_block_delta":
                check_shape(data["delta"], _DELTA_SHAPES.get(data["delta"]["type"], _Obj), provider=NAME, pointer="/delta")
            if kind in ("content_block_delta", "content_block_stop") and data["index"] not in self._blocks:
                raise MalformedInputError("/index", f"no content_block_start for index {data['index']}", provider=NAME)
        out_of_order = self._order_violation(kind)
        if out_of_order is not None:
            return self._error("provider_error", out_of_order, False)
        try:
            events: list[StreamEvent] = handler(data)
            return events
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise MalformedInputError("", f"malformed {kind} event ({type(exc).__name__})", provider=NAME) from exc

    def partial(self) -> ModelResponse:
        """What arrived so far, as a response (for a StreamError's ``partial``)."""
        return self._response()

    def _order_violation(self, kind: str) -> str | None:
        """Why ``kind`` breaks the documented event order, or None (the model and id come only in
        ``message_start``; content blocks end before ``message_delta``)."""
        if kind == "message_start":
            return "Anthropic stream sent a second message_start" if self._message is not None else None
        if self._message is None:
            what = "content" if kind.startswith("content_block") else kind
            return f"Anthropic stream sent {what} before message_start"
        if kind.startswith("content_block") and self._delta_seen:
            return f"Anthropic stream sent {kind} after message_delta"
        if kind == "message_delta":
            self._delta_seen = True
        return None

    def finish(self) -> list[StreamEvent]:
        """End of input: ``truncated`` unless ``message_stop`` was seen (then nothing is left)."""
        if self._finished:
            return []
        return self._error("truncated", "Anthropic stream ended before message_stop", True)

    # -- event handlers --------------------------------------------------------

    def _on_message_start(self, data: dict[str, Any]) -> list[StreamEvent]:
        message = data["message"]
        if not isinstance(message, dict):
            raise TypeError("message")
        self._message = json_copy(message)
        out: list[StreamEvent] = []
        if isinstance(message.get("usage"), dict):
            self._usage = json_copy(message["usage"])
            usage = decode_usage(self._usage)
            if usage is not None:
                out.append(UsageUpdate(usage))
        for block in message.get("content") or []:  # a prefilled start is unusual but allowed
            index = len(self._order)
            self._blocks[index] = json_copy(block)
            self._order.append(index)
        return out

    def _on_content_block_start(self, data: dict[str, Any]) -> list[StreamEvent]:
        index, block = data["index"], data["content_block"]
        if not isinstance(index, int) or not isinstance(block, dict):
            raise TypeError("content_block_start")
        self._start_block(index, json_copy(block))
        return []

    def _start_block(self, index: int, block: dict[str, Any]) -> None:
        if index not in self._blocks:
            self._order.append(index)
        self._blocks[index] = block

    def _on_content_block_delta(self, data: dict[str, Any]) -> list[StreamEvent]:
        index, delta = data["index"], data["delta"]
        block = self._blocks[index]
        dtype = delta["type"]
        if dtype == "text_delta":
            block["text"] = (block.get("text") or "") + delta["text"]
            return [TextDelta(delta["text"])] if delta["text"] else []
        if dtype == "thinking_delta":
            block["thinking"] = (block.get("thinking") or "") + delta["thinking"]
            return [ReasoningDelta(delta["thinking"])] if delta["thinking"] else []
        if dtype == "signature_delta":
            block["signature"] = delta["signature"]
            return []
        if dtype == "citations_delta":
            citations = block.get("citations")
            block["citations"] = (list(citations) if isinstance(citations, list) else []) + [json_copy(delta["citation"])]
            return []
        if dtype == "input_json_delta":
            fragment = delta.get("partial_json") or ""
            if not isinstance(fragment, str):
                raise TypeError("partial_json")
            self._json.setdefault(index, []).append(fragment)
            return []
        # Deltas of blocks with no canonical form (e.g. compaction_delta): fields set, strings appended.
        for key, value in delta.items():
            if key == "type":
                continue
            current = block.get(key)
            block[key] = current + value if isinstance(current, str) and isinstance(value, str) else json_copy(value)
        return []

    def _on_content_block_stop(self, data: dict[str, Any]) -> list[StreamEvent]:
        return self._stop_block(data["index"])

    def _stop_block(self, index: int) -> list[StreamEvent]:
        block = self._blocks[index]
        if block.get("type") == "tool_use":
            item = self._block_item(index)
            if isinstance(item, ToolCallItem):
                self._done_calls[index] = item
                return [ToolCallComplete(item)]
        return []

    def _on_message_delta(self, data: dict[str, Any]) -> list[StreamEvent]:
        delta = data.get("delta") or {}
        if not isinstance(delta, dict):
            raise TypeError("delta")
        out: list[StreamEvent] = []
        if "stop_reason" in delta:
            self._stop_reason = delta["stop_reason"]
        if isinstance(delta.get("stop_sequence"), str):
            self._stop_sequence = delta["stop_sequence"]
        for key, value in [*delta.items(), *((k, v) for k, v in data.items() if k not in ("type", "delta", "usage"))]:
            if key not in ("stop_reason", "stop_sequence", "stop_details") and (value is not None or key not in self._delta_fields):
                self._delta_fields[key] = json_copy(value)
        if delta.get("stop_details") is not None:
            self._stop_details = json_copy(delta["stop_details"])
            explanation = self._stop_details.get("explanation") if isinstance(self._stop_details, dict) else None
            if self._stop_reason == "refusal" and isinstance(explanation, str) and explanation:
                out.append(RefusalDelta(explanation))
        usage = data.get("usage")
        if isinstance(usage, dict):
            # Counts are cumulative: later values replace earlier ones (docs.claude.com streaming page).
            for key, value in usage.items():
                if value is not None:
                    self._usage[key] = json_copy(value)
            decoded = decode_usage(self._usage)
            if decoded is not None:
                out.append(UsageUpdate(decoded))
        return out

    def _on_message_stop(self, data: dict[str, Any]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        for index in self._order:
            # a tool_use block that never got content_block_stop (cut by max_tokens) is completed here
            if self._blocks[index].get("type") == "tool_use" and index not in self._done_calls:
                item = self._block_item(index)
                if isinstance(item, ToolCallItem):
                    self._done_calls[index] = item
                    out.append(ToolCallComplete(item))
        self._finished = True
        out.append(StreamDone(self._response()))
        return out
