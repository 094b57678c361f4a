"""OpenAI Chat request bodies <-> transcripts.

Sources: openai-python ``types/chat/completion_create_params.py`` (``messages``, ``tools``,
``tool_choice``, ``parallel_tool_calls``), ``chat_completion_function_tool_param.py`` and
``shared_params/function_definition.py`` (``{name, description, parameters, strict}``),
``chat_completion_tool_choice_option_param.py`` (``"auto"|"none"|"required"`` or
``{type:"function", function:{name}}``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ...codec import SCHEMA_VERSION, Item
from ...items import ToolChoice, ToolDefinition, Transcript
from ...mapping.hosted_tools import hosted_tools, merge_hosted_tools, with_hosted_tools, without_hosted_tools
from ...mapping.ids import IdMap, IdRule
from ...mapping.report import Policy, Report
from ...mapping.settings import note_model, settings_of
from ...mapping.wire import guarded
from ._common import NAME, Dialect
from ._decode import MessageDecoder
from ._encode import MessageEncoder
from ._settings import decode_settings, encode_settings

__all__ = ["decode_request", "encode_request"]

U = msgspec.UNSET

_FUNCTION_KEYS = frozenset({"name", "description", "parameters", "strict"})
_NOTHING: frozenset[str] = frozenset()
_KEYS = tuple(f"m{i}" for i in range(512))
"""The ``message`` keys of the first messages (``m{i}``), made once."""


def _tool_definition(entry: Any, index: int, report: Report) -> ToolDefinition | None:
    pointer = f"/tools/{index}"
    if not isinstance(entry, dict):
        report.add("dropped", "tool definition is not a JSON object", pointer=pointer)
        return None
    kind = entry.get("type", "function")
    fn = entry.get(kind) if isinstance(kind, str) else None
    if _hosted(entry):
        return None  # kept in the settings (see decode_request)
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str) or not fn["name"]:
        report.add("dropped", f"tool definition of type {kind!r} without a name", pointer=pointer)
        return None
    if kind != "function":
        # Custom tools: kept whole for a same-provider round trip.
        return ToolDefinition(name=fn["name"], description=fn.get("description", U) if isinstance(fn.get("description"), str) else U, provider_data={"openai-chat": copy.deepcopy(entry)})
    rest = {k: v for k, v in fn.items() if k not in _FUNCTION_KEYS}
    outer = {k: v for k, v in entry.items() if k not in ("type", "function")}
    provider_data: Any = U
    if rest or outer:
        provider_data = {"openai-chat": {"function": copy.deepcopy(rest), **copy.deepcopy(outer)}}
    return ToolDefinition(
        name=fn["name"],
        description=fn["description"] if isinstance(fn.get("description"), str) else U,
        parameters=copy.deepcopy(fn["parameters"]) if isinstance(fn.get("parameters"), dict) else U,
        strict=fn["strict"] if isinstance(fn.get("strict"), bool) else U,
        provider_data=provider_data,
    )


def _hosted(entry: Any) -> bool:
    """Whether a ``tools[]`` entry is a tool the host runs itself: a typed tool that is not a function
    and holds no ``<type>`` object with a name (OpenRouter ``{"type": "openrouter:web_search",
    "parameters": {...}}``, openrouter.ai docs "Server tools"; a ``custom`` tool has one)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("type"), str) or entry["type"] == "function":
        return False
    body = entry.get(entry["type"])
    return not (isinstance(body, dict) and isinstance(body.get("name"), str) and body["name"])


def _tool_choice(body: Mapping[str, Any], report: Report) -> ToolChoice | None:
    choice = body.get("tool_choice")
    parallel = body.get("parallel_tool_calls")
    parallel_v: Any = parallel if isinstance(parallel, bool) else U
    if choice in ("auto", "none", "required"):
        return ToolChoice(mode=choice, parallel=parallel_v)
    if isinstance(choice, dict) and choice.get("type") == "function" and isinstance(choice.get("function"), dict) and isinstance(choice["function"].get("name"), str):
        return ToolChoice(mode="tool", name=choice["function"]["name"], parallel=parallel_v)
    if parallel_v is not U:
        # parallel_tool_calls alone: the default choice with tools is "auto" (written back only with tools).
        return ToolChoice(mode="auto", parallel=parallel_v)
    return None


