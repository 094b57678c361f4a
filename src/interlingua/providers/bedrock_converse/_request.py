"""Amazon Bedrock Converse request bodies <-> transcripts.

Request shape: botocore ``bedrock-runtime`` ``ConverseRequest`` (AWS Bedrock API reference
"Converse": ``modelId``, ``messages``, ``system``, ``inferenceConfig``, ``toolConfig``,
``additionalModelRequestFields``, ``promptVariables``, ``requestMetadata``, ``performanceConfig``,
``guardrailConfig``, ``serviceTier``, ``outputConfig``, ``additionalModelResponseFieldPaths``).
``modelId`` is a URL path parameter on the wire (``POST /model/{modelId}/converse``); this mapper
keeps it in the body dict (as boto3's ``converse(**body)`` takes it) and the transport moves it to
the path.
"""

from __future__ import annotations

import re

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ...codec import SCHEMA_VERSION, Item
from ...errors import ConversionError, MalformedInputError
from ...items import (
    RawItem,
    ReasoningSettings,
    ResponseFormat,
    Settings,
    TextItem,
    ToolCallItem,
    ToolChoice,
    ToolDefinition,
    ToolResultItem,
    Transcript,
)
from ...mapping.protocol import Conversion
from ...mapping.tool_definitions import require_tool_definitions
from ...mapping.report import Policy, Report
from ...mapping.settings import approximated_setting, note_model, own_provider_data, settings_of, unsupported_setting
from ...mapping.settings_table import SettingsTable, Unsupported, Wire, encode_plain, report_unsupported
from ...mapping.wire import guarded
from ...mapping.empty_ids import links_empty_ids
from ._blocks import NAME, DecodeContext, Encoder, decode_blocks, item_type, speaker

__all__ = ["PROVIDER_DATA_KEYS", "SETTINGS_TABLE", "decode_request", "encode_request"]

PROVIDER_DATA_KEYS = (
    "promptVariables",
    "requestMetadata",
    "performanceConfig",
    "guardrailConfig",
    "serviceTier",
    "additionalModelResponseFieldPaths",
)
"""Top-level request fields with no canonical meaning, kept in ``settings.provider_data["bedrock-converse"]``."""

_CHOICE_IN = {"auto": "auto", "any": "required", "tool": "tool"}
_EFFORTS = frozenset({"none", "minimal", "low", "medium", "high", "xhigh"})
_EFFORT_BUDGET = {"minimal": 1024, "low": 1024, "medium": 4096, "high": 16384, "xhigh": 32768}
"""Effort level -> Anthropic ``thinking.budget_tokens`` on Bedrock (an approximation, reported)."""


_NO_INFERENCE_FIELD = Unsupported(why="no inferenceConfig field")

SETTINGS_TABLE = SettingsTable(
    NAME,
    NAME,
    {
        "model": Wire("modelId", "from encode_request(model=...) or a Bedrock id in the settings (the URL path on the wire)"),
        "max_output_tokens": Wire("inferenceConfig.maxTokens", plain=True),
        "temperature": Wire("inferenceConfig.temperature", plain=True),
        "top_p": Wire("inferenceConfig.topP", plain=True),
        "top_k": Wire("additionalModelRequestFields.top_k", "Anthropic's field on Bedrock", plain=True),
        "stop": Wire("inferenceConfig.stopSequences", plain=True),
        "stream": Unsupported(why="the endpoint decides: converse or converse-stream"),
        "seed": _NO_INFERENCE_FIELD,
        "presence_penalty": _NO_INFERENCE_FIELD,
        "frequency_penalty": _NO_INFERENCE_FIELD,
        "response_format.type": Wire("outputConfig.textFormat", "json_schema with a schema only; text writes nothing (the default); json_object refused"),
        "response_format.name": Wire("outputConfig.textFormat.structure.jsonSchema.name"),
        "response_format.description": Wire("outputConfig.textFormat.structure.jsonSchema.description"),
        "response_format.schema": Wire("outputConfig.textFormat.structure.jsonSchema.schema", "as a JSON string"),
        "response_format.strict": Unsupported(why="outputConfig enforces the schema", by_mapper=True),
        "reasoning.effort": Wire("additionalModelRequestFields.reasoning_effort", "Claude: a thinking budget (changed)"),
        "reasoning.budget_tokens": Wire("additionalModelRequestFields.thinking.budget_tokens", "0 -> thinking disabled"),
        "reasoning.summary": Unsupported(),
        "reasoning.include_thoughts": Unsupported(),
    },
)
"""What Bedrock Converse does with every canonical setting (ADR 0042); rows in the order they are reported; the
plain rows are written and read back by the shared loop (ADR 0044; a value that does not fit its setting stays in
provider data)."""


