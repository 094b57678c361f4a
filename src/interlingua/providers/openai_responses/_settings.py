"""OpenAI Responses generation settings <-> canonical :class:`~interlingua.items.Settings` (ADR 0007).

Wire fields (OAI ``types/responses/response_create_params.py``): ``model``, ``stream``,
``max_output_tokens``, ``temperature``, ``top_p``, ``reasoning:{effort, summary}``
(``shared_params/reasoning.py``; ``generate_summary`` is deprecated) and
``text:{format, verbosity}`` with ``format`` one of ``{type:"text"}``, ``{type:"json_object"}`` or
``{type:"json_schema", name, schema, description?, strict?}``
(``response_format_text_config_param.py``, ``response_format_text_json_schema_config_param.py``).
The create params have no ``stop``, ``seed``, ``top_k`` or penalties: those are left out and reported.
Every other top-level field (``store``, ``include``, ``service_tier``, ``metadata``, ``truncation``,
``user``, ``background``, ``prompt_cache_key``, ``previous_response_id``, ...) and every value that
does not fit its canonical field is kept in ``settings.provider_data["openai-responses"]`` as given.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ...items import ReasoningSettings, ResponseFormat, Settings
from ...mapping.report import Policy, Report
from ...mapping.settings import (
    approximated_setting,
    build_settings,
    effort_from_budget,
    merge_provider_fields,
    own_provider_data,
    unsupported_setting,
    valid_setting,
)
from ...mapping.settings_table import SettingsTable, Unsupported, Wire, encode_plain, report_unsupported
from ._common import NAME

__all__ = ["SETTINGS_TABLE", "decode_settings", "encode_settings"]

U = msgspec.UNSET

_NOT_TAKEN = Unsupported(why="")
"""``top_k``, ``stop``, ``seed`` and the penalties: ``ResponseCreateParams`` has no such field."""

SETTINGS_TABLE = SettingsTable(
    NAME,
    "OpenAI Responses",
    {
        "model": Wire("model", "from encode_request(model=...); the settings' model is not written (ADR 0007)", plain=True),
        # the plain rows, in the order they are written
        "stream": Wire("stream", plain=True),
        "temperature": Wire("temperature", plain=True),
        "top_p": Wire("top_p", plain=True),
        "max_output_tokens": Wire("max_output_tokens", plain=True),
        "top_k": _NOT_TAKEN,
        "stop": _NOT_TAKEN,
        "seed": _NOT_TAKEN,
        "presence_penalty": _NOT_TAKEN,
        "frequency_penalty": _NOT_TAKEN,
        "response_format.type": Wire("text.format.type"),
        "response_format.name": Wire("text.format.name", "required: 'response' when not set (changed)"),
        "response_format.description": Wire("text.format.description"),
        "response_format.schema": Wire("text.format.schema"),
        "response_format.strict": Wire("text.format.strict"),
        "reasoning.effort": Wire("reasoning.effort"),
        "reasoning.budget_tokens": Wire("reasoning.effort", "an effort level for the budget (changed); dropped beside an effort"),
        "reasoning.summary": Wire("reasoning.summary", "'none' is the default: reported dropped"),
        "reasoning.include_thoughts": Wire("reasoning.summary", "true -> summary auto (changed); false reported dropped"),
    },
)
"""What OpenAI Responses does with every canonical setting (ADR 0042); the plain rows are written and read by
the shared loop (ADR 0044)."""

_SUMMARIES = ("auto", "concise", "detailed")


def _text_format(value: Any) -> dict[str, Any] | None:
    """``text.format`` -> canonical response format fields; ``None`` when it does not map exactly."""
    if not isinstance(value, Mapping):
        return None
    kind = value.get("type")
    if kind in ("text", "json_object"):
        return {"type": kind} if set(value) == {"type"} else None
    if kind != "json_schema":
        return None
    out: dict[str, Any] = {"type": "json_schema"}
    for key, v in value.items():
        if key == "type":
            continue
        ok = {"name": isinstance(v, str) and bool(v), "description": isinstance(v, str), "schema": isinstance(v, Mapping), "strict": isinstance(v, bool)}.get(key, False)
        if not ok:
            return None
        out[key] = copy.deepcopy(v)
    return out


def decode_settings(body: Mapping[str, Any], conversation: frozenset[str]) -> Settings | msgspec.UnsetType:
    """Every top-level field not in ``conversation`` -> :class:`~interlingua.items.Settings`.

    ``reasoning`` and ``text`` are split: ``effort``, ``summary`` and ``format`` go to canonical fields
    when their values fit, the rest of each object stays in ``provider_data`` and is merged back.
    """
    fields: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    plain = SETTINGS_TABLE.reader()
    for key, value in body.items():
        if key in conversation or plain.take(key, value, fields, rest):
            continue
        if key == "reasoning" and isinstance(value, Mapping):
            reasoning: dict[str, Any] = {}
            left: dict[str, Any] = {}
            for k, v in value.items():
                if k == "effort" and valid_setting("reasoning", {"effort": v}):
                    reasoning["effort"] = v
                elif k == "summary" and v in _SUMMARIES:
                    reasoning["summary"] = v
                else:
                    left[k] = copy.deepcopy(v)
            if reasoning:
                fields["reasoning"] = reasoning
            if left or not reasoning:
                rest["reasoning"] = left
        elif key == "text" and isinstance(value, Mapping) and (fmt := _text_format(value.get("format"))) is not None:
            fields["response_format"] = fmt
            left = {k: copy.deepcopy(v) for k, v in value.items() if k != "format"}
            if left:
                rest["text"] = left
        else:
            rest[key] = copy.deepcopy(value)
    return build_settings(fields, rest, NAME)


def encode_settings(settings: Settings, body: dict[str, Any], *, policy: Policy, report: Report) -> None:
    """Write ``settings`` into ``body`` (in place); report what Responses cannot take.

    ``model`` is not written here (only the caller's ``model=`` argument is, ADR 0007). No setting
    Responses lacks changes what the output means, so none is refused under policy ``error``.
    """
    own = own_provider_data(settings.provider_data, NAME, report, what="settings", settings=settings)
    encode_plain(settings, SETTINGS_TABLE, body)
    report_unsupported(settings, SETTINGS_TABLE, policy=policy, report=report)
    if settings.response_format is not U:
        body["text"] = {"format": _format_to_wire(settings.response_format, report)}
        report_unsupported(settings.response_format, SETTINGS_TABLE, policy=policy, report=report, group="response_format")
    if settings.reasoning is not U:
        reasoning = _reasoning_to_wire(settings.reasoning, policy, report)
        report_unsupported(settings.reasoning, SETTINGS_TABLE, policy=policy, report=report, group="reasoning")
        if reasoning:
            body["reasoning"] = reasoning
    merge_provider_fields(body, own, report, target=NAME)


def _format_to_wire(fmt: ResponseFormat, report: Report) -> dict[str, Any]:
    if fmt.type != "json_schema":
        return {"type": fmt.type}
    out: dict[str, Any] = {"type": "json_schema"}
    if fmt.name is U:
        out["name"] = "response"
        approximated_setting(report, "response_format.name", None, "text.format.name", "response", why="Responses requires a schema name")
    for key in ("name", "description", "schema", "strict"):
        value = getattr(fmt, key)
        if value is not U:
            out[key] = copy.deepcopy(value)
    return out


def _reasoning_to_wire(reasoning: ReasoningSettings, policy: Policy, report: Report) -> dict[str, Any]:
    out: dict[str, Any] = {}
    effort: Any = reasoning.effort
    if reasoning.budget_tokens is not U:
        if effort is U:
            effort = effort_from_budget(reasoning.budget_tokens)
            approximated_setting(report, "reasoning.budget_tokens", reasoning.budget_tokens, "reasoning.effort", effort, why="Responses takes an effort level, not a token budget")
        else:
            unsupported_setting(report, policy, "OpenAI Responses", "reasoning.budget_tokens", reasoning.budget_tokens, why="the effort level is sent instead")
    if effort is not U:
        out["effort"] = effort
    summary = reasoning.summary
    if summary == "none":
        unsupported_setting(report, policy, "OpenAI Responses", "reasoning.summary", summary, why="no summary is the default: reasoning.summary is left out")
    elif summary is not U:
        out["summary"] = summary
    if reasoning.include_thoughts is True and summary is U:
        out["summary"] = "auto"
        approximated_setting(report, "reasoning.include_thoughts", True, "reasoning.summary", "auto", why="Responses returns reasoning as summaries")
    elif reasoning.include_thoughts is not U and not (reasoning.include_thoughts is True and summary in _SUMMARIES):
        unsupported_setting(report, policy, "OpenAI Responses", "reasoning.include_thoughts", reasoning.include_thoughts, why="whether reasoning is returned follows reasoning.summary")
    elif reasoning.include_thoughts is True:
        approximated_setting(report, "reasoning.include_thoughts", True, "reasoning.summary", summary, why="Responses returns reasoning as summaries")
    return out
