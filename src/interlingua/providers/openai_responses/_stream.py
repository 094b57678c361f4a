"""Responses SSE stream -> canonical stream events.

Framing: SSE with ``event: <type>`` and a JSON ``data:`` line carrying the same ``type``; there is
no ``[DONE]``. Event shapes: OAI ``types/responses/response_*_event.py`` (the providers' API references,
"Streaming"). The completion markers are ``response.completed`` and ``response.incomplete``;
``response.failed`` and ``error`` end the stream with an error; anything else that ends the
input is ``truncated``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import msgspec

from ...errors import MalformedInputError
from ...items import ErrorItem, ToolCallItem
from ...mapping.protocol import ModelResponse
from ...mapping.report import Report
from ...mapping.wire import check_shape, decode_event, fast_event
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
from ._common import error_item
from ._items import DecodeContext, decode_function_call
from ._response import decode_response, response_key

__all__ = ["ResponsesAccumulator"]

_LIFECYCLE = ("response.created", "response.in_progress", "response.queued")
_NAME = "openai-responses"
_Obj = dict[str, Any]


_MAX_GAP = 64
"""How far past the parts seen so far an index may point (parts arrive in order; a few may be skipped)."""


def _check_index(index: int, have: int, name: str) -> None:
    """A part index must not be negative nor far past the parts seen: a hostile ``content_index:
    123456789012`` would otherwise make the accumulator allocate that many parts."""
    if index < 0 or index > have + _MAX_GAP:
        raise MalformedInputError(f"/{name}", f"{name} {index} is out of range: {have} part(s) so far", provider=_NAME)


class _Item(msgspec.Struct):
    """An output item as the stream decoder reads it (OAI ``types/responses/response_output_item.py``)."""

    type: str
    id: str | None = None
    call_id: str | None = None
    name: str | None = None
    arguments: str | _Obj | None = None  # an object on tool_search_call items
    content: list[_Obj | None] | None = None
    summary: list[_Obj] | None = None


class _Response(msgspec.Struct):
    """The ``response`` object of lifecycle and completion events (OAI ``types/responses/response.py``)."""

    id: str | None = None
    model: str | None = None
    status: str | None = None
    output: list[_Item] | None = None
    usage: _Obj | None = None
    error: _Obj | None = None
    incomplete_details: _Obj | None = None


class _Event(msgspec.Struct):
    """Every field any Responses stream event carries that the accumulator reads
    (OAI ``types/responses/response_stream_event.py``); each is optional, but typed."""

    type: str | None = None
    output_index: int | None = None
    content_index: int | None = None
    summary_index: int | None = None
    item_id: str | None = None
    delta: str | None = None
    item: _Item | None = None
    part: _Obj | None = None
    response: _Response | None = None
    code: str | int | None = None
    error: _Obj | None = None


class _FastTextDelta(msgspec.Struct, tag_field="type", tag="response.output_text.delta", forbid_unknown_fields=True):
    """A ``response.output_text.delta`` event with no logprobs."""

    delta: str
    item_id: str | None = None
    output_index: int | None = None
    content_index: int | None = None
    sequence_number: int | None = None
    logprobs: Annotated[list[None], msgspec.Meta(max_length=0)] | None = None
    obfuscation: str | None = None


class _FastArgsDelta(msgspec.Struct, tag_field="type", tag="response.function_call_arguments.delta", forbid_unknown_fields=True):
    """A ``response.function_call_arguments.delta`` event."""

    delta: str
    item_id: str
    output_index: int | None = None
    sequence_number: int | None = None
    obfuscation: str | None = None


class _FastItemAdded(msgspec.Struct, tag_field="type", tag="response.output_item.added", forbid_unknown_fields=True):
    """A ``response.output_item.added`` event whose item holds only strings (and empty ``content`` or
    ``summary`` lists), as a message, function_call or reasoning item starts. The item is decoded as a
    dict so that it keeps the wire's keys and order; :meth:`ResponsesAccumulator._fast` refuses the keys
    :class:`_Item` types otherwise."""

    item: dict[str, str | Annotated[list[None], msgspec.Meta(max_length=0)]]
    output_index: int | None = None
    sequence_number: int | None = None


_fast_decoder = msgspec.json.Decoder(_FastTextDelta | _FastArgsDelta | _FastItemAdded)
"""The fast path's shapes (see :func:`interlingua.mapping.wire.fast_event`): closed Structs, typed fields only."""
_FAST_EVENTS = frozenset({"response.output_text.delta", "response.function_call_arguments.delta", "response.output_item.added"})
_LISTS_IN_ITEM = frozenset({"content", "summary"})
"""Item keys :class:`_Item` types as lists; the fast shape's other values are strings, which it types as strings."""