_BEDROCK_ID = re.compile(r"^(?:[a-z]{2,6}\.)?[a-z0-9-]+\.[A-Za-z0-9._:-]+$|^arn:aws")
"""A Bedrock model id (``<provider>.<model>``, an inference profile ``<geo>.<provider>.<model>``, or an ARN)."""


def _is_anthropic(model: str | None) -> bool:
    return model is not None and "anthropic." in model


# --------------------------------------------------------------------------- decode


def _decode_tools(config: Any, report: Report) -> tuple[list[ToolDefinition], ToolChoice | None]:
    if not isinstance(config, dict) or not isinstance(config.get("tools"), list):
        raise MalformedInputError("/toolConfig/tools", "toolConfig.tools is an array", provider=NAME)
    out: list[ToolDefinition] = []
    for j, tool in enumerate(config["tools"]):
        ptr = f"/toolConfig/tools/{j}"
        if not isinstance(tool, dict) or len(tool) != 1:
            raise MalformedInputError(ptr, "a tool is a one-member object (toolSpec, systemTool or cachePoint)", provider=NAME)
        ((key, value),) = tool.items()
        if key == "toolSpec" and isinstance(value, dict):
            if not isinstance(value.get("name"), str) or not value["name"]:
                raise MalformedInputError(f"{ptr}/toolSpec/name", "toolSpec.name is a non-empty string", provider=NAME)
            fields: dict[str, Any] = {}
            extra = {k: copy.deepcopy(v) for k, v in value.items() if k not in ("name", "description", "inputSchema", "strict")}
            if isinstance(value.get("description"), str):
                fields["description"] = value["description"]
            schema = value.get("inputSchema")
            if isinstance(schema, dict) and set(schema) == {"json"} and isinstance(schema["json"], dict):
                fields["parameters"] = copy.deepcopy(schema["json"])
            elif schema is not None:
                extra["inputSchema"] = copy.deepcopy(schema)
            if isinstance(value.get("strict"), bool):
                fields["strict"] = value["strict"]
            if extra:
                fields["provider_data"] = {NAME: extra}
            out.append(ToolDefinition(name=value["name"], **fields))
        elif key == "systemTool" and isinstance(value, dict) and isinstance(value.get("name"), str) and value["name"]:
            out.append(ToolDefinition(name=value["name"], provider_data={NAME: {"systemTool": copy.deepcopy(value)}}))
        elif key == "cachePoint" and out:
            data = out[-1].provider_data
            own = dict(data[NAME]) if data is not msgspec.UNSET and NAME in data else {}
            own["cachePoint"] = copy.deepcopy(value)
            out[-1].provider_data = {NAME: own}
        else:
            raise MalformedInputError(ptr, f"unknown tool member {key!r}", provider=NAME)
    choice = None
    raw = config.get("toolChoice")
    if raw is not None:
        if not isinstance(raw, dict) or len(raw) != 1 or next(iter(raw)) not in _CHOICE_IN:
            raise MalformedInputError("/toolConfig/toolChoice", "toolChoice has one member: auto, any or tool", provider=NAME)
        ((mode, value),) = raw.items()
        if mode == "tool":
            if not isinstance(value, dict) or not isinstance(value.get("name"), str):
                raise MalformedInputError("/toolConfig/toolChoice/tool/name", "toolChoice.tool.name is a string", provider=NAME)
            choice = ToolChoice(mode="tool", name=value["name"])
        else:
            choice = ToolChoice(mode=_CHOICE_IN[mode])  # type: ignore[arg-type]
    for key in config:
        if key not in ("tools", "toolChoice"):
            report.add("dropped", f"toolConfig field {key!r} is not modelled", pointer=f"/toolConfig/{key}")
    return out, choice