@guarded("openai-chat", "request")
def decode_request(body: Mapping[str, Any], report: Report, dialect: Dialect = "openai") -> Transcript:
    """Request body -> transcript: ``messages`` (key ``m{i}``), ``tools``, ``tool_choice``, ``settings``.

    Every other top-level field (``model`` and ``stream`` included) goes into ``settings``
    (:func:`._settings.decode_settings`): canonical fields where it has a canonical meaning, else
    ``settings.provider_data["openai-chat"]`` as given, including a ``tool_choice`` with no canonical
    form. ``dialect`` decides which output-budget and effort fields are the provider's own.
    """
    decoder = MessageDecoder(report, None, request=True, dialect=dialect)
    items: list[Item] = []
    messages = body.get("messages")
    if not isinstance(messages, list):
        report.add("dropped", "request has no messages list", pointer="/messages")
        messages = []
    plain, general = decoder.plain, decoder.message
    keys = _KEYS if len(messages) <= len(_KEYS) else [f"m{i}" for i in range(len(messages))]
    for i, msg in enumerate(messages):
        key = keys[i]
        got = plain(msg, key) if type(msg) is dict else None  # the usual shapes, read directly
        items.extend(got if got is not None else general(msg, index=i, key=key, plain=False))
    tools: Any = U
    kept: list[Any] | None = None
    if isinstance(body.get("tools"), list):
        decoded = [_tool_definition(e, j, report) for j, e in enumerate(body["tools"])]
        tools = [t for t in decoded if t is not None]
        slots = [(e, t is not None) for e, t in zip(body["tools"], decoded) if t is not None or _hosted(e)]
        kept = hosted_tools([e for e, _ in slots], [ok for _, ok in slots])
    elif body.get("tools") is not None:
        report.add("dropped", "tools is not a list", pointer="/tools")
    # (neither field: no tool choice, and nothing consumed)
    choice = _tool_choice(body, report) if "tool_choice" in body or "parallel_tool_calls" in body else None
    consumed = set()
    if choice is not None:
        if isinstance(body.get("parallel_tool_calls"), bool):
            consumed.add("parallel_tool_calls")
        if choice.mode != "auto" or body.get("tool_choice") == "auto":
            consumed.add("tool_choice")
    settings = decode_settings(body, dialect, frozenset(consumed) if consumed else _NOTHING)
    if kept is not None:
        settings = with_hosted_tools(settings, NAME, kept)
    if isinstance(body.get("functions"), list):
        # Deprecated `functions`: read as function tools.
        report.add("changed", "deprecated functions read as function tools", pointer="/functions")
        extra = [t for t in (_tool_definition({"type": "function", "function": f}, j, report) for j, f in enumerate(body["functions"])) if t is not None]
        tools = (tools if tools is not U else []) + extra
    return Transcript(schema_version=SCHEMA_VERSION, items=items, tools=tools, tool_choice=choice if choice is not None else U, settings=settings)  # type: ignore[arg-type]


def _tool_to_wire(tool: ToolDefinition, report: Report | None = None, index: int | None = None) -> dict[str, Any]:
    """A tool definition -> ``ChatCompletionFunctionToolParam`` (or this format's own non-function tool).

    Another provider's ``provider_data`` (e.g. an Anthropic server tool's ``type``) has no Chat form:
    it is left out and reported.
    """
    own = tool.provider_data.get("openai-chat") if isinstance(tool.provider_data, dict) else None
    if report is not None and isinstance(tool.provider_data, dict):
        for owner in tool.provider_data:
            if owner != "openai-chat":
                report.add("dropped", f"provider_data {owner!r} of tool {tool.name!r} is not for openai-chat", index=index, item_type="tool")
    if isinstance(own, dict) and own.get("type") not in (None, "function"):
        return copy.deepcopy(own)
    fn: dict[str, Any] = {"name": tool.name}
    if tool.description is not U:
        fn["description"] = tool.description
    if tool.parameters is not U:
        fn["parameters"] = copy.deepcopy(tool.parameters)
    if tool.strict is not U:
        fn["strict"] = tool.strict
    entry: dict[str, Any] = {"type": "function", "function": fn}
    if isinstance(own, dict):
        for k, v in own.items():
            if k == "function" and isinstance(v, dict):
                for fk, fv in v.items():
                    fn.setdefault(fk, copy.deepcopy(fv))
            else:
                entry.setdefault(k, copy.deepcopy(v))
    return entry


def _own_tool_choice(transcript: Transcript) -> bool:
    """Whether the settings keep a ``tool_choice`` with no canonical form (written back as given)."""
    data = settings_of(transcript).provider_data
    return isinstance(data, dict) and isinstance(data.get(NAME), dict) and "tool_choice" in data[NAME]


def encode_request(
    transcript: Transcript, *, dialect: Dialect, rule: IdRule, model: str | None, policy: Policy, report: Report
) -> dict[str, Any]:
    """Transcript -> request body ``{model?, messages, tools?, tool_choice?, parallel_tool_calls?, <settings>}``.

    ``model`` comes only from the ``model`` argument (a body without one is reported); the settings are
    written by :func:`._settings.encode_settings`.

    Raises:
        ConversionError: under policy ``error``, for content OpenAI Chat cannot carry, or a JSON Schema
            response format the dialect cannot enforce.
        MalformedArgumentsError: under policy ``error``, for a tool call without an arguments object.
    """
    ids = IdMap(rule, report)
    held_with = settings_of(transcript).model
    same_host = isinstance(held_with, str) and (model is None or model == held_with)
    encoder = MessageEncoder(dialect=dialect, policy=policy, report=report, ids=ids, model=model, same_host=same_host)
    body: dict[str, Any] = {}
    if model is not None:
        body["model"] = model
    body["messages"] = encoder.messages(list(transcript.items))
    tools = transcript.tools if transcript.tools is not U else []
    settings, hosted = without_hosted_tools(settings_of(transcript), NAME)
    if tools or hosted:
        body["tools"] = merge_hosted_tools([_tool_to_wire(t, report, k) for k, t in enumerate(tools)], hosted)
    choice = transcript.tool_choice
    if choice is not U:
        if choice.mode == "tool":
            if choice.name is U:
                report.unsupported(policy, "tool choice mode 'tool' without a name", item_type="tool_choice")
            else:
                body["tool_choice"] = {"type": "function", "function": {"name": choice.name}}
        elif choice.mode != "auto" or (tools and not _own_tool_choice(transcript)):
            body["tool_choice"] = choice.mode
        if choice.parallel is not U and tools:
            body["parallel_tool_calls"] = choice.parallel
    note_model(report, model, settings, NAME)
    encode_settings(settings, body, dialect=dialect, policy=policy, report=report)
    return body
