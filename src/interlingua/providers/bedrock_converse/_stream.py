"""Amazon Bedrock ConverseStream events -> canonical stream events.

On the wire each event is an AWS event-stream message (``application/vnd.amazon.eventstream``)
whose ``:event-type`` header names the event and whose payload is its JSON body; the transport
(``interlingua[bedrock]``, botocore's event-stream decoder) turns each message into one
:class:`RawEvent`. This accumulator reads both forms it can be given:

* ``RawEvent(event="contentBlockDelta", data='{"contentBlockIndex": 0, "delta": {...}}')`` (the
  header and the payload), and
* ``RawEvent(event=None, data='{"contentBlockDelta": {...}}')`` (one member named by the event
  type, as boto3's ``converse_stream()["stream"]`` yields events; the NDJSON fixture form).

Event order (botocore ``ConverseStreamOutput``; AWS Bedrock API reference "ConverseStream"):
``messageStart`` -> per block an optional ``contentBlockStart`` (tool use / tool result only),
``contentBlockDelta``s and ``contentBlockStop`` -> ``messageStop`` (stop reason) -> ``metadata``
(usage, metrics; the completion marker). ``internalServerException``, ``modelStreamErrorException``,
``validationException``, ``throttlingException`` and ``serviceUnavailableException`` end the stream
with an error. A stream that ends before ``messageStop`` and ``metadata`` is ``truncated``; content before
``messageStart``, a second ``messageStart`` or content after ``messageStop`` is a ``provider_error``.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from ...codec import Item
from ...errors import MalformedInputError
from ...items import ErrorItem, ToolCallItem
from ...mapping.arguments import tool_call_from_text
from ...mapping.protocol import ModelResponse
from ...mapping.report import Report
from ...mapping.wire import check_shape, decode_event
from ...streaming.events import RawEvent, ReasoningDelta, StreamDone, StreamError, StreamEvent, TextDelta, ToolCallComplete, UsageUpdate
from ._blocks import NAME, b64, decode_blocks, raw_block
from ._response import decode_stop, decode_usage, message_context

__all__ = ["BedrockConverseAccumulator", "ERROR_EVENTS", "EVENT_TYPES"]

ERROR_EVENTS: dict[str, tuple[str, bool]] = {
    "internalServerException": ("server", True),
    "modelStreamErrorException": ("provider_error", False),
    "validationException": ("invalid_request", False),
    "throttlingException": ("rate_limit", True),
    "serviceUnavailableException": ("overloaded", True),
}
"""Exception events of ``ConverseStreamOutput`` -> (stable error code, retryable)."""

_Obj = dict[str, Any]


class _MessageStart(msgspec.Struct):
    role: str


class _ToolUseStart(msgspec.Struct):
    toolUseId: str
    name: str
    type: str | None = None


class _ToolResultStart(msgspec.Struct):
    toolUseId: str
    type: str | None = None
    status: str | None = None


class _Start(msgspec.Struct):
    toolUse: _ToolUseStart | None = None
    toolResult: _ToolResultStart | None = None
    image: _Obj | None = None


class _BlockStart(msgspec.Struct):
    contentBlockIndex: int
    start: _Start


class _ToolUseDelta(msgspec.Struct):
    input: str


class _ReasoningDelta(msgspec.Struct):
    text: str | None = None
    signature: str | None = None
    redactedContent: str | None = None  # base64 text in the JSON form


class _Delta(msgspec.Struct):
    text: str | None = None
    toolUse: _ToolUseDelta | None = None
    reasoningContent: _ReasoningDelta | None = None
    toolResult: list[_Obj] | None = None
    citation: _Obj | None = None
    image: _Obj | None = None


class _BlockDelta(msgspec.Struct):
    contentBlockIndex: int
    delta: _Delta


class _BlockStop(msgspec.Struct):
    contentBlockIndex: int


class _MessageStop(msgspec.Struct):
    stopReason: str
    additionalModelResponseFields: Any = None


class _Metadata(msgspec.Struct):
    usage: _Obj | None = None
    metrics: _Obj | None = None


EVENT_TYPES: dict[str, Any] = {
    "messageStart": _MessageStart,
    "contentBlockStart": _BlockStart,
    "contentBlockDelta": _BlockDelta,
    "contentBlockStop": _BlockStop,
    "messageStop": _MessageStop,
    "metadata": _Metadata,
}
"""Typed shape of each event the accumulator reads (botocore ``MessageStartEvent``, ``ContentBlockStartEvent``, ...)."""


class BedrockConverseAccumulator:
    """Accumulates one ConverseStream; see :class:`~interlingua.streaming.events.StreamAccumulator`.

    Blocks are rebuilt per ``contentBlockIndex`` (text appended; ``toolUse.input`` fragments joined and
    parsed at ``contentBlockStop``; reasoning text appended, ``signature`` set, ``redactedContent``
    kept; server ``toolResult`` deltas appended) and decoded by the same block decoder as
    :func:`~interlingua.providers.bedrock_converse._response.decode_response`, so a stream accumulates
    to the same items as the matching non-stream response. A ``toolUse`` whose joined input does not
    parse keeps the raw text with ``arguments_error`` (never ``{}``). ``StreamDone`` comes with the
    ``metadata`` event after ``messageStop``; input that ends before it is ``truncated``.
    """

    def __init__(self) -> None:
        self._started = False
        self._stopped = False
        self._finished = False
        self._blocks: dict[int, dict[str, Any]] = {}
        self._order: list[int] = []
        self._json: dict[int, list[str]] = {}
        self._done_calls: set[int] = set()
        self._usage: dict[str, Any] | None = None
        self._stop_reason: Any = None
        self._report = Report()

    # -- building ------------------------------------------------------------

    def _block(self, index: int) -> dict[str, Any]:
        if index not in self._blocks:
            self._blocks[index] = {}
            self._order.append(index)
        return self._blocks[index]

    def _items_of(self, index: int) -> list[Item]:
        block = self._blocks[index]
        ctx = message_context(self._report)
        if "toolUse" in block:
            use = block["toolUse"]
            text = "".join(self._json.get(index, []))
            fields: dict[str, Any] = {"message": ctx.message, "origin": copy.deepcopy(ctx.origin)}
            extra = {k: v for k, v in use.items() if k not in ("toolUseId", "name")}
            if extra:
                fields["provider_data"] = {NAME: copy.deepcopy(extra)}
            return [tool_call_from_text(use["toolUseId"], use["name"], text, **fields)]
        # Deltas the accumulator does not join (citation, image, or a member it does not know) are kept
        # beside the block they came with: one raw item a member, its deltas in order ({"citation": [...]}).
        deltas = block.get("_deltas", {})
        main = {k: v for k, v in block.items() if k != "_deltas"}
        ctx.pointer = f"/stream/{index}"
        items = decode_blocks([main], ctx) if main else []
        if deltas:
            items.extend(raw_block({key: values}, ctx) for key, values in deltas.items())
        return items

    def _response(self) -> ModelResponse:
        items: list[Item] = []
        for index in self._order:
            items.extend(self._items_of(index))
        return ModelResponse(items=items, usage=decode_usage(self._usage) if self._usage is not None else None, stop_reason=decode_stop(self._stop_reason))

    def _error(self, code: str, message: str, retryable: bool) -> list[StreamEvent]:
        self._finished = True
        return [StreamError(ErrorItem(code=code, message=message, retryable=retryable, provider=NAME), partial=self._response())]  # type: ignore[arg-type]

    def _done(self) -> list[StreamEvent]:
        self._finished = True
        return [StreamDone(self._response(), report=self._report)]

    # -- protocol ------------------------------------------------------------

    def _unwrap(self, event: RawEvent) -> tuple[str, Any] | None:
        if not event.data.strip():
            return None
        data = decode_event(event.data, provider=NAME)
        if event.event is not None and event.event in EVENT_TYPES | ERROR_EVENTS:
            return event.event, data
        if isinstance(data, dict) and len(data) == 1:
            ((kind, payload),) = data.items()
            return kind, payload
        raise MalformedInputError("", "a ConverseStream event is a one-member object named by its event type", provider=NAME)

    def feed(self, event: RawEvent) -> list[StreamEvent]:
        """Consume one event; return the canonical events it completes.

        Raises:
            MalformedInputError: an event of the wrong shape (pointer inside the event).
        """
        if self._finished:
            return []
        unwrapped = self._unwrap(event)
        if unwrapped is None:
            return []
        kind, payload = unwrapped
        if kind in ERROR_EVENTS:
            code, retryable = ERROR_EVENTS[kind]
            return self._error(code, f"Bedrock stream reported {kind}", retryable)
        shape = EVENT_TYPES.get(kind)
        if shape is None:
            return []  # event types added later are ignored
        if not isinstance(payload, dict):
            raise MalformedInputError(f"/{kind}", f"a {kind} event is a JSON object", provider=NAME)
        check_shape(payload, shape, provider=NAME, pointer=f"/{kind}")
        if kind == "messageStart":
            if self._started:
                return self._error("provider_error", "Bedrock stream sent a second messageStart", False)
            self._started = True
            return []
        if not self._started:
            return self._error("provider_error", f"Bedrock stream sent {kind} before messageStart", False)
        if kind == "metadata":
            out: list[StreamEvent] = []
            if isinstance(payload.get("usage"), dict):
                self._usage = copy.deepcopy(payload["usage"])
                usage = decode_usage(self._usage)
                if usage is not None:
                    out.append(UsageUpdate(usage))
            if "metrics" in payload:
                self._report.add("dropped", "stream metrics have no canonical field", pointer="/metadata/metrics")
            return out + (self._done() if self._stopped else [])
        if self._stopped:
            return self._error("provider_error", f"Bedrock stream sent {kind} after messageStop", False)
        handler = getattr(self, f"_on_{kind}")
        events: list[StreamEvent] = handler(payload)
        return events

    def partial(self) -> ModelResponse:
        """What arrived so far, as a response (for a StreamError's ``partial``)."""
        return self._response()

    def finish(self) -> list[StreamEvent]:
        """End of input before the stream completed: ``truncated`` (``StreamDone`` comes only with ``metadata``).

        ConverseStream always ends with ``metadata`` (usage is required in ``ConverseStreamMetadataEvent``);
        a stream cut after ``messageStop`` but before it lost its usage and is not reported as a success.
        """
        if self._finished:
            return []
        what = "metadata (usage)" if self._stopped else "messageStop"
        return self._error("truncated", f"Bedrock stream ended before {what}", True)

    # -- handlers --------------------------------------------------------------

    def _on_contentBlockStart(self, data: dict[str, Any]) -> list[StreamEvent]:
        index = data["contentBlockIndex"]
        start = data["start"]
        block = self._block(index)
        if block:
            raise MalformedInputError("/contentBlockStart/contentBlockIndex", f"content block {index} started twice", provider=NAME)
        members = {k: v for k, v in start.items() if v is not None}
        if len(members) != 1 or not isinstance(next(iter(members.values())), dict):
            raise MalformedInputError("/contentBlockStart/start", "start has one member, an object (toolUse, toolResult, image)", provider=NAME)
        if "toolUse" in members:
            block["toolUse"] = copy.deepcopy(members["toolUse"])
        elif "toolResult" in members:
            block["toolResult"] = {**copy.deepcopy(members["toolResult"]), "content": []}
        else:
            block.update(copy.deepcopy(members))
        return []

    def _on_contentBlockDelta(self, data: dict[str, Any]) -> list[StreamEvent]:
        index = data["contentBlockIndex"]
        delta = data["delta"]
        block = self._block(index)
        if index in self._done_calls:
            raise MalformedInputError("/contentBlockDelta/contentBlockIndex", f"content block {index} already stopped", provider=NAME)
        if isinstance(delta.get("text"), str):
            block["text"] = block.get("text", "") + delta["text"]
            return [TextDelta(delta["text"])] if delta["text"] else []
        if isinstance(delta.get("toolUse"), dict):
            if "toolUse" not in block:
                raise MalformedInputError("/contentBlockDelta/delta/toolUse", f"no toolUse contentBlockStart for block {index}", provider=NAME)
            self._json.setdefault(index, []).append(delta["toolUse"]["input"])
            return []
        if isinstance(delta.get("reasoningContent"), dict):
            rc = delta["reasoningContent"]
            current = block.setdefault("reasoningContent", {})
            if rc.get("redactedContent") is not None:
                current["redactedContent"] = b64(rc["redactedContent"], "/contentBlockDelta/delta/reasoningContent/redactedContent")
                return []
            rt = current.setdefault("reasoningText", {"text": ""})
            if isinstance(rc.get("text"), str):
                rt["text"] += rc["text"]
                return [ReasoningDelta(rc["text"])] if rc["text"] else []
            if isinstance(rc.get("signature"), str):
                rt["signature"] = rt.get("signature", "") + rc["signature"]
            return []
        if isinstance(delta.get("toolResult"), list):
            if "toolResult" not in block:
                raise MalformedInputError("/contentBlockDelta/delta/toolResult", f"no toolResult contentBlockStart for block {index}", provider=NAME)
            block["toolResult"]["content"].extend(copy.deepcopy(delta["toolResult"]))
            return []
        for key, value in delta.items():  # citations, images: kept in the block as given
            if value is not None:
                block.setdefault("_deltas", {}).setdefault(key, []).append(copy.deepcopy(value))
        return []

    def _on_contentBlockStop(self, data: dict[str, Any]) -> list[StreamEvent]:
        index = data["contentBlockIndex"]
        if index not in self._blocks:
            raise MalformedInputError("/contentBlockStop/contentBlockIndex", f"no content for block {index}", provider=NAME)
        self._done_calls.add(index)
        if "toolUse" in self._blocks[index]:
            item = self._items_of(index)[0]
            if isinstance(item, ToolCallItem):
                return [ToolCallComplete(item)]
        return []

    def _on_messageStop(self, data: dict[str, Any]) -> list[StreamEvent]:
        self._stop_reason = data["stopReason"]
        if data.get("additionalModelResponseFields") is not None:
            self._report.add("dropped", "additionalModelResponseFields have no canonical field", pointer="/messageStop/additionalModelResponseFields")
        self._stopped = True
        out: list[StreamEvent] = []
        for index in self._order:
            if "toolUse" in self._blocks[index] and index not in self._done_calls:
                self._done_calls.add(index)
                item = self._items_of(index)[0]
                if isinstance(item, ToolCallItem):
                    out.append(ToolCallComplete(item))
        return out
