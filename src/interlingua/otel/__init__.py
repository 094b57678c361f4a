"""OpenTelemetry GenAI semantic conventions: a transcript as span attributes, and back.

:func:`to_otel` writes a transcript as the attributes of one GenAI inference span
(``gen_ai.system_instructions``, ``gen_ai.input.messages``, ``gen_ai.output.messages``,
``gen_ai.tool.definitions``, ``gen_ai.request.*``, ``gen_ai.response.*``, ``gen_ai.usage.*``);
:func:`from_otel` reads such attributes (as a tracing library recorded them) back into a
transcript. Both return a :class:`~interlingua.mapping.Conversion` whose report lists every
field or item the other side cannot carry, as a mapper's does. :func:`interlingua.otel.tracing.record`
(extra ``interlingua[otel]``) puts the attributes on a span of an existing tracer.

Source: the OpenTelemetry GenAI semantic conventions, release 1.41.0 (``docs/gen-ai/gen-ai-spans.md``,
``docs/registry/attributes/gen-ai.md`` and the JSON Schemas ``gen-ai-input-messages.json``,
``gen-ai-output-messages.json``, ``gen-ai-system-instructions.json``,
``gen-ai-tool-definitions.json`` of https://github.com/open-telemetry/semantic-conventions; the
conventions have since moved to https://github.com/open-telemetry/semantic-conventions-genai).

Shapes (``to_otel(t).value``, JSON values, not JSON strings)::

    {"gen_ai.operation.name": "chat",
     "gen_ai.provider.name": "anthropic",                    # when an item's origin names one
     "gen_ai.system_instructions": [{"type": "text", "content": "Be brief."}],
     "gen_ai.input.messages": [{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}],
     "gen_ai.output.messages": [{"role": "assistant", "parts": [...], "finish_reason": "stop"}],
     "gen_ai.tool.definitions": [{"type": "function", "name": ..., "description": ..., "parameters": {...}}],
     "gen_ai.request.model": ..., "gen_ai.request.temperature": ..., "gen_ai.response.id": ...,
     "gen_ai.usage.input_tokens": ..., ...}

Mapping (canonical item -> message part):

* Messages: consecutive items of one role and one ``message`` key form one message; roles are
  ``system``/``developer``/``user``/``assistant`` (the item's), ``tool`` for tool results.
  Leading ``system`` texts are ``gen_ai.system_instructions``. When the transcript carries a
  response (``stop_reason``, ``usage`` or ``response``), its trailing assistant items are the
  one output message (``finish_reason`` from the stop reason); everything before is input.
* ``text`` -> ``text``; ``tool_call`` -> ``tool_call`` (``arguments`` the object, or the raw text
  of malformed arguments); ``tool_result`` -> ``tool_call_response`` (``response``: the text, or a
  list of parts for several or non-text content); ``reasoning`` -> ``reasoning`` (text, else the
  summary joined by blank lines); media with base64 bytes -> ``blob``, with a URL -> ``uri``, with
  a provider file id -> ``file`` (``modality`` image/audio/video, ``document`` for documents);
  ``artifact_ref`` -> ``uri``; ``refusal`` -> a generic ``refusal`` part; ``handoff_call``/``handoff_result``
  -> ``tool_call``/``tool_call_response`` (reported); ``structured`` -> its JSON as text (reported).
  ``raw(provider="otel")`` (a part read by :func:`from_otel` with no canonical form, e.g.
  ``server_tool_call``) is written back as it was. ``error`` items and foreign ``raw`` items have
  no part: the policy decides (refuse, leave out, or a text marker).
* Fields no part carries (``id``, ``origin``, ``metadata``, ``provider_data``, annotations, opaque
  reasoning state, ``is_error``, ...) are left out, one report entry per item naming them.
* Stop reasons: ``end_turn``/``stop_sequence`` -> ``stop``, ``max_tokens`` -> ``length``,
  ``tool_use`` -> ``tool_call``, ``content_filter``/``refusal`` -> ``content_filter``, ``error`` ->
  ``error``; ``pause``/``other`` write the provider's raw value.

:func:`from_otel` reads the inverse, plus variants tracing libraries write: ``result`` instead of
``response`` and a ``name`` on ``tool_call_response`` (pydantic-ai), arguments as a JSON string,
output messages without ``finish_reason``, a provider's own finish reason (``end_turn``),
attribute values as JSON strings (how span attributes hold them) and OTLP/JSON attribute lists.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

import msgspec

from ..codec import SCHEMA_VERSION, Item, decode_transcript, encode_transcript
from ..errors import DocumentError, MalformedInputError
from ..items import (
    ArtifactRefItem,
    ArtifactSource,
    AudioItem,
    Base64Source,
    DocumentItem,
    ErrorItem,
    FileSource,
    HandoffCallItem,
    HandoffResultItem,
    ImageItem,
    RawItem,
    ReasoningItem,
    RefusalItem,
    ResponseInfo,
    Settings,
    StopReason,
    StructuredItem,
    TextItem,
    TextSource,
    ToolCallItem,
    ToolDefinition,
    ToolResultItem,
    Transcript,
    Usage,
    UrlSource,
    VideoItem,
)
from ..mapping import Conversion, Policy, Report
from ..mapping.arguments import tool_call_from_text
from ..compat._writing import lost_fields
from ..mapping.wire import a_json_type

__all__ = [
    "FORMAT",
    "INPUT_MESSAGES",
    "OUTPUT_MESSAGES",
    "SEMCONV_VERSION",
    "SYSTEM_INSTRUCTIONS",
    "TOOL_DEFINITIONS",
    "from_otel",
    "to_otel",
]

FORMAT = "otel"
"""The format name (``convert --from otel`` / ``--to otel``; ``raw.provider`` of parts kept as they were)."""

SEMCONV_VERSION = "1.41.0"
"""The semantic-conventions release these rules follow."""

INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
TOOL_DEFINITIONS = "gen_ai.tool.definitions"

U: Any = msgspec.UNSET

_PROVIDER_NAMES = {
    "openai-chat": "openai",
    "openai-responses": "openai",
    "anthropic": "anthropic",
    "gemini": "gcp.gemini",
    "bedrock-converse": "aws.bedrock",
    "mistral": "mistral_ai",
}
"""interlingua format name -> ``gen_ai.provider.name`` well-known value (others are written as they are)."""

_TO_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_call",
    "content_filter": "content_filter",
    "refusal": "content_filter",
    "error": "error",
}
_FROM_FINISH = {"stop": "end_turn", "length": "max_tokens", "content_filter": "content_filter", "tool_call": "tool_use", "error": "error"}
_CANONICAL_STOPS = frozenset({"end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal", "content_filter", "pause", "error", "other"})

_SETTINGS = (
    ("model", "gen_ai.request.model"),
    ("max_output_tokens", "gen_ai.request.max_tokens"),
    ("temperature", "gen_ai.request.temperature"),
    ("top_p", "gen_ai.request.top_p"),
    ("top_k", "gen_ai.request.top_k"),
    ("stop", "gen_ai.request.stop_sequences"),
    ("seed", "gen_ai.request.seed"),
    ("presence_penalty", "gen_ai.request.presence_penalty"),
    ("frequency_penalty", "gen_ai.request.frequency_penalty"),
    ("stream", "gen_ai.request.stream"),
)
_USAGE = (
    ("input_tokens", "gen_ai.usage.input_tokens"),
    ("output_tokens", "gen_ai.usage.output_tokens"),
    ("reasoning_tokens", "gen_ai.usage.reasoning.output_tokens"),
    ("cache_read_tokens", "gen_ai.usage.cache_read.input_tokens"),
    ("cache_write_tokens", "gen_ai.usage.cache_creation.input_tokens"),
)
_MEDIA = (ImageItem, AudioItem, VideoItem, DocumentItem)
_ASSISTANT_SIDE = (ToolCallItem, ReasoningItem, RefusalItem, StructuredItem, HandoffCallItem)


def _kind(item: Any) -> str:
    """The canonical ``type`` of an item (its struct tag)."""
    tag = getattr(getattr(type(item), "__struct_config__", None), "tag", None)
    if isinstance(tag, str):
        return tag
    other = getattr(item, "type", None)  # an UnknownItem preserved from a newer minor version
    return other if isinstance(other, str) else "unknown"


def _builtins(item: Any) -> dict[str, Any]:
    out: dict[str, Any] = msgspec.to_builtins(item)
    return out


# =========================================================================== canonical -> OTel


def _role(item: Any) -> str | None:
    """The OTel message role of an item (``None``: no message carries it)."""
    if isinstance(item, ToolResultItem | HandoffResultItem):
        return "tool"
    if isinstance(item, _ASSISTANT_SIDE):
        return "assistant"
    role = getattr(item, "role", U)
    if isinstance(role, str):
        return role
    return "assistant" if isinstance(item, RawItem) else None


def _modality(item: Any) -> str:
    kind = _kind(item)
    return kind if kind in ("image", "audio", "video") else "document"


def _media_part(item: Any) -> dict[str, Any]:
    src = item.source
    modality = _modality(item)
    mime = getattr(src, "media_type", U)
    if mime is U and isinstance(item, DocumentItem):
        mime = item.media_type
    part: dict[str, Any]
    if isinstance(src, Base64Source):
        part = {"type": "blob", "modality": modality, "mime_type": src.media_type, "content": src.data}
    elif isinstance(src, UrlSource):
        part = {"type": "uri", "modality": modality, "uri": src.url}
    elif isinstance(src, ArtifactSource):
        part = {"type": "uri", "modality": modality, "uri": src.uri}
    elif isinstance(src, FileSource):
        part = {"type": "file", "modality": modality, "file_id": src.file_id}
    elif isinstance(src, TextSource):
        return {"type": "text", "content": src.text}
    else:  # pragma: no cover - the Source union is closed
        raise TypeError(type(src).__name__)
    if isinstance(mime, str) and "mime_type" not in part:
        part["mime_type"] = mime
    return part


def _content_parts(content: list[Any]) -> list[dict[str, Any]]:
    """Parts for the content of a tool result (items without role)."""
    out = []
    for c in content:
        if isinstance(c, TextItem):
            out.append({"type": "text", "content": c.text})
        elif isinstance(c, _MEDIA):
            out.append(_media_part(c))
        elif isinstance(c, StructuredItem):
            out.append({"type": "text", "content": msgspec.json.encode(c.data).decode()})
        else:
            out.append({"type": "text", "content": msgspec.json.encode(_builtins(c)).decode()})
    return out


def _response_value(content: list[Any]) -> Any:
    if not content:
        return ""
    if len(content) == 1 and isinstance(content[0], TextItem):
        return content[0].text
    return _content_parts(content)


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
        back = _Reader(Report()).item(parts[0], role or "assistant", "", 0)
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


def _json_value(value: Any, pointer: str) -> Any:
    """A structured attribute as recorded: a JSON value, or its JSON text (span attributes hold strings)."""
    if isinstance(value, str | bytes):
        try:
            return msgspec.json.decode(value)
        except msgspec.DecodeError as exc:
            raise MalformedInputError(pointer, "a JSON text attribute does not parse as JSON", provider=FORMAT) from exc
    return value


def _any_value(value: Any, pointer: str) -> Any:
    """An OTLP/JSON ``AnyValue`` -> the Python value (``int64`` as a number or its decimal string).

    Raises:
        MalformedInputError: an ``intValue`` that is no integer, an ``arrayValue``/``kvlistValue``
            that is not ``{"values": [...]}`` (the pointer names it).
    """
    if not isinstance(value, Mapping):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        raw = value["intValue"]
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and re.fullmatch(r"[+-]?[0-9]+", raw.strip()):
            return int(raw)
        raise MalformedInputError(pointer + "/intValue", f"expected an integer or its decimal string, got {_shown(raw)}", provider=FORMAT)
    for key in ("arrayValue", "kvlistValue"):
        if key in value:
            holder = value[key]
            values = holder.get("values", []) if isinstance(holder, Mapping) else None
            if not isinstance(values, list):
                where = f"{pointer}/{key}" + ("/values" if isinstance(holder, Mapping) else "")
                raise MalformedInputError(where, f"expected an object with a 'values' list, got {_shown(holder)}", provider=FORMAT)
            if key == "arrayValue":
                return [_any_value(v, f"{pointer}/{key}/values/{i}") for i, v in enumerate(values)]
            out: dict[str, Any] = {}
            for i, kv in enumerate(values):
                if not isinstance(kv, Mapping) or not isinstance(kv.get("key"), str):
                    raise MalformedInputError(f"{pointer}/{key}/values/{i}", "expected an object with a string 'key'", provider=FORMAT)
                out[kv["key"]] = _any_value(kv.get("value"), f"{pointer}/{key}/values/{i}/value")
            return out
    return None


def _shown(value: Any) -> str:
    """A value's JSON type, for messages (the value itself may be long or hostile)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {str: "a string", int: "a number", float: "a number", list: "an array", dict: "an object"}.get(type(value), type(value).__name__)


