"""LangChain ``messages_to_dict`` output.

Shape (langchain-core ``messages/base.py`` ``message_to_dict``: ``{"type": message.type,
"data": message.model_dump()}``): a list of ``{"type": "system"|"human"|"ai"|"tool"|"function"|"chat",
"data": {"content", "additional_kwargs", "response_metadata", "type", "name", "id", ...}}``.
``ai`` data adds ``tool_calls`` (``[{name, args, id, type: "tool_call"}]``),
``invalid_tool_calls`` (``[{name, args: str, id, error}]``) and ``usage_metadata``; ``tool``
data adds ``tool_call_id``, ``status`` and ``artifact``; ``chat`` data adds ``role``.

Mapping (message ``i`` -> items keyed ``m{i}``):

* ``content`` a string -> one text item; a list -> string entries and ``text`` blocks are text,
  ``image_url`` blocks (``{"url"}`` or a string, data URLs decoded) and standard ``image`` blocks
  (``url`` or ``base64`` + ``mime_type``) are images, Anthropic ``thinking``/``redacted_thinking``
  blocks are reasoning with the signature as opaque ``anthropic`` state, ``tool_use`` blocks are the
  provider's copy of ``tool_calls`` (left out when a tool call has that id, else a tool call);
  anything else is ``raw(provider="langchain")`` (reported).
* ``ai``: ``tool_calls`` -> tool calls (args object); ``invalid_tool_calls`` -> tool calls whose
  argument text is kept raw (``arguments_raw``/``arguments_error``, never ``{}``); without
  ``tool_calls``, the OpenAI-format ``additional_kwargs.tool_calls`` and the deprecated
  ``additional_kwargs.function_call`` are read (the latter with call id ``call_function_{i}``);
  ``additional_kwargs.reasoning_content`` (DeepSeek) and ``additional_kwargs.reasoning``
  (OpenAI Responses: ``id``, ``summary``, ``encrypted_content``) are reasoning.
  ``response_metadata.id`` (else ``id``) -> ``origin.response_id``; ``response_metadata.model_name``/``model`` -> ``origin.model``;
  ``response_metadata.model_provider`` (or ``ls_provider``) -> ``origin.provider`` (``langchain`` when
  unknown);
  ``usage_metadata``, ``response_metadata`` and ``id`` -> ``metadata["langchain"]`` of the first item.
* ``tool`` -> ``tool_result`` (``status: "error"`` -> ``is_error``; ``artifact`` -> metadata);
  ``function`` -> the result of the pending ``function_call`` of that name (else raw, reported).
* ``chat`` -> text with ``data.role`` when it is a canonical role, else raw (reported).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ..codec import SCHEMA_VERSION, Item
from ..errors import MappingError
from ..items import (
    Base64Source,
    ImageItem,
    OpaqueReasoning,
    Origin,
    RawItem,
    ReasoningItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
    Transcript,
    UrlSource,
)
from ..mapping import Report
from ..mapping.arguments import tool_call_from_text
from ..mapping.wire import a_json_type
from ._base import Migrated

__all__ = ["FORMAT", "TYPES", "read"]

FORMAT = "langchain"
TYPES = frozenset({"system", "human", "ai", "tool", "function", "chat", "developer"})
U = msgspec.UNSET

_ROLES = {"system": "system", "developer": "developer", "human": "user", "ai": "assistant"}
_CHAT_ROLES = {"system": "system", "developer": "developer", "user": "user", "human": "user", "assistant": "assistant", "ai": "assistant"}
_PROVIDERS = {"openai": "openai-chat", "anthropic": "anthropic", "google_genai": "gemini", "google_vertexai": "gemini", "ollama": "ollama"}


def _call(call_id: str, name: str, args: Any, **fields: Any) -> ToolCallItem:
    """A call whose args should be an object; anything else stays raw (never ``{}``)."""
    if isinstance(args, dict):
        return ToolCallItem(id=call_id, name=name, arguments=copy.deepcopy(args), **fields)
    return tool_call_from_text(call_id, name, args if isinstance(args, str) else msgspec.json.encode(args).decode(), **fields)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _replace(item: Any, **changes: Any) -> Any:
    """``msgspec.structs.replace`` for an item of any class."""
    return msgspec.structs.replace(item, **changes)


def _image(block: Mapping[str, Any]) -> ImageItem | None:
    if block.get("type") == "image_url":
        spec = block.get("image_url")
        url = spec.get("url") if isinstance(spec, Mapping) else spec
        if not isinstance(url, str):
            return None
        detail = spec.get("detail") if isinstance(spec, Mapping) else None
        if url.startswith("data:") and ";base64," in url:
            head, data = url[5:].split(";base64,", 1)
            return ImageItem(source=Base64Source(media_type=head or "application/octet-stream", data=data), detail=detail if detail in ("auto", "low", "high") else U)
        return ImageItem(source=UrlSource(url=url), detail=detail if detail in ("auto", "low", "high") else U)
    if block.get("type") == "image":
        if isinstance(block.get("url"), str):
            return ImageItem(source=UrlSource(url=block["url"]))
        data = block.get("base64", block.get("data"))
        mime = block.get("mime_type")
        if isinstance(data, str) and isinstance(mime, str):
            return ImageItem(source=Base64Source(media_type=mime, data=data))
    return None


def _list(value: Any, pointer: str) -> list[Any]:
    """A member LangChain types as a list (``AIMessage.invalid_tool_calls``, an OpenAI reasoning
    ``summary``): ``[]`` when absent or null.

    Raises:
        MappingError: any other JSON type, naming ``pointer`` (issue 32: ``TypeError: 'bool' object is not iterable``).
    """
    if value is None:
        return []
    if not isinstance(value, list):
        raise MappingError(f"{FORMAT}: {pointer}: expected a list, got {a_json_type(value)}")
    return value


class _Reader:
    def __init__(self) -> None:
        self.report = Report()
        self.items: list[Item] = []
        self.pending_function: dict[str, str] = {}

    def blocks(self, content: Any, role: str, key: str, i: int, origin: Any, call_ids: set[str]) -> list[Item]:
        out: list[Item] = []
        values = [content] if isinstance(content, str) else content if isinstance(content, list) else []
        if content is not None and not isinstance(content, (str, list)):
            self.report.add("dropped", "content is neither a string nor a list of blocks", index=i)
        for j, block in enumerate(values):
            pointer = f"/{i}/data/content/{j}"
            org = origin if role == "assistant" else U
            if isinstance(block, str):
                if block or len(values) == 1:
                    out.append(TextItem(text=block, role=role, message=key, origin=org))  # type: ignore[arg-type]
                continue
            if not isinstance(block, Mapping):
                self.report.add("dropped", "content block is not an object", index=i, pointer=pointer)
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                out.append(TextItem(text=block["text"], role=role, message=key, origin=org))  # type: ignore[arg-type]
            elif (image := _image(block)) is not None:
                out.append(_replace(image, role=role, message=key))
            elif role == "assistant" and kind == "thinking" and isinstance(block.get("thinking"), str):
                sig = block.get("signature")
                opaque = OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value=sig) if isinstance(sig, str) and sig else U
                out.append(ReasoningItem(text=block["thinking"] or U, opaque=opaque, message=key, origin=origin))
            elif role == "assistant" and kind == "redacted_thinking" and isinstance(block.get("data"), str):
                opaque = OpaqueReasoning(namespace="anthropic.redacted_thinking", issuer="anthropic", value=block["data"])
                out.append(ReasoningItem(opaque=opaque, redacted=True, message=key, origin=origin))
            elif role == "assistant" and kind == "tool_use" and isinstance(block.get("id"), str) and block["id"] in call_ids:
                continue  # the provider's copy of an entry of tool_calls
            elif role == "assistant" and kind == "tool_use" and isinstance(block.get("name"), str) and isinstance(block.get("id"), str):
                args = block.get("input")
                out.append(_call(block["id"], block["name"], args, message=key, origin=origin))
            else:
                self.report.add("changed", f"content block {kind!r} has no canonical form; kept as a raw item", index=i, pointer=pointer)
                out.append(RawItem(provider=FORMAT, value=copy.deepcopy(block), role=role, message=key))  # type: ignore[arg-type]
        return out

    def ai(self, data: Mapping[str, Any], key: str, i: int) -> list[Item]:
        meta: Any = data.get("response_metadata") if isinstance(data.get("response_metadata"), Mapping) else {}
        kwargs: Any = data.get("additional_kwargs") if isinstance(data.get("additional_kwargs"), Mapping) else {}
        provider = meta.get("model_provider", meta.get("ls_provider"))
        model = meta.get("model_name", meta.get("model"))
        # The provider's response id: response_metadata.id (msg_, chatcmpl-) when given, else the message id.
        response_id = meta.get("id") if isinstance(meta.get("id"), str) else data.get("id")
        origin: Any = U
        if isinstance(provider, str) or isinstance(model, str) or isinstance(response_id, str):
            # An unknown provider is named "langchain": the ids are kept either way.
            origin = Origin(
                provider=_PROVIDERS.get(provider, provider) if isinstance(provider, str) else FORMAT,
                model=model if isinstance(model, str) else U,
                response_id=response_id if isinstance(response_id, str) else U,
            )
        calls: Any = data.get("tool_calls") if isinstance(data.get("tool_calls"), list) else []
        call_ids = {c["id"] for c in calls if isinstance(c, Mapping) and isinstance(c.get("id"), str)}
        items: list[Item] = []
        if isinstance(kwargs.get("reasoning_content"), str) and kwargs["reasoning_content"]:
            items.append(ReasoningItem(text=kwargs["reasoning_content"], message=key, origin=origin))
        reasoning = kwargs.get("reasoning")
        if isinstance(reasoning, Mapping):
            summary = [s["text"] for s in _list(reasoning.get("summary"), f"/{i}/data/additional_kwargs/reasoning/summary") if isinstance(s, Mapping) and isinstance(s.get("text"), str)]
            enc = reasoning.get("encrypted_content")
            rid = reasoning.get("id")
            items.append(
                ReasoningItem(
                    summary=summary if summary else U,
                    opaque=OpaqueReasoning(namespace="openai.encrypted_content", issuer="openai-responses", value=enc) if isinstance(enc, str) else U,
                    message=key,
                    origin=_replace(origin if origin is not U else Origin(provider="openai-responses"), provider="openai-responses", item_id=rid if isinstance(rid, str) else U),
                )
            )
        items.extend(self.blocks(data.get("content"), "assistant", key, i, origin, call_ids))
        for j, call in enumerate(calls):
            if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
                self.report.add("dropped", "tool call without a name", index=i, pointer=f"/{i}/data/tool_calls/{j}")
                continue
            cid: Any = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else f"call_{i}_{j}"
            if cid != call.get("id"):
                self.report.add("changed", f"tool call without an id; given {cid!r}", index=i, pointer=f"/{i}/data/tool_calls/{j}")
            obj_args = call.get("args")
            items.append(_call(cid, call["name"], obj_args, message=key, origin=origin))
        for j, call in enumerate(_list(data.get("invalid_tool_calls"), f"/{i}/data/invalid_tool_calls")):
            if not isinstance(call, Mapping):
                continue
            cid = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else f"call_{i}_invalid_{j}"
            name: Any = call.get("name") if isinstance(call.get("name"), str) and call.get("name") else "unknown"
            args: str = call["args"] if isinstance(call.get("args"), str) else ""
            item = tool_call_from_text(cid, name, args, message=key, origin=origin)
            if item.arguments is not U:
                # LangChain judged it invalid for a reason of its own: keep the text raw with that reason.
                item = ToolCallItem(id=cid, name=name, arguments_raw=args, arguments_error=str(call.get("error") or "invalid tool call"), message=key, origin=origin)
            items.append(item)
        if not calls and isinstance(kwargs.get("tool_calls"), list):
            for j, entry in enumerate(kwargs["tool_calls"]):
                fn = entry.get("function") if isinstance(entry, Mapping) else None
                if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
                    cid = entry.get("id") if isinstance(entry.get("id"), str) and entry.get("id") else f"call_{i}_{j}"
                    items.append(tool_call_from_text(cid, fn["name"], _text(fn.get("arguments")), message=key, origin=origin))
        fc = kwargs.get("function_call")
        if isinstance(fc, Mapping) and isinstance(fc.get("name"), str):
            cid = f"call_function_{i}"
            self.pending_function[fc["name"]] = cid
            self.report.add("changed", f"deprecated function_call read as tool call {cid!r}", index=i, item_type="tool_call")
            items.append(tool_call_from_text(cid, fc["name"], _text(fc.get("arguments")), message=key, origin=origin))
        # Empty text next to other content is no content (LangChain stores "" beside tool calls).
        if len(items) > 1:
            items = [it for it in items if not (isinstance(it, TextItem) and it.text == "")]
        if not items:
            items.append(TextItem(text="", role="assistant", message=key, origin=origin))
        extra = {k: copy.deepcopy(data[k]) for k in ("usage_metadata", "response_metadata", "id") if data.get(k)}
        if extra:
            items[0] = _replace(items[0], metadata={"langchain": extra})
        return items

    def tool(self, data: Mapping[str, Any], key: str, i: int) -> list[Item]:
        call_id = data.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            self.report.add("changed", "tool message without tool_call_id; kept as a raw item", index=i)
            return [RawItem(provider=FORMAT, value={"type": "tool", "data": copy.deepcopy(dict(data))}, message=key)]
        content = [_replace(it, role=U, message=U) if not isinstance(it, RawItem) else it for it in self.blocks(data.get("content"), "user", key, i, U, set())]
        content = [it for it in content if not (isinstance(it, TextItem) and it.text == "")]
        raw = [it for it in content if isinstance(it, RawItem)]
        if raw:
            self.report.add("dropped", "tool message blocks with no canonical form", index=i)
            content = [it for it in content if not isinstance(it, RawItem)]
        meta = {"artifact": copy.deepcopy(data["artifact"])} if data.get("artifact") is not None else {}
        return [
            ToolResultItem(
                call_id=call_id,
                name=data["name"] if isinstance(data.get("name"), str) else U,
                content=content,  # type: ignore[arg-type]
                is_error=True if data.get("status") == "error" else U,
                metadata={"langchain": meta} if meta else U,
                message=key,
            )
        ]

    def message(self, msg: Any, i: int) -> None:
        if not isinstance(msg, Mapping) or not isinstance(msg.get("data"), Mapping):
            raise MappingError(f"{FORMAT}: message {i} is not a {{'type', 'data'}} object")
        kind = msg.get("type")
        data = msg["data"]
        key = f"m{i}"
        if kind in ("system", "developer", "human"):
            items = self.blocks(data.get("content"), _ROLES[kind], key, i, U, set()) or [TextItem(text="", role=_ROLES[kind], message=key)]  # type: ignore[arg-type]
        elif kind == "ai":
            items = self.ai(data, key, i)
        elif kind == "tool":
            items = self.tool(data, key, i)
        elif kind == "function" and isinstance(data.get("name"), str) and data["name"] in self.pending_function:
            cid = self.pending_function.pop(data["name"])
            content = data.get("content")
            items = [ToolResultItem(call_id=cid, name=data["name"], content=[TextItem(text=content)] if isinstance(content, str) and content else [], message=key)]
        elif kind == "chat" and isinstance(data.get("role"), str) and data["role"] in _CHAT_ROLES:
            items = self.blocks(data.get("content"), _CHAT_ROLES[data["role"]], key, i, U, set())
        elif isinstance(kind, str) and kind in TYPES:  # a list or object type is no type (and unhashable)
            self.report.add("changed", f"{kind} message with no canonical form (role {data.get('role', data.get('name'))!r}); kept as a raw item", index=i)
            items = [RawItem(provider=FORMAT, value=copy.deepcopy(dict(msg)), message=key)]
        else:
            raise MappingError(f"{FORMAT}: message {i} has type {kind!r}; expected one of {sorted(TYPES)}")
        self.items.extend(items)


# --- serialized form (``dumpd``/``Serializable.to_json``), as LangGraph checkpoints and LangSmith runs hold it
LC_CLASSES = {
    "HumanMessage": "human", "HumanMessageChunk": "human", "AIMessage": "ai", "AIMessageChunk": "ai",
    "SystemMessage": "system", "SystemMessageChunk": "system", "ToolMessage": "tool", "ToolMessageChunk": "tool",
    "FunctionMessage": "function", "FunctionMessageChunk": "function", "ChatMessage": "chat", "ChatMessageChunk": "chat",
}
"""langchain-core message classes -> ``messages_to_dict`` type (``langchain_core/load/serializable.py``
``to_json``: ``{"lc": 1, "type": "constructor", "id": [namespace..., class], "kwargs": {...}}``)."""


def is_serialized(value: Any) -> bool:
    """Whether ``value`` is a serialized LangChain message (``{"lc": 1, "type": "constructor", "id": [..., "HumanMessage"], "kwargs"}``)."""
    return (
        isinstance(value, Mapping)
        and value.get("lc") == 1
        and value.get("type") == "constructor"
        and isinstance(value.get("id"), list)
        and bool(value["id"])
        and isinstance(value["id"][-1], str)
        and value["id"][-1] in LC_CLASSES
        and isinstance(value.get("kwargs"), Mapping)
    )


def _from_serialized(obj: Any) -> Any:
    """A list of serialized messages (or ``{"messages": [...]}``, or LangSmith's ``[[...]]``) -> ``messages_to_dict`` form; anything else unchanged."""
    if isinstance(obj, Mapping) and isinstance(obj.get("messages"), list):
        obj = obj["messages"]
    if isinstance(obj, list) and len(obj) == 1 and isinstance(obj[0], list):
        obj = obj[0]
    if not isinstance(obj, list) or not obj or not any(is_serialized(m) for m in obj):
        return obj
    out = []
    for i, m in enumerate(obj):
        if not is_serialized(m):
            raise MappingError(f"{FORMAT}: /{i}: a serialized list holds only {{'lc': 1, 'type': 'constructor', 'id': [..., <message class>], 'kwargs'}} messages")
        kind = LC_CLASSES[m["id"][-1]]
        out.append({"type": kind, "data": {**m["kwargs"], "type": m["kwargs"].get("type", kind)}})
    return out


def read(obj: Any) -> Migrated:
    """A ``messages_to_dict`` list, or a list of serialized messages (``{"lc": 1, "type": "constructor", ...}``)
    -> :class:`Migrated`.

    Raises:
        MappingError: not a list of ``{"type", "data"}`` objects of a known message type.
    """
    obj = _from_serialized(obj)
    if not isinstance(obj, list):
        raise MappingError(f"{FORMAT}: expected a list of messages, got {a_json_type(obj)}")
    reader = _Reader()
    for i, msg in enumerate(obj):
        reader.message(msg, i)
    return Migrated(Transcript(schema_version=SCHEMA_VERSION, items=reader.items), reader.report, FORMAT)  # type: ignore[arg-type]