def _decode_output_format(output: Any) -> ResponseFormat | None:
    """``outputConfig.textFormat`` of type json_schema -> ResponseFormat, when it round-trips exactly."""
    fmt = output.get("textFormat") if isinstance(output, dict) else None
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema" or set(fmt) != {"type", "structure"}:
        return None
    structure = fmt["structure"]
    schema_def = structure.get("jsonSchema") if isinstance(structure, dict) and set(structure) == {"jsonSchema"} else None
    if not isinstance(schema_def, dict) or not isinstance(schema_def.get("schema"), str) or set(schema_def) - {"schema", "name", "description"}:
        return None
    try:
        parsed = msgspec.json.decode(schema_def["schema"])
    except msgspec.DecodeError:
        return None
    if not isinstance(parsed, dict) or msgspec.json.encode(parsed).decode() != schema_def["schema"]:
        return None
    rf: dict[str, Any] = {"type": "json_schema", "schema": parsed}
    for k in ("name", "description"):
        if isinstance(schema_def.get(k), str):
            rf[k] = schema_def[k]
    return ResponseFormat(**rf)


def _decode_settings(body: Mapping[str, Any]) -> Settings | None:
    fields: dict[str, Any] = {}
    data: dict[str, Any] = {}
    if isinstance(body.get("modelId"), str) and body["modelId"]:
        fields["model"] = body["modelId"]
    inference = body.get("inferenceConfig")
    if inference is not None:
        if not isinstance(inference, dict):
            raise MalformedInputError("/inferenceConfig", "inferenceConfig is an object", provider=NAME)
        rest: dict[str, Any] = {}
        plain = SETTINGS_TABLE.reader("inferenceConfig")
        for key, value in inference.items():
            if not plain.take(key, value, fields, rest):
                rest[key] = copy.deepcopy(value)
        if rest or not inference:
            data["inferenceConfig"] = rest  # kept as given (an empty inferenceConfig round-trips too)
    extra = body.get("additionalModelRequestFields")
    if extra is not None:
        if not isinstance(extra, dict):
            raise MalformedInputError("/additionalModelRequestFields", "additionalModelRequestFields is an object", provider=NAME)
        rest = {}
        reasoning: dict[str, Any] = {}
        in_extra = SETTINGS_TABLE.reader("additionalModelRequestFields")
        for key, value in extra.items():
            if in_extra.take(key, value, fields, rest):
                continue
            if key == "thinking" and isinstance(value, dict) and value.get("type") == "enabled" and set(value) == {"type", "budget_tokens"} and isinstance(value["budget_tokens"], int) and not isinstance(value["budget_tokens"], bool) and value["budget_tokens"] >= 0:
                reasoning["budget_tokens"] = value["budget_tokens"]
            elif key == "reasoning_effort" and value in _EFFORTS:
                reasoning["effort"] = value
            else:
                rest[key] = copy.deepcopy(value)
        if reasoning:
            fields["reasoning"] = ReasoningSettings(**reasoning)
        if rest or not extra:
            data["additionalModelRequestFields"] = rest
    output = body.get("outputConfig")
    if output is not None:
        rf = _decode_output_format(output)
        if rf is not None:
            fields["response_format"] = rf
            rest_out = {k: copy.deepcopy(v) for k, v in output.items() if k != "textFormat"}
            if rest_out:
                data["outputConfig"] = rest_out
        else:
            data["outputConfig"] = copy.deepcopy(output)
    if body.get("system") == []:
        data["system"] = []  # an empty system list (sent by pydantic-ai) round-trips as given
    for key in PROVIDER_DATA_KEYS:
        if key in body:
            data[key] = copy.deepcopy(body[key])
    for key in body:
        if key not in _CONVERSATION_KEYS and key not in PROVIDER_DATA_KEYS and key not in ("modelId", "inferenceConfig", "additionalModelRequestFields", "outputConfig"):
            data[key] = copy.deepcopy(body[key])
    if data:
        fields["provider_data"] = {NAME: data}
    return Settings(**fields) if fields else None


_CONVERSATION_KEYS = frozenset({"messages", "system", "toolConfig"})


