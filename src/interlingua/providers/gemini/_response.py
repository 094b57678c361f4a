"""Gemini ``GenerateContentResponse`` <-> model response (the providers' API references, GEN ``types.py``).

* ``candidates[0].content.parts`` -> output items (message key ``f"resp:{responseId}"``, ``"resp"`` without
  one; origin ``{provider "gemini", model = modelVersion, response_id = responseId}``). Other candidates are
  left out and reported. An id-less ``functionCall`` gets ``f"gemini_{responseId}_c{k}"`` (``k`` = ordinal
  of the call in the response; ``gemini_resp_c{k}`` without a response id): the same id in a stream.
* ``finishReason``: ``STOP`` -> ``end_turn`` (``tool_use`` when the parts hold a function call),
  ``MAX_TOKENS`` -> ``max_tokens``, ``SAFETY``/``RECITATION``/``BLOCKLIST``/``PROHIBITED_CONTENT``/``SPII``/
  ``IMAGE_SAFETY``/``IMAGE_PROHIBITED_CONTENT`` -> ``content_filter``, ``MALFORMED_FUNCTION_CALL``/
  ``UNEXPECTED_TOOL_CALL``/``TOO_MANY_TOOL_CALLS`` -> ``error``, anything else -> ``other``; raw value kept.
* ``promptFeedback.blockReason`` -> an ``error`` item with code ``content_filter`` and stop reason
  ``content_filter`` (raw = the block reason).
* ``usageMetadata``: input = ``promptTokenCount``, output = ``candidatesTokenCount`` + ``thoughtsTokenCount``,
  reasoning = ``thoughtsTokenCount``, cache_read = ``cachedContentTokenCount``, total = ``totalTokenCount``,
  ``details`` = the record as given.
* An ``{"error": {...}}`` body -> an ``error`` item (stable code from the HTTP code/status, safe message).
* Left out (no canonical form, conversation unchanged): ``safetyRatings``, ``citationMetadata``,
  ``groundingMetadata``, ``finishMessage``, ``avgLogprobs``, ``logprobsResult``, ``index``.
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
from ._common import NAME, error_item, get, has, jcopy, keyset, snake
from ._parts import PartDecoder, PartEncoder
from ._request import report_breakpoints

UNSET = msgspec.UNSET

__all__ = ["decode_response", "encode_response", "response_call_id", "stop_reason", "usage_from"]

_FILTER = {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT"}
_ERROR = {"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"}
_BACK = {"end_turn": "STOP", "tool_use": "STOP", "stop_sequence": "STOP", "max_tokens": "MAX_TOKENS",
         "content_filter": "SAFETY", "refusal": "SAFETY", "error": "OTHER", "other": "OTHER", "pause": "OTHER"}


_WIRE_ENUM = re.compile(r"^[A-Z][A-Z0-9_]*$")
"""Gemini ``FinishReason``/``BlockReason`` values are UPPER_SNAKE enum names (GEN ``types.py``)."""
_USAGE_KEY = re.compile(r"^(?:[a-z][A-Za-z]*(?:TokenCount|TokensDetails)|trafficType)$")
"""Keys of ``GenerateContentResponseUsageMetadata`` (GEN ``types.py``), in camelCase."""
_COUNTS = ("input_tokens", "output_tokens", "reasoning_tokens", "cache_read_tokens", "cache_write_tokens", "total_tokens")


def _own_raw(stop: StopReason) -> str | None:
    """``stop.raw`` when it is a Gemini value that decodes to the same canonical reason, else ``None``."""
    raw = stop.raw
    if not isinstance(raw, str) or not _WIRE_ENUM.match(raw):
        return None
    return raw if stop_reason(raw, stop.reason == "tool_use").reason == stop.reason else None


def _own_usage(u: Usage, extra: Any = ()) -> bool:
    """``details`` is a Gemini ``usageMetadata`` record (Gemini keys, and the ``extra`` keys the decoder saw) agreeing with the counts."""
    details = u.details
    if not isinstance(details, Mapping) or not details or not all(_USAGE_KEY.match(k) or k in extra for k in keyset(details)):
        return False
    back = usage_from(details)
    return all(getattr(back, f) == getattr(u, f) for f in _COUNTS)


def stop_reason(finish: str, has_calls: bool) -> StopReason:
    """``finishReason`` -> stop reason (see the module docstring)."""
    if finish == "STOP":
        reason = "tool_use" if has_calls else "end_turn"
    elif finish == "MAX_TOKENS":
        reason = "max_tokens"
    elif finish in _FILTER:
        reason = "content_filter"
    elif finish in _ERROR:
        reason = "error"
    else:
        reason = "other"
    return StopReason(reason=reason, raw=finish)  # type: ignore[arg-type]


def usage_from(md: Mapping[str, Any]) -> Usage:
    """``usageMetadata`` -> usage (see the module docstring)."""

    def num(key: str) -> Any:
        v = get(md, key)
        return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else UNSET

    prompt, cand, thoughts = num("promptTokenCount"), num("candidatesTokenCount"), num("thoughtsTokenCount")
    output: Any = UNSET
    if cand is not UNSET or thoughts is not UNSET:
        output = (cand or 0) + (thoughts or 0)
    return Usage(
        input_tokens=prompt,
        output_tokens=output,
        reasoning_tokens=thoughts,
        cache_read_tokens=num("cachedContentTokenCount"),
        total_tokens=num("totalTokenCount"),
        details=jcopy(dict(md)),
    )


def response_call_id(response_id: str | None) -> Any:
    """The id rule for function calls in a response (wire id, else ``gemini_<responseId>_c<k>``)."""

    def make(wire_id: str | None, name: str, k: int) -> str:
        return wire_id if wire_id is not None else f"gemini_{response_id or 'resp'}_c{k}"

    return make


def decoder_for(response_id: str | None, model: str | None, report: Report) -> PartDecoder:
    """The part decoder a response (or stream) with this id and model uses."""
    origin = Origin(provider=NAME, model=model or UNSET, response_id=response_id or UNSET)
    key = f"resp:{response_id}" if response_id else "resp"

    def result_id(wire_id: str | None, name: str, j: int) -> str:
        return wire_id if wire_id is not None else f"gemini_{response_id or 'resp'}_p{j}_result"

    return PartDecoder("assistant", key, report, response_call_id(response_id), result_id, origin=origin, model=model)


@links_empty_ids
@guarded("gemini", "response")
def decode_response(body: Mapping[str, Any]) -> Conversion[ModelResponse]:
    """Gemini response body -> model response (rules in the module docstring).

    Raises:
        ConversionError: ``body`` is not an object, ``candidates`` is not a list, or the body has neither
            ``candidates`` nor ``promptFeedback`` nor ``error`` (not a Gemini response).
    """
    if not isinstance(body, Mapping):
        raise ConversionError("Gemini response is not an object")
    report = Report()
    rid, model = get(body, "responseId"), get(body, "modelVersion")
    rid = rid if isinstance(rid, str) and rid else None
    model = model if isinstance(model, str) and model else None
    candidates = get(body, "candidates")
    if candidates is None and isinstance(body.get("error"), Mapping):
        err = error_item(body["error"])
        text = body["error"].get("message")
        if isinstance(text, str) and text:  # not passed on (DESIGN invariant 5): said, not silent
            report.add("dropped", f"the provider's error text ({len(text)} characters) is not carried: the error item holds a stable code and a safe message", pointer="/error/message")
        for key in body["error"]:
            if key not in ("code", "message", "status"):
                report.add("dropped", f"error field {key!r} is not carried (the error item holds a stable code and a safe message)", pointer=f"/error/{key}")
        return Conversion(ModelResponse(items=[err], stop_reason=StopReason(reason="error"), model=model, response_id=rid), report)
    if candidates is not None and not isinstance(candidates, list):
        raise ConversionError("Gemini candidates is not a list")
    if candidates is None and not isinstance(get(body, "promptFeedback"), Mapping):
        raise ConversionError("Gemini response has neither 'candidates' nor 'promptFeedback'")
    items: list[Item] = []
    stop: StopReason | None = None
    if candidates:
        if len(candidates) > 1:
            report.add("dropped", f"{len(candidates) - 1} extra candidate(s) left out; only candidates[0] is read", pointer="/candidates")
        cand = candidates[0] if isinstance(candidates[0], Mapping) else {}
        content = get(cand, "content") or {}
        parts = content.get("parts") or [] if isinstance(content, Mapping) else []
        dec = decoder_for(rid, model, report)
        dec.pointer = "/candidates/0/content"
        items = dec.decode(list(parts))
        finish = get(cand, "finishReason")
        if isinstance(finish, str):
            stop = stop_reason(finish, any(isinstance(i, ToolCallItem) for i in items))
    feedback = get(body, "promptFeedback")
    block = get(feedback, "blockReason") if isinstance(feedback, Mapping) else None
    if isinstance(block, str) and block:
        items.append(
            ErrorItem(
                code="content_filter",
                message=f"Gemini blocked the prompt ({block})",
                retryable=False,
                provider=NAME,
                origin=Origin(provider=NAME, model=model or UNSET, response_id=rid or UNSET),
            )
        )
        if stop is None:
            stop = StopReason(reason="content_filter", raw=block)
    md = get(body, "usageMetadata")
    usage = usage_from(md) if isinstance(md, Mapping) else None
    return Conversion(
        ModelResponse(items=items, usage=usage, stop_reason=stop, model=model, response_id=rid, provider_data=_kept(body, rid, model, block)),
        report,
    )


def _both(*keys: str) -> set[str]:
    return {k for key in keys for k in (key, snake(key))}


def _kept(body: Mapping[str, Any], rid: str | None, model: str | None, block: Any) -> dict[str, Any] | None:
    """Response-level fields no canonical field holds (ADR 0009), for :func:`encode_response` to write back.

    ``body``: ``createTime``, ``modelStatus``, ...; ``candidate``: ``avgLogprobs``, ``finishMessage``,
    ``groundingMetadata``, ``safetyRatings``, a Vertex integer ``finishReason``, ...; ``usage_keys``: the
    ``usageMetadata`` keys outside the token counts (``serviceTier``, ...), so the record goes back as given.
    """
    known = _both("candidates", "usageMetadata") | (_both("responseId") if rid else set()) | (_both("modelVersion") if model else set())
    if isinstance(block, str) and block:
        known |= _both("promptFeedback")
    kept: dict[str, Any] = {}
    top = unknown_fields(body, known)
    if top:
        kept["body"] = top
    candidates = get(body, "candidates")
    if isinstance(candidates, list) and candidates and isinstance(candidates[0], Mapping):
        cand = candidates[0]
        extra = unknown_fields(cand, _both("content", "finishReason", "index"))
        finish = get(cand, "finishReason")
        if finish is not None and not isinstance(finish, str):
            extra["finishReason"] = finish  # Vertex's integer enum
        content = get(cand, "content")
        if not has(cand, "content"):
            extra["content"] = None  # no content at all (a blocked candidate)
        elif isinstance(content, Mapping) and not content.get("parts"):
            extra["content"] = dict(content)  # content without parts (``{}``, a role alone)
        if extra:
            kept["candidate"] = extra
    md = get(body, "usageMetadata")
    if isinstance(md, Mapping):
        other = sorted(k for k in keyset(md) if not _USAGE_KEY.match(k))
        if other:
            kept["usage_keys"] = other
    return {NAME: kept} if kept else None


_ERROR_STATUS: dict[str, tuple[int, str]] = {
    "invalid_request": (400, "INVALID_ARGUMENT"), "auth": (403, "PERMISSION_DENIED"), "not_found": (404, "NOT_FOUND"),
    "rate_limit": (429, "RESOURCE_EXHAUSTED"), "cancelled": (499, "CANCELLED"), "server": (500, "INTERNAL"),
    "overloaded": (503, "UNAVAILABLE"), "timeout": (504, "DEADLINE_EXCEEDED"),
}
"""Error item code -> (HTTP code, ``google.rpc.Code`` status name) of the Gemini API's error body (AIP-193
``{"error": {code, message, status, details?}}``; the Gemini API troubleshooting guide's table of status codes)."""

