"""The attributes of a GenAI inference span -> a transcript (:func:`from_otel`; rules in :mod:`interlingua.otel`)."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

import msgspec

from ..codec import decode_transcript, encode_transcript, Item, SCHEMA_VERSION
from ..errors import DocumentError, MalformedInputError
from ..items import (
    ArtifactRefItem,
    AudioItem,
    Base64Source,
    DocumentItem,
    FileSource,
    ImageItem,
    RawItem,
    ReasoningItem,
    RefusalItem,
    ResponseInfo,
    Settings,
    StopReason,
    TextItem,
    ToolCallItem,
    ToolDefinition,
    ToolResultItem,
    Transcript,
    UrlSource,
    Usage,
    VideoItem,
)
from ..mapping import Conversion, Report
from ..mapping.arguments import tool_call_from_text
from ..mapping.wire import a_json_type
from ._common import (
    _CANONICAL_STOPS,
    FORMAT,
    _FROM_FINISH,
    INPUT_MESSAGES,
    OUTPUT_MESSAGES,
    _SETTINGS,
    SYSTEM_INSTRUCTIONS,
    TOOL_DEFINITIONS,
    U,
    _USAGE,
)


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


class PartReader:
    """Message parts -> canonical items, reporting what has no canonical form (the writer reads its own
    parts back with it to report what a round trip loses)."""

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
    reader = PartReader(report)
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
    for field in list(values):
        # one rule for every setting: the canonical schema's bounds (top_p 0-1, ...), a value out of them
        # dropped with a warning like the checks above, never the whole span refused
        try:
            msgspec.convert({field: values[field]}, Settings)
        except msgspec.ValidationError as exc:
            key = dict(_SETTINGS).get(field, field)
            report.add("dropped", f"{values.pop(field)!r} is not a valid {field} setting ({str(exc).split(' - at ')[0]})", pointer=f"/{key}")
    return Settings(**values) if values else U