@links_empty_ids
@guarded(NAME, "request")
def decode_request(body: Mapping[str, Any]) -> Conversion[Transcript]:
    """Converse request body (REST JSON or boto3 kwargs) -> transcript.

    ``system`` blocks become leading ``TextItem(role="system")`` items (a ``cachePoint`` there sets
    the text's ``cache_breakpoint``); each message's blocks become items keyed ``m{i}``.
    ``toolConfig.tools[].toolSpec`` become tool definitions (``inputSchema.json`` -> ``parameters``;
    ``systemTool`` and tool ``cachePoint`` entries stay in the tool's ``provider_data``);
    ``toolChoice`` ``auto``/``any``/``tool`` -> ``auto``/``required``/``tool``. Settings:
    ``modelId`` -> ``model``; ``inferenceConfig`` ``maxTokens``/``temperature``/``topP``/
    ``stopSequences`` -> ``max_output_tokens``/``temperature``/``top_p``/``stop``;
    ``additionalModelRequestFields`` ``top_k`` -> ``top_k``, ``thinking: {type: enabled,
    budget_tokens}`` -> ``reasoning.budget_tokens``, ``reasoning_effort`` -> ``reasoning.effort``;
    ``outputConfig.textFormat`` json_schema -> ``response_format``; everything else
    (``promptVariables``, ``requestMetadata``, ``performanceConfig``, ``guardrailConfig``,
    ``serviceTier``, other model fields) -> ``settings.provider_data["bedrock-converse"]``.

    Raises:
        MalformedInputError: ``messages`` missing or not a list of ``{role, content}`` objects, or a
            block of the wrong shape (with its JSON pointer).
    """
    report = Report()
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise MalformedInputError("/messages", "messages is an array", provider=NAME)
    items: list[Item] = []
    if body.get("system") is not None:
        items.extend(decode_blocks(body["system"], DecodeContext(role="system", message=None, origin=None, report=report, pointer="/system")))
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
            raise MalformedInputError(f"/messages/{i}/role", "a message role is 'user' or 'assistant'", provider=NAME)
        ctx = DecodeContext(role=msg["role"], message=f"m{i}", origin=None, report=report, pointer=f"/messages/{i}/content", index=i)
        items.extend(decode_blocks(msg.get("content"), ctx))
    fields: dict[str, Any] = {}
    if body.get("toolConfig") is not None:
        tools, choice = _decode_tools(body["toolConfig"], report)
        fields["tools"] = tools
        if choice is not None:
            fields["tool_choice"] = choice
    settings = _decode_settings(body)
    if settings is not None:
        fields["settings"] = settings
    return Conversion(Transcript(schema_version=SCHEMA_VERSION, items=items, **fields), report)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- encode


def _encode_tools(tools: list[ToolDefinition], report: Report) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for t in tools:
        extra = own_provider_data(t.provider_data, NAME, report, what=f"tool {t.name!r}", item_type="tools")
        cache_point = extra.pop("cachePoint", None)
        if "systemTool" in extra:
            out.append({"systemTool": extra["systemTool"]})
        else:
            spec: dict[str, Any] = {"name": t.name}
            if t.description is not msgspec.UNSET and t.description:
                spec["description"] = t.description
            if t.parameters is not msgspec.UNSET:
                spec["inputSchema"] = {"json": copy.deepcopy(t.parameters)}
            elif "inputSchema" not in extra:
                spec["inputSchema"] = {"json": {"type": "object", "properties": {}}}
                report.add("changed", f"tool {t.name!r} has no parameters schema; sent with an empty object schema (inputSchema is required)", item_type="tools")
            if t.strict is not msgspec.UNSET:
                spec["strict"] = t.strict
            spec.update(extra)
            out.append({"toolSpec": spec})
        if cache_point is not None:
            out.append({"cachePoint": cache_point})
    return out


def _encode_tool_choice(choice: ToolChoice, report: Report) -> dict[str, Any] | None:
    if choice.parallel is not msgspec.UNSET:
        report.add("dropped", "tool_choice.parallel has no Converse equivalent", item_type="tool_choice")
    if choice.mode == "auto":
        return {"auto": {}}
    if choice.mode == "required":
        return {"any": {}}
    if choice.mode == "tool":
        if choice.name is msgspec.UNSET:
            raise ConversionError("tool_choice mode 'tool' needs a tool name", item_type="tool_choice")
        return {"tool": {"name": choice.name}}
    report.add("dropped", f"tool_choice {choice.mode!r} has no Converse equivalent (auto, any, tool); tools sent with the default choice", item_type="tool_choice")
    return None


