"""Cohere v2 ``POST /v2/chat`` request body <-> transcript (Cohere API reference "Chat" (v2); cohere-python ``V2Client.chat``).

``{model, messages, tools?, tool_choice?, stream?, max_tokens?, ...}``:

* ``messages[i]`` -> items with message key ``f"m{i}"`` (rules in :mod:`._messages`).
* ``tools[]`` (``{type: "function", function: {name, description, parameters}}``) -> tool definitions;
  other fields go to the definition's ``provider_data["cohere"]``.
* ``tool_choice``: ``"REQUIRED"`` -> ``required``, ``"NONE"`` -> ``none``; absent is Cohere's default
  (the model decides). Cohere cannot force one named tool: ``mode: "tool"`` is sent as ``REQUIRED``
  with only that tool kept, reported. A ``parallel`` flag has no Cohere field (reported).
* every other field goes into ``settings`` (:mod:`._settings`); ``encode_request`` writes ``model``
  only from its ``model`` argument (ADR 0007); the Chat API requires one, so its absence is reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ...codec import SCHEMA_VERSION, Item
from ...errors import ConversionError
from ...items import ToolChoice, ToolDefinition, Transcript
from ...mapping.protocol import Conversion
from ...mapping.report import Policy, Report
from ...mapping.tool_definitions import require_tool_definitions
from ...mapping.settings import note_model, settings_of
from ...mapping.wire import guarded
from ...mapping.empty_ids import links_empty_ids
from ._common import NAME, jcopy
from ._messages import MessageDecoder, MessageEncoder
from ._settings import decode_settings, encode_settings

UNSET = msgspec.UNSET

__all__ = ["decode_request", "encode_request"]

_CHOICES = {"REQUIRED": "required", "NONE": "none"}


def decode_tools(tools: Any, report: Report) -> list[ToolDefinition]:
    """``tools[]`` -> tool definitions (a non-function tool is reported dropped)."""
    if not isinstance(tools, list):
        raise ConversionError("Cohere tools must be a list", item_type="tools")
    out: list[ToolDefinition] = []
    for n, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, Mapping) else None
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str) or not fn["name"] or tool.get("type", "function") != "function":
            report.add("dropped", "tool is not a function tool", index=n, item_type="tools", pointer=f"/tools/{n}")
            continue
        extra = {k: jcopy(v) for k, v in fn.items() if k not in ("name", "description", "parameters")}
        extra.update({f"tool.{k}": jcopy(v) for k, v in tool.items() if k not in ("type", "function")})
        desc, params = fn.get("description"), fn.get("parameters")
        out.append(
            ToolDefinition(
                name=fn["name"],
                description=desc if isinstance(desc, str) else UNSET,
                parameters=jcopy(dict(params)) if isinstance(params, Mapping) else UNSET,
                provider_data={NAME: extra} if extra else UNSET,
            )
        )
    return out


def encode_tools(tools: list[ToolDefinition], report: Report) -> list[dict[str, Any]]:
    """Tool definitions -> ``[{type: "function", function: {...}}]`` (``strict`` reported: Cohere's is
    the request-level ``strict_tools``)."""
    out = []
    for n, tool in enumerate(tools):
        fn: dict[str, Any] = {"name": tool.name}
        if tool.description is not UNSET:
            fn["description"] = tool.description
        fn["parameters"] = jcopy(tool.parameters) if tool.parameters is not UNSET else {"type": "object", "properties": {}}
        outer: dict[str, Any] = {"type": "function"}
        if tool.provider_data is not UNSET:
            own = tool.provider_data.get(NAME, {})
            if not isinstance(own, dict):  # provider_data holds any JSON
                report.add("dropped", f"provider_data 'cohere' of tool {tool.name!r} is not an object ({type(own).__name__})", index=n, item_type="tools")
                own = {}
            for key, value in own.items():
                if key.startswith("tool."):
                    outer[key[5:]] = jcopy(value)
                else:
                    fn.setdefault(key, jcopy(value))
            for owner in tool.provider_data:
                if owner != NAME:
                    report.add("dropped", f"provider_data {owner!r} of tool {tool.name!r} is not for cohere", index=n, item_type="tools")
        if tool.strict is not UNSET:
            report.add("dropped", "tool strict flag: Cohere's is the request-level strict_tools", index=n, item_type="tools")
        outer["function"] = fn
        out.append(outer)
    return out


@links_empty_ids
@guarded(NAME, "request")
def decode_request(body: Mapping[str, Any]) -> Conversion[Transcript]:
    """Cohere v2 chat request body -> transcript (rules in the module docstring).

    Raises:
        ConversionError: ``messages`` missing or not a list; ``tools`` not a list.
    """
    report = Report()
    messages = body.get("messages") if isinstance(body, Mapping) else None
    if not isinstance(messages, list):
        raise ConversionError("Cohere chat request has no messages list")
    dec = MessageDecoder(report)
    items: list[Item] = []
    for i, msg in enumerate(messages):
        items.extend(dec.decode(msg, i, f"m{i}", f"/messages/{i}"))
    tools: Any = UNSET
    if body.get("tools"):
        tools = decode_tools(body["tools"], report)
    choice: Any = UNSET
    raw_choice = body.get("tool_choice")
    rest = dict(body)
    if isinstance(raw_choice, str) and raw_choice in _CHOICES:
        choice = ToolChoice(mode=_CHOICES[raw_choice])  # type: ignore[arg-type]
        del rest["tool_choice"]
    elif raw_choice is not None:
        report.add("changed", f"tool_choice {raw_choice!r} is not a Cohere value (REQUIRED, NONE); kept in the settings' provider_data", item_type="tool_choice")
    settings = decode_settings(rest)
    return Conversion(Transcript(schema_version=SCHEMA_VERSION, items=items, tools=tools, tool_choice=choice, settings=settings), report)  # type: ignore[arg-type]


def encode_request(transcript: Transcript, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
    """Transcript -> Cohere v2 chat request body (``model`` first when given, then messages, tools, tool choice, settings).

    Raises:
        ConversionError: under policy ``error``, for content Cohere cannot carry, or a history with
            tool calls and no tool definitions (``drop``/``degrade`` synthesize them, reported).
        MalformedArgumentsError: under policy ``error``, for a call without an arguments object.
    """
    report = Report()
    # a history with tool items needs tool definitions (mapping/tool_definitions.py; the preflight applies the same rule)
    transcript = require_tool_definitions(transcript, NAME, policy, report)
    enc = MessageEncoder(policy, report)
    for idx, item in enumerate(transcript.items):
        enc.add(idx, item)
    body: dict[str, Any] = {}
    settings = settings_of(transcript)
    if model:
        body["model"] = model
    body["messages"] = enc.finish()
    tools = transcript.tools if transcript.tools is not UNSET else []
    choice = transcript.tool_choice
    if choice is not UNSET and choice.mode == "tool":
        kept = [t for t in tools if t.name == choice.name]
        if len(kept) != len(tools):
            report.add("changed", f"Cohere cannot force one named tool: only {choice.name!r} is sent, with tool_choice REQUIRED", item_type="tool_choice")
        tools = kept
    if tools:
        body["tools"] = encode_tools(list(tools), report)
    if choice is not UNSET:
        if choice.mode in ("required", "tool"):
            body["tool_choice"] = "REQUIRED"
        elif choice.mode == "none":
            body["tool_choice"] = "NONE"
        if choice.parallel is not UNSET:
            report.add("dropped", "Cohere has no parallel tool call switch", item_type="tool_choice")
    note_model(report, model, settings, NAME)
    encode_settings(settings, body, policy=policy, report=report)
    return Conversion(body, report)
