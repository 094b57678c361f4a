"""pydantic-ai message histories (``ModelMessagesTypeAdapter`` JSON).

Shape (pydantic-ai ``pydantic_ai/messages.py``): a list of messages discriminated by
``kind``: ``"request"`` (``ModelRequest{parts, instructions?, timestamp?, run_id?, metadata?}``)
and ``"response"`` (``ModelResponse{parts, usage, model_name, timestamp, provider_name,
provider_url, provider_details, provider_response_id, finish_reason, run_id, metadata}``;
older stored rows say ``vendor_details``/``vendor_id`` for the last two). Parts are
discriminated by ``part_kind``.

Mapping (message ``i`` -> items keyed ``m{i}``):

* ``system-prompt`` -> ``text(role="system")``; ``user-prompt`` -> ``role="user"`` content: a string,
  or a list of strings and ``{"kind": "image-url"|"audio-url"|"document-url"|"binary", ...}``
  objects (``binary`` ``data`` is base64, URL-safe as pydantic writes it, read into the standard
  alphabet; its ``media_type`` picks image/audio/document).
  ``video-url`` and other kinds have no canonical form: kept as ``raw`` (reported).
* ``instructions`` on a request -> ``text(role="system", message="instructions{i}")`` before its
  parts, only when it differs from the instructions last emitted (pydantic-ai re-sends them).
* ``tool-return`` -> ``tool_result`` (``call_id`` = ``tool_call_id``, ``name`` = ``tool_name``); a
  string is its text, files (``binary``, ``*-url``) media items, any other JSON value its compact
  JSON text (what pydantic-ai sends models); a ``video-url`` there is dropped (reported);
  ``outcome`` ``failed``/``denied`` -> ``is_error``.
* ``retry-prompt`` -> with ``tool_name``: an ``is_error`` ``tool_result`` for ``tool_call_id``; without:
  a user text. Validation error lists are written as JSON followed by "Fix the errors and try again.".
* ``text`` -> ``text(role="assistant")``; ``tool-call`` -> ``tool_call`` (``args`` object, JSON string
  or null; malformed strings stay raw); ``thinking`` -> ``reasoning`` with the ``signature`` as opaque
  state of the issuing provider (Anthropic ``signature``, ``redacted_thinking`` when ``id`` says so;
  OpenAI ``encrypted_content``; Google ``thought_signature``); ``file`` -> image/audio/document.
  ``builtin-tool-call``, ``builtin-tool-return`` and ``compaction`` are provider-side state with no
  canonical form: ``raw(provider="pydantic-ai")`` (reported).
* Provider ids: part ``id`` -> ``origin.item_id``, ``provider_response_id`` (or ``vendor_id``) ->
  ``origin.response_id``, ``model_name`` -> ``origin.model``, ``provider_name`` -> ``origin.provider``
  (registry name where one matches; else the first part's ``provider_name``; ``pydantic-ai``
  when none is given). Response fields with no item home (``usage``,
  ``finish_reason``, ``provider_details``/``vendor_details``, ``timestamp``, ``run_id``,
  ``provider_url``, ``metadata``) go to ``metadata["pydantic_ai"]`` of the response's first item.
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

__all__ = ["FORMAT", "read"]

FORMAT = "pydantic-ai"
U = msgspec.UNSET

_PROVIDERS = {
    "anthropic": "anthropic",
    "google-gla": "gemini",
    "google-vertex": "gemini",
    "google": "gemini",
    "gemini": "gemini",
    "ollama": "ollama",
}
"""pydantic-ai ``provider_name`` -> registry name (``openai`` is decided per response)."""

_FILE_KINDS = frozenset({"image-url", "audio-url", "document-url", "video-url", "binary"})

_RESPONSE_EXTRAS = ("usage", "finish_reason", "provider_details", "timestamp", "run_id", "provider_url", "metadata")


def _replace(item: Any, **changes: Any) -> Any:
    """``msgspec.structs.replace`` for an item of any class."""
    return msgspec.structs.replace(item, **changes)


def _registry_name(provider: Any, parts: list[Any]) -> str | None:
    if not isinstance(provider, str):
        return None
    if provider == "openai":
        # Responses parts carry item ids (rs_, fc_, msg_) or encrypted reasoning; Chat ones do not.
        responses = any(isinstance(p, Mapping) and (p.get("id") or p.get("signature")) for p in parts)
        return "openai-responses" if responses else "openai-chat"
    return _PROVIDERS.get(provider, provider)


def _media(kind: str, media_type: str, source: Any, role: Any) -> Item:
    common: dict[str, Any] = {"role": role} if role is not U else {}
    if media_type.startswith("image/") or kind == "image-url":
        return ImageItem(source=source, **common)
    if media_type.startswith("audio/") or kind == "audio-url":
        return AudioItem(source=source, **common)
    return DocumentItem(source=source, media_type=media_type if media_type else U, **common)


_JSON_TYPES = {type(None): "null", bool: "a boolean", int: "a number", float: "a number", dict: "an object"}


class _Reader:
    def __init__(self) -> None:
        self.report = Report()
        self.items: list[Item] = []
        self.instructions: str | None = None

    # ----------------------------------------------------------------- content

    def content(self, value: Any, role: Any, key: str, index: int, pointer: str) -> Item | None:
        if isinstance(value, str):
            return TextItem(text=value, role=role, message=key) if role is not U else TextItem(text=value)
        if isinstance(value, Mapping):
            kind = value.get("kind")
            media_type: Any = value.get("media_type") if isinstance(value.get("media_type"), str) else ""
            if kind in ("image-url", "audio-url", "document-url") and isinstance(value.get("url"), str):
                item = _media(kind, media_type, UrlSource(url=value["url"], media_type=media_type or U), role)
                return _replace(item, message=key) if role is not U else item
            if kind == "binary" and isinstance(value.get("data"), str) and media_type:
                # pydantic serializes bytes as URL-safe base64 (``ser_json_bytes="base64"``): same bytes, standard alphabet here.
                data = value["data"].replace("-", "+").replace("_", "/")
                item = _media(kind, media_type, Base64Source(media_type=media_type, data=data), role)
                return _replace(item, message=key) if role is not U else item
            if kind == "text" and isinstance(value.get("content"), str):  # TextContent
                return self.content(value["content"], role, key, index, pointer)
        if role is U:
            self.report.add("dropped", "tool return content with no canonical form (a raw item cannot sit inside a result)", index=index, pointer=pointer)
            return None
        self.report.add("changed", "user content with no canonical form kept as a raw item", index=index, pointer=pointer)
        return RawItem(provider=FORMAT, value=copy.deepcopy(value), role=role, message=key)

    # ----------------------------------------------------------------- request

    def request(self, msg: Mapping[str, Any], i: int) -> None:
        key = f"m{i}"
        instructions = msg.get("instructions")
        if isinstance(instructions, str) and instructions and instructions != self.instructions:
            self.items.append(TextItem(text=instructions, role="system", message=f"instructions{i}"))
            self.instructions = instructions
        for j, part in enumerate(msg.get("parts") or []):
            pointer = f"/{i}/parts/{j}"
            kind = part.get("part_kind") if isinstance(part, Mapping) else None
            if kind == "system-prompt" and isinstance(part.get("content"), str):
                self.items.append(TextItem(text=part["content"], role="system", message=key))
            elif kind == "user-prompt":
                content = part.get("content")
                if not isinstance(content, str | list):  # str | Sequence[UserContent]; anything else was lost without a word
                    self.raw(part, key, i, pointer, f"user-prompt content that is {_JSON_TYPES.get(type(content), type(content).__name__)}, not a string or a list")
                    continue
                values = [content] if isinstance(content, str) else content
                for k, value in enumerate(values):
                    item = self.content(value, "user", key, i, f"{pointer}/content/{k}")
                    if item is not None:
                        self.items.append(item)
            elif kind == "tool-return" and isinstance(part.get("tool_call_id"), str):
                self.items.append(self.tool_return(part, key, i, pointer))
            elif kind == "retry-prompt":
                self.items.append(self.retry(part, key))
            else:
                self.raw(part, key, i, pointer, f"request part {kind!r} has no canonical form")

    def _return_content(self, content: Any, index: int, pointer: str) -> list[Any]:
        """Tool return content: files become media items, strings text, other JSON its compact text."""
        if content is None:
            return []
        if isinstance(content, str):
            return [TextItem(text=content)] if content else []
        if isinstance(content, Mapping) and isinstance(content.get("kind"), str) and content["kind"] in _FILE_KINDS:
            item = self.content(content, U, "", index, pointer)
            return [item] if item is not None else []
        if isinstance(content, list) and any(isinstance(c, Mapping) and isinstance(c.get("kind"), str) and c["kind"] in _FILE_KINDS for c in content):
            out: list[Any] = []
            for k, c in enumerate(content):
                out.extend(self._return_content(c, index, f"{pointer}/{k}"))
            return out
        return [TextItem(text=msgspec.json.encode(content).decode())]

    def tool_return(self, part: Mapping[str, Any], key: str, index: int = 0, pointer: str = "") -> ToolResultItem:
        outcome = part.get("outcome", "success")
        return ToolResultItem(
            call_id=part["tool_call_id"],
            name=part["tool_name"] if isinstance(part.get("tool_name"), str) else U,
            content=self._return_content(part.get("content"), index, f"{pointer}/content"),
            is_error=True if outcome in ("failed", "denied") else U,
            metadata={"pydantic_ai": {"outcome": outcome}} if outcome not in ("success", None) else U,
            message=key,
        )

    def retry(self, part: Mapping[str, Any], key: str) -> Item:
        content = part.get("content")
        if isinstance(content, str):
            text = content
        else:
            text = f"{msgspec.json.encode(content).decode()}\n\nFix the errors and try again."
        if isinstance(part.get("tool_name"), str) and isinstance(part.get("tool_call_id"), str):
            return ToolResultItem(call_id=part["tool_call_id"], name=part["tool_name"], content=[TextItem(text=text)], is_error=True, message=key)
        return TextItem(text=text, role="user", message=key, metadata={"pydantic_ai": {"part_kind": "retry-prompt"}})

    def raw(self, part: Any, key: str, i: int, pointer: str, reason: str, origin: Any = U) -> None:
        self.report.add("changed", f"{reason}; kept as a raw item", index=i, pointer=pointer)
        self.items.append(RawItem(provider=FORMAT, value=copy.deepcopy(part), message=key, origin=origin))

    # ----------------------------------------------------------------- response

    def response(self, msg: Mapping[str, Any], i: int) -> None:
        key = f"m{i}"
        parts: Any = msg.get("parts") if isinstance(msg.get("parts"), list) else []
        # Older histories name the provider only on parts (thinking): use the first one named.
        named = msg.get("provider_name") or next((p.get("provider_name") for p in parts if isinstance(p, Mapping) and p.get("provider_name")), None)
        provider = _registry_name(named, parts)
        response_id = msg.get("provider_response_id", msg.get("vendor_id"))
        model = msg.get("model_name")
        first = len(self.items)
        for j, part in enumerate(parts):
            pointer = f"/{i}/parts/{j}"
            if not isinstance(part, Mapping):
                self.report.add("dropped", "response part is not a JSON object", index=i, pointer=pointer)
                continue
            part_provider = _registry_name(part.get("provider_name"), [part]) or provider
            item_id = part["id"] if isinstance(part.get("id"), str) else None
            origin: Any = U
            if part_provider or isinstance(model, str) or isinstance(response_id, str) or item_id:
                # An unknown provider is named "pydantic-ai": the ids are kept either way.
                origin = Origin(
                    provider=part_provider or FORMAT,
                    model=model if isinstance(model, str) else U,
                    response_id=response_id if isinstance(response_id, str) else U,
                    item_id=item_id if item_id else U,
                )
            kind = part.get("part_kind")
            if kind == "text" and isinstance(part.get("content"), str):
                self.items.append(TextItem(text=part["content"], role="assistant", message=key, origin=origin))
            elif kind == "tool-call" and isinstance(part.get("tool_name"), str) and isinstance(part.get("tool_call_id"), str):
                self.items.append(self.tool_call(part, key, origin))
            elif kind == "thinking" and isinstance(part.get("content"), str):
                self.items.append(self.thinking(part, part_provider, model, key, origin))
            elif kind == "file" and isinstance(part.get("content"), Mapping):
                item = self.content(part["content"], "assistant", key, i, f"{pointer}/content")
                if item is not None:
                    self.items.append(_replace(item, origin=origin) if not isinstance(item, RawItem) else item)
            else:
                self.raw(part, key, i, pointer, f"response part {kind!r} has no canonical form", origin)
        extras = {}
        for name in _RESPONSE_EXTRAS:
            value = msg.get(name)
            if name == "provider_details" and value is None:
                value = msg.get("vendor_details")
            if value not in (None, {}, []):
                extras[name] = copy.deepcopy(value)
        if extras:
            if len(self.items) > first:
                self.items[first] = _replace(self.items[first], metadata={"pydantic_ai": extras})
            else:
                self.report.add("dropped", f"response fields {sorted(extras)} belong to a response without parts", index=i)
        if len(self.items) == first:
            self.items.append(TextItem(text="", role="assistant", message=key))

    def tool_call(self, part: Mapping[str, Any], key: str, origin: Any) -> ToolCallItem:
        args = part.get("args")
        if isinstance(args, Mapping):
            return ToolCallItem(id=part["tool_call_id"], name=part["tool_name"], arguments=copy.deepcopy(dict(args)), message=key, origin=origin)
        return tool_call_from_text(part["tool_call_id"], part["tool_name"], args if isinstance(args, str) else "", message=key, origin=origin)

    def thinking(self, part: Mapping[str, Any], provider: str | None, model: Any, key: str, origin: Any) -> ReasoningItem:
        text = part["content"]
        signature = part.get("signature")
        opaque: Any = U
        redacted: Any = U
        if isinstance(signature, str) and signature:
            if provider == "anthropic" and part.get("id") == "redacted_thinking":
                opaque = OpaqueReasoning(namespace="anthropic.redacted_thinking", issuer="anthropic", value=signature)
                redacted = True
                origin = _replace(origin, item_id=U) if origin is not U else U
            elif provider == "anthropic":
                opaque = OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value=signature)
            elif provider == "openai-responses":
                opaque = OpaqueReasoning(namespace="openai.encrypted_content", issuer="openai-responses", value=signature, model=model if isinstance(model, str) else U)
            elif provider == "gemini":
                opaque = OpaqueReasoning(namespace="gemini.thought_signature", issuer="gemini", value=signature, model=model if isinstance(model, str) else U)
            else:
                issuer = provider or "unknown"
                opaque = OpaqueReasoning(namespace=f"{FORMAT}.signature", issuer=issuer, value=signature)
        return ReasoningItem(text=text if text else U, opaque=opaque, redacted=redacted, message=key, origin=origin)


def read(obj: Any) -> Migrated:
    """A pydantic-ai message history (``list[ModelMessage]`` as JSON) -> :class:`Migrated`.

    Raises:
        MappingError: not a list of ``{"kind": "request"|"response", "parts": [...]}`` objects.
    """
    if not isinstance(obj, list):
        raise MappingError(f"{FORMAT}: expected a list of messages, got {a_json_type(obj)}")
    reader = _Reader()
    for i, msg in enumerate(obj):
        if not isinstance(msg, Mapping) or not isinstance(msg.get("parts"), list):
            raise MappingError(f"{FORMAT}: message {i} is not an object with a 'parts' list")
        kind = msg.get("kind")
        if kind == "request":
            reader.request(msg, i)
        elif kind == "response":
            reader.response(msg, i)
        else:
            raise MappingError(f"{FORMAT}: message {i} has kind {kind!r}; expected 'request' or 'response'")
    return Migrated(Transcript(schema_version=SCHEMA_VERSION, items=reader.items), reader.report, FORMAT)  # type: ignore[arg-type]