def _encode_settings(settings: Settings, body: dict[str, Any], model: str | None, policy: Policy, report: Report) -> None:
    data = own_provider_data(settings.provider_data, NAME, report, what="settings", settings=settings)
    inference: dict[str, Any] = data.pop("inferenceConfig", None) or {}
    extra: dict[str, Any] = data.pop("additionalModelRequestFields", None) or {}
    had_inference = "inferenceConfig" in (settings.provider_data[NAME] if settings.provider_data is not msgspec.UNSET and NAME in settings.provider_data else {})
    had_extra = "additionalModelRequestFields" in (settings.provider_data[NAME] if settings.provider_data is not msgspec.UNSET and NAME in settings.provider_data else {})
    output: dict[str, Any] = data.pop("outputConfig", None) or {}
    encode_plain(settings, SETTINGS_TABLE, inference, under="inferenceConfig")
    # top_k: Anthropic's field on Bedrock; other families (Nova: inferenceConfig.topK) keep theirs in provider_data.
    encode_plain(settings, SETTINGS_TABLE, extra, under="additionalModelRequestFields")
    report_unsupported(settings, SETTINGS_TABLE, policy=policy, report=report)
    reasoning = settings.reasoning
    if isinstance(reasoning, ReasoningSettings):
        if reasoning.budget_tokens is not msgspec.UNSET:
            extra["thinking"] = {"type": "enabled", "budget_tokens": reasoning.budget_tokens} if reasoning.budget_tokens > 0 else {"type": "disabled"}
        if reasoning.effort is not msgspec.UNSET:
            if _is_anthropic(model) and reasoning.budget_tokens is msgspec.UNSET:
                if reasoning.effort == "none":
                    extra["thinking"] = {"type": "disabled"}
                    approximated_setting(report, "reasoning.effort", "none", "additionalModelRequestFields.thinking", extra["thinking"])
                else:
                    budget = _EFFORT_BUDGET[reasoning.effort]
                    extra["thinking"] = {"type": "enabled", "budget_tokens": budget}
                    approximated_setting(report, "reasoning.effort", reasoning.effort, "additionalModelRequestFields.thinking.budget_tokens", budget)
            else:
                extra["reasoning_effort"] = reasoning.effort
        report_unsupported(reasoning, SETTINGS_TABLE, policy=policy, report=report, group="reasoning")
    fmt = settings.response_format
    if isinstance(fmt, ResponseFormat) and fmt.type != "text":
        if fmt.type == "json_schema" and fmt.schema is not msgspec.UNSET:
            schema_def: dict[str, Any] = {"schema": msgspec.json.encode(fmt.schema).decode()}
            for k in ("name", "description"):
                if getattr(fmt, k) is not msgspec.UNSET:
                    schema_def[k] = getattr(fmt, k)
            output["textFormat"] = {"type": "json_schema", "structure": {"jsonSchema": schema_def}}
            if fmt.strict is not msgspec.UNSET:
                report.add("dropped", "response_format.strict has no Converse field (outputConfig enforces the schema)", item_type="settings", pointer="/settings/response_format/strict")
        else:
            unsupported_setting(report, policy, NAME, "response_format", fmt, meaning_changes=True, why="Converse outputConfig takes a JSON schema only")
    if isinstance(fmt, ResponseFormat):
        report_unsupported(fmt, SETTINGS_TABLE, policy=policy, report=report, group="response_format")
    if inference or had_inference:
        body["inferenceConfig"] = inference
    if extra or had_extra:
        body["additionalModelRequestFields"] = extra
    if output:
        body["outputConfig"] = output
    for key, value in data.items():
        body[key] = value


def _is_result(block: dict[str, Any]) -> bool:
    return "toolResult" in block


def _with_document_text(blocks: list[dict[str, Any]], n: int, index: int, report: Report) -> list[dict[str, Any]]:
    """``blocks`` with a short text block naming the documents after the last one (reported ``changed``).

    AWS Bedrock API reference, ``Message``, ``content``: "If you include a ContentBlock with a document
    field in the array, you must also include a ContentBlock with a text field." The text is the
    smallest that names what is attached (the documents' ``name`` fields), so no instruction is added.
    """
    names = [b["document"].get("name") for b in blocks if isinstance(b.get("document"), dict)]
    text = "Attached: " + ", ".join(str(name) for name in names if name) if any(names) else "Attached document."
    last = max(j for j, b in enumerate(blocks) if "document" in b)
    if last + 1 < len(blocks) and "cachePoint" in blocks[last + 1]:
        last += 1  # a cachePoint stays right after the block it marks
    report.add(
        "changed",
        f"text block {text!r} added beside the document (Converse requires a text block in a message holding a document)",
        index=index, item_type="document", pointer=f"/messages/{n}/content/{last + 1}",
    )
    return blocks[: last + 1] + [{"text": text}] + blocks[last + 1 :]


