"""Anthropic Messages response bodies <-> :class:`ModelResponse`.

Shape: ANT ``types/message.py`` ``{id, type:"message", role, content[], model, stop_reason,
stop_sequence, stop_details?, usage}``; ``stop_reason.py``; ``usage.py``.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from typing import Any

import msgspec

from ...codec import Item
from ...errors import MappingError
from ...items import Origin, RefusalItem, StopReason, TextItem, Usage
from ...mapping.extras import response_fields, restore_fields, unknown_fields
from ...mapping.protocol import Conversion, ModelResponse
from ...mapping.report import Policy, Report
from ...mapping.wire import guarded, json_copy
from ...mapping.empty_ids import links_empty_ids
from ._blocks import NAME, DecodeContext, Encoder, decode_block, item_type, speaker

__all__ = [
    "STOP_REASONS",
    "decode_response",
    "decode_stop",
    "decode_usage",
    "encode_response",
    "message_context",
    "refusal_item",
]

STOP_REASONS: dict[str, str] = {
    "end_turn": "end_turn",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "tool_use": "tool_use",
    "pause_turn": "pause",
    "refusal": "refusal",
    # The output stopped because the context window filled up: a length stop, like max_tokens.
    "model_context_window_exceeded": "max_tokens",
}
"""Anthropic ``stop_reason`` -> canonical reason (ANT ``stop_reason.py``); anything else -> ``other``."""

_STOP_OUT: dict[str, str] = {
    "end_turn": "end_turn",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "tool_use": "tool_use",
    "pause": "pause_turn",
    "refusal": "refusal",
}


def decode_stop(raw: Any) -> StopReason | None:
    """Anthropic ``stop_reason`` -> :class:`StopReason` (``None`` when absent)."""
    if not isinstance(raw, str):
        return None
    return StopReason(reason=STOP_REASONS.get(raw, "other"), raw=raw)  # type: ignore[arg-type]


def decode_usage(usage: Any) -> Usage | None:
    """Anthropic ``usage`` -> :class:`Usage`.

    ``input_tokens`` = ``input_tokens`` + ``cache_creation_input_tokens`` + ``cache_read_input_tokens``
    (Anthropic reports cache reads and writes apart from ``input_tokens``); ``reasoning_tokens`` from
    ``output_tokens_details.thinking_tokens`` when given; ``details`` is the record exactly as given.
    """
    if not isinstance(usage, dict):
        return None

    def num(key: str) -> int | None:
        v = usage.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None

    inp, out = num("input_tokens"), num("output_tokens")
    cw, cr = num("cache_creation_input_tokens"), num("cache_read_input_tokens")
    fields: dict[str, Any] = {"details": json_copy(usage)}  # three times per stream: a direct walk, not deepcopy
    if inp is not None or cw is not None or cr is not None:
        fields["input_tokens"] = (inp or 0) + (cw or 0) + (cr or 0)
    if out is not None:
        fields["output_tokens"] = out
    if cr is not None:
        fields["cache_read_tokens"] = cr
    if cw is not None:
        fields["cache_write_tokens"] = cw
    details = usage.get("output_tokens_details")
    if isinstance(details, dict) and isinstance(details.get("thinking_tokens"), int) and not isinstance(details["thinking_tokens"], bool) and details["thinking_tokens"] >= 0:
        fields["reasoning_tokens"] = details["thinking_tokens"]
    if "input_tokens" in fields and out is not None:
        fields["total_tokens"] = fields["input_tokens"] + out
    return Usage(**fields)


_USAGE_KEYS = frozenset(
    {
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "cache_creation",
        "server_tool_use",
        "service_tier",
        "output_tokens_details",
        "inference_geo",
    }
)
"""Fields of an Anthropic usage record (ANT ``usage.py``)."""


def encode_usage(usage: Usage, extra: Any = ()) -> dict[str, Any]:
    """:class:`Usage` -> Anthropic ``usage``.

    ``details`` is used as given only when it is an Anthropic usage record (Anthropic keys only,
    ``input_tokens`` present; ``extra``: further keys the decoder saw on this provider's record) that
    agrees with the counts; otherwise the record is built from the counts.
    """

    def val(v: Any) -> int:
        return 0 if v is msgspec.UNSET or v is None else int(v)

    cr, cw = val(usage.cache_read_tokens), val(usage.cache_write_tokens)
    out: dict[str, Any] = {"input_tokens": max(val(usage.input_tokens) - cr - cw, 0), "output_tokens": val(usage.output_tokens)}
    if usage.cache_write_tokens is not msgspec.UNSET:
        out["cache_creation_input_tokens"] = cw
    if usage.cache_read_tokens is not msgspec.UNSET:
        out["cache_read_input_tokens"] = cr
    details = usage.details
    if (
        isinstance(details, dict)
        and "input_tokens" in details
        and set(details) <= _USAGE_KEYS | set(extra)
        and all(details.get(k) == v for k, v in out.items())
    ):
        return copy.deepcopy(details)
    return out


def message_context(message_id: Any, model: Any, report: Report) -> DecodeContext:
    """Decode context for the blocks of one response message (key ``resp:<id>``, origin)."""
    origin = Origin(
        provider=NAME,
        model=model if isinstance(model, str) else msgspec.UNSET,
        response_id=message_id if isinstance(message_id, str) else msgspec.UNSET,
    )
    key = f"resp:{message_id}" if isinstance(message_id, str) and message_id else "resp"
    return DecodeContext(
        role="assistant",
        message=key,
        origin=origin,
        opaque_model=model if isinstance(model, str) else None,
        report=report,
        pointer="/content",
    )


def refusal_item(stop_reason: Any, stop_details: Any, ctx: DecodeContext) -> RefusalItem | None:
    """``stop_reason:"refusal"`` -> :class:`RefusalItem` (text = ``stop_details.explanation``, or ``""``).

    ``stop_details.category`` and its other fields have no canonical field: :func:`decode_response`
    keeps them in the response's ``provider_data["anthropic"]["stop_details"]`` (:func:`details_kept`),
    written back beside the refusal. ``stop_details`` on another stop reason is reported as dropped.
    """
    details = stop_details if isinstance(stop_details, dict) else {}
    if stop_reason != "refusal":
        if details:
            ctx.report.add("dropped", f"stop_details on stop_reason {stop_reason!r} has no canonical form", pointer="/stop_details")
        return None
    explanation = details.get("explanation")
    origin = copy.deepcopy(ctx.origin) if ctx.origin is not None else msgspec.UNSET
    return RefusalItem(text=explanation if isinstance(explanation, str) else "", message=ctx.message or msgspec.UNSET, origin=origin)


@links_empty_ids
@guarded("anthropic", "response")
def decode_response(body: Mapping[str, Any]) -> Conversion[ModelResponse]:
    """Anthropic ``Message`` body -> output items, usage and stop reason.

    Items share the message key ``resp:<id>`` and ``origin`` (provider ``anthropic``, model,
    response id). A refusal stop adds a :class:`RefusalItem` after the content. A non-null
    ``stop_sequence`` (which sequence matched) has no canonical field: it is kept in the response's
    ``provider_data["anthropic"]["body"]`` and written back while the stop reason is ``stop_sequence``.

    Raises:
        MappingError: ``content`` is not a list.
    """
    report = Report()
    content = body.get("content")
    if not isinstance(content, list):
        raise MappingError("anthropic response: 'content' must be a list")
    ctx = message_context(body.get("id"), body.get("model"), report)
    items: list[Item] = [decode_block(block, ctx, j) for j, block in enumerate(content)]
    refusal = refusal_item(body.get("stop_reason"), body.get("stop_details"), ctx)
    if refusal is not None:
        items.append(refusal)
    return Conversion(
        ModelResponse(
            items=items,
            usage=decode_usage(body.get("usage")),
            stop_reason=decode_stop(body.get("stop_reason")),
            model=body["model"] if isinstance(body.get("model"), str) else None,
            response_id=body["id"] if isinstance(body.get("id"), str) else None,
            provider_data=kept_fields(body),
        ),
        report,
    )


_MESSAGE_KEYS = frozenset({"id", "type", "role", "content", "model", "stop_reason", "stop_sequence", "stop_details", "usage"})


def details_kept(stop_reason: Any, stop_details: Any) -> dict[str, Any]:
    """The fields of a refusal's ``stop_details`` the :class:`RefusalItem` does not hold (``category``, ...)."""
    if stop_reason != "refusal" or not isinstance(stop_details, Mapping):
        return {}
    return {k: copy.deepcopy(v) for k, v in stop_details.items() if k not in ("type", "explanation") and v is not None}


def kept_fields(body: Mapping[str, Any]) -> dict[str, Any] | None:
    """Response-level fields no canonical field holds (ADR 0009): ``body`` (``container``,
    ``context_management``, ...) and ``usage_keys`` (``usage`` keys outside :data:`_USAGE_KEYS`, such as
    ``inference_geo``, ``iterations``), so :func:`encode_response` writes the usage record back as given.
    The stream accumulator calls it on the message its events amount to: one normalization for both."""
    kept: dict[str, Any] = {}
    top = unknown_fields(body, _MESSAGE_KEYS)
    if isinstance(body.get("stop_sequence"), str):  # which sequence matched: no canonical field
        top["stop_sequence"] = body["stop_sequence"]
    if top:
        kept["body"] = top
    if details := details_kept(body.get("stop_reason"), body.get("stop_details")):
        kept["stop_details"] = details
    usage = body.get("usage")
    if isinstance(usage, dict) and set(usage) - _USAGE_KEYS:
        kept["usage_keys"] = sorted(set(usage) - _USAGE_KEYS)
    return {NAME: kept} if kept else None


def _encode_stop(stop: StopReason | None, report: Report) -> str | None:
    if stop is None:
        return None
    raw = stop.raw if isinstance(stop.raw, str) else None
    if raw is not None and STOP_REASONS.get(raw) == stop.reason:
        return raw
    if stop.reason in _STOP_OUT:
        return _STOP_OUT[stop.reason]
    target = "refusal" if stop.reason == "content_filter" else "end_turn"
    report.add("changed", f"stop reason {stop.reason!r} has no Anthropic value; sent as {target!r}", item_type="stop_reason")
    return target


def encode_response(response: ModelResponse, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
    """:class:`ModelResponse` -> Anthropic ``Message`` body (for round trips and mock servers).

    Assistant items become content blocks (empty text kept, as the API itself sends it); a
    :class:`RefusalItem` becomes ``stop_details``; items a response cannot hold (user or system
    content, tool results) follow ``policy``.

    Raises:
        ConversionError: policy ``error`` and an item a response cannot carry.
    """
    report = Report()
    enc = Encoder(policy, report, model)
    content: list[dict[str, Any]] = []
    refusal: RefusalItem | None = None
    for index, item in enumerate(response.items):
        if isinstance(item, RefusalItem):
            if refusal is None:
                refusal = item
            else:
                report.add("dropped", "only one refusal fits in stop_details", index=index, item_type="refusal")
            continue
        if speaker(item) != "assistant":
            content.extend(enc.unsupported(f"{item_type(item)} is not assistant output", index, item_type(item)))
            continue
        if isinstance(item, TextItem):
            content.extend(enc.text(item, index, keep_empty=True))
        else:
            content.extend(enc.assistant_item(item, index))
    response_id = response.response_id
    if not response_id:
        digest = hashlib.sha256(msgspec.json.encode(content)).hexdigest()[:24]
        response_id = f"msg_{digest}"
    stop = _encode_stop(response.stop_reason, report)
    if refusal is not None and stop != "refusal":
        stop = "refusal"
        report.add("changed", "a refusal item sets stop_reason 'refusal'", item_type="refusal")
    body: dict[str, Any] = {
        "id": response_id,
        "type": "message",
        "role": "assistant",
        "content": content,
        "model": model or response.model or "",
        "stop_reason": stop,
        "stop_sequence": None,
    }
    own = response_fields(response.provider_data, NAME, report)
    if refusal is not None:
        body["stop_details"] = {"type": "refusal", "explanation": refusal.text or None}
        if isinstance(own.get("stop_details"), Mapping):  # category, ...
            restore_fields(body["stop_details"], own["stop_details"])
    usage_keys = own.get("usage_keys") if isinstance(own.get("usage_keys"), list) else ()
    body["usage"] = encode_usage(response.usage, usage_keys) if response.usage is not None else {"input_tokens": 0, "output_tokens": 0}
    kept_body = dict(own.get("body") or {})
    matched = kept_body.pop("stop_sequence", None)
    if isinstance(matched, str) and stop == "stop_sequence":  # the encoder's None is a placeholder
        body["stop_sequence"] = matched
    restore_fields(body, kept_body)
    return Conversion(body, report)
