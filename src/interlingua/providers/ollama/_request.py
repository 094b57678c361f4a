"""Ollama ``/api/chat`` request body <-> transcript (the providers' API references; OLL ``api/types.go`` ``ChatRequest``).

``{model, messages, tools?, think?, format?, options?, stream?, keep_alive?}``:

* ``messages[i]`` -> items with message key ``f"m{i}"`` (rules in :mod:`._messages`); id-less tool calls get
  ``f"ollama_m{i}_c{k}"``.
* ``tools[].function{name, description, parameters}`` -> tool definitions; other fields of ``function`` go
  to ``provider_data["ollama"]``.
* every other field (``model``, ``stream``, ``think``, ``format``, ``options``, ``keep_alive``, ...) goes
  into ``settings`` (:mod:`._settings`); ``encode_request`` writes ``model`` only when given and always
  writes ``stream``. Ollama has no tool choice: a transcript's ``tool_choice`` is left out and reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ...codec import SCHEMA_VERSION, Item
from ...errors import ConversionError
from ...items import ToolDefinition, Transcript
from ...mapping.protocol import Conversion
from ...mapping.report import Policy, Report
from ...mapping.settings import note_model, settings_of
from ...mapping.wire import guarded
from ...mapping.empty_ids import links_empty_ids
from ._common import NAME, jcopy
from ._messages import MessageDecoder, MessageEncoder
from ._settings import decode_settings, encode_settings

UNSET = msgspec.UNSET

__all__ = ["decode_request", "encode_request"]


def _request_call_id(wire_id: str | None, name: str, i: int, k: int) -> str:
    return wire_id if wire_id is not None else f"ollama_m{i}_c{k}"


def decode_tools(tools: Any, report: Report) -> list[ToolDefinition]:
    """``tools[]`` -> tool definitions (``type`` other than ``function`` reported)."""
    if not isinstance(tools, list):
        raise ConversionError("Ollama tools must be a list", item_type="tools")
    out: list[ToolDefinition] = []
    for n, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, Mapping) else None
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str) or not fn.get("name") or tool.get("type", "function") != "function":
            report.add("dropped", "tool is not a function tool", index=n, item_type="tools", pointer=f"/tools/{n}")
            continue
        extra = {k: jcopy(v) for k, v in fn.items() if k not in ("name", "description", "parameters")}
        desc, params = fn.get("description"), fn.get("parameters")
        out.append(
            ToolDefinition(
                name=fn["name"],
                description=desc if isinstance(desc, str) else UNSET,
                parameters=jcopy(dict(params)) if isinstance(params, Mapping) else UNSET,
                provider_data={"ollama": extra} if extra else UNSET,
            )
        )
    return out


def encode_tools(tools: list[ToolDefinition], report: Report) -> list[dict[str, Any]]:
    """Tool definitions -> ``[{type: "function", function: {...}}]`` (``strict`` reported)."""
    out = []
    for n, tool in enumerate(tools):
        fn: dict[str, Any] = {"name": tool.name}
        if tool.description is not UNSET:
            fn["description"] = tool.description
        if tool.parameters is not UNSET:
            fn["parameters"] = jcopy(tool.parameters)
        if tool.provider_data is not UNSET:
            fn.update(jcopy(tool.provider_data.get("ollama", {})))
            for owner in tool.provider_data:
                if owner != "ollama":  # another provider's tool fields (e.g. an Anthropic server tool's type)
                    report.add("dropped", f"provider_data {owner!r} of tool {tool.name!r} is not for ollama", index=n, item_type="tools")
        if tool.strict is not UNSET:
            report.add("dropped", "tool strict flag has no Ollama equivalent", index=n, item_type="tools")
        out.append({"type": "function", "function": fn})
    return out


@links_empty_ids
@guarded("ollama", "request")
def decode_request(body: Mapping[str, Any]) -> Conversion[Transcript]:
    """Ollama chat request body -> transcript (rules in the module docstring).

    Raises:
        ConversionError: ``messages`` missing or not a list.
    """
    report = Report()
    messages = body.get("messages") if isinstance(body, Mapping) else None
    if not isinstance(messages, list):
        raise ConversionError("Ollama chat request has no messages list")
    dec = MessageDecoder(report, _request_call_id)
    items: list[Item] = []
    for i, msg in enumerate(messages):
        items.extend(dec.decode(msg, i, f"m{i}", f"/messages/{i}"))
    tools: Any = UNSET
    if body.get("tools"):
        tools = decode_tools(body["tools"], report)
    settings = decode_settings(body)
    return Conversion(Transcript(schema_version=SCHEMA_VERSION, items=items, tools=tools, settings=settings), report)  # type: ignore[arg-type]


def encode_request(transcript: Transcript, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
    """Transcript -> Ollama chat request body (``model`` first when given, then messages, tools and settings).

    Raises:
        ConversionError: under policy ``error``, for content Ollama cannot carry.
        MalformedArgumentsError: under policy ``error``, for a call without an arguments object.
    """
    report = Report()
    enc = MessageEncoder(policy, report)
    items = list(transcript.items)
    enc.index_calls(items)
    for idx, item in enumerate(items):
        enc.add(idx, item)
    body: dict[str, Any] = {}
    if model:
        body["model"] = model
    body["messages"] = enc.messages
    if transcript.tools is not UNSET and transcript.tools:
        body["tools"] = encode_tools(transcript.tools, report)
    if transcript.tool_choice is not UNSET:
        report.add("dropped", "Ollama has no tool choice", item_type="tool_choice")
    settings = settings_of(transcript)
    note_model(report, model, settings, NAME)
    encode_settings(settings, body, policy=policy, report=report)
    return Conversion(body, report)
