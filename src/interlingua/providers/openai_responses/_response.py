"""Responses response objects (OAI ``types/responses/response.py``) <-> :class:`ModelResponse`.

Items made from one response share the ``message`` key ``resp:<id>`` and carry
``origin`` (provider, model, response id, item id).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...codec import Item
from ...errors import ConversionError
from ...items import ErrorItem, RefusalItem, StopReason, TextItem, ToolCallItem, ToolResultItem, Usage
from ...mapping.extras import response_fields, restore_fields, unknown_fields
from ...mapping.ids import IdMap
from ...mapping.item_fields import report_not_read_back
from ...mapping.protocol import Conversion, ModelResponse
from ...mapping.report import Policy, Report
from ...mapping.wire import guarded
from ...mapping.empty_ids import links_empty_ids
from ._common import ID_RULE, NAME, UNSET, error_item, plain
from ._items import DecodeContext, EncodeContext, decode_wire_item, describe
from ._sequence import encode_sequence

__all__ = ["decode_response", "decode_usage", "encode_response", "response_key", "stop_reason"]

_INCOMPLETE = {"max_output_tokens": "max_tokens", "content_filter": "content_filter"}
_INCOMPLETE_BACK = {"max_tokens": "max_output_tokens", "content_filter": "content_filter"}
_ERROR_BACK = {"rate_limit": "rate_limit_exceeded", "server": "server_error"}
"""Canonical error code -> ``ResponseError.code`` (a closed ``Literal`` in OAI ``response_error.py``);
any other code is written ``server_error`` and reported."""


def response_key(response_id: Any) -> str:
    """The ``message`` key of the items of one response."""
    return f"resp:{response_id}" if isinstance(response_id, str) and response_id else "resp"


def _int(value: Any) -> Any:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else UNSET


def decode_usage(raw: Any) -> Usage | None:
    """``usage`` (OAI ``response_usage.py``) -> :class:`Usage`; ``details`` is the record exactly as given.

    ``input_tokens`` already includes ``input_tokens_details.cached_tokens`` (-> ``cache_read_tokens``);
    ``output_tokens`` includes ``output_tokens_details.reasoning_tokens``.
    """
    if not isinstance(raw, Mapping):
        return None
    in_raw, out_raw = raw.get("input_tokens_details"), raw.get("output_tokens_details")
    in_details: Mapping[str, Any] = in_raw if isinstance(in_raw, Mapping) else {}
    out_details: Mapping[str, Any] = out_raw if isinstance(out_raw, Mapping) else {}
    return Usage(
        input_tokens=_int(raw.get("input_tokens")),
        output_tokens=_int(raw.get("output_tokens")),
        reasoning_tokens=_int(out_details.get("reasoning_tokens")),
        cache_read_tokens=_int(in_details.get("cached_tokens")),
        cache_write_tokens=_int(in_details.get("cache_write_tokens")),
        total_tokens=_int(raw.get("total_tokens")),
        details=plain(dict(raw)),
    )


def stop_reason(body: Mapping[str, Any], items: list[Item]) -> StopReason:
    """``status`` and ``incomplete_details`` -> :class:`StopReason`.

    ``completed``: ``tool_use`` when the output holds a function call, ``refusal`` when it holds a
    refusal and no text, else ``end_turn`` (raw ``completed``). ``incomplete``: ``max_output_tokens``
    -> ``max_tokens``, ``content_filter`` -> ``content_filter``, other -> ``other`` (raw = the reason).
    ``failed`` -> ``error``; ``cancelled``, ``queued``, ``in_progress`` -> ``other``.
    """
    status = body.get("status")
    if status == "completed" or (status is None and not body.get("error")):
        if any(isinstance(i, ToolCallItem) for i in items):
            return StopReason(reason="tool_use", raw=status)
        if any(isinstance(i, RefusalItem) for i in items) and not any(isinstance(i, TextItem) for i in items):
            return StopReason(reason="refusal", raw=status)
        return StopReason(reason="end_turn", raw=status)
    if status == "incomplete":
        details = body.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, Mapping) else None
        return StopReason(reason=_INCOMPLETE.get(reason, "other"), raw=reason if isinstance(reason, str) else status)  # type: ignore[arg-type]
    if status == "failed" or body.get("error"):
        return StopReason(reason="error", raw=status if isinstance(status, str) else "failed")
    return StopReason(reason="other", raw=status if isinstance(status, str) else None)


@links_empty_ids
@guarded("openai-responses", "response")
def decode_response(body: Mapping[str, Any]) -> Conversion[ModelResponse]:
    """A Response object -> output items, usage and stop reason.

    ``output`` items decode as request items do (message parts, ``function_call``, ``reasoning``;
    anything else such as ``web_search_call`` -> raw). A failed response (``status:"failed"`` or an
    ``error`` object) appends an :class:`ErrorItem` with a stable code and a safe message.

    Raises:
        ConversionError: ``body`` is not an object or has no ``output`` list (not a Response object).
    """
    if not isinstance(body, Mapping):
        raise ConversionError("OpenAI Responses response is not an object")
    if not isinstance(body.get("output"), list):
        raise ConversionError("OpenAI Responses response has no 'output' list")
    report = Report()
    response_id = body.get("id") if isinstance(body.get("id"), str) else None
    model = body.get("model") if isinstance(body.get("model"), str) else None
    ctx = DecodeContext(report, model=model, response_id=response_id)
    key = response_key(response_id)
    items: list[Item] = []
    output = body.get("output")
    if isinstance(output, list):
        for i, raw in enumerate(output):
            items.extend(decode_wire_item(raw, key, ctx, i, f"/output/{i}"))
    reason = stop_reason(body, items)
    error = body.get("error")
    if reason.reason == "error":
        code = error.get("code") if isinstance(error, Mapping) else None
        items.append(error_item(code))
        text = error.get("message") if isinstance(error, Mapping) else None
        if isinstance(text, str) and text:  # not passed on (DESIGN invariant 5): said, not silent
            report.add("dropped", f"the provider's error text ({len(text)} characters) is not carried: the error item holds a stable code and a safe message", pointer="/error/message")
    # Response-level fields no canonical field holds (ADR 0009): ``created_at``, ``completed_at``,
    # ``service_tier``, ``tool_usage``, a non-standard ``status`` spelling, ...
    known = {"output", "usage", "error"} | ({"id"} if response_id else set()) | ({"model"} if model else set())
    kept = unknown_fields(body, known)
    if kept.get("status") == _status_of(reason, items):
        del kept["status"]
    usage = body.get("usage")
    usage_keys: list[str] = []
    usage_extra = unknown_fields(usage, _USAGE_KEYS) if isinstance(usage, Mapping) else {}
    if usage_extra:  # gateway ``cost``, ``is_byok``, ...: the record still goes back as given
        usage_keys = sorted(usage_extra)
    return Conversion(
        ModelResponse(
            items=items,
            usage=decode_usage(body.get("usage")),
            stop_reason=reason,
            model=model,
            response_id=response_id,
            provider_data={NAME: {k: v for k, v in (("body", kept), ("usage_keys", usage_keys)) if v}} if kept or usage_keys else None,
        ),
        report,
    )


def _status_of(reason: StopReason, items: list[Item]) -> str:
    """The ``status`` :func:`encode_response` writes for ``reason``."""
    if reason.reason in _INCOMPLETE_BACK:
        return "incomplete"
    if reason.reason == "error" or any(isinstance(i, ErrorItem) for i in items):
        return "failed"
    if reason.reason == "other" and reason.raw in ("cancelled", "queued", "in_progress"):
        return str(reason.raw)
    return "completed"


_COUNTS = ("input_tokens", "output_tokens", "reasoning_tokens", "cache_read_tokens", "cache_write_tokens", "total_tokens")
_USAGE_KEYS = {"input_tokens", "input_tokens_details", "output_tokens", "output_tokens_details", "total_tokens"}


def _own_usage(usage: Usage, extra: Any = ()) -> bool:
    """``details`` is a Responses usage record (Responses keys, and the ``extra`` keys the decoder saw) agreeing with the counts."""
    details = usage.details
    if not isinstance(details, Mapping) or "input_tokens" not in details or not set(details) <= _USAGE_KEYS | set(extra):
        return False
    back = decode_usage(details)
    return back is not None and all(getattr(back, f) == getattr(usage, f) for f in _COUNTS)


def _usage_to_wire(usage: Usage, extra: Any = ()) -> dict[str, Any]:
    """:class:`Usage` -> ``usage``: ``details`` as given when it is this provider's record, else built from the counts."""
    if _own_usage(usage, extra):
        return plain(usage.details)
    out: dict[str, Any] = {}
    out["input_tokens"] = usage.input_tokens if usage.input_tokens is not UNSET else 0
    # InputTokensDetails.cached_tokens and .cache_write_tokens are both required (OAI response_usage.py).
    in_details: dict[str, Any] = {"cached_tokens": usage.cache_read_tokens if usage.cache_read_tokens is not UNSET else 0}
    in_details["cache_write_tokens"] = usage.cache_write_tokens if usage.cache_write_tokens is not UNSET else 0
    out["input_tokens_details"] = in_details
    out["output_tokens"] = usage.output_tokens if usage.output_tokens is not UNSET else 0
    out["output_tokens_details"] = {"reasoning_tokens": usage.reasoning_tokens if usage.reasoning_tokens is not UNSET else 0}
    out["total_tokens"] = usage.total_tokens if usage.total_tokens is not UNSET else out["input_tokens"] + out["output_tokens"]
    return out


