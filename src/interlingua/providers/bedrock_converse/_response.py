"""Amazon Bedrock Converse response bodies <-> :class:`ModelResponse`.

Shape: botocore ``ConverseResponse`` (AWS Bedrock API reference "Converse", response syntax):
``{output: {message: {role, content[]}}, stopReason, usage: TokenUsage, metrics: {latencyMs},
additionalModelResponseFields?, trace?, performanceConfig?, serviceTier?}``. A Converse response
has no response id or model (the model is the request's ``modelId``; the request id is an HTTP header).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ...codec import Item
from ...errors import MalformedInputError
from ...items import Origin, StopReason, TextItem, Usage
from ...mapping.protocol import Conversion, ModelResponse
from ...mapping.extras import response_fields
from ...mapping.report import Policy, Report
from ...mapping.wire import guarded
from ...mapping.empty_ids import links_empty_ids
from ._blocks import NAME, DecodeContext, Encoder, decode_blocks, item_type, speaker

__all__ = ["STOP_REASONS", "decode_response", "decode_stop", "decode_usage", "encode_response", "encode_usage", "message_context"]

STOP_REASONS: dict[str, str] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
    "malformed_model_output": "error",
    "malformed_tool_use": "error",
    "model_context_window_exceeded": "max_tokens",
}
"""Converse ``stopReason`` (botocore enum ``StopReason``) -> canonical reason; anything else -> ``other``."""

_STOP_OUT = {"end_turn": "end_turn", "tool_use": "tool_use", "max_tokens": "max_tokens", "stop_sequence": "stop_sequence", "content_filter": "content_filtered", "error": "malformed_model_output"}

_DROPPED_FIELDS = ("metrics", "additionalModelResponseFields", "trace", "performanceConfig", "serviceTier")
"""Top-level response fields with no canonical place (reported as dropped when decoding)."""


def decode_stop(raw: Any) -> StopReason | None:
    """Converse ``stopReason`` -> :class:`StopReason` (``None`` when absent)."""
    if not isinstance(raw, str):
        return None
    return StopReason(reason=STOP_REASONS.get(raw, "other"), raw=raw)  # type: ignore[arg-type]


def _num(usage: Mapping[str, Any], key: str) -> int | None:
    v = usage.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def decode_usage(usage: Any) -> Usage | None:
    """Converse ``TokenUsage`` -> :class:`Usage`.

    ``inputTokens`` excludes cached tokens (``totalTokens`` = input + output + cache read + cache
    write in every recorded response), so ``input_tokens`` = ``inputTokens`` +
    ``cacheReadInputTokens`` + ``cacheWriteInputTokens``; ``total_tokens`` = ``totalTokens``;
    ``details`` is the record exactly as given.
    """
    if not isinstance(usage, dict):
        return None
    inp, out, total = _num(usage, "inputTokens"), _num(usage, "outputTokens"), _num(usage, "totalTokens")
    cr, cw = _num(usage, "cacheReadInputTokens"), _num(usage, "cacheWriteInputTokens")
    fields: dict[str, Any] = {"details": copy.deepcopy(usage)}
    if inp is not None or cr is not None or cw is not None:
        fields["input_tokens"] = (inp or 0) + (cr or 0) + (cw or 0)
    if out is not None:
        fields["output_tokens"] = out
    if cr is not None:
        fields["cache_read_tokens"] = cr
    if cw is not None:
        fields["cache_write_tokens"] = cw
    if total is not None:
        fields["total_tokens"] = total
    return Usage(**fields)


def encode_usage(usage: Usage | None) -> dict[str, Any]:
    """:class:`Usage` -> Converse ``TokenUsage`` (``details`` reused when it is a TokenUsage agreeing with the counts)."""
    if usage is None:
        return {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0}

    def val(v: Any) -> int:
        return 0 if v is msgspec.UNSET or v is None else int(v)

    cr, cw = val(usage.cache_read_tokens), val(usage.cache_write_tokens)
    out: dict[str, Any] = {"inputTokens": max(val(usage.input_tokens) - cr - cw, 0), "outputTokens": val(usage.output_tokens)}
    out["totalTokens"] = val(usage.total_tokens) if usage.total_tokens is not msgspec.UNSET else out["inputTokens"] + out["outputTokens"] + cr + cw
    if usage.cache_read_tokens is not msgspec.UNSET:
        out["cacheReadInputTokens"] = cr
    if usage.cache_write_tokens is not msgspec.UNSET:
        out["cacheWriteInputTokens"] = cw
    details = usage.details
    if isinstance(details, dict) and all(details.get(k) == v for k, v in out.items()):
        return copy.deepcopy(details)
    return out


def message_context(report: Report, model: str | None = None) -> DecodeContext:
    """Decode context for the blocks of one response message (key ``resp``, origin ``bedrock-converse``)."""
    origin = Origin(provider=NAME, model=model) if model else Origin(provider=NAME)
    return DecodeContext(role="assistant", message="resp", origin=origin, report=report, pointer="/output/message/content")


@links_empty_ids
@guarded(NAME, "response")
def decode_response(body: Mapping[str, Any]) -> Conversion[ModelResponse]:
    """Converse response body -> output items, usage and stop reason.

    Items share the message key ``resp`` and ``origin.provider`` ``bedrock-converse``. ``metrics``,
    ``additionalModelResponseFields``, ``trace``, ``performanceConfig`` and ``serviceTier`` have no
    canonical field and are reported as dropped.

    Raises:
        MalformedInputError: ``output.message.content`` is not a list of one-member blocks.
    """
    report = Report()
    output = body.get("output")
    message = output.get("message") if isinstance(output, dict) else None
    if not isinstance(message, dict):
        raise MalformedInputError("/output/message", "output.message is an object", provider=NAME)
    if message.get("role", "assistant") != "assistant":
        raise MalformedInputError("/output/message/role", "a response message has role 'assistant'", provider=NAME)
    items: list[Item] = decode_blocks(message.get("content"), message_context(report))
    for key in _DROPPED_FIELDS:
        if key in body:
            report.add("dropped", f"response field {key!r} has no canonical field", pointer=f"/{key}")
    # a body without the required metrics (a fixture trimmed by hand) comes back without them
    own = None if "metrics" in body else {NAME: {NO_METRICS: True}}
    return Conversion(ModelResponse(items=items, usage=decode_usage(body.get("usage")), stop_reason=decode_stop(body.get("stopReason")), provider_data=own), report)


NO_METRICS = "no_metrics"
"""Key of ``provider_data["bedrock-converse"]``: ``true`` when the response read had no ``metrics`` (written back so)."""


def encode_stop(stop: StopReason | None, report: Report) -> str:
    """:class:`StopReason` -> ``stopReason`` (the raw value when it maps back to the same reason)."""
    if stop is None:
        return "end_turn"
    raw = stop.raw if isinstance(stop.raw, str) else None
    if raw is not None and STOP_REASONS.get(raw) == stop.reason:
        return raw
    if stop.reason in _STOP_OUT:
        return _STOP_OUT[stop.reason]
    report.add("changed", f"stop reason {stop.reason!r} has no Converse value; sent as 'end_turn'", item_type="stop_reason")
    return "end_turn"


def encode_response(response: ModelResponse, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
    """:class:`ModelResponse` -> Converse response body (for round trips and mock servers).

    Assistant items become content blocks (empty text kept); items a response cannot hold follow
    ``policy``. ``metrics.latencyMs`` is written as 0 (required by the shape, not known here), except for a
    response read from a body without ``metrics`` (``provider_data["bedrock-converse"]["no_metrics"]``), which
    comes back as it was; other providers' response provider data is reported dropped.

    Raises:
        ConversionError: policy ``error`` and an item a response cannot carry.
    """
    report = Report()
    enc = Encoder(policy, report, model)
    content: list[dict[str, Any]] = []
    for index, item in enumerate(response.items):
        if speaker(item) != "assistant":
            content.extend(enc.unsupported(f"{item_type(item)} is not assistant output", index, item_type(item)))
        elif isinstance(item, TextItem):
            content.extend(enc.cache(item, enc.text(item, index, keep_empty=True)))
        else:
            content.extend(enc.assistant_item(item, index))
    body: dict[str, Any] = {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": encode_stop(response.stop_reason, report),
        "usage": encode_usage(response.usage),
    }
    if response_fields(response.provider_data, NAME, report).get(NO_METRICS) is not True:
        body["metrics"] = {"latencyMs": 0}
    return Conversion(body, report)
