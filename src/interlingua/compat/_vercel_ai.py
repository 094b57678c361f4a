"""Vercel AI SDK v5 message lists: ``UIMessage[]`` (``vercel-ui``) and ``ModelMessage[]`` (``vercel-model``).

What TypeScript apps persist (``useChat`` histories, ``saveChat`` examples). Sources: the AI SDK
reference pages ``UIMessage`` and ``ModelMessage`` (ai-sdk.dev/docs/reference/ai-sdk-core/ui-message,
/model-message) and the SDK types ``UIMessage``/``UIMessagePart`` (``packages/ai/src/ui/ui-messages.ts``)
and ``ModelMessage`` (``packages/provider-utils/src/types/model-message.ts``).

``UIMessage``: ``{id, role: "system"|"user"|"assistant", metadata?, parts: [...]}``; parts:

* ``{"type": "text", text, state?, providerMetadata?}`` -> text;
* ``{"type": "reasoning", text, state?, providerMetadata?}`` -> reasoning;
* ``{"type": "tool-NAME" | "dynamic-tool", toolCallId, toolName (dynamic), state, input, output?, errorText?}``
  -> a tool call, and with ``state`` ``output-available``/``output-error`` its tool result (a string output is
  text, anything else ``structured``; ``output-error`` is ``is_error`` with ``errorText``);
* ``{"type": "file", mediaType, url, filename?}`` -> image/audio/video/document by media type (a ``data:`` URL
  becomes base64 bytes);
* ``{"type": "step-start"}`` -> no item: ``"step_start": true`` in the next item's ``provider_data``. The parts
  between two step-starts are one model call: its tool results come after all of its calls (as the SDK's
  ``convertToModelMessages`` writes one assistant message, then one tool message, per step), so that the
  calls of one step are one assistant turn for every writer; the result of a ``providerExecuted`` call
  stays right after its call (the SDK keeps it in the assistant message);
* ``source-url``, ``source-document``, ``data-*`` -> ``raw`` items of this format (reported).

``ModelMessage``: ``{role, content: string | [parts], providerOptions?}``; parts ``text``, ``image``
(``image``: URL or base64, ``mediaType``), ``file`` (``data``, ``mediaType``, ``filename``), ``reasoning``,
``tool-call`` (``toolCallId``, ``toolName``, ``input``), ``tool-result`` (``output``: ``{"type": "text"|"json"|
"error-text"|"error-json"|"content"|"execution-denied", value}``); ``tool-approval-request``/``-response``
-> raw (reported).

Kept for the way back (:mod:`._vercel_ai_writer`): the message ``id`` is each item's ``message`` key; the
message's other fields (``metadata``, ``createdAt``, ...) and each part's fields without a canonical home
(``state``, ``providerMetadata``/``providerOptions``, ``providerExecuted``, ``callProviderMetadata``, the
output's type) go in ``provider_data[FORMAT]`` (``"message"`` holds the message's own, on its first item).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ..codec import SCHEMA_VERSION, Item
from ..errors import MappingError
from ..items import (
    AudioItem,
    Base64Source,
    DocumentItem,
    ImageItem,
    RawItem,
    ReasoningItem,
    StructuredItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
    Transcript,
    UrlSource,
    VideoItem,
)
from ..mapping import Report
from ..mapping.arguments import tool_call_from_text
from ..mapping.wire import a_json_type
from ._base import Migrated, keep_on_message

__all__ = ["MODEL_FORMAT", "UI_FORMAT", "read_model", "read_ui", "media_item", "ui_part_types"]

UI_FORMAT = "vercel-ui"
MODEL_FORMAT = "vercel-model"
U = msgspec.UNSET

_UI_ROLES = ("system", "user", "assistant")
_UI_KNOWN = frozenset({"text", "reasoning", "file", "step-start", "source-url", "source-document", "dynamic-tool"})
_MODEL_PART_TYPES = frozenset({"text", "image", "file", "reasoning", "tool-call", "tool-result", "tool-approval-request", "tool-approval-response"})


def ui_part_types(part: Any) -> bool:
    """Whether ``part`` is a UIMessage part (a ``type`` of this SDK's, ``tool-*`` or ``data-*``)."""
    if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
        return False
    t = part["type"]
    return t in _UI_KNOWN or t.startswith(("tool-", "data-"))


def model_part(part: Any) -> bool:
    """Whether ``part`` is a ModelMessage part type that tells this SDK apart (hyphenated tool parts,
    ``image`` with an ``image`` field, ``file`` with ``data`` and ``mediaType``)."""
    if not isinstance(part, Mapping):
        return False
    t = part.get("type")
    return t in ("tool-call", "tool-result", "tool-approval-request", "tool-approval-response") or (t == "image" and "image" in part) or (t == "file" and "data" in part and "mediaType" in part)


def media_item(url: str, media_type: Any, **fields: Any) -> Any:
    """A ``file``/``image`` part's bytes or URL as the canonical media item its media type names.

    A ``data:<type>;base64,<data>`` URL becomes a base64 source; any other string a URL source
    (a bare base64 string with a media type: a base64 source)."""
    mime = media_type if isinstance(media_type, str) and media_type else None
    if url.startswith("data:") and ";base64," in url:
        head, data = url[5:].split(";base64,", 1)
        source: Any = Base64Source(media_type=head or mime or "application/octet-stream", data=data)
        mime = mime or head
    elif "://" in url or url.startswith(("/", "./")) or mime is None:
        source = UrlSource(url=url, media_type=mime if mime else U)
    else:
        source = Base64Source(media_type=mime, data=url)
    kind = (mime or "").split("/", 1)[0]
    if kind == "image":
        return ImageItem(source=source, **fields)
    if kind == "audio":
        return AudioItem(source=source, **fields)
    if kind == "video":
        return VideoItem(source=source, **fields)
    return DocumentItem(source=source, media_type=mime if mime else U, **fields)


def source_form(value: str) -> str:
    """How a media string was given: ``data-url``, ``url`` or bare ``base64`` (kept so the writer gives it back)."""
    if value.startswith("data:") and ";base64," in value:
        return "data-url"
    return "url" if "://" in value or value.startswith(("/", "./")) else "base64"


def _pd(fmt: str, extra: Mapping[str, Any]) -> Any:
    return {fmt: copy.deepcopy(dict(extra))} if extra else U


def _extra(part: Mapping[str, Any], used: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in part.items() if k not in used}


def _result_content(value: Any) -> list[Any]:
    if isinstance(value, str):
        return [TextItem(text=value)] if value else []
    if value is None:
        return []
    return [StructuredItem(data=copy.deepcopy(value))]


def _call(cid: str, name: str, args: Any, **fields: Any) -> ToolCallItem:
    if isinstance(args, dict):
        return ToolCallItem(id=cid, name=name, arguments=copy.deepcopy(args), **fields)
    text = args if isinstance(args, str) else msgspec.json.encode(args).decode()
    return tool_call_from_text(cid, name, text, **fields)


def _check_list(obj: Any, fmt: str) -> list[Any]:
    if isinstance(obj, Mapping) and isinstance(obj.get("messages"), list):
        obj = obj["messages"]
    if not isinstance(obj, list):
        raise MappingError(f"{fmt}: expected a list of messages, got {a_json_type(obj)}")
    return obj


# --------------------------------------------------------------------------- UIMessage


def _ui_message(msg: Any, i: int, report: Report) -> list[Item]:
    if not isinstance(msg, Mapping):
        raise MappingError(f"{UI_FORMAT}: /{i}: a message is a JSON object, got {a_json_type(msg)}")
    role = msg.get("role")
    if role not in _UI_ROLES:
        raise MappingError(f"{UI_FORMAT}: /{i}/role: expected one of {list(_UI_ROLES)}, got {role!r}")
    parts = msg.get("parts")
    if not isinstance(parts, list):
        raise MappingError(f"{UI_FORMAT}: /{i}/parts: expected a list of parts, got {a_json_type(parts)}")
    mid = msg.get("id")
    key = mid if isinstance(mid, str) and 0 < len(mid) <= 512 else f"m{i}"
    own = {k: copy.deepcopy(v) for k, v in msg.items() if k not in ("role", "parts")}
    if "id" not in own:
        own["no_id"] = True  # the writer gives a message without a key of its own an id; not this one
    out: list[Any] = []
    results: list[Any] = []  # this step's tool results: after all of the step's calls, as convertToModelMessages writes them
    step = False
    for j, part in enumerate(parts):
        ptr = f"/{i}/parts/{j}"
        if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
            raise MappingError(f"{UI_FORMAT}: {ptr}: a part is an object with a string 'type'")
        t = part["type"]
        if t == "step-start" and len(part) == 1:
            out.extend(results)
            results = []
            step = True
            continue
        new: list[Any] = []
        if t == "text" and isinstance(part.get("text"), str):
            new.append(TextItem(text=part["text"], role=role, message=key, provider_data=_pd(UI_FORMAT, _extra(part, ("type", "text")))))
        elif t == "reasoning" and isinstance(part.get("text"), str):
            new.append(ReasoningItem(text=part["text"], message=key, provider_data=_pd(UI_FORMAT, _extra(part, ("type", "text")))))
        elif t == "file" and isinstance(part.get("url"), str) and isinstance(part.get("mediaType"), str):
            item = media_item(part["url"], part["mediaType"], message=key, provider_data=_pd(UI_FORMAT, _extra(part, ("type", "url", "mediaType"))))
            new.append(msgspec.structs.replace(item, role=role))
        elif (t.startswith("tool-") or t == "dynamic-tool") and isinstance(part.get("toolCallId"), str) and part["toolCallId"]:
            name = part.get("toolName") if t == "dynamic-tool" else t[5:]
            if not isinstance(name, str) or not name:
                raise MappingError(f"{UI_FORMAT}: {ptr}: a tool part names its tool ('tool-NAME', or 'toolName' for dynamic-tool)")
            state = part.get("state")
            extra = _extra(part, ("type", "toolCallId", "toolName", "input", "output", "errorText"))
            if t == "dynamic-tool":
                extra["dynamic"] = True
            args = part.get("input")
            if "input" not in part:
                extra["no_input"] = True
            new.append(_call(part["toolCallId"], name, args if args is not None else {}, message=key, provider_data=_pd(UI_FORMAT, extra)))
            if state == "output-available" or "output" in part:
                new.append(ToolResultItem(call_id=part["toolCallId"], name=name, content=_result_content(part.get("output")), message=key))
            elif state == "output-error" or "errorText" in part:
                err = part.get("errorText")
                new.append(ToolResultItem(call_id=part["toolCallId"], name=name, content=[TextItem(text=err)] if isinstance(err, str) and err else [], is_error=True, message=key))
        else:
            report.add("changed", f"part {t!r} has no canonical form; kept as a raw item", index=i, pointer=ptr)
            new.append(RawItem(provider=UI_FORMAT, value=copy.deepcopy(dict(part)), role=role, message=key))
        if step:
            keep_on_message(new, UI_FORMAT, report, pointer=ptr, step_start=True)
            step = False
        inline = part.get("providerExecuted") is True  # the provider ran it: its result stays in the assistant message
        out.extend(it for it in new if inline or not isinstance(it, ToolResultItem))
        results.extend(it for it in new if not inline and isinstance(it, ToolResultItem))
    out.extend(results)
    if step:  # a trailing step-start: kept as it was
        out.append(RawItem(provider=UI_FORMAT, value={"type": "step-start"}, role=role, message=key))
    if not out:
        out.append(TextItem(text="", role=role, message=key, provider_data={UI_FORMAT: {"empty": True}}))
    if own:
        _keep_message(out, UI_FORMAT, own)
    return out


def _keep_message(out: list[Any], fmt: str, message: dict[str, Any]) -> None:
    """Keep the source message's own fields on its first item that has ``provider_data`` (a raw
    item has none) as ``provider_data[fmt]["message"]``."""
    keep_on_message(out, fmt, message=message)


def _read(obj: Any, fmt: str, message_items: Any, first: int = 0) -> Migrated:
    """The messages of ``obj`` (checked as ``fmt``'s list) read one by one with ``message_items``;
    ``first``: the index of its first message in a longer list it is a part of (a message's place
    key, ``m<i>``, and the pointers count from there)."""
    messages = _check_list(obj, fmt)
    report = Report()
    items: list[Item] = []
    for i, msg in enumerate(messages, first):
        items.extend(message_items(msg, i, report))
    return Migrated(Transcript(schema_version=SCHEMA_VERSION, items=items), report, fmt)  # type: ignore[arg-type]


def read_ui(obj: Any) -> Migrated:
    """A ``UIMessage[]`` (or ``{"messages": [...]}``) -> :class:`Migrated`.

    Raises:
        MappingError: not a list of UIMessages (the message names the JSON pointer).
    """
    return _read(obj, UI_FORMAT, _ui_message)


# --------------------------------------------------------------------------- ModelMessage


def _model_output(output: Any, ptr: str) -> tuple[list[Any], bool]:
    """A tool-result ``output`` -> (content, is_error)."""
    if not isinstance(output, Mapping) or not isinstance(output.get("type"), str):
        raise MappingError(f"{MODEL_FORMAT}: {ptr}/output: expected {{'type', 'value'}}, got {a_json_type(output)}")
    t = output["type"]
    value = output.get("value")
    if t in ("text", "error-text"):
        return ([TextItem(text=value)] if isinstance(value, str) and value else []), t == "error-text"
    if t in ("json", "error-json"):
        return [StructuredItem(data=copy.deepcopy(value))], t == "error-json"
    if t == "content" and isinstance(value, list):
        content: list[Any] = []
        for k, v in enumerate(value):
            if isinstance(v, Mapping) and v.get("type") == "text" and isinstance(v.get("text"), str):
                content.append(TextItem(text=v["text"]))
            elif isinstance(v, Mapping) and v.get("type") in ("media", "image-data", "file-data") and isinstance(v.get("data"), str):
                content.append(media_item(v["data"], v.get("mediaType")))
            else:
                raise MappingError(f"{MODEL_FORMAT}: {ptr}/output/value/{k}: content of type {v.get('type') if isinstance(v, Mapping) else a_json_type(v)!r} is not read")
        return content, False
    if t == "execution-denied":
        reason = output.get("reason")
        return ([TextItem(text=reason)] if isinstance(reason, str) and reason else []), True
    raise MappingError(f"{MODEL_FORMAT}: {ptr}/output/type: unknown output type {t!r}")


def _model_message(msg: Any, i: int, report: Report) -> list[Item]:
    if not isinstance(msg, Mapping):
        raise MappingError(f"{MODEL_FORMAT}: /{i}: a message is a JSON object, got {a_json_type(msg)}")
    role = msg.get("role")
    if role not in ("system", "user", "assistant", "tool"):
        raise MappingError(f"{MODEL_FORMAT}: /{i}/role: expected system, user, assistant or tool, got {role!r}")
    key = f"m{i}"
    own = {k: copy.deepcopy(v) for k, v in msg.items() if k not in ("role", "content")}
    content = msg.get("content")
    out: list[Any] = []
    if isinstance(content, str):
        if role == "tool":
            raise MappingError(f"{MODEL_FORMAT}: /{i}/content: a tool message holds a list of tool-result parts")
        out.append(TextItem(text=content, role=role, message=key, provider_data={MODEL_FORMAT: {"string": True}}))
    elif isinstance(content, list):
        crole: Any = "user" if role == "tool" else role
        for j, part in enumerate(content):
            ptr = f"/{i}/content/{j}"
            if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
                raise MappingError(f"{MODEL_FORMAT}: {ptr}: a part is an object with a string 'type'")
            t = part["type"]
            if t == "text" and isinstance(part.get("text"), str):
                out.append(TextItem(text=part["text"], role=crole, message=key, provider_data=_pd(MODEL_FORMAT, _extra(part, ("type", "text")))))
            elif t == "reasoning" and isinstance(part.get("text"), str):
                out.append(ReasoningItem(text=part["text"], message=key, provider_data=_pd(MODEL_FORMAT, _extra(part, ("type", "text")))))
            elif t == "image" and isinstance(part.get("image"), str):
                item = media_item(part["image"], part.get("mediaType") or "image/*", message=key, provider_data=_pd(MODEL_FORMAT, {**_extra(part, ("type", "image")), "image_part": True, "form": source_form(part["image"])}))
                out.append(msgspec.structs.replace(item, role=crole))
            elif t == "file" and isinstance(part.get("data"), str) and isinstance(part.get("mediaType"), str):
                item = media_item(part["data"], part["mediaType"], message=key, provider_data=_pd(MODEL_FORMAT, {**_extra(part, ("type", "data", "mediaType")), "form": source_form(part["data"])}))
                out.append(msgspec.structs.replace(item, role=crole))
            elif t == "tool-call" and isinstance(part.get("toolCallId"), str) and isinstance(part.get("toolName"), str):
                args = part.get("input")
                out.append(_call(part["toolCallId"], part["toolName"], args if args is not None else {}, message=key, provider_data=_pd(MODEL_FORMAT, _extra(part, ("type", "toolCallId", "toolName", "input")))))
            elif t == "tool-result" and isinstance(part.get("toolCallId"), str):
                res, err = _model_output(part.get("output"), ptr)
                extra = _extra(part, ("type", "toolCallId", "toolName", "output"))
                extra["output_type"] = part["output"]["type"]
                if part["output"]["type"] == "execution-denied":
                    extra["output"] = copy.deepcopy(dict(part["output"]))
                out.append(
                    ToolResultItem(
                        call_id=part["toolCallId"], name=part["toolName"] if isinstance(part.get("toolName"), str) else U,
                        content=res, is_error=True if err else U, message=key, provider_data={MODEL_FORMAT: extra},
                    )
                )
            else:
                report.add("changed", f"part {t!r} has no canonical form; kept as a raw item", index=i, pointer=ptr)
                out.append(RawItem(provider=MODEL_FORMAT, value=copy.deepcopy(dict(part)), role=crole, message=key))
        if not out:
            out.append(TextItem(text="", role=crole, message=key, provider_data={MODEL_FORMAT: {"empty": True}}))
    else:
        raise MappingError(f"{MODEL_FORMAT}: /{i}/content: expected a string or a list of parts, got {a_json_type(content)}")
    if own or role == "tool":
        _keep_message(out, MODEL_FORMAT, {**own, "role": role})
    return out


def read_model(obj: Any) -> Migrated:
    """A ``ModelMessage[]`` (or ``{"messages": [...]}``) -> :class:`Migrated`.

    Raises:
        MappingError: not a list of ModelMessages (the message names the JSON pointer).
    """
    return _read(obj, MODEL_FORMAT, _model_message)
