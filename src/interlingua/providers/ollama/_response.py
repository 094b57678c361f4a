"""Ollama ``/api/chat`` response <-> model response (the providers' API references; OLL ``api/types.go`` ``ChatResponse``).

``{model, created_at, message, done, done_reason, total_duration, load_duration, prompt_eval_count,
prompt_eval_duration, eval_count, eval_duration}``:

* ``message`` -> output items (message key ``"resp"``, origin ``{provider "ollama", model}``). An id-less
  tool call gets ``f"ollama_{stamp}_c{k}"`` with ``stamp`` = the letters and digits of ``created_at``
  (``ollama_resp_c{k}`` without it), so two responses in one transcript do not collide.
* ``done_reason``: ``stop`` -> ``end_turn`` (``tool_use`` with tool calls), ``length`` -> ``max_tokens``,
  ``load``/``unload`` and anything else -> ``other``; raw value kept. No stop reason without ``done_reason``.
* ``message.tool_calls[k].function.index`` (``k``, as recent servers write it: ``ToolCallFunction.Index``)
  is written back where the source had it (``provider_data["ollama"]["tool_call_index"]``); the ``ollama``
  Python client's types have no such field, so a response from another source gets none.
* usage: input = ``prompt_eval_count``, output = ``eval_count``, ``details`` = the count and duration fields
  as given (durations in ns).
* ``{"error": "..."}`` -> an ``error`` item (stable code, safe message; the upstream text is not kept).
* ``/api/generate`` bodies (``response`` text instead of ``message``, ``thinking`` at the top level) are
  read as assistant text and reasoning.
* ``created_at`` (no canonical timestamp, ADR 0009) and any other top-level field the mapper does not
  model are kept in the response's ``provider_data["ollama"]["body"]`` and written back to Ollama only
  (another target reports them dropped). Left out: ``images: null`` (the same as no images).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec

from ...codec import Item
from ...errors import ConversionError
from ...items import ErrorItem, Origin, StopReason, ToolCallItem, Usage
from ...mapping.extras import response_fields, restore_fields, unknown_fields
from ...mapping.item_fields import report_not_read_back
from ...mapping.protocol import Conversion, ModelResponse
from ...mapping.report import Policy, Report
from ...mapping.wire import guarded
from ...mapping.empty_ids import links_empty_ids
from ._common import NAME, error_item, jcopy
from ._messages import MessageDecoder, MessageEncoder

UNSET = msgspec.UNSET

__all__ = ["USAGE_FIELDS", "decode_response", "encode_response"]

USAGE_FIELDS = ("total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration", "eval_count", "eval_duration")
_BACK = {"end_turn": "stop", "tool_use": "stop", "stop_sequence": "stop", "max_tokens": "length"}
_DONE_REASONS = ("stop", "length", "load", "unload")
"""Ollama ``done_reason`` values (OLL ``server/routes.go``, ``llm/server.go`` ``DoneReason``)."""


def _done_reason(stop: StopReason, report: Report) -> str:
    """``done_reason``: the raw value when it is an Ollama value decoding to the same reason, else from the reason."""
    raw = stop.raw
    if isinstance(raw, str) and raw in _DONE_REASONS and stop_reason(raw, stop.reason == "tool_use").reason == stop.reason:
        return raw
    if stop.reason in _BACK:
        return _BACK[stop.reason]
    report.add("changed", f"stop reason {stop.reason!r} has no Ollama done_reason; sent as 'stop'", item_type="stop_reason")
    return "stop"


def _own_usage(u: Usage) -> bool:
    """``details`` holds only Ollama count/duration fields and agrees with the canonical counts."""
    d = u.details
    if not isinstance(d, Mapping) or not d or not set(d) <= set(USAGE_FIELDS):
        return False

    def num(k: str) -> Any:
        v = d.get(k)
        return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else UNSET

    return num("prompt_eval_count") == u.input_tokens and num("eval_count") == u.output_tokens


def _call_ids(created_at: Any) -> Any:
    stamp = re.sub(r"[^0-9A-Za-z]", "", created_at) if isinstance(created_at, str) else ""

    def make(wire_id: str | None, name: str, i: int, k: int) -> str:
        return wire_id if wire_id is not None else f"ollama_{stamp or 'resp'}_c{k}"

    return make


def stop_reason(done_reason: str, has_calls: bool) -> StopReason:
    """``done_reason`` -> stop reason."""
    if done_reason == "stop":
        reason = "tool_use" if has_calls else "end_turn"
    elif done_reason == "length":
        reason = "max_tokens"
    else:
        reason = "other"
    return StopReason(reason=reason, raw=done_reason)  # type: ignore[arg-type]


@links_empty_ids
@guarded("ollama", "response")
def decode_response(body: Mapping[str, Any]) -> Conversion[ModelResponse]:
    """Ollama chat response body -> model response (rules in the module docstring).

    Raises:
        ConversionError: ``body`` is not an object, or has no ``message`` object, ``response`` text
            (``/api/generate``) or ``error`` (not an Ollama response).
    """
    if not isinstance(body, Mapping):
        raise ConversionError("Ollama response is not an object")
    report = Report()
    model = body.get("model") if isinstance(body.get("model"), str) and body.get("model") else None
    if "error" in body and "message" not in body:
        if isinstance(body["error"], str) and body["error"]:
            # the item holds a stable code and a safe message only (DESIGN invariant 5): say what is not carried
            report.add("dropped", f"the provider's error text ({len(body['error'])} characters) is not carried: the error item holds a stable code and a safe message", pointer="/error")
        return Conversion(ModelResponse(items=[error_item(body["error"])], stop_reason=StopReason(reason="error"), model=model), report)
    msg = body.get("message")
    generate = msg is None and isinstance(body.get("response"), str)
    if generate:  # /api/generate: the text in ``response``, the reasoning in a top-level ``thinking``
        msg = {"role": "assistant", "content": body["response"]}
        if isinstance(body.get("thinking"), str) and body["thinking"]:
            msg["thinking"] = body["thinking"]
    if not isinstance(msg, Mapping):
        raise ConversionError("Ollama response has no 'message' object (nor an 'error')")
    found = Report()
    dec = MessageDecoder(found, _call_ids(body.get("created_at")), origin=Origin(provider=NAME, model=model or UNSET))
    items: list[Item] = dec.decode(msg, 0, "resp", "/message")
    # an empty final message is normal in a response (the last stream record): not a loss
    report.extend(Report([e for e in found if not e.reason.startswith("empty ")]))
    stop = None
    if isinstance(body.get("done_reason"), str) and body["done_reason"]:
        stop = stop_reason(body["done_reason"], any(isinstance(i, ToolCallItem) for i in items))
    usage = None
    details = {k: body[k] for k in USAGE_FIELDS if k in body}
    if details:
        def num(k: str) -> Any:
            v = details.get(k)
            return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else UNSET

        usage = Usage(input_tokens=num("prompt_eval_count"), output_tokens=num("eval_count"), details=details)
    kept = unknown_fields(body, _BODY_KEYS | ({"thinking"} if generate else set()))
    own: dict[str, Any] = {"body": kept} if kept else {}
    if _numbered(msg.get("tool_calls")):
        own[CALL_INDEX] = True
    return Conversion(ModelResponse(items=items, usage=usage, stop_reason=stop, model=model, provider_data={NAME: own} if own else None), report)


_ERROR_FIELDS = ("code", "retryable", "status")
"""The error item's fields an Ollama error body can lose (it is ``{"error": text}``; the code is read from the text)."""


