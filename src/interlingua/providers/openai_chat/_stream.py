"""OpenAI Chat SSE stream -> canonical stream events.

Source: openai-python ``types/chat/chat_completion_chunk.py`` and ``_streaming.py``: chunks carry
``choices[].delta{role?, content?, refusal?, tool_calls?}``; tool-call fragments are joined per
``index`` (id, type and name arrive in the first fragment); with ``stream_options.include_usage`` a
last chunk has ``choices:[]`` and ``usage``; ``data: [DONE]`` is the completion marker; a data
object with an ``error`` key is a failure. Reasoning deltas: DeepSeek ``reasoning_content``,
OpenRouter/Ollama ``reasoning`` (+ OpenRouter ``reasoning_details``).

The final response is built by feeding the joined message to the same decoder as
``decode_response``, so a stream and its equivalent response give equal items.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

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
from ._common import NAME, usage_from_wire
from ._response import decode_response

__all__ = ["ChatStreamAccumulator", "error_code"]

_CODE_BY_NAME = {
    "rate_limit_exceeded": "rate_limit",
    "rate_limit_error": "rate_limit",
    "server_error": "server",
    "internal_error": "server",
    "api_error": "server",
    "invalid_request_error": "invalid_request",
    "context_length_exceeded": "context_length",
    "content_filter": "content_filter",
    "content_policy_violation": "content_filter",
    "authentication_error": "auth",
    "invalid_api_key": "auth",
    "permission_error": "auth",
    "overloaded_error": "overloaded",
    "overloaded": "overloaded",
    "timeout": "timeout",
    "not_found_error": "not_found",
    "model_not_found": "not_found",
}
_RETRYABLE = frozenset({"rate_limit", "server", "overloaded", "timeout", "truncated"})
_Obj = dict[str, Any]


class _Function(msgspec.Struct):
    name: str | None = None
    arguments: str | None = None
    input: str | None = None


class _Fragment(msgspec.Struct):
    index: int | None = None
    id: str | None = None
    type: str | None = None
    function: _Function | None = None
    custom: _Function | None = None


class _Delta(msgspec.Struct):
    role: str | None = None
    content: str | list[_Obj] | None = None  # Mistral sends a list of parts (thinking); only strings are text
    refusal: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    reasoning_details: list[Any] | None = None
    tool_calls: list[_Fragment] | None = None


class _Choice(msgspec.Struct):
    index: int | None = None
    delta: _Delta | None = None
    finish_reason: str | None = None


class _Chunk(msgspec.Struct):
    """One ``chat.completion.chunk`` (OAI ``types/chat/chat_completion_chunk.py``): the fields read."""

    id: str | None = None
    model: str | None = None
    choices: list[_Choice] | None = None
    usage: _Obj | None = None


class _FastFunction(msgspec.Struct, forbid_unknown_fields=True):
    name: str | None = None
    arguments: str | None = None


class _FastFragment(msgspec.Struct, forbid_unknown_fields=True):
    """A ``tool_calls`` fragment of a function call (a ``custom`` one takes the checked path)."""

    index: int
    id: str | None = None
    type: str | None = None
    function: _FastFunction | None = None


class _FastDelta(msgspec.Struct, forbid_unknown_fields=True):
    """A delta of a ``content`` text (or null), ``tool_calls`` fragments, or both, and nothing else (the first
    chunk's ``role`` and a null ``refusal`` aside)."""

    content: str | None | UnsetType = UNSET
    tool_calls: list[_FastFragment] | UnsetType = UNSET
    role: str | None = None  # typed as the checked path types it; not read
    refusal: None = None  # a refusal text takes the checked path


class _FastChoice(msgspec.Struct, forbid_unknown_fields=True):
    delta: _FastDelta
    index: int | None = 0
    logprobs: None | UnsetType = UNSET  # present (null) or absent: kept as the non-stream body keeps it
    finish_reason: None = None


class _FastChunk(msgspec.Struct, forbid_unknown_fields=True):
    """A chunk whose choices carry only a ``content`` text delta (no finish, no usage): the fast path's
    shape (see :func:`interlingua.mapping.wire.fast_event`); the other fields are the chunk's own."""

    choices: list[_FastChoice]
    id: str | None = None
    object: str | None = None
    created: int | None = None
    model: str | None = None
    system_fingerprint: str | None = None
    service_tier: str | None = None
    usage: None = None
    obfuscation: str | None = None


_fast_chunk = msgspec.json.Decoder(_FastChunk)


def _code_by_status(status: int) -> str:
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not_found"
    if status == 408:
        return "timeout"
    if status == 429:
        return "rate_limit"
    if status == 529:
        return "overloaded"
    if 500 <= status <= 599:
        return "server"
    if 400 <= status <= 499:
        return "invalid_request"
    return "provider_error"


def error_code(error: Any) -> tuple[str, int | None]:
    """A stream ``error`` object -> (stable code, HTTP status when the provider gave one).

    OpenAI sends ``{message, type, code}`` with string codes; OpenRouter sends a numeric ``code``
    (the HTTP status). Unknown shapes give ``provider_error``.
    """
    if not isinstance(error, dict):
        return "provider_error", None
    for field in ("code", "type"):
        value = error.get(field)
        if isinstance(value, str) and value in _CODE_BY_NAME:
            return _CODE_BY_NAME[value], None
    for field in ("code", "status"):
        value = error.get(field)
        if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
            return _code_by_status(value), value
    return "provider_error", None


_CHUNK_OWN = frozenset({"id", "model", "choices", "usage", "object", "obfuscation", "error"})
"""Chunk keys the accumulator reads itself or that belong to the chunk form only (``object``:
``chat.completion.chunk``; ``obfuscation``: per-chunk padding); every other key is a response-level field."""


class ChatStreamAccumulator:
    """Accumulates one Chat Completions stream (choice 0; other choices are ignored)."""

    def __init__(self) -> None:
        self._id: str | None = None
        self._model: str | None = None
        self._content: list[str] | None = None
        self._parts: list[dict[str, Any]] | None = None  # Mistral: content chunks (thinking/text), once a list arrives
        self._refusal: list[str] | None = None
        self._reasoning_content: list[str] = []
        self._reasoning: list[str] = []
        self._details: list[Any] = []
        self._calls: dict[int, dict[str, Any]] = {}
        self._finish: Any = None
        self._usage: Any = None
        self._calls_emitted = False
        self._terminal = False
        self._meta: dict[str, Any] = {}  # the chunks' response-level fields (created, system_fingerprint, ...)
        self._choice_meta: dict[str, Any] = {}  # choice 0's fields beside delta/finish_reason (logprobs, ...)

    # ------------------------------------------------------------------ building

    def _message(self) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": "".join(self._content) if self._content is not None else None}
        if self._parts is not None:
            msg["content"] = [self._built(p) for p in self._parts]
        if self._refusal is not None:
            msg["refusal"] = "".join(self._refusal)
        if self._reasoning_content:
            msg["reasoning_content"] = "".join(self._reasoning_content)
        if self._reasoning:
            msg["reasoning"] = "".join(self._reasoning)
        if self._details:
            msg["reasoning_details"] = list(self._details)
        if self._calls:
            msg["tool_calls"] = [self._call_entry(c) for _, c in sorted(self._calls.items())]
        return msg

    @staticmethod
    def _built(part: dict[str, Any]) -> dict[str, Any]:
        if part.get("type") == "thinking" and isinstance(part.get("thinking"), list) and all(isinstance(t, str) for t in part["thinking"]):
            return {**part, "thinking": [{"type": "text", "text": "".join(part["thinking"])}]}
        if part.get("type") == "text":
            return {**part, "text": "".join(part["text"])}
        return part

    def _chunks(self, content: list[Any]) -> list[StreamEvent]:
        """Mistral ``delta.content`` as a list of chunks: ``thinking`` texts join into one thinking
        chunk, ``text`` chunks (and later string deltas) into one text chunk, as in a non-stream response
        (Mistral API reference, ``ThinkChunk``/``TextChunk``); any other chunk is kept as it came."""
        if self._parts is None:
            self._parts = []
            if self._content:
                self._parts.append({"type": "text", "text": list(self._content)})
        out: list[StreamEvent] = []
        for chunk in content:
            if not isinstance(chunk, dict):
                continue
            kind = chunk.get("type")
            if kind == "thinking" and isinstance(chunk.get("thinking"), list):
                texts = [t["text"] for t in chunk["thinking"] if isinstance(t, dict) and t.get("type") == "text" and isinstance(t.get("text"), str)]
                last = self._parts[-1] if self._parts else None
                if last is None or last.get("type") != "thinking" or not isinstance(last.get("thinking"), list):
                    last = {k: v for k, v in chunk.items() if k != "thinking"} | {"thinking": []}
                    self._parts.append(last)
                else:
                    last.update({k: v for k, v in chunk.items() if k not in ("thinking", "type")})  # e.g. closed
                last["thinking"].extend(texts)
                out.extend(ReasoningDelta(t) for t in texts if t)
            elif kind == "text" and isinstance(chunk.get("text"), str):
                out.extend(self._text_chunk(chunk["text"]))
            else:
                self._parts.append(chunk)
        return out

    def _text_chunk(self, text: str) -> list[StreamEvent]:
        assert self._parts is not None
        if not self._parts or self._parts[-1].get("type") != "text" or not isinstance(self._parts[-1].get("text"), list):
            self._parts.append({"type": "text", "text": []})
        self._parts[-1]["text"].append(text)
        return [TextDelta(text)] if text else []

    @staticmethod
    def _call_entry(call: dict[str, Any]) -> dict[str, Any]:
        if call["type"] == "custom":  # custom tools stream `custom.input` fragments
            return {"id": call["id"], "type": "custom", "custom": {"name": call["name"], "input": "".join(call["arguments"])}}
        return {"id": call["id"], "type": call["type"], "function": {"name": call["name"], "arguments": "".join(call["arguments"])}}

    @staticmethod
    def _keep(store: dict[str, Any], key: str, value: Any) -> None:
        """One chunk's field into the accumulated body, as a non-stream body holds it: the latest value,
        objects merged key by key (lists such as ``logprobs.content`` joined), a null never over a value."""
        old = store.get(key)
        if value is None and key in store:
            return
        if isinstance(old, dict) and isinstance(value, dict):
            merged = dict(old)
            for k, v in value.items():
                merged[k] = merged[k] + v if isinstance(merged.get(k), list) and isinstance(v, list) else v
            store[key] = merged
        else:
            store[key] = value

    def _body(self) -> dict[str, Any]:
        """The ``chat.completion`` body the stream amounts to: one normalization with the non-stream path
        (the chunks' ``created``, ``system_fingerprint``, ``service_tier``, gateway fields and choice 0's
        ``logprobs`` are kept as a non-stream body holds them; the chunks' own ``object`` and ``obfuscation`` are not)."""
        body: dict[str, Any] = {**self._meta, "object": "chat.completion", "choices": [{"index": 0, "message": self._message(), "finish_reason": self._finish, **self._choice_meta}]}
        if self._id is not None:
            body["id"] = self._id
        if self._model is not None:
            body["model"] = self._model
        if self._usage is not None:
            body["usage"] = self._usage
        return body

    def _response(self) -> ModelResponse:
        return decode_response(self._body(), Report())

    def partial(self) -> ModelResponse:
        """What arrived so far, as a response (for a StreamError's ``partial``)."""
        return self._response()

    def _emit_calls(self) -> list[StreamEvent]:
        if self._calls_emitted or not self._calls:
            return []
        self._calls_emitted = True
        return [ToolCallComplete(it) for it in self._response().items if isinstance(it, ToolCallItem)]

    def _error(self, code: str, message: str, status: int | None = None) -> list[StreamEvent]:
        self._terminal = True
        item = ErrorItem(code=code, message=message, retryable=code in _RETRYABLE, provider=NAME)  # type: ignore[arg-type]
        if status is not None:
            item = msgspec.structs.replace(item, status=status)
        return [StreamError(item, partial=self._response())]

    # ------------------------------------------------------------------ protocol

    def feed(self, event: RawEvent) -> list[StreamEvent]:
        """Consume one SSE event (see the module docstring for the rules)."""
        if self._terminal:
            return []
        if event.event is None:
            fast = fast_event(_fast_chunk, event.data)
            if fast is not None:
                return self._fast(fast)
        data = event.data.strip()
        if data == "[DONE]":
            final = self._emit_calls()
            self._terminal = True
            final.append(StreamDone(self._response()))
            return final
        if data == "":
            return []
        chunk = decode_event(data, provider=NAME)
        if event.event == "error" or (isinstance(chunk, dict) and chunk.get("error")):
            code, status = error_code(chunk.get("error") if isinstance(chunk, dict) else None)
            return self._error(code, f"{NAME} stream reported an error ({code})", status)
        if not isinstance(chunk, dict):
            return self._error("provider_error", "stream event is not a JSON object")
        check_shape(chunk, _Chunk, provider=NAME)
        out: list[StreamEvent] = []
        if isinstance(chunk.get("id"), str) and chunk["id"] and self._id is None:
            self._id = chunk["id"]
        if isinstance(chunk.get("model"), str) and chunk["model"] and self._model is None:
            self._model = chunk["model"]
        for key, value in chunk.items():
            if key not in _CHUNK_OWN:
                self._keep(self._meta, key, value)
        choices: list[Any] = chunk["choices"] if isinstance(chunk.get("choices"), list) else []
        for choice in choices:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            for key, value in choice.items():
                if key not in ("index", "delta", "finish_reason"):
                    self._keep(self._choice_meta, key, value)
            out.extend(self._delta(choice.get("delta")))
            if choice.get("finish_reason") is not None:
                self._finish = choice["finish_reason"]
                out.extend(self._emit_calls())
        if isinstance(chunk.get("usage"), dict):
            self._usage = chunk["usage"]
            usage = usage_from_wire(self._usage)
            if usage is not None:
                out.append(UsageUpdate(usage))
        return out

    def _fast(self, chunk: _FastChunk) -> list[StreamEvent]:
        """The checked path's result for a text-delta chunk (see :class:`_FastChunk`)."""
        if chunk.id and self._id is None:
            self._id = chunk.id
        if chunk.model and self._model is None:
            self._model = chunk.model
        for key in ("created", "system_fingerprint", "service_tier"):
            value = getattr(chunk, key)
            if value is not None:
                self._keep(self._meta, key, value)
        out: list[StreamEvent] = []
        for choice in chunk.choices:
            if choice.index != 0:
                continue
            if choice.logprobs is not UNSET:
                self._keep(self._choice_meta, "logprobs", None)
            content = choice.delta.content
            if content is UNSET or content is None:
                pass
            elif self._parts is not None:
                if content:
                    out.extend(self._text_chunk(content))
            else:
                if self._content is None:
                    self._content = []
                self._content.append(content)
                if content:
                    out.append(TextDelta(content))
            if choice.delta.tool_calls is not UNSET:
                for frag in choice.delta.tool_calls:
                    self._fast_fragment(frag)
        return out

    def _fast_fragment(self, frag: _FastFragment) -> None:
        """What :meth:`_fragment` does with the same fragment as a dict."""
        call = self._calls.setdefault(frag.index, {"id": None, "type": "function", "name": None, "arguments": []})
        if frag.id and call["id"] is None:
            call["id"] = frag.id
        if frag.type is not None:
            call["type"] = frag.type
        fn = frag.function
        if fn is not None:
            if fn.name and call["name"] is None:
                call["name"] = fn.name
            if fn.arguments is not None:
                call["arguments"].append(fn.arguments)

    def _delta(self, delta: Any) -> list[StreamEvent]:
        if not isinstance(delta, dict):
            return []
        out: list[StreamEvent] = []
        content = delta.get("content")
        if isinstance(content, list):
            out.extend(self._chunks(content))
        elif isinstance(content, str) and self._parts is not None:
            if content:
                out.extend(self._text_chunk(content))
        elif isinstance(content, str):
            if self._content is None:
                self._content = []
            self._content.append(content)
            if content:
                out.append(TextDelta(content))
        refusal = delta.get("refusal")
        if isinstance(refusal, str):
            if self._refusal is None:
                self._refusal = []
            self._refusal.append(refusal)
            if refusal:
                out.append(RefusalDelta(refusal))
        rc, r = delta.get("reasoning_content"), delta.get("reasoning")
        if isinstance(rc, str) and rc:
            self._reasoning_content.append(rc)
            out.append(ReasoningDelta(rc))
        if isinstance(r, str) and r:
            self._reasoning.append(r)
            if not (isinstance(rc, str) and rc):
                out.append(ReasoningDelta(r))
        if isinstance(delta.get("reasoning_details"), list):
            self._details.extend(delta["reasoning_details"])
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            for frag in calls:
                self._fragment(frag)
        return out

    def _fragment(self, frag: Any) -> None:
        if not isinstance(frag, dict):
            return
        index = frag.get("index", len(self._calls))
        if not isinstance(index, int):
            return
        call = self._calls.setdefault(index, {"id": None, "type": "function", "name": None, "arguments": []})
        if isinstance(frag.get("id"), str) and frag["id"] and call["id"] is None:
            call["id"] = frag["id"]
        if isinstance(frag.get("type"), str):
            call["type"] = frag["type"]
        fn = frag.get("function") if isinstance(frag.get("function"), dict) else frag.get("custom")
        if isinstance(fn, dict):
            if isinstance(fn.get("name"), str) and fn["name"] and call["name"] is None:
                call["name"] = fn["name"]
            piece = fn.get("arguments", fn.get("input"))
            if isinstance(piece, str):
                call["arguments"].append(piece)

    def finish(self) -> list[StreamEvent]:
        """End of input: ``truncated`` unless ``[DONE]`` (or an error) ended the stream."""
        if self._terminal:
            return []
        return self._error("truncated", "stream ended before data: [DONE]")