_STATUS_OF_HTTP = {401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 408: "DEADLINE_EXCEEDED", 413: "INVALID_ARGUMENT", 422: "INVALID_ARGUMENT"}


def _error_body(item: ErrorItem) -> dict[str, Any]:
    """An error item -> the ``error`` object of a Gemini error body (its safe message; no details)."""
    http, status = _ERROR_STATUS.get(item.code, (500, "INTERNAL"))
    if isinstance(item.status, int):
        http = item.status
        status = _STATUS_OF_HTTP.get(http, status)
    return {"code": http, "message": item.message, "status": status}


def encode_response(response: ModelResponse, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
    """Model response -> Gemini response body (for round trips and mock servers).

    A response holding only an ``error`` item (other than ``content_filter``) becomes the API's error body
    ``{"error": {code, message, status}}`` (HTTP code and status from the item; its safe message). An ``error``
    item with code ``content_filter`` and no other output becomes ``promptFeedback.blockReason`` (the stop
    reason's raw value); other ``error`` items are left out and reported. A ``cache_breakpoint`` has no place in
    a response body either (no per-part breakpoint): it is left out and reported.
    """
    report = Report()
    use_model = model or response.model
    items = list(response.items)
    if len(items) == 1 and isinstance(items[0], ErrorItem) and items[0].code != "content_filter":
        error = _error_body(items[0])
        report_not_read_back(items[0], error_item(error), ("code", "retryable", "status"), report, index=0, where="a Gemini error body ({code, message, status})")
        return Conversion({"error": error}, report)
    enc = PartEncoder(policy, report, use_model)
    enc.index_calls(items)
    block: ErrorItem | None = None
    for idx, item in enumerate(items):
        if isinstance(item, ErrorItem):
            if item.code == "content_filter" and block is None:
                block = item
            else:
                report.add("dropped", "error item has no Gemini response form", index=idx, item_type="error")
            continue
        report_breakpoints(item, idx, report)
        enc.add(idx, item)
    parts: list[dict[str, Any]] = []
    for content in enc.finish():
        if content["role"] != "model":
            report.add("changed", "user-side items in a response sent as model parts", item_type="content")
        parts.extend(content["parts"])
    body: dict[str, Any] = {}
    own = response_fields(response.provider_data, NAME, report)
    stop = response.stop_reason
    if block is not None and not parts:
        raw = _own_raw(stop) if stop is not None else None
        body["promptFeedback"] = {"blockReason": raw if raw is not None and stop is not None and stop.reason == "content_filter" else "OTHER"}
    else:
        if block is not None:
            report.add("dropped", "content_filter error item beside output parts left out", item_type="error")
        cand: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
        if stop is not None:
            cand["finishReason"] = _own_raw(stop) or _BACK[stop.reason]
        cand["index"] = 0
        restore_fields(cand, own.get("candidate") or {}, override=("finishReason", "content"))
        if cand.get("content") is None:
            del cand["content"]
        body["candidates"] = [cand]
    if response.usage is not None:
        u = response.usage
        if _own_usage(u, own.get("usage_keys") or ()):
            body["usageMetadata"] = jcopy(u.details)
        else:
            md: dict[str, Any] = {}
            if u.input_tokens is not UNSET:
                md["promptTokenCount"] = u.input_tokens
            if u.output_tokens is not UNSET:
                md["candidatesTokenCount"] = u.output_tokens - (u.reasoning_tokens or 0)
            if u.reasoning_tokens is not UNSET:
                md["thoughtsTokenCount"] = u.reasoning_tokens
            if u.cache_read_tokens is not UNSET:
                md["cachedContentTokenCount"] = u.cache_read_tokens
            if u.total_tokens is not UNSET:
                md["totalTokenCount"] = u.total_tokens
            body["usageMetadata"] = md
    if use_model:
        body["modelVersion"] = use_model
    if response.response_id:
        body["responseId"] = response.response_id
    restore_fields(body, own.get("body") or {})
    return Conversion(body, report)