def encode_request(transcript: Transcript, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
    """Transcript -> Converse request body (``modelId`` when a model is known; REST JSON form, bytes as base64).

    Rules (sources in ``docs/providers/bedrock_converse.md``):

    * system/developer text -> top-level ``system`` (developer reported; one after the conversation
      started is moved there and reported);
    * consecutive same-role turns are merged into one message (Converse alternates user/assistant);
    * ``toolResult`` blocks come first in their user message (reordering is reported);
    * ``cache_breakpoint`` -> a ``cachePoint`` block after the item's block;
    * Bedrock-issued reasoning goes back in place; foreign or unsigned foreign reasoning is dropped and reported;
    * a tool result without its call in the transcript follows ``policy`` (Converse refuses it);
    * a message holding a ``document`` block and no text gets a short text block naming the documents
      (reported ``changed``: the API reference's ``Message.content`` requires one);
    * empty text is dropped and reported; tool-call ids outside ``[a-zA-Z0-9_.:-]{1,64}`` are
      mapped the same way on call and result (reported);
    * URL sources, audio, artifacts, handoffs, errors, refusals and foreign raw items follow
      ``policy`` (foreign raw items and foreign opaque state are always dropped and reported);
    * settings as in :func:`decode_request`, reversed; ``seed``/penalties have no Converse field (reported).

    A history with tool calls and no tool definitions: refused under ``error``, else one
    definition per called tool is synthesized (reported ``changed``; ``mapping.tool_definitions``).

    Raises:
        ConversionError: policy ``error`` and a history with tool calls but no tool definitions, or an item or setting Converse cannot carry.
        MalformedArgumentsError: policy ``error`` and a tool call without an arguments object.
    """
    report = Report()
    # a history with tool items needs tool definitions (mapping/tool_definitions.py; the preflight applies the same rule)
    transcript = require_tool_definitions(transcript, NAME, policy, report)
    settings = settings_of(transcript)
    if model is None and isinstance(settings.model, str) and _BEDROCK_ID.match(settings.model):
        model = settings.model  # the transcript's own Bedrock model id; another provider's name never carries
    enc = Encoder(policy, report, model)
    enc.ids.reserve([i.id for i in transcript.items if isinstance(i, ToolCallItem)] + [i.call_id for i in transcript.items if isinstance(i, ToolResultItem)])
    call_ids = {i.id for i in transcript.items if isinstance(i, ToolCallItem)}
    system: list[dict[str, Any]] = []
    turns: list[tuple[str, list[dict[str, Any]], int]] = []
    doc_no = 0

    def append(role: str, blocks: list[dict[str, Any]], index: int) -> None:
        if not blocks:
            return
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, list(blocks), index))

    for index, item in enumerate(transcript.items):
        who = speaker(item)
        if who is None:
            kind = item_type(item)
            append("assistant" if kind == "handoff_call" else "user", enc.unsupported(f"{kind} items have no Converse form", index, kind), index)
            continue
        if who == "system":
            if not isinstance(item, TextItem):
                if isinstance(item, RawItem) and item.provider == NAME:
                    system.extend(enc.raw(item, index))
                    continue
                append("user", enc.unsupported(f"{item_type(item)} with role {getattr(item, 'role', None)} cannot go into Converse's system prompt", index, item_type(item)), index)
                continue
            blocks = enc.cache(item, enc.text(item, index))
            if blocks and item.role == "developer":
                report.add("changed", "developer text sent as Converse system text", index=index, item_type="text")
            if blocks and turns:
                report.add("changed", "system text after the conversation started moved to the top-level system prompt (Converse has no system turn)", index=index, item_type="text")
            system.extend(blocks)
            continue
        if who == "user" and not isinstance(item, (ToolResultItem, RawItem)) and getattr(item, "role", msgspec.UNSET) is msgspec.UNSET:
            report.add("changed", "content item without a role sent as user content", index=index, item_type=item_type(item))
        if isinstance(item, ToolResultItem) and item.call_id not in call_ids:
            # Converse refuses a toolResult whose toolUse is not in the conversation (e.g. a Responses
            # history continued from server-side state): follow the policy instead.
            blocks = enc.unsupported(f"tool result for call {item.call_id!r} has no tool call in the transcript", index, "tool_result")
        elif isinstance(item, ToolResultItem):
            blocks = enc.tool_result(item, index)
        else:
            blocks = enc.assistant_item(item, index, doc_no=doc_no)
        doc_no += sum(1 for b in blocks if "document" in b)
        append(who, blocks, index)

    messages: list[dict[str, Any]] = []
    for role, blocks, index in turns:
        if role == "user" and any(_is_result(b) for b in blocks):
            units: list[list[dict[str, Any]]] = []
            for b in blocks:
                if "cachePoint" in b and units:
                    units[-1].append(b)  # a cachePoint stays right after the block it marks
                else:
                    units.append([b])
            lead = [u for u in units if _is_result(u[0])]
            rest = [u for u in units if not _is_result(u[0])]
            if units[: len(lead)] != lead:
                report.add("changed", "toolResult blocks moved to the start of the user message (results answer the previous assistant turn first)", index=index, item_type="tool_result")
            blocks = [b for u in lead + rest for b in u]
        if any("document" in b for b in blocks) and not any("text" in b for b in blocks):
            blocks = _with_document_text(blocks, len(messages), index, report)
        messages.append({"role": role, "content": blocks})

    body: dict[str, Any] = {}
    if model is not None:
        body["modelId"] = model
    else:
        note_model(report, model, settings, NAME)
    body["messages"] = messages
    if system:
        body["system"] = system
    if transcript.tools is not msgspec.UNSET:
        tool_config: dict[str, Any] = {"tools": _encode_tools(transcript.tools, report)}
        if transcript.tool_choice is not msgspec.UNSET:
            choice = _encode_tool_choice(transcript.tool_choice, report)
            if choice is not None:
                tool_config["toolChoice"] = choice
        if tool_config["tools"]:
            body["toolConfig"] = tool_config
        else:
            report.add("dropped", "an empty tools list is not sent (toolConfig.tools needs at least one tool)", item_type="tools")
    elif transcript.tool_choice is not msgspec.UNSET:
        report.add("dropped", "tool_choice without tools is not sent", item_type="tool_choice")
    _encode_settings(settings, body, model, policy, report)
    _thinking_fits_history(body, model, policy, report)
    return Conversion(body, report)