def _attributes(obj: Any) -> Mapping[str, Any]:
    """Span attributes from a mapping of them, a span (``{"attributes": ...}``) or OTLP/JSON ``[{key, value}]``."""
    if isinstance(obj, Mapping) and "attributes" in obj and not any(str(k).startswith("gen_ai.") for k in obj):
        obj = obj["attributes"]
    if isinstance(obj, list) and all(isinstance(kv, Mapping) and "key" in kv for kv in obj):
        return {str(kv["key"]): _any_value(kv.get("value"), f"/{i}/value") for i, kv in enumerate(obj)}
    if not isinstance(obj, Mapping):
        raise MalformedInputError("", f"expected span attributes (an object), got {a_json_type(obj)}", provider=FORMAT)
    return obj


class _Reader:
    def __init__(self, report: Report) -> None:
        self.report = report

    def media(self, part: Mapping[str, Any], pointer: str, role: Any) -> Item | None:
        kind = part["type"]
        modality = part.get("modality")
        mime = part.get("mime_type") if isinstance(part.get("mime_type"), str) else None
        if modality not in ("image", "audio", "video", "document") and mime:
            modality = mime.split("/", 1)[0]
        src: Any
        if kind == "blob":
            data = part.get("content")
            if not isinstance(data, str):
                raise MalformedInputError(pointer + "/content", "blob content is not a (base64) string", provider=FORMAT)
            src = Base64Source(media_type=mime or "application/octet-stream", data=data)
        elif kind == "uri":
            uri = part.get("uri")
            if not isinstance(uri, str) or not uri:
                raise MalformedInputError(pointer + "/uri", "uri part without a uri string", provider=FORMAT)
            if not uri.startswith(("http://", "https://")):
                common = {"role": role} if role is not U else {}
                return ArtifactRefItem(uri=uri, media_type=mime if mime else U, **common)
            src = UrlSource(url=uri, media_type=mime if mime else U)
        else:
            fid = part.get("file_id")
            if not isinstance(fid, str) or not fid:
                raise MalformedInputError(pointer + "/file_id", "file part without a file_id string", provider=FORMAT)
            src = FileSource(file_id=fid, media_type=mime if mime else U)
        common = {"role": role} if role is not U else {}
        if modality == "image":
            return ImageItem(source=src, **common)
        if modality == "audio":
            return AudioItem(source=src, **common)
        if modality == "video":
            return VideoItem(source=src, **common)
        return DocumentItem(source=src, **common)

    def response_content(self, value: Any, pointer: str) -> list[Any]:
        if value is None or value == "":
            return []
        if isinstance(value, str):
            return [TextItem(text=value)]
        if isinstance(value, list) and value and all(isinstance(p, Mapping) and p.get("type") in ("text", "blob", "uri", "file") for p in value):
            out = []
            for k, p in enumerate(value):
                it = self.item(p, U, "", 0, f"{pointer}/{k}")
                if it is not None:
                    out.append(it)
            return out
        return [TextItem(text=msgspec.json.encode(value).decode())]

    def item(self, part: Any, role: Any, key: str, index: int, pointer: str = "") -> Item | None:
        """One part -> one item (``role`` U inside a tool result)."""
        if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
            raise MalformedInputError(pointer, "a message part is not an object with a string 'type'", provider=FORMAT)
        kind = part["type"]
        msg: dict[str, Any] = {"message": key} if key else {}
        content_role: Any = role if role in ("system", "developer", "user", "assistant") else ("user" if role is not U else U)
        if kind == "text":
            if not isinstance(part.get("content"), str):
                raise MalformedInputError(pointer + "/content", "text part without a content string", provider=FORMAT)
            if role is U:
                return TextItem(text=part["content"])
            return TextItem(text=part["content"], role=content_role, **msg)
        if kind in ("blob", "uri", "file"):
            item = self.media(part, pointer, content_role)
            return msgspec.structs.replace(item, **msg) if msg and item is not None else item  # type: ignore[type-var]
        if kind == "tool_call":
            name = part.get("name")
            if not isinstance(name, str) or not name:
                raise MalformedInputError(pointer + "/name", "tool_call part without a name", provider=FORMAT)
            cid: Any = part.get("id") if isinstance(part.get("id"), str) and part.get("id") else f"call_{index}"
            if cid != part.get("id"):
                self.report.add("changed", f"tool_call part without an id; given {cid!r}", index=index, pointer=pointer)
            args = part.get("arguments")
            if isinstance(args, Mapping):
                return ToolCallItem(id=cid, name=name, arguments=copy.deepcopy(dict(args)), **msg)
            text = args if isinstance(args, str) else ("" if args is None else msgspec.json.encode(args).decode())
            return tool_call_from_text(cid, name, text, **msg)
        if kind == "tool_call_response":
            cid = part.get("id")
            if not isinstance(cid, str) or not cid:
                raise MalformedInputError(pointer + "/id", "tool_call_response part without an id: the result cannot be linked to its call", provider=FORMAT)
            if "response" in part:
                value = part["response"]
            elif "result" in part:
                value = part["result"]
                self.report.add("changed", "tool_call_response holds 'result' (a variant some instrumentations write); read as its 'response'", index=index, pointer=pointer)
            else:
                value = None
            rname: Any = part.get("name") if isinstance(part.get("name"), str) else None
            return ToolResultItem(call_id=cid, content=self.response_content(value, pointer + "/response"), name=rname if rname else U, **msg)
        if kind == "reasoning":
            thought = part.get("content")
            if not isinstance(thought, str):
                raise MalformedInputError(pointer + "/content", "reasoning part without a content string", provider=FORMAT)
            return ReasoningItem(text=thought, **msg)
        if kind == "refusal" and isinstance(part.get("content"), str):
            return RefusalItem(text=part["content"], **msg)
        self.report.add("changed", f"{kind} part has no canonical form; kept as a raw item", index=index, pointer=pointer)
        raw_role: dict[str, Any] = {"role": content_role} if content_role is not U and content_role != "assistant" else {}
        return RawItem(provider=FORMAT, value=copy.deepcopy(dict(part)), **raw_role, **msg)

    def messages(self, value: Any, attr: str, offset: int, items: list[Item], output: bool = False) -> None:
        if not isinstance(value, list):
            raise MalformedInputError(f"/{attr}", "expected a list of messages", provider=FORMAT)
        for i, msg in enumerate(value):
            pointer = f"/{attr}/{i}"
            if not isinstance(msg, Mapping) or not isinstance(msg.get("parts"), list):
                raise MalformedInputError(pointer, "a message is not an object with a 'parts' list", provider=FORMAT)
            if output and i > 0:
                self.report.add("dropped", "output message of a further choice/candidate: a transcript holds one response", index=i, pointer=pointer)
                continue
            role = msg.get("role")
            if not isinstance(role, str):
                raise MalformedInputError(pointer + "/role", "a message without a string role", provider=FORMAT)
            key = f"{'out' if output else 'm'}{i}"
            if role not in ("system", "developer", "user", "assistant", "tool"):
                self.report.add("changed", f"role {role!r} is not a canonical role; its parts read as user content", index=i, pointer=pointer)
            for j, part in enumerate(msg["parts"]):
                item = self.item(part, role, key, offset + i, f"{pointer}/parts/{j}")
                if item is not None:
                    if role == "tool" and isinstance(item, TextItem):
                        self.report.add("changed", "text in a tool message with no call id: read as user text", index=i, pointer=f"{pointer}/parts/{j}")
                    items.append(item)