def _fill_ids(output: list[dict[str, Any]]) -> None:
    prefixes = {"message": "msg", "reasoning": "rs", "function_call": "fc"}
    for k, item in enumerate(output):
        prefix = prefixes.get(item.get("type", ""))
        if prefix and "id" not in item:
            item["id"] = f"{prefix}_{k}"
        if item.get("type") == "function_call":
            item.setdefault("status", "completed")  # a status the decoder kept (``in_progress``) stays


def encode_response(response: ModelResponse, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
    """:class:`ModelResponse` -> Response object (for round-trip tests and mock servers).

    Writes ``id``, ``object``, ``created_at``, ``status``, ``model``, ``output``, ``usage``,
    ``incomplete_details``, ``error``, ``parallel_tool_calls``, ``tool_choice`` and ``tools``; items
    without a provider id get positional ones (``msg_0``, ``fc_1``, ``rs_2``). The SDK's ``Response``
    requires ``created_at``, ``parallel_tool_calls``, ``tool_choice`` and ``tools``, which a
    :class:`ModelResponse` does not hold: they are written as ``0`` (no timestamp is carried), ``true``,
    ``"auto"`` and ``[]`` (the request's defaults). ``error.code`` is one of ``ResponseError.code``: a
    canonical code with no equivalent is written ``server_error`` and reported as changed; the error item's
    ``status`` and a ``retryable`` its code does not imply have no place in a ``ResponseError`` and are
    reported as well.

    Raises:
        ConversionError: under policy ``error`` for items a response cannot carry.
    """
    report = Report()
    items = list(response.items)
    errors = [i for i in items if isinstance(i, ErrorItem)]
    others: list[tuple[int, Any]] = []
    for k, item in enumerate(items):
        if isinstance(item, ErrorItem):
            continue
        role = getattr(item, "role", UNSET)
        if isinstance(item, ToolResultItem) or role not in (UNSET, "assistant"):
            report.unsupported("error" if policy == "error" else "drop", "a response holds only assistant output", index=k, item_type=describe(item))
            continue
        others.append((k, item))
    ids = IdMap(ID_RULE, report)
    ids.reserve([i.id for _, i in others if isinstance(i, ToolCallItem)])
    ctx = EncodeContext(policy, report, ids)
    output = encode_sequence(others, ctx, output_form=True)
    _fill_ids(output)
    reason = response.stop_reason.reason if response.stop_reason is not None else "end_turn"
    body: dict[str, Any] = {
        "id": response.response_id or "resp_0",
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "model": model or response.model or "",
        "output": output,
        "incomplete_details": None,
        "error": None,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    if reason in _INCOMPLETE_BACK:
        body["status"] = "incomplete"
        body["incomplete_details"] = {"reason": _INCOMPLETE_BACK[reason]}
    elif reason == "error" or errors:
        body["status"] = "failed"
        code = errors[0].code if errors else "server"
        if code not in _ERROR_BACK:
            report.add("changed", f"error code {code!r} has no ResponseError.code equivalent; written 'server_error'", index=items.index(errors[0]) if errors else None, item_type="error")
        body["error"] = {"code": _ERROR_BACK.get(code, "server_error"), "message": errors[0].message if errors else "response failed"}
        if errors:  # no status; retryable comes from the code (a code changed above changes it with it: one entry)
            fields = ("retryable", "status") if code in _ERROR_BACK else ("status",)
            report_not_read_back(errors[0], error_item(body["error"]["code"]), fields, report, index=items.index(errors[0]), where="a Responses error object ({code, message})")
    elif reason == "other" and response.stop_reason is not None and response.stop_reason.raw in ("cancelled", "queued", "in_progress"):
        body["status"] = response.stop_reason.raw
    own = response_fields(response.provider_data, NAME, report)
    usage_keys = own.get("usage_keys") if isinstance(own.get("usage_keys"), list) else ()
    body["usage"] = _usage_to_wire(response.usage, usage_keys) if response.usage is not None else None
    restore_fields(body, own.get("body") or {}, override=_PLACEHOLDERS)
    return Conversion(body, report)


# What encode_response writes only because the SDK's ``Response`` requires it (or from the stop reason):
# the decoded body's own value goes back instead.
_PLACEHOLDERS = ("id", "object", "created_at", "status", "model", "incomplete_details", "parallel_tool_calls", "tool_choice", "tools")

