"""Responses request bodies (``POST /v1/responses``) <-> transcripts.

The conversation is ``instructions``, ``input``, ``tools``, ``tool_choice`` and
``parallel_tool_calls``; every other field (``model``, ``stream``, ``reasoning``, ``text``,
``max_output_tokens``, ``store``, ``include``, ...) is a setting (:mod:`._settings`).
``encode_request`` writes ``model`` only when given. Sources: OAI
``types/responses/response_create_params.py`` and siblings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ...codec import SCHEMA_VERSION, Item
from ...items import Settings, TextItem, ToolCallItem, ToolChoice, ToolDefinition, ToolResultItem, Transcript
from ...mapping.hosted_tools import hosted_tools, merge_hosted_tools, with_hosted_tools, without_hosted_tools
from ...mapping.ids import IdMap
from ...mapping.protocol import Conversion
from ...mapping.report import Policy, Report
from ...mapping.settings import note_model, settings_of
from ...mapping.wire import a_json_type, guarded
from ...mapping.empty_ids import links_empty_ids
from ._common import ID_RULE, NAME, UNSET, plain
from ._items import DecodeContext, EncodeContext, decode_wire_item, raw_item
from ._sequence import encode_sequence
from ._settings import decode_settings, encode_settings

__all__ = ["INSTRUCTIONS_KEY", "decode_request", "encode_request"]

INSTRUCTIONS_KEY = "instructions"
"""``message`` key of the system text item made from ``instructions``."""

_FUNCTION_TOOL_FIELDS = {"type", "name", "description", "parameters", "strict"}
_STATEFUL = ("previous_response_id", "conversation", "prompt")


# --------------------------------------------------------------------------- decode


def _decode_tool(raw: Any, index: int, report: Report) -> ToolDefinition | None:
    """A function tool (OAI ``function_tool_param.py``) -> :class:`ToolDefinition`.

    ``parameters`` are kept exactly; fields with no canonical slot are kept in
    ``provider_data["openai-responses"]``. Other tool types (``web_search``, ``file_search``,
    ``mcp``, ``custom``, ...) have no canonical form: ``None``, and :func:`decode_request` keeps them
    in the settings for Responses (:mod:`interlingua.mapping.hosted_tools`).
    """
    if _hosted(raw):
        return None
    if not isinstance(raw, Mapping) or raw.get("type") != "function" or not isinstance(raw.get("name"), str) or not raw.get("name"):
        kind = raw.get("type") if isinstance(raw, Mapping) else type(raw).__name__
        report.add("dropped", f"tool of type {kind!r} has no canonical form", index=index, item_type="tool", pointer=f"/tools/{index}")
        return None
    description, parameters, strict = raw.get("description"), raw.get("parameters"), raw.get("strict")
    extra = {k: plain(v) for k, v in raw.items() if k not in _FUNCTION_TOOL_FIELDS}
    for name, value, ok in (("description", description, isinstance(description, str)), ("parameters", parameters, isinstance(parameters, Mapping)), ("strict", strict, isinstance(strict, bool))):
        if value is not None and not ok:
            extra[name] = plain(value)
    return ToolDefinition(
        name=raw["name"],
        description=description if isinstance(description, str) else UNSET,
        parameters=plain(dict(parameters)) if isinstance(parameters, Mapping) else UNSET,
        strict=strict if isinstance(strict, bool) else UNSET,
        provider_data={NAME: extra} if extra else UNSET,
    )


def _hosted(raw: Any) -> bool:
    """Whether a ``tools[]`` entry is a typed tool other than ``function`` (OAI ``tool_param.py``:
    ``web_search``, ``file_search``, ``code_interpreter``, ``image_generation``, ``mcp``, ``custom``,
    ``tool_search``, ``namespace``, ...)."""
    return isinstance(raw, Mapping) and isinstance(raw.get("type"), str) and raw["type"] != "function"


def _decode_tool_choice(body: Mapping[str, Any], report: Report) -> ToolChoice | Any:
    raw = body.get("tool_choice")
    parallel = body.get("parallel_tool_calls")
    parallel_value = parallel if isinstance(parallel, bool) else UNSET
    if raw is None:
        return ToolChoice(mode="auto", parallel=parallel_value) if parallel_value is not UNSET else UNSET
    if raw in ("auto", "none", "required"):
        return ToolChoice(mode=raw, parallel=parallel_value)
    if isinstance(raw, Mapping) and raw.get("type") == "function" and isinstance(raw.get("name"), str) and set(raw) == {"type", "name"}:
        return ToolChoice(mode="tool", name=raw["name"], parallel=parallel_value)
    # No canonical form (allowed_tools, a hosted tool, mcp, ...): kept in the settings' provider_data.
    return ToolChoice(mode="auto", parallel=parallel_value) if parallel_value is not UNSET else UNSET


@links_empty_ids
@guarded("openai-responses", "request")
def decode_request(body: Mapping[str, Any]) -> Conversion[Transcript]:
    """A Responses request body -> transcript.

    ``instructions`` becomes a leading ``TextItem(role="system", message="instructions")`` (an empty
    string is no text item: it is kept in the settings' ``provider_data`` and written back); a string ``input`` is one user text item; each input item ``i``
    becomes items keyed ``m{i}`` (see :func:`~._items.decode_wire_item`). Stateful references
    (``previous_response_id``, ``conversation``, ``prompt``) are reported: the stored prefix they
    point at is not in the transcript (they are kept in the settings' ``provider_data``, so the same
    provider gets them back). Every other top-level key (``model``, ``reasoning``, ``text``, ``include``,
    ``store``, ``stream``, ``max_output_tokens``, ...) goes into ``settings``
    (:func:`._settings.decode_settings`).
    """
    report = Report()
    items: list[Item] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        if instructions:
            items.append(TextItem(text=instructions, role="system", message=INSTRUCTIONS_KEY))
    elif instructions is not None:
        report.add("dropped", "instructions that are not a string are not carried", pointer="/instructions")
    raw_input = body.get("input")
    ctx = DecodeContext(report)
    if isinstance(raw_input, str):
        items.append(TextItem(text=raw_input, role="user", message="m0"))
    elif isinstance(raw_input, list):
        stateful = next((name for name in _STATEFUL if body.get(name) is not None), None)
        calls: set[str] = set()
        for i, raw in enumerate(raw_input):
            wire_items = decode_wire_item(raw, f"m{i}", ctx, i, f"/input/{i}")
            if stateful is not None:
                wire_items = _held_result(wire_items, raw, calls, stateful, report, i)
            items.extend(wire_items)
    elif raw_input is not None:
        report.add("dropped", f"input is {a_json_type(raw_input)}", pointer="/input")
    for name in _STATEFUL:
        if body.get(name) is not None:
            report.add("dropped", f"{name} refers to state stored by the provider; that part of the conversation is not in the transcript", pointer=f"/{name}")
    tools: Any = UNSET
    kept: list[Any] | None = None
    if isinstance(body.get("tools"), list):
        decoded = [_decode_tool(t, k, report) for k, t in enumerate(body["tools"])]
        tools = [t for t in decoded if t is not None]
        slots = [(t, d is not None) for t, d in zip(body["tools"], decoded) if d is not None or _hosted(t)]
        kept = hosted_tools([plain(t) for t, _ in slots], [ok for _, ok in slots])
    choice = _decode_tool_choice(body, report)
    conversation = {"instructions", "input", "tools"}
    if isinstance(choice, ToolChoice):
        if isinstance(body.get("parallel_tool_calls"), bool):
            conversation.add("parallel_tool_calls")
        if choice.mode != "auto" or body.get("tool_choice") == "auto":
            conversation.add("tool_choice")
    if not isinstance(body.get("instructions"), str) or body["instructions"] == "":
        # "" is no system text, yet it is what was sent: a setting, written back as given
        conversation.discard("instructions")
    if not isinstance(raw_input, (str, list)):
        conversation.discard("input")
    if not isinstance(body.get("tools"), list):
        conversation.discard("tools")
    settings = decode_settings(body, frozenset(conversation))
    if "tool_choice" not in body and isinstance(choice, ToolChoice):
        # no tool_choice, only parallel_tool_calls: the canonical "auto" is the default, not written back
        settings = _with_own(settings, "tool_choice", None)
    settings = with_hosted_tools(settings, NAME, kept)
    return Conversion(
        Transcript(schema_version=SCHEMA_VERSION, items=items, tools=tools, tool_choice=choice, settings=settings),  # type: ignore[arg-type]
        report,
    )


def _held_result(decoded: list[Item], raw: Any, calls: set[str], stateful: str, report: Report, index: int) -> list[Item]:
    """A ``function_call_output`` answering a call the request does not hold (the call is in the
    provider's stored state that ``previous_response_id``/``conversation`` points at) -> one ``raw``
    item of the wire item as sent: a result without its call is no canonical history, yet the request
    is complete for its provider, which gets it back as it was (every other target drops it, reported).
    The usual continuation of a tool call on the Responses API (OpenAI function-calling guide)."""
    for item in decoded:
        if isinstance(item, ToolCallItem):
            calls.add(item.id)
    results = [item for item in decoded if isinstance(item, ToolResultItem)]
    if not results or all(r.call_id in calls for r in results) or not isinstance(raw, Mapping):
        return decoded
    report.add(
        "changed",
        f"function_call_output answers call {results[0].call_id!r} held in the provider's stored state ({stateful}): kept as a raw openai-responses item",
        pointer=f"/input/{index}",
    )
    return [raw_item(raw, f"m{index}")]


def _with_own(settings: Any, key: str, value: Any) -> Settings:
    """``settings`` with ``provider_data["openai-responses"][key] = value``."""
    base = settings if isinstance(settings, Settings) else Settings()
    data = dict(base.provider_data) if isinstance(base.provider_data, dict) else {}
    data[NAME] = {**(data.get(NAME) or {}), key: value}
    return msgspec.structs.replace(base, provider_data=data)


def _without_own(settings: Settings, keys: list[str]) -> Settings:
    """``settings`` without ``provider_data["openai-responses"][key]`` for each of ``keys``."""
    data = settings.provider_data if isinstance(settings.provider_data, dict) else None
    if not keys or data is None or not isinstance(data.get(NAME), dict):
        return settings
    own = {k: v for k, v in data[NAME].items() if k not in keys}
    rest = {k: v for k, v in data.items() if k != NAME}
    if own:
        rest[NAME] = own
    return msgspec.structs.replace(settings, provider_data=rest if rest else UNSET)


# --------------------------------------------------------------------------- encode


def _encode_tool(tool: ToolDefinition, report: Report, index: int) -> dict[str, Any]:
    """A canonical tool -> ``FunctionToolParam`` (OAI ``types/responses/function_tool_param.py``).

    ``FunctionToolParam.strict`` and ``.parameters`` are ``Required``; an omitted ``strict`` makes
    Responses try strict mode (OpenAI function-calling guide), so a tool with no ``strict`` (a
    non-strict tool from another provider) is written ``strict: false``; a tool's own value is kept.
    A tool with no parameters is written with ``parameters: null`` (``Optional``, and required).
    """
    out: dict[str, Any] = {"type": "function", "name": tool.name}
    if tool.description is not UNSET:
        out["description"] = tool.description
    out["parameters"] = plain(tool.parameters) if tool.parameters is not UNSET else None
    out["strict"] = tool.strict if tool.strict is not UNSET else False
    if tool.provider_data is not UNSET:
        for owner, value in tool.provider_data.items():
            if owner == NAME and isinstance(value, Mapping):
                for key, field_value in value.items():
                    out.setdefault(key, plain(field_value))
            else:
                report.add("dropped", f"provider_data {owner!r} of tool {tool.name!r} is not for {NAME}", index=index, item_type="tool")
    return out


def _encode_tool_choice(choice: ToolChoice, report: Report) -> tuple[Any, Any]:
    if choice.mode == "tool" and not isinstance(choice.name, str):
        report.add("changed", "tool_choice mode 'tool' without a name sent as 'required'", item_type="tool_choice")
        return "required", choice.parallel
    wire: Any = {"type": "function", "name": choice.name} if choice.mode == "tool" else choice.mode
    return wire, choice.parallel


def _instructions(items: list[Item], report: Report) -> tuple[str | None, int]:
    """Leading system text items keyed ``instructions`` (or unkeyed) -> the ``instructions`` string."""
    texts: list[str] = []
    k = 0
    while k < len(items):
        item = items[k]
        if not (
            isinstance(item, TextItem)
            and item.role == "system"
            and item.message in (UNSET, INSTRUCTIONS_KEY)
            and (item.annotations is UNSET or not item.annotations)
        ):
            break
        texts.append(item.text)
        k += 1
    if not texts:
        return None, 0
    if not any(texts):
        # instructions "" is the same as no instructions: the empty text cannot come back
        for n in range(k):
            report.add("dropped", "empty system text: empty instructions are the same as none", index=n, item_type="text")
        return None, k
    if len(texts) > 1:
        report.add("changed", f"{len(texts)} leading system text items joined into instructions with blank lines", index=0, item_type="text")
    return "\n\n".join(texts), k


def encode_request(transcript: Transcript, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
    """Transcript -> Responses request body (``model``, ``instructions``, ``input``, ``tools``,
    ``tool_choice``, ``parallel_tool_calls``).

    Leading system text items keyed ``instructions`` (or unkeyed) become ``instructions`` (left out,
    and reported, when all of them are empty: ``""`` means no instructions); every
    other system or developer item stays an input message. Tool-call ids longer than 64 characters
    are mapped (same id on the call and its output) and reported.

    Raises:
        ConversionError: under policy ``error`` for content the API cannot carry.
        MalformedArgumentsError: under policy ``error`` for a tool call with malformed arguments.
    """
    report = Report()
    items: list[Item] = list(transcript.items)
    ids = IdMap(ID_RULE, report)
    ids.reserve([i.id for i in items if isinstance(i, ToolCallItem)] + [i.call_id for i in items if isinstance(i, ToolResultItem)])
    body: dict[str, Any] = {}
    if model is not None:
        body["model"] = model
    instructions, start = _instructions(items, report)
    if instructions is not None:
        body["instructions"] = instructions
    ctx = EncodeContext(policy, report, ids)
    body["input"] = encode_sequence(list(enumerate(items))[start:], ctx)
    settings, hosted = without_hosted_tools(settings_of(transcript), NAME)
    if transcript.tools is not UNSET or hosted:
        encoded = [_encode_tool(t, report, k) for k, t in enumerate(transcript.tools)] if transcript.tools is not UNSET else []
        body["tools"] = merge_hosted_tools(encoded, hosted)
    own = settings.provider_data.get(NAME) if isinstance(settings.provider_data, dict) else None
    own = own if isinstance(own, dict) else {}
    no_choice = "tool_choice" in own and own["tool_choice"] is None  # the source had none (decode_request)
    # Hints that are no setting to write: that missing tool_choice, and the empty instructions kept
    # from the source once the transcript has system text of its own.
    settings = _without_own(settings, ["tool_choice"] * no_choice + ["instructions"] * ("instructions" in body and own.get("instructions") == ""))
    if transcript.tool_choice is not UNSET:
        choice, parallel = _encode_tool_choice(transcript.tool_choice, report)
        if not (choice == "auto" and "tool_choice" in own):
            body["tool_choice"] = choice
        if parallel is not UNSET:
            body["parallel_tool_calls"] = parallel
    note_model(report, model, settings, NAME)
    encode_settings(settings, body, policy=policy, report=report)
    return Conversion(body, report)
