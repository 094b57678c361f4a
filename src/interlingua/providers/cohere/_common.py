"""Cohere v2 helpers: names, stop reasons, usage (Cohere API reference "Chat" (v2), cohere-python ``V2ChatResponse``, ``Usage``)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ...items import StopReason, Usage
from ...mapping.report import Report

__all__ = ["FINISH_REASONS", "NAME", "decode_usage", "encode_usage", "finish_reason", "jcopy", "stop_reason"]

NAME = "cohere"
"""Registry name, written into ``origin.provider``, ``raw.provider`` and ``provider_data`` keys."""

UNSET = msgspec.UNSET

FINISH_REASONS = {
    "COMPLETE": "end_turn",
    "STOP_SEQUENCE": "stop_sequence",
    "MAX_TOKENS": "max_tokens",
    "TOOL_CALL": "tool_use",
    "ERROR": "error",
    "TIMEOUT": "error",
}
"""``finish_reason`` (cohere-python ``ChatFinishReason``) -> canonical stop reason; any other value -> ``other``."""

_BACK = {"end_turn": "COMPLETE", "stop_sequence": "STOP_SEQUENCE", "max_tokens": "MAX_TOKENS", "tool_use": "TOOL_CALL", "error": "ERROR"}

_USAGE_KEYS = frozenset({"billed_units", "tokens", "cached_tokens"})


def jcopy(value: Any) -> Any:
    """A deep copy of a JSON value, so items never alias the caller's input."""
    return copy.deepcopy(value)


def stop_reason(value: str) -> StopReason:
    """``finish_reason`` -> stop reason (raw value kept)."""
    return StopReason(reason=FINISH_REASONS.get(value, "other"), raw=value)  # type: ignore[arg-type]


def finish_reason(stop: StopReason, report: Report) -> str:
    """Stop reason -> ``finish_reason``: the raw value when it is Cohere's and means the same, else from the reason."""
    raw = stop.raw
    if isinstance(raw, str) and raw and FINISH_REASONS.get(raw, "other") == stop.reason:
        return raw
    if stop.reason in _BACK:
        return _BACK[stop.reason]
    report.add("changed", f"stop reason {stop.reason!r} has no Cohere finish_reason; sent as COMPLETE", item_type="stop_reason")
    return "COMPLETE"


def _count(value: Any) -> Any:
    """A token count: a non-negative integer (Cohere sends floats such as ``12.0`` in some records)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != int(value):
        return UNSET
    return int(value)


def decode_usage(usage: Any) -> Usage | None:
    """``usage`` -> :class:`~interlingua.items.Usage`: ``tokens.input_tokens``/``output_tokens`` (the model's
    counts; ``billed_units`` when ``tokens`` is absent), ``cached_tokens`` -> ``cache_read_tokens``;
    ``details`` is the record exactly as given."""
    if not isinstance(usage, Mapping):
        return None
    tokens = usage.get("tokens") if isinstance(usage.get("tokens"), Mapping) else usage.get("billed_units")
    tokens = tokens if isinstance(tokens, Mapping) else {}
    return Usage(
        input_tokens=_count(tokens.get("input_tokens")),
        output_tokens=_count(tokens.get("output_tokens")),
        cache_read_tokens=_count(usage.get("cached_tokens")),
        details=jcopy(dict(usage)),
    )


def encode_usage(u: Usage) -> dict[str, Any]:
    """Usage -> Cohere ``usage``: the record in ``details`` when it is Cohere's and agrees with the counts,
    else ``tokens`` (and ``cached_tokens``) from the canonical counts."""
    d = u.details
    if isinstance(d, Mapping) and d and set(d) <= _USAGE_KEYS:
        again = decode_usage(d)
        if again is not None and (again.input_tokens, again.output_tokens, again.cache_read_tokens) == (u.input_tokens, u.output_tokens, u.cache_read_tokens):
            return jcopy(dict(d))
    out: dict[str, Any] = {}
    tokens = {k: getattr(u, k) for k in ("input_tokens", "output_tokens") if getattr(u, k) is not UNSET}
    if tokens:
        out["tokens"] = tokens
    if u.cache_read_tokens is not UNSET:
        out["cached_tokens"] = u.cache_read_tokens
    return out