class ResponsesAccumulator:
    """Accumulates one Responses stream (see :class:`~interlingua.streaming.events.StreamAccumulator`).

    * ``response.output_text.delta`` -> :class:`TextDelta` (text exactly as sent),
      ``response.refusal.delta`` -> :class:`RefusalDelta`, ``response.reasoning_summary_text.delta``
      and ``response.reasoning_text.delta`` -> :class:`ReasoningDelta`.
    * ``response.function_call_arguments.delta`` is keyed by ``item_id`` (the ``fc_`` id); the
      ``call_id`` comes from the item of ``response.output_item.added``/``.done``, so interleaved
      calls stay apart. A call is complete (:class:`ToolCallComplete`) at its ``output_item.done``.
    * Items are taken whole from ``response.output_item.done`` (``encrypted_content`` in ``.added``
      may be incomplete).
    * ``response.completed``/``response.incomplete`` -> :class:`UsageUpdate` (when usage is given)
      and :class:`StreamDone` holding what ``decode_response`` gives for the final response object
      (its ``output``, or the streamed items when that is empty).
    * ``response.failed`` and ``error`` -> :class:`StreamError` with a stable code and a safe message.
    * Events out of protocol order -> :class:`StreamError` ``provider_error``: any event but ``error`` or
      ``response.failed`` before ``response.created`` (which carries the response id and model), and a
      ``function_call_arguments.delta`` whose ``item_id`` no ``output_item.added`` announced.
    """

    def __init__(self) -> None:
        self._terminal = False
        self._created = False
        self._response: dict[str, Any] = {}
        self._items: dict[int, dict[str, Any]] = {}
        self._done: set[int] = set()
        self._index_of: dict[str, int] = {}
        self._args: dict[str, list[str]] = {}
        self._open: dict[str, Any] | None = None  # the content part the pending text deltas belong to
        self._pieces: list[str] = []

    # ------------------------------------------------------------------ helpers

    def _ctx(self) -> tuple[DecodeContext, str]:
        rid = self._response.get("id") if isinstance(self._response.get("id"), str) else None
        model = self._response.get("model") if isinstance(self._response.get("model"), str) else None
        return DecodeContext(Report(), model=model, response_id=rid), response_key(rid)

    def _index(self, data: Mapping[str, Any]) -> int | None:
        idx = data.get("output_index")
        if isinstance(idx, int):
            return idx
        item_id = data.get("item_id")
        return self._index_of.get(item_id) if isinstance(item_id, str) else None

    def _item_for(self, data: Mapping[str, Any]) -> dict[str, Any] | None:
        idx = self._index(data)
        if idx is None or idx in self._done:
            return None
        return self._items.get(idx)

    def _streamed_output(self) -> list[dict[str, Any]]:
        self._flush()
        out = []
        for idx in sorted(self._items):
            item = self._items[idx]
            if idx not in self._done and item.get("type") == "function_call" and isinstance(item.get("id"), str):
                item = {**item, "arguments": "".join(self._args.get(item["id"], []))}
            out.append(item)
        return out

    def _partial(self) -> ModelResponse:
        body = {k: v for k, v in self._response.items() if k in ("id", "model")}
        body["output"] = self._streamed_output()
        body["status"] = "in_progress"
        partial = decode_response(body).value
        partial.stop_reason = None
        return partial

    def partial(self) -> ModelResponse:
        """What arrived so far, as a response (for a StreamError's ``partial``)."""
        return self._partial()

    def _protocol_error(self, message: str) -> list[StreamEvent]:
        return self._error(ErrorItem(code="provider_error", message=message, retryable=False))

    def _error(self, error: ErrorItem) -> list[StreamEvent]:
        self._terminal = True
        return [StreamError(error=error, partial=self._partial())]

    # ------------------------------------------------------------------ text buffers (for partials)

    def _append_part(self, data: Mapping[str, Any], field: str, part_type: str, delta: str) -> None:
        item = self._item_for(data)
        if item is None:
            return
        content = item.get("content")
        if not isinstance(content, list):
            content = item["content"] = []
        ci = data.get("content_index")
        ci = ci if isinstance(ci, int) else len(content) - 1
        _check_index(ci, len(content), "content_index")
        while len(content) <= ci:
            content.append({"type": part_type, field: ""})
        part = content[ci]
        if isinstance(part, dict):
            part[field] = str(part.get(field) or "") + delta

    def _append_summary(self, data: Mapping[str, Any], delta: str, *, summary: bool) -> None:
        item = self._item_for(data)
        if item is None:
            return
        key, kind, index_name = ("summary", "summary_text", "summary_index") if summary else ("content", "reasoning_text", "content_index")
        parts = item.get(key)
        if not isinstance(parts, list):
            parts = item[key] = []
        si = data.get(index_name)
        si = si if isinstance(si, int) else max(len(parts) - 1, 0)
        _check_index(si, len(parts), index_name)
        while len(parts) <= si:
            parts.append({"type": kind, "text": ""})
        if isinstance(parts[si], dict):
            parts[si]["text"] = str(parts[si].get("text") or "") + delta

    def _flush(self) -> None:
        """Join the pending text deltas onto their content part (before the items are read or changed otherwise)."""
        if self._open is not None:
            part = self._open
            part["text"] = (part.get("text") or "") + "".join(self._pieces)
            self._open, self._pieces = None, []

    def _fast(self, fast: _FastTextDelta | _FastArgsDelta | _FastItemAdded) -> list[StreamEvent] | None:
        """The checked path's result for a fast-path event, or ``None`` (then the checked path runs)."""
        if type(fast) is _FastTextDelta:
            idx = fast.output_index if fast.output_index is not None else self._index_of.get(fast.item_id) if fast.item_id is not None else None
            item = None if idx is None or idx in self._done else self._items.get(idx)
            if item is None:
                return [TextDelta(fast.delta)]  # no item to hold the text, as in _append_part
            content = item.get("content")
            if type(content) is not list:
                return None
            ci = fast.content_index if fast.content_index is not None else len(content) - 1
            if not 0 <= ci < len(content):
                return None  # padding, or out of range: the checked path
            part = content[ci]
            if part is not self._open:
                if type(part) is not dict or (part.get("text") is not None and type(part.get("text")) is not str):
                    return None
                self._flush()
                self._open = part
            self._pieces.append(fast.delta)
            return [TextDelta(fast.delta)]
        if type(fast) is _FastArgsDelta:
            if fast.item_id not in self._index_of:
                return None  # a protocol error: the checked path reports it
            self._args.setdefault(fast.item_id, []).append(fast.delta)
            return []
        item = fast.item  # type: ignore[union-attr]
        if type(item.get("type")) is not str:
            return None
        for key, value in item.items():
            if (type(value) is list) is not (key in _LISTS_IN_ITEM):  # content and summary are lists, the rest strings
                return None
        idx = fast.output_index
        if idx is None:
            return None  # located by item_id: the checked path
        self._flush()
        item_id = item.get("id")
        self._items[idx] = item  # freshly decoded: nobody else holds it
        if type(item_id) is str:
            self._index_of[item_id] = idx
        return []

    # ------------------------------------------------------------------ protocol

    def feed(self, event: RawEvent) -> list[StreamEvent]:
        """Consume one SSE event; return the canonical events it completes."""
        if self._terminal:
            return []
        if self._created and event.event in _FAST_EVENTS:
            # Fast path for the frequent events; any other shape takes the checked path below.
            fast = fast_event(_fast_decoder, event.data)
            if fast is not None:
                out = self._fast(fast)
                if out is not None:
                    return out
        self._flush()
        data = decode_event(event.data, provider=_NAME)
        if not isinstance(data, dict):
            return self._error(ErrorItem(code="provider_error", message="stream event is not a JSON object", retryable=False))
        check_shape(data, _Event, provider=_NAME)
        kind = data.get("type") if isinstance(data.get("type"), str) else event.event
        delta = data.get("delta") if isinstance(data.get("delta"), str) else None

        if kind == "response.created":
            self._created = True
        elif not self._created and kind not in ("error", "response.failed"):
            # id and model come in response.created; without it a "success" would silently lose them
            return self._protocol_error(f"OpenAI Responses stream sent {kind} before response.created")
        if kind in _LIFECYCLE:
            if isinstance(data.get("response"), dict):
                self._response = data["response"]
            return []
        if kind == "response.output_item.added":
            idx, item = self._index(data), data.get("item")
            if idx is not None and isinstance(item, dict):
                self._items[idx] = item
                if isinstance(item.get("id"), str):
                    self._index_of[item["id"]] = idx
            return []
        if kind == "response.output_item.done":
            return self._item_done(data)
        if kind == "response.content_part.added":
            item, part = self._item_for(data), data.get("part")
            if item is not None and isinstance(part, dict) and isinstance(data.get("content_index"), int):
                content = item.get("content")
                if not isinstance(content, list):
                    content = item["content"] = []
                while len(content) <= data["content_index"]:
                    content.append(None)
                content[data["content_index"]] = part
            return []
        if kind == "response.output_text.delta" and delta is not None:
            self._append_part(data, "text", "output_text", delta)
            return [TextDelta(delta)]
        if kind == "response.refusal.delta" and delta is not None:
            self._append_part(data, "refusal", "refusal", delta)
            return [RefusalDelta(delta)]
        if kind == "response.function_call_arguments.delta" and delta is not None:
            item_id = data.get("item_id")
            if not isinstance(item_id, str) or item_id not in self._index_of:
                return self._protocol_error("OpenAI Responses stream sent function_call_arguments.delta before its output_item.added")
            self._args.setdefault(item_id, []).append(delta)
            return []
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta") and delta is not None:
            self._append_summary(data, delta, summary=kind == "response.reasoning_summary_text.delta")
            return [ReasoningDelta(delta)]
        if kind in ("response.completed", "response.incomplete"):
            return self._complete(data)
        if kind == "response.failed":
            raw_response = data.get("response")
            response: dict[str, Any] = raw_response if isinstance(raw_response, dict) else {}
            if response:
                self._response = {**self._response, **{k: v for k, v in response.items() if k in ("id", "model")}}
            err = response.get("error")
            return self._error(error_item(err.get("code") if isinstance(err, Mapping) else None))
        if kind == "error":
            nested = data.get("error")
            code = data.get("code") if data.get("code") is not None or not isinstance(nested, Mapping) else nested.get("code")
            return self._error(error_item(code, what="stream error"))
        return []

    def _item_done(self, data: Mapping[str, Any]) -> list[StreamEvent]:
        idx, item = self._index(data), data.get("item")
        if idx is None or not isinstance(item, dict):
            return []
        if item.get("type") == "function_call" and not isinstance(item.get("arguments"), str) and isinstance(item.get("id"), str):
            item = {**item, "arguments": "".join(self._args.get(item["id"], []))}
        self._items[idx] = item
        self._done.add(idx)
        if isinstance(item.get("id"), str):
            self._index_of[item["id"]] = idx
        if item.get("type") == "function_call":
            ctx, key = self._ctx()
            call = decode_function_call(item, key, ctx, idx, f"/output/{idx}")
            if isinstance(call, ToolCallItem):
                return [ToolCallComplete(call)]
        return []

    def _complete(self, data: Mapping[str, Any]) -> list[StreamEvent]:
        response = data.get("response")
        if not isinstance(response, dict):
            return self._error(ErrorItem(code="provider_error", message="completion event without a response object", retryable=False))
        body = dict(response)
        if not body.get("output"):
            body["output"] = self._streamed_output()
        try:
            final = decode_response(body).value
        except MalformedInputError as exc:
            raise MalformedInputError(f"/response{exc.pointer}", exc.reason, provider=_NAME) from exc
        self._terminal = True
        events: list[StreamEvent] = []
        if final.usage is not None:
            events.append(UsageUpdate(final.usage))
        events.append(StreamDone(final))
        return events

    def finish(self) -> list[StreamEvent]:
        """End of input: ``truncated`` unless a completion marker or error was seen."""
        if self._terminal:
            return []
        return self._error(ErrorItem(code="truncated", message="stream ended before response.completed", retryable=True))