CALL_INDEX = "tool_call_index"
"""Key of ``provider_data["ollama"]``: ``true`` when the response numbered its tool calls (``function.index``)."""


def _numbered(calls: Any) -> bool:
    """Whether every tool call of ``calls`` holds ``function.index`` equal to its position (what the server
    writes: ``api/types.go`` ``ToolCallFunction.Index``; the ``ollama`` Python client's ``Message.ToolCall.Function``
    has no such field, so it is written back only where the source had it)."""
    if not isinstance(calls, list) or not calls:
        return False
    for k, call in enumerate(calls):
        fn = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(fn, Mapping) or fn.get("index") != k or isinstance(fn.get("index"), bool):
            return False
    return True


_BODY_KEYS = frozenset({"model", "message", "response", "done", "done_reason", *USAGE_FIELDS})
"""Top-level response keys the mapper models (``response``: ``/api/generate`` text)."""


def encode_response(response: ModelResponse, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
    """Model response -> Ollama chat response body (``done: true``; ``created_at`` and the other kept
    top-level fields written back from the response's own provider data).

    A response holding only an ``error`` item becomes ``{"error": <its safe message>}``; its code, ``retryable``
    and ``status``, which that body does not keep (the code is read back from the text), are reported where
    they would come back otherwise.
    """
    report = Report()
    items = list(response.items)
    if len(items) == 1 and isinstance(items[0], ErrorItem):
        report_not_read_back(items[0], error_item(items[0].message), _ERROR_FIELDS, report, index=0, where="an Ollama error body ({error: text})")
        return Conversion({"error": items[0].message}, report)
    enc = MessageEncoder(policy, report)
    enc.index_calls(items)
    for idx, item in enumerate(items):
        enc.add(idx, item)
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    for n, m in enumerate(enc.messages):
        if m.get("role") != "assistant":
            report.add("dropped", f"{m.get('role')} message has no place in an Ollama response", index=n)
            continue
        if n and enc.messages[n - 1].get("role") == "assistant":
            report.add("changed", "several assistant messages merged into one response message", index=n)
        message["content"] += m.get("content", "")
        if m.get("thinking"):
            message["thinking"] = message.get("thinking", "") + m["thinking"]
        if m.get("images"):
            message.setdefault("images", []).extend(m["images"])
        if m.get("tool_calls"):
            message.setdefault("tool_calls", []).extend(m["tool_calls"])
        for k, v in m.items():  # message fields kept from an Ollama response (provider data)
            if k not in ("role", "content", "thinking", "images", "tool_calls"):
                message.setdefault(k, v)
    own = response_fields(response.provider_data, NAME, report)
    if own.pop(CALL_INDEX, None) is True:
        for position, call in enumerate(message.get("tool_calls", ())):
            call["function"] = {"index": position, **call["function"]}  # the source numbered its calls (_numbered)
    body: dict[str, Any] = {}
    if model or response.model:
        body["model"] = model or response.model
    body["message"] = message
    stop = response.stop_reason
    if stop is not None:
        body["done_reason"] = _done_reason(stop, report)
    body["done"] = True
    if response.usage is not None:
        u = response.usage
        if _own_usage(u):
            body.update(jcopy(u.details))
        else:
            if u.input_tokens is not UNSET:
                body["prompt_eval_count"] = u.input_tokens
            if u.output_tokens is not UNSET:
                body["eval_count"] = u.output_tokens
    if isinstance(own.get("body"), Mapping):
        restore_fields(body, own["body"])
    return Conversion(body, report)
