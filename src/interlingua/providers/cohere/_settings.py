"""Cohere v2 chat generation settings <-> canonical :class:`~interlingua.items.Settings` (ADR 0007).

Wire fields (Cohere API reference "Chat" (v2); cohere-python ``V2Client.chat`` parameters):
``model``, ``stream``, ``max_tokens``, ``temperature``, ``p`` (top-p), ``k`` (top-k), ``seed``,
``stop_sequences``, ``frequency_penalty``, ``presence_penalty``, ``response_format``
(``{"type": "text"}`` or ``{"type": "json_object", "json_schema"?: {...}}``) and ``thinking``
(``{"type": "enabled"|"disabled", "token_budget"?: n}``). The rest (``strict_tools``, ``documents``,
``citation_options``, ``safety_mode``, ``logprobs``, ``priority``, ...) and every value that does
not fit its canonical field is kept in ``settings.provider_data["cohere"]`` as given and written
back only to Cohere.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ...items import ReasoningSettings, Settings
from ...mapping.report import Policy, Report
from ...mapping.settings import approximated_setting, build_settings, merge_provider_fields, own_provider_data, unsupported_setting
from ...mapping.settings_table import SettingsTable, Unsupported, Wire, encode_plain, report_unsupported
from ._common import NAME

__all__ = ["SETTINGS_TABLE", "decode_settings", "encode_settings"]

U = msgspec.UNSET

_CONVERSATION = frozenset({"messages", "tools"})

_SCHEMA_ALONE = Unsupported(why="Cohere's response_format takes the schema alone")

SETTINGS_TABLE = SettingsTable(
    NAME,
    "Cohere",
    {
        # the plain rows in the order their fields are written
        "model": Wire("model", "from encode_request(model=...); the settings' model is not written (ADR 0007)", plain=True),
        "stream": Wire("stream", plain=True),
        "max_output_tokens": Wire("max_tokens", plain=True),
        "temperature": Wire("temperature", plain=True),
        "top_p": Wire("p", plain=True),
        "top_k": Wire("k", plain=True),
        "seed": Wire("seed", plain=True),
        "stop": Wire("stop_sequences", plain=True),
        "frequency_penalty": Wire("frequency_penalty", plain=True),
        "presence_penalty": Wire("presence_penalty", plain=True),
        "response_format.type": Wire("response_format.type", "json_schema -> json_object with json_schema"),
        "response_format.name": _SCHEMA_ALONE,
        "response_format.description": _SCHEMA_ALONE,
        "response_format.schema": Wire("response_format.json_schema"),
        "response_format.strict": _SCHEMA_ALONE,
        "reasoning.effort": Wire("thinking.type", "none -> disabled; a level -> enabled (changed); dropped beside a budget"),
        "reasoning.budget_tokens": Wire("thinking.token_budget"),
        "reasoning.summary": Unsupported(why="Cohere returns the thinking itself, no summary"),
        "reasoning.include_thoughts": Wire("thinking.type", "true -> enabled; false reported dropped"),
    },
)
"""What Cohere v2 chat does with every canonical setting (ADR 0042); the plain rows are written and read by
the shared loop (ADR 0044)."""

def _response_format(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, Mapping) or not set(value) <= {"type", "json_schema"}:
        return None
    if value.get("type") == "text" and "json_schema" not in value:
        return {"type": "text"}
    if value.get("type") == "json_object":
        schema = value.get("json_schema")
        if schema is None and "json_schema" not in value:
            return {"type": "json_object"}
        if isinstance(schema, Mapping):
            return {"type": "json_schema", "schema": copy.deepcopy(dict(schema))}
    return None


def _thinking(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, Mapping) or not set(value) <= {"type", "token_budget"}:
        return None
    budget = value.get("token_budget")
    if value.get("type") == "disabled" and budget is None and "token_budget" not in value:
        return {"effort": "none"}
    if value.get("type") == "enabled":
        if "token_budget" not in value:
            return {"include_thoughts": True}
        if isinstance(budget, int) and not isinstance(budget, bool) and budget > 0:
            return {"budget_tokens": budget}
    return None


def decode_settings(body: Mapping[str, Any]) -> Settings | msgspec.UnsetType:
    """Every top-level field but the conversation (``messages``, ``tools``) -> settings (the caller
    takes out a ``tool_choice`` it decoded; any other ``tool_choice`` is kept in ``provider_data``).

    ``thinking``: ``disabled`` -> ``reasoning.effort: "none"``; ``enabled`` with ``token_budget`` ->
    ``reasoning.budget_tokens``; ``enabled`` alone -> ``reasoning.include_thoughts: true``.
    ``response_format``: ``json_object`` with ``json_schema`` -> ``json_schema``.
    """
    fields: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    plain = SETTINGS_TABLE.reader()
    for key, value in body.items():
        if key in _CONVERSATION or plain.take(key, value, fields, rest):
            continue
        if key == "response_format" and _response_format(value) is not None:
            fields["response_format"] = _response_format(value)
        elif key == "thinking" and _thinking(value) is not None:
            fields["reasoning"] = _thinking(value)
        else:
            rest[key] = copy.deepcopy(value)
    return build_settings(fields, rest, NAME)


def encode_settings(settings: Settings, body: dict[str, Any], *, policy: Policy, report: Report) -> None:
    """Write ``settings`` into ``body`` (in place); report what Cohere cannot take.

    ``model`` is not written here (only the caller's ``model=`` argument is, ADR 0007).
    """
    own = own_provider_data(settings.provider_data, NAME, report, what="settings", settings=settings)
    encode_plain(settings, SETTINGS_TABLE, body)
    report_unsupported(settings, SETTINGS_TABLE, policy=policy, report=report)  # (none today: a row added later)
    fmt = settings.response_format
    if fmt is not U:
        if fmt.type == "text":
            body["response_format"] = {"type": "text"}
        elif fmt.type == "json_object":
            body["response_format"] = {"type": "json_object"}
        else:
            out: dict[str, Any] = {"type": "json_object"}
            if fmt.schema is not U:
                out["json_schema"] = copy.deepcopy(fmt.schema)
            else:
                approximated_setting(report, "response_format", fmt, "response_format", out, why="a json_schema format without a schema")
            body["response_format"] = out
        report_unsupported(fmt, SETTINGS_TABLE, policy=policy, report=report, group="response_format")
    if settings.reasoning is not U:
        thinking = _encode_thinking(settings.reasoning, policy, report)
        if thinking is not None:
            body["thinking"] = thinking
    merge_provider_fields(body, own, report, target=NAME)


def _encode_thinking(reasoning: ReasoningSettings, policy: Policy, report: Report) -> dict[str, Any] | None:
    out: dict[str, Any] | None = None
    if reasoning.effort == "none":
        out = {"type": "disabled"}
    elif reasoning.budget_tokens is not U:
        out = {"type": "enabled", "token_budget": reasoning.budget_tokens}
    elif reasoning.effort is not U:
        out = {"type": "enabled"}
        approximated_setting(report, "reasoning.effort", reasoning.effort, "thinking", out, why="Cohere takes a token budget, not an effort level")
    elif reasoning.include_thoughts is True:
        out = {"type": "enabled"}
    if reasoning.effort not in (U, "none") and reasoning.budget_tokens is not U:
        unsupported_setting(report, policy, "Cohere", "reasoning.effort", reasoning.effort, why="the token budget is sent instead")
    report_unsupported(reasoning, SETTINGS_TABLE, policy=policy, report=report, group="reasoning")
    if reasoning.include_thoughts is False:
        unsupported_setting(report, policy, "Cohere", "reasoning.include_thoughts", False, why="Cohere returns the thinking whenever it thinks")
    return out