def _thinking_fits_history(body: dict[str, Any], model: str | None, policy: Policy, report: Report) -> None:
    """Claude on Bedrock: leave ``additionalModelRequestFields.thinking`` out (in place) when the last assistant
    message holds a ``toolUse`` but does not open with a ``reasoningContent`` block.

    Anthropic's rule behind Converse (the Anthropic mapper's ``_thinking_fits_history``): with thinking on, the
    model refuses such a history ("Expected `thinking` or `redacted_thinking`, but found `tool_use`"); reasoning
    read from another provider cannot be sent as signed reasoning, so the request goes without thinking
    (reported ``dropped``).

    Raises:
        ConversionError: under policy ``error``.
    """
    extra = body.get("additionalModelRequestFields")
    if not isinstance(extra, dict):
        return
    thinking = extra.get("thinking")
    if not _is_anthropic(model) or not isinstance(thinking, dict) or thinking.get("type") not in ("enabled", "adaptive"):
        return
    last = next((m for m in reversed(body["messages"]) if m["role"] == "assistant"), None)
    if last is None or not any("toolUse" in b for b in last["content"]) or "reasoningContent" in last["content"][0]:
        return
    why = (
        "the last assistant message holds toolUse without the turn's reasoningContent (its reasoning was not "
        "Claude's, so it cannot be sent back), and with thinking on Claude refuses it (\"Expected `thinking` or "
        "`redacted_thinking`, but found `tool_use`\")"
    )
    if policy == "error":
        raise ConversionError(f"thinking cannot be sent: {why}; use policy drop to send the request without thinking", item_type="settings")
    del extra["thinking"]
    if not extra:
        del body["additionalModelRequestFields"]
    report.add("dropped", f"thinking left out: {why}", item_type="settings", pointer="/settings/reasoning")