def _number(attrs: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = attrs.get(key)
    if value is None:
        return U
    if isinstance(value, bool) or not isinstance(value, kind):
        raise MalformedInputError(f"/{key}", f"expected {getattr(kind, '__name__', 'a number')}, got {a_json_type(value)}", provider=FORMAT)
    return value


def from_otel(span: Any, *, report: Report | None = None) -> Conversion[Transcript]:
    """The ``gen_ai.*`` attributes of one inference span (or span event) -> a transcript.

    Args:
        span: A mapping of span attributes (values as JSON values or as JSON strings), a span
            object holding them under ``attributes``, or OTLP/JSON ``[{"key", "value": {...}}]``.
        report: Entries are appended here (a new report when not given).

    Returns:
        ``Conversion(value=transcript, report)``: system instructions, input messages, then the
        first output message; ``stop_reason``, ``usage``, ``response``, ``settings``, ``tools``
        from the ``gen_ai.*`` attributes. Parts with no canonical form (``server_tool_call``,
        ``server_tool_call_response``, custom parts) are ``raw(provider="otel")``, reported.

    Raises:
        MalformedInputError: not span attributes, a message attribute that is not a list (or JSON
            text of one), a part without its required fields (the pointer names it).
    """
    report = report if report is not None else Report()
    attrs = _attributes(span)
    reader = _Reader(report)
    items: list[Item] = []
    if attrs.get(SYSTEM_INSTRUCTIONS) is not None:
        parts = _json_value(attrs[SYSTEM_INSTRUCTIONS], f"/{SYSTEM_INSTRUCTIONS}")
        if isinstance(parts, Mapping) or isinstance(parts, str):
            parts = [parts if isinstance(parts, Mapping) else {"type": "text", "content": parts}]
        if not isinstance(parts, list):
            raise MalformedInputError(f"/{SYSTEM_INSTRUCTIONS}", "expected a list of parts", provider=FORMAT)
        for j, part in enumerate(parts):
            item = reader.item(part, "system", "", j, f"/{SYSTEM_INSTRUCTIONS}/{j}")
            if item is not None:
                items.append(item)
    if attrs.get(INPUT_MESSAGES) is not None:
        reader.messages(_json_value(attrs[INPUT_MESSAGES], f"/{INPUT_MESSAGES}"), INPUT_MESSAGES, 0, items)
    stop: Any = U
    has_output = False
    if attrs.get(OUTPUT_MESSAGES) is not None:
        out = _json_value(attrs[OUTPUT_MESSAGES], f"/{OUTPUT_MESSAGES}")
        reader.messages(out, OUTPUT_MESSAGES, 0, items, output=True)
        if out:
            has_output = True
            reason = out[0].get("finish_reason")
            if isinstance(reason, str) and reason:
                mapped = _FROM_FINISH.get(reason) or (reason if reason in _CANONICAL_STOPS else "other")
                stop = StopReason(reason=mapped, raw=U if mapped == _FROM_FINISH.get(reason) else reason)  # type: ignore[arg-type]
    transcript = Transcript(schema_version=SCHEMA_VERSION, items=items)  # type: ignore[arg-type]
    tools = _read_tools(attrs, report)
    settings = _read_settings(attrs, report)
    usage = Usage(**{field: v for field, key in _USAGE if (v := _number(attrs, key, int)) is not U}) if any(attrs.get(k) is not None for _, k in _USAGE) else U
    rid = attrs.get("gen_ai.response.id")
    rmodel = attrs.get("gen_ai.response.model")
    info = ResponseInfo(id=rid if isinstance(rid, str) and rid else U, model=rmodel if isinstance(rmodel, str) and rmodel else U) if isinstance(rid, str) or isinstance(rmodel, str) else U
    if not has_output and (usage is not U or info is not U):
        report.add("changed", "response metadata (usage, id, model) of a span with no output messages is kept on the transcript", index=None)
    transcript = msgspec.structs.replace(transcript, tools=tools, settings=settings, usage=usage, stop_reason=stop, response=info)
    _unread(attrs, report, stop)
    try:  # every constraint of the schema (non-negative counts, non-empty ids, ...), located
        decode_transcript(encode_transcript(transcript))
    except DocumentError as exc:
        raise MalformedInputError("", f"the span does not make a valid transcript: {exc}", provider=FORMAT) from exc
    from ..history._integrity import read_history

    transcript = read_history(transcript, report)  # one rule for every reader (results without their call)
    return Conversion(transcript, report)


_READ = frozenset(
    {SYSTEM_INSTRUCTIONS, INPUT_MESSAGES, OUTPUT_MESSAGES, TOOL_DEFINITIONS, "gen_ai.response.id", "gen_ai.response.model"}
    | {key for _, key in _SETTINGS}
    | {key for _, key in _USAGE}
)


def _unread(attrs: Mapping[str, Any], report: Report, stop: Any) -> None:
    """Report every ``gen_ai.*`` attribute the transcript does not hold (``chat`` and a finish reason already read aside)."""
    for key in sorted(k for k in attrs if isinstance(k, str) and k.startswith("gen_ai.") and k not in _READ):
        value = attrs[key]
        if key == "gen_ai.operation.name" and value == "chat":
            continue
        if key == "gen_ai.response.finish_reasons" and stop is not U and isinstance(value, list | tuple) and len(value) <= 1:
            continue
        shown = value if isinstance(value, str | int | float | bool) else type(value).__name__
        report.add("dropped", f"attribute {key} ({shown!r}) has no place in a transcript", pointer=f"/{key}")


def _read_tools(attrs: Mapping[str, Any], report: Report) -> Any:
    value = attrs.get(TOOL_DEFINITIONS)
    if value is None:
        return U
    defs = _json_value(value, f"/{TOOL_DEFINITIONS}")
    if not isinstance(defs, list):
        raise MalformedInputError(f"/{TOOL_DEFINITIONS}", "expected a list of tool definitions", provider=FORMAT)
    out = []
    for k, d in enumerate(defs):
        if isinstance(d, Mapping) and "name" not in d and isinstance(d.get("function"), Mapping):
            report.add("changed", "tool definition in the OpenAI Chat shape ({'type', 'function': {...}}, a variant some instrumentations write); read from its 'function'", pointer=f"/{TOOL_DEFINITIONS}/{k}")
            d = {"type": d.get("type", "function"), **d["function"]}
        if not isinstance(d, Mapping) or not isinstance(d.get("name"), str) or not d["name"]:
            report.add("dropped", "tool definition without a name", pointer=f"/{TOOL_DEFINITIONS}/{k}")
            continue
        if d.get("type", "function") != "function":
            report.add("dropped", f"tool definition of type {d.get('type')!r} (not a function) has no canonical form", pointer=f"/{TOOL_DEFINITIONS}/{k}")
            continue
        params = d.get("parameters")
        desc = d.get("description")
        out.append(ToolDefinition(name=d["name"], description=desc if isinstance(desc, str) else U, parameters=copy.deepcopy(dict(params)) if isinstance(params, Mapping) else U))
    return out


def _setting_ok(field: str, value: Any) -> bool:
    """Whether a ``gen_ai.request.*`` value fits the canonical setting (numbers in range, integers where counted)."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if field == "model":
        return isinstance(value, str) and bool(value)
    if field == "stream":
        return isinstance(value, bool)
    if field == "stop":
        return isinstance(value, str | list | tuple)
    if field in ("max_output_tokens", "top_k"):
        return number and float(value).is_integer() and value >= (1 if field == "max_output_tokens" else 0)
    if field == "seed":
        return number and float(value).is_integer()
    if field in ("temperature", "top_p"):
        return number and value >= 0
    return number


def _read_settings(attrs: Mapping[str, Any], report: Report) -> Any:
    values: dict[str, Any] = {}
    for field, key in _SETTINGS:
        value = attrs.get(key)
        if value is None:
            continue
        if not _setting_ok(field, value):
            report.add("dropped", f"a {type(value).__name__} value is not a valid {field} setting", pointer=f"/{key}")
            continue
        if field == "model" and isinstance(value, str) and value:
            values[field] = value
        elif field == "stop":
            stop = _json_value(value, f"/{key}") if isinstance(value, str) and value.startswith("[") else value
            values[field] = [stop] if isinstance(stop, str) else [s for s in stop if isinstance(s, str)] if isinstance(stop, list | tuple) else U
        elif field == "stream" and isinstance(value, bool):
            values[field] = value
        elif field in ("max_output_tokens", "seed", "top_k"):
            values[field] = int(value)
        elif field in ("temperature", "top_p", "presence_penalty", "frequency_penalty") and isinstance(value, int | float) and not isinstance(value, bool):
            values[field] = value
    values = {k: v for k, v in values.items() if v is not U}
    return Settings(**values) if values else U

