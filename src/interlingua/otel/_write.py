"""A transcript -> the attributes of one GenAI inference span (:func:`to_otel`; rules in :mod:`interlingua.otel`)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ..items import (
    ArtifactRefItem,
    ErrorItem,
    HandoffCallItem,
    HandoffResultItem,
    RawItem,
    ReasoningItem,
    RefusalItem,
    StructuredItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
    Transcript,
)
from ..mapping import Conversion, Policy, Report
from ..compat._writing import lost_fields
from ._common import (
    FORMAT,
    _FROM_FINISH,
    INPUT_MESSAGES,
    _kind,
    _MEDIA,
    _media_part,
    OUTPUT_MESSAGES,
    _PROVIDER_NAMES,
    _response_value,
    _role,
    _SETTINGS,
    SYSTEM_INSTRUCTIONS,
    _TO_FINISH,
    TOOL_DEFINITIONS,
    U,
    _USAGE,
)
from ._read import PartReader


class _Writer:
    def __init__(self, policy: Policy, report: Report) -> None:
        self.policy = policy
        self.report = report

    def part(self, item: Any, index: int) -> list[dict[str, Any]]:
        """The parts for one item (empty: left out, reported)."""
        if isinstance(item, TextItem):
            return [{"type": "text", "content": item.text}]
        if isinstance(item, _MEDIA):
            return [_media_part(item)]
        if isinstance(item, ArtifactRefItem):
            mime = item.media_type
            modality = mime.split("/", 1)[0] if isinstance(mime, str) and mime.split("/", 1)[0] in ("image", "audio", "video") else "document"
            part = {"type": "uri", "modality": modality, "uri": item.uri}
            if isinstance(mime, str):
                part["mime_type"] = mime
            return [part]
        if isinstance(item, ToolCallItem | HandoffCallItem):
            name = item.name if isinstance(item, ToolCallItem) else item.target
            args: Any = item.arguments if item.arguments is not U else (item.arguments_raw if isinstance(item, ToolCallItem) and item.arguments_raw is not U else None)
            return [{"type": "tool_call", "id": item.id, "name": name, "arguments": copy.deepcopy(args)}]
        if isinstance(item, ToolResultItem | HandoffResultItem):
            return [{"type": "tool_call_response", "id": item.call_id, "response": _response_value(list(item.content))}]
        if isinstance(item, ReasoningItem):
            text = item.text if item.text is not U else ("\n\n".join(item.summary) if item.summary is not U and item.summary else U)
            if text is U:
                self.report.add("dropped", "reasoning with no text or summary (only opaque or redacted state): no reasoning part to hold it", index=index, item_type="reasoning")
                return []
            return [{"type": "reasoning", "content": text}]
        if isinstance(item, RefusalItem):
            return [{"type": "refusal", "content": item.text}]
        if isinstance(item, StructuredItem):
            return [{"type": "text", "content": msgspec.json.encode(item.data).decode()}]
        if isinstance(item, RawItem) and item.provider == FORMAT and isinstance(item.value, Mapping) and isinstance(item.value.get("type"), str):
            return [copy.deepcopy(dict(item.value))]
        kind = _kind(item)
        reason = f"{kind} item has no OpenTelemetry GenAI message part" + (f" (a {item.provider} raw item)" if isinstance(item, RawItem) else "")
        markers = self.report.unsupported(self.policy, reason, index=index, item_type=kind)
        return [{"type": "text", "content": m.text} for m in markers]

    def check(self, item: Any, parts: list[dict[str, Any]], index: int) -> None:
        """Report every field of ``item`` that :func:`from_otel` will not read back from ``parts``."""
        if not parts or not isinstance(item, msgspec.Struct) or isinstance(item, ErrorItem) or (isinstance(item, RawItem) and item.provider != FORMAT):
            return  # left out or replaced by a marker: already reported
        role = _role(item)
        back = PartReader(Report()).item(parts[0], role or "assistant", "", 0)
        lost = lost_fields(item, back)
        if not lost:
            return
        kind = _kind(item)
        if back is not None and _kind(back) != kind:
            self.report.add("changed", f"written as a {parts[0].get('type')} part; reads back as a {_kind(back)} item (fields {', '.join(lost)})", index=index, item_type=kind)
        else:
            self.report.add("degraded", f"fields no OpenTelemetry GenAI part carries: {', '.join(lost)}", index=index, item_type=kind)


def _is_system_text(item: Any, key: Any) -> bool:
    return isinstance(item, TextItem) and item.role == "system" and item.message == key


def _output_start(items: list[Any], transcript: Transcript, output: int | None) -> int:
    if output is not None:
        return max(0, len(items) - output)
    if transcript.stop_reason is U and transcript.usage is U and transcript.response is U:
        return len(items)
    start = len(items)
    while start > 0 and _role(items[start - 1]) == "assistant":
        start -= 1
    if start == 0 or not items:
        return start  # a response document: every item is the response's output
    # The response is the last assistant message: the trailing items sharing the last item's message key.
    key = getattr(items[-1], "message", U)
    if key is U:
        return start
    end = len(items)
    while end > start and getattr(items[end - 1], "message", U) == key:
        end -= 1
    return end


def _messages(writer: _Writer, items: list[tuple[int, Any]]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    last: tuple[Any, Any] | None = None
    for index, item in items:
        role = _role(item)
        parts = writer.part(item, index)
        writer.check(item, parts, index)
        if not parts:
            continue
        if role is None:  # an error item degraded to a marker: said by the runtime, shown as assistant text
            role = "assistant"
        key = (role, getattr(item, "message", U) or None)
        if last == key and messages:
            messages[-1]["parts"].extend(parts)
        else:
            messages.append({"role": role, "parts": parts})
            last = key
    return messages


def _provider(items: list[Any]) -> str | None:
    for item in reversed(items):
        origin = getattr(item, "origin", U)
        if origin is not U and isinstance(origin.provider, str):
            return _PROVIDER_NAMES.get(origin.provider, origin.provider)
    return None


def to_otel(transcript: Transcript, *, policy: Policy = "error", output: int | None = None, report: Report | None = None) -> Conversion[dict[str, Any]]:
    """A transcript -> the ``gen_ai.*`` attributes of one inference span (JSON values).

    Args:
        transcript: The conversation. When it carries a response (``stop_reason``, ``usage`` or
            ``response``), its trailing assistant items are written as the output message.
        policy: For items no part can hold (``error`` items, raw items of a provider): refuse
            (``error``), leave out (``drop``) or write a text marker (``degrade``), each reported.
        output: How many trailing items are the response's output (overrides the rule above; 0: none).
        report: Entries are appended here (a new report when not given).

    Returns:
        ``Conversion(value=attributes, report)``; the input is not mutated.

    Raises:
        ConversionError: under policy ``error``, an item no part can hold.
    """
    report = report if report is not None else Report()
    writer = _Writer(policy, report)
    items = list(transcript.items)
    attrs: dict[str, Any] = {"gen_ai.operation.name": "chat"}
    provider = _provider(items)
    if provider:
        attrs["gen_ai.provider.name"] = provider

    # System instructions: the leading system texts of one message (or of none).
    system_end = 0
    first_key = getattr(items[0], "message", U) if items else U
    while system_end < len(items) and _is_system_text(items[system_end], first_key):
        system_end += 1
    out_start = max(system_end, _output_start(items, transcript, output))
    if system_end:
        parts = []
        for i in range(system_end):
            p = writer.part(items[i], i)
            writer.check(items[i], p, i)
            parts.extend(p)
        attrs[SYSTEM_INSTRUCTIONS] = parts
    attrs[INPUT_MESSAGES] = _messages(writer, list(enumerate(items))[system_end:out_start])
    has_output = out_start < len(items) or transcript.stop_reason is not U
    if has_output:
        out_parts = [p for m in _messages(writer, list(enumerate(items))[out_start:]) for p in m["parts"]]
        attrs[OUTPUT_MESSAGES] = [{"role": "assistant", "parts": out_parts, "finish_reason": _finish_reason(transcript.stop_reason, report)}]
        attrs["gen_ai.response.finish_reasons"] = [attrs[OUTPUT_MESSAGES][0]["finish_reason"]]
    _tools(transcript, attrs, report)
    _settings(transcript.settings, attrs, report)
    _response(transcript, attrs, report, has_output)
    return Conversion(attrs, report)


def _finish_reason(stop: Any, report: Report) -> str:
    if stop is U:
        report.add("changed", "the transcript holds a response without a stop reason; finish_reason 'stop' written (the output message requires one)")
        return "stop"
    mapped = _TO_FINISH.get(stop.reason)
    if mapped is None:  # pause, other: the provider's own word
        value = stop.raw if isinstance(stop.raw, str) and stop.raw else stop.reason
        if stop.raw is not U:
            report.add("changed", f"stop reason {stop.reason!r} has no OpenTelemetry finish reason; the provider's value {value!r} written")
        return value
    if _FROM_FINISH.get(mapped) != stop.reason or stop.raw is not U:
        report.add("changed", f"stop reason {stop.reason!r} (provider value {stop.raw if stop.raw is not U else None!r}) written as finish_reason {mapped!r}")
    return mapped


def _tools(transcript: Transcript, attrs: dict[str, Any], report: Report) -> None:
    tools: Any = transcript.tools
    if tools is not U:
        defs = []
        for t in tools:
            d: dict[str, Any] = {"type": "function", "name": t.name}
            if t.description is not U:
                d["description"] = t.description
            if t.parameters is not U:
                d["parameters"] = copy.deepcopy(t.parameters)
            lost = [f for f in ("strict", "provider_data") if getattr(t, f) is not U]
            if lost:
                report.add("dropped", f"tool {t.name!r}: {', '.join(lost)} not carried by gen_ai.tool.definitions")
            defs.append(d)
        attrs[TOOL_DEFINITIONS] = defs
    if transcript.tool_choice is not U:
        report.add("dropped", "tool_choice: no gen_ai attribute holds it")


def _settings(settings: Any, attrs: dict[str, Any], report: Report) -> None:
    if settings is U:
        return
    for field, key in _SETTINGS:
        value = getattr(settings, field)
        if value is not U:
            attrs[key] = list(value) if field == "stop" else value
    if settings.response_format is not U:
        attrs["gen_ai.output.type"] = "text" if settings.response_format.type == "text" else "json"
        report.add("changed", "settings.response_format written as gen_ai.output.type (its schema is not carried)")
    lost = [f for f in ("reasoning", "provider_data") if getattr(settings, f) is not U]
    if lost:
        report.add("dropped", f"settings {', '.join(lost)}: no gen_ai attribute holds them")


def _response(transcript: Transcript, attrs: dict[str, Any], report: Report, has_output: bool) -> None:
    if not has_output and (transcript.usage is not U or transcript.response is not U):
        report.add("dropped", "the transcript's usage/response metadata belongs to a response with no output items")
        return
    info: Any = transcript.response
    if info is not U:
        if info.id is not U:
            attrs["gen_ai.response.id"] = info.id
        if info.model is not U:
            attrs["gen_ai.response.model"] = info.model
        if info.provider_data is not U:
            report.add("dropped", "response.provider_data: no gen_ai attribute holds it")
    usage: Any = transcript.usage
    if usage is not U:
        for field, key in _USAGE:
            value = getattr(usage, field)
            if value is not U:
                attrs[key] = value
        lost = [f for f in ("total_tokens", "details") if getattr(usage, f) is not U]
        if lost:
            report.add("dropped", f"usage {', '.join(lost)}: no gen_ai.usage attribute holds them")


# =========================================================================== OTel -> canonical
