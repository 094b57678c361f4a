"""Anthropic Messages request bodies <-> transcripts.

Request shape: ANT ``types/message_create_params.py`` (``system``, ``messages``, ``tools``,
``tool_choice``); turn rules from the ``messages`` docstring and the API errors quoted in
the providers' API references. Generation settings (``model``, ``max_tokens``,
``temperature``, ``thinking``, ``output_config``, ``stream``, ...) go to ``Transcript.settings`` and
back (rules in ``_settings.py`` and docs/providers/anthropic.md).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ...codec import SCHEMA_VERSION, Item
from ...errors import ConversionError, MappingError
from ...items import RawItem, TextItem, ToolCallItem, ToolChoice, ToolDefinition, ToolResultItem, Transcript
from ...mapping.protocol import Conversion
from ...mapping.tool_definitions import require_tool_definitions
from ...mapping.report import Policy, Report
from ...mapping.settings import settings_of
from ...mapping.turns import call_turn_keys
from ...mapping.wire import guarded, json_copy
from ...mapping.empty_ids import links_empty_ids
from ._blocks import NAME, DecodeContext, Encoder, decode_block, item_type, speaker
from ._settings import decode_settings, encode_settings

__all__ = ["decode_request", "encode_request", "decode_tools", "encode_tools"]

_CHOICE_IN = {"auto": "auto", "any": "required", "tool": "tool", "none": "none"}
_CHOICE_OUT = {v: k for k, v in _CHOICE_IN.items()}


# --------------------------------------------------------------------------- decode


def decode_tools(tools: Any, report: Report) -> list[ToolDefinition]:
    """Anthropic ``tools`` -> tool definitions.

    ``input_schema`` is kept exactly as ``parameters``; every other field (``cache_control``,
    ``type`` of server tools such as ``web_search_20250305``, ``max_uses``, ...) goes to
    ``provider_data["anthropic"]`` (ANT ``tool_param.py``, ``tool_union_param.py``).
    """
    out: list[ToolDefinition] = []
    if not isinstance(tools, list):
        raise MappingError("anthropic request: 'tools' must be a list")
    for j, tool in enumerate(tools):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str) or not tool["name"]:
            raise MappingError(f"anthropic request: tools[{j}] has no name")
        fields: dict[str, Any] = {}
        if isinstance(tool.get("description"), str):
            fields["description"] = tool["description"]
        if isinstance(tool.get("input_schema"), dict):
            fields["parameters"] = copy.deepcopy(tool["input_schema"])
        if isinstance(tool.get("strict"), bool):
            fields["strict"] = tool["strict"]
        consumed = {"name"} | {src for src, dst in (("description", "description"), ("input_schema", "parameters"), ("strict", "strict")) if dst in fields}
        rest = {k: copy.deepcopy(v) for k, v in tool.items() if k not in consumed}
        if rest:
            fields["provider_data"] = {NAME: rest}
        out.append(ToolDefinition(name=tool["name"], **fields))
    return out


def _decode_tool_choice(choice: Any) -> ToolChoice:
    if not isinstance(choice, dict) or choice.get("type") not in _CHOICE_IN:
        raise MappingError(f"anthropic request: unknown tool_choice {choice!r:.80}")
    fields: dict[str, Any] = {"mode": _CHOICE_IN[choice["type"]]}
    if choice["type"] == "tool":
        if not isinstance(choice.get("name"), str):
            raise MappingError("anthropic request: tool_choice of type 'tool' needs a name")
        fields["name"] = choice["name"]
    if isinstance(choice.get("disable_parallel_tool_use"), bool):
        fields["parallel"] = not choice["disable_parallel_tool_use"]
    return ToolChoice(**fields)


def _decode_system(system: Any, report: Report) -> list[Item]:
    if isinstance(system, str):
        return [TextItem(text=system, role="system")] if system else []
    if not isinstance(system, list):
        raise MappingError("anthropic request: 'system' must be a string or a list of text blocks")
    ctx = DecodeContext(role="system", message=None, origin=None, opaque_model=None, report=report, pointer="/system")
    return [decode_block(block, ctx, j) for j, block in enumerate(system)]


@links_empty_ids
@guarded("anthropic", "request")
def decode_request(body: Mapping[str, Any]) -> Conversion[Transcript]:
    """Anthropic Messages request body -> transcript.

    Top-level ``system`` (string or text blocks) becomes leading ``TextItem(role="system")``
    items (no message key); each message's blocks become items keyed ``m{i}``. A string
    ``content`` is one text item. ``tools`` and ``tool_choice`` (``any`` -> ``required``,
    ``disable_parallel_tool_use`` -> ``parallel`` inverted) go to the transcript. Every other
    top-level key goes to ``Transcript.settings`` (``_settings.decode_settings``): canonical
    settings, the rest in ``settings.provider_data["anthropic"]``. ``cache_control`` on a block
    becomes the item's ``cache_breakpoint``.

    Raises:
        MappingError: ``messages`` missing or not a list of ``{role, content}`` objects, or a
            setting with a canonical meaning of the wrong type.
    """
    report = Report()
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise MappingError("anthropic request: 'messages' must be a list")
    items: list[Item] = []
    if body.get("system") is not None:
        items.extend(_decode_system(body["system"], report))
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant", "system"):
            raise MappingError(f"anthropic request: messages[{i}] needs role 'user' or 'assistant'")
        role = msg["role"]
        content = msg.get("content")
        ctx = DecodeContext(role=role, message=f"m{i}", origin=None, opaque_model=None, report=report, index=i, pointer=f"/messages/{i}/content")
        if isinstance(content, str):
            items.append(TextItem(text=content, role=role, message=f"m{i}"))
        elif isinstance(content, list):
            items.extend(decode_block(block, ctx, j) for j, block in enumerate(content))
        else:
            raise MappingError(f"anthropic request: messages[{i}].content must be a string or a list of blocks")
    fields: dict[str, Any] = {}
    if body.get("tools") is not None:
        fields["tools"] = decode_tools(body["tools"], report)
    if body.get("tool_choice") is not None:
        fields["tool_choice"] = _decode_tool_choice(body["tool_choice"])
    settings = decode_settings(body)
    if settings is not msgspec.UNSET:
        fields["settings"] = settings
    return Conversion(Transcript(schema_version=SCHEMA_VERSION, items=items, **fields), report)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- encode


def encode_tools(tools: list[ToolDefinition], report: Report) -> list[dict[str, Any]]:
    """Tool definitions -> Anthropic ``tools`` (``parameters`` -> ``input_schema`` exactly)."""
    out = []
    for t in tools:
        d: dict[str, Any] = {"name": t.name}
        if t.description is not msgspec.UNSET:
            d["description"] = t.description
        extra: dict[str, Any] = {}
        if t.provider_data is not msgspec.UNSET:
            for key, value in t.provider_data.items():
                if key == NAME and isinstance(value, dict):
                    extra = copy.deepcopy(value)
                else:
                    report.add("dropped", f"tool {t.name!r}: provider_data {key!r} is not for Anthropic", item_type="tools")
        if t.parameters is not msgspec.UNSET:
            d["input_schema"] = copy.deepcopy(t.parameters)
        elif extra.get("type") in (None, "custom"):
            d["input_schema"] = {"type": "object", "properties": {}}
            report.add("changed", f"tool {t.name!r} has no parameters schema; sent with an empty object schema (input_schema is required)", item_type="tools")
        if t.strict is not msgspec.UNSET:
            d["strict"] = t.strict
        d.update(extra)
        out.append(d)
    return out


def _encode_tool_choice(choice: ToolChoice) -> dict[str, Any]:
    out: dict[str, Any] = {"type": _CHOICE_OUT[choice.mode]}
    if choice.mode == "tool":
        if choice.name is msgspec.UNSET:
            raise ConversionError("tool_choice mode 'tool' needs a tool name", item_type="tool_choice")
        out["name"] = choice.name
    if choice.parallel is not msgspec.UNSET:
        out["disable_parallel_tool_use"] = not choice.parallel
    return out


def _is_result(block: dict[str, Any]) -> bool:
    return isinstance(block, dict) and block.get("type") == "tool_result"


_THINKING = ("thinking", "redacted_thinking")


_DIRECT = True
"""Write the usual items directly in :func:`encode_request` (tests turn it off to compare with the general path)."""


class _Turn(msgspec.Struct):
    """One message being built: its role, blocks, first item index and ``message`` key."""

    role: str
    blocks: list[dict[str, Any]]
    index: int
    key: Any


def _join_result_runs(turns: list[_Turn], report: Report) -> list[tuple[str, list[dict[str, Any]], int]]:
    """Consecutive messages -> ``(role, blocks, first index)``, a user run with a result after its first message made one.

    Anthropic combines consecutive same-role messages into one turn, and a turn answering tool_use
    blocks must start with their tool_result blocks ("tool_use ids were found without tool_result blocks
    immediately after", the API's 400), so same-role messages split by their ``message`` keys are kept
    as they are unless a tool_result sits in a later one; then the run is one message (reported).
    """
    out: list[tuple[str, list[dict[str, Any]], int]] = []
    n = 0
    count = len(turns)
    while n < count:
        first = turns[n]
        end = n + 1
        while end < count and turns[end].role == first.role:
            end += 1
        if end == n + 1:  # a message alone in its run: kept as it is
            out.append((first.role, first.blocks, first.index))
            n = end
            continue
        run = turns[n:end]
        if run[0].role == "user" and any(_is_result(b) for t in run[1:] for b in t.blocks):
            blocks = [b for t in run for b in t.blocks]
            report.add("changed", f"user messages {[t.key for t in run]} joined into one message (a tool_result must open the user turn after its tool_use)", index=run[0].index, item_type="tool_result")
            out.append(("user", blocks, run[0].index))
        else:
            out.extend((t.role, t.blocks, t.index) for t in run)
        n = end
    return out


def _thinking_fits_history(body: dict[str, Any], policy: Policy, report: Report) -> None:
    """Leave ``thinking`` out of ``body`` (in place) when its last assistant message holds a ``tool_use``
    but does not start with a thinking block.

    With thinking on, the Messages API refuses such a body (400 "Expected `thinking` or
    `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message
    must start with a thinking block"); the extended-thinking guide (platform.claude.com/docs/en/
    build-with-claude/extended-thinking, "Preserving thinking blocks") asks for the turn's signed
    thinking blocks, which only Anthropic issues: reasoning read from another provider cannot stand in
    for them, so the request is sent without thinking (reported ``dropped``).

    Raises:
        ConversionError: under policy ``error`` (the request would be sent without the thinking it asks for).
    """
    thinking = body.get("thinking")
    if not isinstance(thinking, dict) or thinking.get("type") not in ("enabled", "adaptive"):
        return
    last = next((m for m in reversed(body["messages"]) if m["role"] == "assistant"), None)
    if last is None or not any(b.get("type") == "tool_use" for b in last["content"]):
        return
    if last["content"][0].get("type") in _THINKING:
        return
    why = (
        "the last assistant message holds tool_use without the turn's thinking block (its reasoning was not "
        "Anthropic's, so it cannot be sent back), and with thinking on Anthropic refuses it (\"Expected "
        "`thinking` or `redacted_thinking`, but found `tool_use`\")"
    )
    if policy == "error":
        raise ConversionError(f"thinking cannot be sent: {why}; use policy drop to send the request without thinking", item_type="settings")
    del body["thinking"]
    report.add("dropped", f"thinking left out: {why}", item_type="settings", pointer="/settings/reasoning")


def encode_request(transcript: Transcript, *, model: str | None = None, policy: Policy = "error") -> Conversion[dict[str, Any]]:
    """Transcript -> Anthropic Messages request body (``system``, ``messages``, ``tools``, ``tool_choice``; ``model`` when given).

    Rules (sources in ``docs/providers/anthropic.md``):

    * system/developer text before the first turn -> top-level ``system``; system text (and Anthropic
      ``tool_addition``/``tool_removal`` blocks) after the conversation started -> a ``role: "system"``
      message in place (SDK ``BetaSystemMessageParam``); developer text is reported as sent as system;
    * items go in one message while their role and ``message`` key agree (an item without a key joins
      the message before it); same-role messages with other keys stay apart (Anthropic combines
      consecutive same-role turns), except that from the first tool_use of an assistant turn on the
      turn is one message (each tool_use is answered by the next message; ``mapping.turns``), thinking
      alone joins the assistant message after it, and a user run with a tool_result after its first message is one message
      (results must open the turn after their calls); each regrouping is reported ``changed``;
    * a history with tool calls and no tool definitions is refused under ``error``; otherwise one
      definition per called tool is synthesized and reported (``mapping.tool_definitions``, the
      preflight's rule);
    * ``tool_result`` blocks come first in their user message (reordering is reported);
    * thinking / redacted_thinking go back complete, in place, in the assistant message;
      foreign or unsigned reasoning is dropped and reported; when the last assistant message then holds
      a tool_use without a thinking block, ``thinking`` is left out of the request (reported; refused
      under ``error``: :func:`_thinking_fits_history`);
    * empty / whitespace-only text is dropped and reported;
    * tool-call ids outside ``^[a-zA-Z0-9_-]+$`` are mapped the same way on call and result (reported);
    * audio, artifacts, handoffs, errors and foreign raw items follow ``policy``
      (foreign raw items and foreign opaque state are always dropped and reported).

    Settings (``_settings.encode_settings``): ``model`` from the argument (reported when absent),
    ``max_tokens`` always (from the settings, else the model table, else a default; reported when
    added), the other settings mapped or reported; ``cache_breakpoint`` -> ``cache_control``.

    Raises:
        ConversionError: policy ``error`` and a history with tool calls but no tool definitions, or an item Anthropic cannot carry, or a response format
            Anthropic cannot enforce.
        MalformedArgumentsError: policy ``error`` and a tool call without an arguments object.
    """
    report = Report()
    # a history with tool items needs tool definitions (mapping/tool_definitions.py; the preflight applies the same rule)
    transcript = require_tool_definitions(transcript, NAME, policy, report)
    enc = Encoder(policy, report, model)
    items: list[Any] = transcript.items
    # every source id that is valid for Anthropic is reserved before the first id is derived
    enc.ids.reserve_later(lambda: [i.id for i in items if isinstance(i, ToolCallItem)] + [i.call_id for i in items if isinstance(i, ToolResultItem)])
    system: list[dict[str, Any]] = []
    turns: list[_Turn] = []
    UNSET = msgspec.UNSET
    # Whether every turn so far differs in role from the one before it and each user turn holds its
    # tool_result blocks first: then the regrouping below (_join_result_runs, results first) changes
    # nothing and reports nothing, and is skipped. Only the direct path keeps it true.
    regular = _DIRECT

    def append(role: str, blocks: list[dict[str, Any]], index: int, key: Any = UNSET) -> None:
        nonlocal regular
        if not blocks:
            return
        if role == "user" and regular and any(_is_result(b) for b in blocks):
            regular = False
        if turns and turns[-1].role == role:
            last = turns[-1]
            if key is UNSET or last.key is UNSET or key == last.key:
                last.blocks.extend(blocks)
                if last.key is UNSET:
                    last.key = key
                return
            if role == "assistant" and all(b.get("type") in _THINKING for b in last.blocks):
                # thinking opens the assistant message it belongs to (extended thinking with tool use)
                last.blocks.extend(blocks)
                last.key = key
                return
            regular = False
        turns.append(_Turn(role, list(blocks), index, key))

    ids_get, dropped_calls = enc.ids.get, enc.dropped_calls
    direct = _DIRECT
    # the calls of one assistant turn go in one message (mapping/turns.py): a flat source's next call
    # joins the message of the turn's first call, since each tool_use is answered by the next message
    turn_keys = call_turn_keys(items)
    joined = turn_keys.keys
    for index, item in enumerate(items):
        tp = type(item) if direct else None
        # The usual items, written directly: a plain text with role user or assistant, a tool call with
        # arguments, a tool result of plain texts; no cache breakpoint, provider_data or annotations.
        # Each gives exactly the block, and the report, of the general path below (Encoder.text,
        # Encoder.tool_use, Encoder.tool_result, then Encoder.mark; nothing is reported for these).
        block: dict[str, Any] | None = None
        if tp is TextItem:
            role = item.role
            if (role == "user" or role == "assistant") and item.provider_data is UNSET and item.cache_breakpoint is UNSET and item.annotations is UNSET:
                text = item.text
                if text and not text.isspace():  # what ``text.strip()`` tests, without copying the text
                    block = {"type": "text", "text": text}
        elif tp is ToolCallItem:
            if item.arguments is not UNSET and item.provider_data is UNSET and item.cache_breakpoint is UNSET:
                role = "assistant"
                block = {"type": "tool_use", "id": ids_get(item.id, index=index), "name": item.name, "input": json_copy(item.arguments)}
        elif tp is ToolResultItem:
            if item.provider_data is UNSET and item.cache_breakpoint is UNSET and item.call_id not in dropped_calls:
                texts: list[str] | None = []
                for part in item.content:
                    if type(part) is not TextItem or part.provider_data is not UNSET or part.cache_breakpoint is not UNSET or part.annotations is not UNSET or not part.text or part.text.isspace():
                        texts = None
                        break
                    texts.append(part.text)  # type: ignore[union-attr]
                if texts is not None:
                    role = "user"
                    block = {"type": "tool_result", "tool_use_id": ids_get(item.call_id, index=index)}
                    if len(texts) == 1:
                        block["content"] = texts[0]
                    elif texts:
                        block["content"] = [{"type": "text", "text": t} for t in texts]
                    if item.is_error is not UNSET:
                        block["is_error"] = item.is_error
        if block is not None:
            key = joined[index] if joined and index in joined else item.message
            if turns and turns[-1].role == role:
                last = turns[-1]
                if key is UNSET or last.key is UNSET or key == last.key:
                    if regular and role == "user" and tp is ToolResultItem and not _is_result(last.blocks[-1]):
                        regular = False  # a result after other content: moved first below
                    last.blocks.append(block)
                    if last.key is UNSET:
                        last.key = key
                else:
                    append(role, [block], index, key)
            else:
                turns.append(_Turn(role, [block], index, key))
            continue
        who = speaker(item)
        key = turn_keys.key(index, item)
        if who is None:
            kind = item_type(item)
            marker = enc.unsupported(f"{kind} items have no Anthropic form", index, kind)
            append("assistant" if kind == "handoff_call" else "user", marker, index, key)
            continue
        if who == "system":
            if isinstance(item, RawItem) and item.provider == NAME:
                # a tool_addition / tool_removal block of a system turn: it stays a system turn in place
                append("system", enc.raw(item, index), index, item.message)
                continue
            if not isinstance(item, TextItem):
                append("user", enc.unsupported(f"{item_type(item)} with role {getattr(item, 'role', None)} cannot go into Anthropic's system prompt", index, item_type(item)), index)
                continue
            blocks = enc.text(item, index)
            if blocks and item.role == "developer":
                report.add("changed", "developer text sent as Anthropic system text", index=index, item_type="text")
            if turns:
                # After the conversation started: a `role: "system"` message in place (Messages API
                # `messages[]` takes user, assistant and system messages; anthropic-sdk-python
                # `BetaMessageParam` = BetaUserMessageParam | BetaAssistantMessageParam | BetaSystemMessageParam,
                # whose content is text, tool_addition or tool_removal blocks).
                append("system", blocks, index, item.message)
            else:
                system.extend(blocks)
            continue
        if who == "user" and not isinstance(item, ToolResultItem) and getattr(item, "role", msgspec.UNSET) is msgspec.UNSET:
            report.add("changed", "content item without a role sent as user content", index=index, item_type=item_type(item))
        if who == "user":
            blocks = enc.tool_result(item, index) if isinstance(item, ToolResultItem) else enc.assistant_item(item, index)
        else:
            blocks = enc.assistant_item(item, index)
        append(who, blocks, index, key)

    if regular:
        messages = [{"role": t.role, "content": t.blocks} for t in turns]
    else:
        messages = []
        for role, blocks, index in _join_result_runs(turns, report):
            if role == "user":
                results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
                if results and len(results) < len(blocks):
                    others = [b for b in blocks if not _is_result(b)]
                    if blocks[: len(results)] != results:
                        report.add("changed", "tool_result blocks moved to the start of the user message (Anthropic requires results first)", index=index, item_type="tool_result")
                    blocks = results + others
            messages.append({"role": role, "content": blocks})

    for at, old, new in turn_keys.joins:
        # pointer: the messages array, whose layout the join changed (one message fewer, a longer one)
        report.add(
            "changed",
            f"assistant items of message {old!r} joined to the message {new!r} holding the turn's first tool_use (each tool_use must be answered by the next message)",
            index=at, item_type=item_type(items[at]), pointer="/messages",
        )

    body: dict[str, Any] = encode_settings(settings_of(transcript), model, policy, report)
    if system:
        if len(system) == 1 and set(system[0]) == {"type", "text"}:
            body["system"] = system[0]["text"]
        else:
            body["system"] = system
    body["messages"] = messages
    _thinking_fits_history(body, policy, report)
    if transcript.tools is not msgspec.UNSET:
        body["tools"] = encode_tools(transcript.tools, report)
    if transcript.tool_choice is not msgspec.UNSET:
        body["tool_choice"] = _encode_tool_choice(transcript.tool_choice)
    return Conversion(body, report)

