"""MCP sampling: ``sampling/createMessage`` requests and their results.

Shapes (source: the Model Context Protocol specification, "Client features: Sampling", revisions
2025-06-18 and 2025-11-25; schema types ``CreateMessageRequest``, ``CreateMessageResult``,
``SamplingMessage``):

* a request: the JSON-RPC message ``{"jsonrpc", "id", "method": "sampling/createMessage", "params"}`` or its
  ``params`` alone: ``{"messages": [{"role", "content"}], "systemPrompt", "maxTokens", "temperature",
  "stopSequences", "tools", "toolChoice", "modelPreferences", "includeContext", "metadata"}``; a message's
  ``content`` is one block or a list of blocks: ``text``, ``image``/``audio`` (``data``, ``mimeType``),
  ``tool_use`` (``id``, ``name``, ``input``), ``tool_result`` (``toolUseId``, ``content``, ``isError``,
  ``structuredContent``);
* a result: ``{"jsonrpc", "id", "result"}`` or the result alone: ``{"role": "assistant", "content", "model",
  "stopReason"}``;
* a list of such messages (a request, then its result, ...): one conversation, the last request's
  messages then the result's content.

The blocks are Anthropic's in all but names (``toolUseId``, ``isError``, ``mimeType``, camelCase
parameters), so a request becomes an Anthropic request body read by the ``anthropic`` mapper (``tools``'
``inputSchema`` as ``input_schema``, ``toolChoice`` ``auto``/``required``/``none`` as ``auto``/``any``/
``none``), a result an Anthropic response (``stopReason`` ``endTurn``/``maxTokens``/``stopSequence``/
``toolUse`` as ``end_turn``/...). An ``audio`` block (Anthropic has none) becomes an ``audio`` item in place.
``modelPreferences``, ``includeContext``, ``metadata`` and the JSON-RPC ids go to the session metadata
(``"mcp-sampling"``), the tool results' ``structuredContent`` (by ``toolUseId``) to the session metadata too.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from ..errors import MappingError
from ..items import AudioItem, Base64Source, TextItem
from ..mapping import Report, get_mapper
from ..history._integrity import read_history  # a reused call id renamed (reported) before keep_company would drop the call
from ..mapping.company import keep_company
from ..mapping.wire import a_json_type
from ._base import Migrated

__all__ = ["FORMAT", "looks_like", "read"]

FORMAT = "mcp-sampling"
METHOD = "sampling/createMessage"

_REQUEST_KEYS = frozenset({"systemPrompt", "maxTokens", "modelPreferences", "includeContext", "stopSequences", "toolChoice"})
_STOP = {"endTurn": "end_turn", "maxTokens": "max_tokens", "stopSequence": "stop_sequence", "toolUse": "tool_use"}
_CHOICE = {"auto": "auto", "required": "any", "none": "none"}
_AUDIO = "\x00mcp-audio:"


class _Held(list[dict[str, Any]]):
    """The audio blocks held as placeholders while a read is in progress, and the tool results'
    ``structuredContent`` (by ``toolUseId``)."""

    def __init__(self) -> None:
        super().__init__()
        self.structured: dict[str, Any] = {}


def _block_like(content: Any) -> bool:
    return isinstance(content, dict) and isinstance(content.get("type"), str)


def _mcp_blocks(messages: Any) -> bool:
    """A message whose content is one block object (not a list or string), or a block in MCP's own
    names (``toolUseId``, ``mimeType`` on an image/audio block)."""
    if not isinstance(messages, list):
        return False
    for m in messages:
        if not isinstance(m, dict):
            continue
        content = m.get("content")
        if _block_like(content):
            return True
        for b in content if isinstance(content, list) else ():
            if isinstance(b, dict) and ("toolUseId" in b or (b.get("type") in ("image", "audio") and "mimeType" in b)):
                return True
    return False


def looks_like(obj: Any) -> bool:
    """A sampling request or result (JSON-RPC or bare), or a list of them."""
    if isinstance(obj, list):
        return bool(obj) and all(isinstance(m, dict) and _one(m) for m in obj)
    return isinstance(obj, dict) and _one(obj)


def _one(obj: dict[str, Any]) -> bool:
    if obj.get("method") == METHOD:
        return True
    if "jsonrpc" in obj and isinstance(obj.get("result"), dict):
        return _result(obj["result"])
    if isinstance(obj.get("messages"), list):
        return bool(_REQUEST_KEYS & obj.keys()) or _mcp_blocks(obj["messages"])
    return _result(obj)


def _result(obj: dict[str, Any]) -> bool:
    return obj.get("role") == "assistant" and "content" in obj and ("stopReason" in obj or ("model" in obj and _block_like(obj["content"])))


def read(obj: Any) -> Migrated:
    """A sampling request, result, or a list of them -> :class:`Migrated`.

    Raises:
        MappingError: not a sampling request or result; a block the anthropic mapper refuses.
    """
    parts = obj if isinstance(obj, list) else [obj]
    request: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    meta: dict[str, Any] = {}
    for i, msg in enumerate(parts):
        if not isinstance(msg, dict):
            raise MappingError(f"mcp-sampling: /{i} is {a_json_type(msg)}, not a JSON-RPC message")
        if msg.get("method") == METHOD or isinstance(msg.get("messages"), list):
            params = msg.get("params", msg) if msg.get("method") == METHOD else msg
            if not isinstance(params, dict) or not isinstance(params.get("messages"), list):
                raise MappingError(f"mcp-sampling: /{i}: a {METHOD} request without a 'messages' list in its params")
            request, result = params, None
            if "id" in msg and "jsonrpc" in msg:
                meta["request_id"] = msg["id"]
        elif isinstance(msg.get("result"), dict) or _result(msg):
            result = msg["result"] if isinstance(msg.get("result"), dict) else msg
            if "id" in msg and "jsonrpc" in msg:
                meta["result_id"] = msg["id"]
        elif msg.get("method") is not None:
            raise MappingError(f"mcp-sampling: /{i}: method {msg['method']!r} is not {METHOD}")
        else:
            raise MappingError(f"mcp-sampling: /{i}: an object with keys {sorted(msg)[:8]} is neither a {METHOD} request nor its result")
    audio = _Held()
    body: dict[str, Any] = {"messages": []}
    if request is not None:
        body = _body(request, audio, meta)
    if result is not None:
        body["messages"].append({"role": "assistant", "content": _blocks(result.get("content"), audio)})
    if audio.structured:
        meta["structuredContent"] = audio.structured
    conv = get_mapper("anthropic").decode_request(body)
    report = Report(list(conv.report.entries))
    transcript = conv.value
    items = [_restore(it, audio) for it in transcript.items]
    changes: dict[str, Any] = {"items": items}
    if result is not None:
        head = {k: v for k, v in result.items() if k not in ("content", "role")}
        if head:
            meta["result"] = head
        if isinstance(result.get("stopReason"), str):
            from ..items import StopReason

            raw = result["stopReason"]
            changes["stop_reason"] = StopReason(reason=_stop_reason(raw), raw=raw)  # type: ignore[arg-type]
    if meta:
        changes["metadata"] = {**(transcript.metadata if transcript.metadata is not msgspec.UNSET else {}), FORMAT: meta}
    transcript = msgspec.structs.replace(transcript, **changes)
    return Migrated(keep_company(read_history(transcript, report), report), report, FORMAT)


def _stop_reason(raw: str) -> str:
    return _STOP.get(raw, "other")


def _body(params: dict[str, Any], audio: _Held, meta: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"messages": []}
    for j, m in enumerate(params["messages"]):
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant"):
            raise MappingError(f"mcp-sampling: /params/messages/{j}: a SamplingMessage needs 'role' user or assistant")
        body["messages"].append({"role": m["role"], "content": _blocks(m.get("content"), audio)})
    if isinstance(params.get("systemPrompt"), str):
        body["system"] = params["systemPrompt"]
    if "maxTokens" in params:
        body["max_tokens"] = params["maxTokens"]
    if "temperature" in params:
        body["temperature"] = params["temperature"]
    if "stopSequences" in params:
        body["stop_sequences"] = params["stopSequences"]
    if isinstance(params.get("tools"), list):
        body["tools"] = [
            {k: v for k, v in {"name": t.get("name"), "description": t.get("description"), "input_schema": t.get("inputSchema")}.items() if v is not None}
            for t in params["tools"]
            if isinstance(t, dict)
        ]
    if "toolChoice" in params:
        body.update(_tool_choice(params["toolChoice"], meta))
    for key in ("modelPreferences", "includeContext", "metadata", "_meta"):
        if key in params:
            meta[key] = params[key]
    return body


def _tool_choice(choice: Any, meta: dict[str, Any]) -> dict[str, Any]:
    """A SamplingRequest's ``toolChoice`` (``{"mode": "auto"|"required"|"none"}``, MCP specification
    2025-11-25, ``ToolChoice``) as the anthropic body's ``tool_choice``; a mode of a newer revision
    is kept in the transcript's ``metadata["mcp-sampling"]["toolChoice"]``, not guessed.

    Raises:
        MappingError: ``toolChoice`` is not an object, or its ``mode`` not a string (pointer given).
    """
    if choice is None:
        return {}
    if not isinstance(choice, dict):
        raise MappingError(f"mcp-sampling: /params/toolChoice: a ToolChoice is an object {{'mode': 'auto'|'required'|'none'}}, not {a_json_type(choice)}")
    mode = choice.get("mode")
    if mode is None:
        return {}
    if not isinstance(mode, str):
        raise MappingError(f"mcp-sampling: /params/toolChoice/mode: a ToolChoice mode is 'auto', 'required' or 'none', not {a_json_type(mode)}")
    if mode not in _CHOICE:
        meta["toolChoice"] = copy.deepcopy(choice)
        return {}
    return {"tool_choice": {"type": _CHOICE[mode]}}


def _blocks(content: Any, audio: _Held) -> list[Any]:
    blocks = content if isinstance(content, list) else [content]
    out: list[Any] = []
    for b in blocks:
        if not isinstance(b, dict):
            raise MappingError(f"mcp-sampling: a content block is {a_json_type(b)}, not an object")
        kind = b.get("type")
        if kind == "image":
            out.append({"type": "image", "source": {"type": "base64", "media_type": b.get("mimeType"), "data": b.get("data")}})
        elif kind == "audio":
            audio.append(b)
            out.append({"type": "text", "text": f"{_AUDIO}{len(audio) - 1}"})
        elif kind == "tool_result":
            block = {"type": "tool_result", "tool_use_id": b.get("toolUseId"), "content": _blocks(b.get("content", []), audio)}
            if b.get("isError") is not None:
                block["is_error"] = b["isError"]
            if "structuredContent" in b:
                audio.structured[str(b.get("toolUseId"))] = b["structuredContent"]
            out.append(block)
        elif kind in ("text", "tool_use"):
            out.append({k: v for k, v in b.items() if k != "_meta"})
        else:
            raise MappingError(f"mcp-sampling: content block type {kind!r} is not one of text, image, audio, tool_use, tool_result")
    return out


def _restore(item: Any, audio: list[dict[str, Any]]) -> Any:
    """Put back the audio blocks held as placeholders (also inside tool results)."""
    if isinstance(item, TextItem) and item.text.startswith(_AUDIO):
        b = audio[int(item.text[len(_AUDIO):])]
        return AudioItem(source=Base64Source(media_type=b.get("mimeType") or "application/octet-stream", data=b.get("data") or ""), message=item.message, role=item.role)
    content = getattr(item, "content", None)
    if isinstance(content, list) and getattr(item, "type", None) == "tool_result":
        return msgspec.structs.replace(item, content=[_restore(c, audio) for c in content])
    return item
