"""Ollama ``/api/chat`` generation settings <-> canonical :class:`~interlingua.items.Settings` (ADR 0007).

Wire fields (OLL ``api/types.go`` ``ChatRequest`` and ``Options``; docs.ollama.com/api/chat):
``model``, ``stream`` (defaults to **true**), ``format`` (``"json"`` or a JSON Schema object),
``think`` (``true``/``false`` or ``"low"``/``"medium"``/``"high"``), ``keep_alive`` and ``options``
with ``num_predict``, ``temperature``, ``top_p``, ``top_k``, ``seed``, ``stop``,
``presence_penalty``, ``frequency_penalty`` (and ``num_ctx``, ``repeat_penalty``, ``min_p``, ...,
which have no canonical meaning). Everything without a canonical meaning, and every value that does
not fit its canonical field (``num_predict: -1``, ``think: "max"``), is kept in
``settings.provider_data["ollama"]`` as given and written back only to Ollama.

``stream``: a body without it streams, so decoding records ``stream: true``; encoding always writes
``stream``, ``false`` when the settings do not say (every other provider's default), reported.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ...items import ReasoningSettings, Settings
from ...mapping.report import Policy, Report
from ...mapping.settings import (
    approximated_setting,
    build_settings,
    effort_from_budget,
    merge_provider_fields,
    own_provider_data,
    unsupported_setting,
)
from ...mapping.settings_table import SettingsTable, Unsupported, Wire, encode_plain, report_unsupported
from ._common import NAME

__all__ = ["SETTINGS_TABLE", "decode_settings", "encode_settings"]

U = msgspec.UNSET

_THINK_LEVELS = ("low", "medium", "high")

_SCHEMA_ALONE = Unsupported(why="Ollama format takes the schema alone")

SETTINGS_TABLE = SettingsTable(
    NAME,
    "Ollama",
    {
        "model": Wire("model", "from encode_request(model=...); the settings' model is not written (ADR 0007)", plain=True),
        # the plain rows, in the order they are written into ``options`` (OLL ``api/types.go`` ``Options``)
        "max_output_tokens": Wire("options.num_predict", plain=True),
        "temperature": Wire("options.temperature", plain=True),
        "top_p": Wire("options.top_p", plain=True),
        "top_k": Wire("options.top_k", plain=True),
        "seed": Wire("options.seed", plain=True),
        "stop": Wire("options.stop", plain=True),
        "presence_penalty": Wire("options.presence_penalty", plain=True),
        "frequency_penalty": Wire("options.frequency_penalty", plain=True),
        "response_format.type": Wire("format", "json_object -> \"json\"; json_schema -> the schema; text reported dropped (free text is the default)"),
        "response_format.name": _SCHEMA_ALONE,
        "response_format.description": _SCHEMA_ALONE,
        "response_format.schema": Wire("format"),
        "response_format.strict": _SCHEMA_ALONE,
        "reasoning.effort": Wire("think", "none -> false; minimal/xhigh -> low/high (changed)"),
        "reasoning.budget_tokens": Wire("think", "a level for the budget (changed); dropped beside an effort"),
        "reasoning.summary": Unsupported(why="Ollama returns the thinking itself, no summary"),
        "reasoning.include_thoughts": Wire("think", "true -> true; false reported dropped"),
        "stream": Wire("stream", "always written: false when not set (reported changed)", plain=True),
    },
)
"""What Ollama ``/api/chat`` does with every canonical setting (ADR 0042); the plain rows are written and read
by the shared loop (ADR 0044)."""

_CONVERSATION = frozenset({"messages", "tools"})


def decode_settings(body: Mapping[str, Any]) -> Settings | msgspec.UnsetType:
    """Every top-level field but ``messages``/``tools`` -> :class:`~interlingua.items.Settings`.

    ``think``: a level -> ``reasoning.effort``; ``false`` -> ``effort: "none"``; ``true`` ->
    ``include_thoughts: true`` (thinking on, returned in ``message.thinking``). ``format``:
    ``"json"`` -> ``json_object``, an object -> ``json_schema`` with that schema.
    """
    fields: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    plain, in_options = SETTINGS_TABLE.reader(), SETTINGS_TABLE.reader("options")
    for key, value in body.items():
        if key in _CONVERSATION or plain.take(key, value, fields, rest):
            continue
        if key == "format" and value == "json":
            fields["response_format"] = {"type": "json_object"}
        elif key == "format" and isinstance(value, Mapping):
            fields["response_format"] = {"type": "json_schema", "schema": copy.deepcopy(dict(value))}
        elif key == "think" and value is True:
            fields["reasoning"] = {"include_thoughts": True}
        elif key == "think" and value is False:
            fields["reasoning"] = {"effort": "none"}
        elif key == "think" and value in _THINK_LEVELS:
            fields["reasoning"] = {"effort": value}
        elif key == "options" and isinstance(value, Mapping):
            left: dict[str, Any] = {}
            for name, v in value.items():
                if not in_options.take(name, v, fields, left):
                    left[name] = copy.deepcopy(v)
            if left or not value:
                rest["options"] = left
        else:
            rest[key] = copy.deepcopy(value)
    if "stream" not in body:
        fields["stream"] = True  # Ollama's default (docs.ollama.com/api/chat: "stream: ... default true")
    return build_settings(fields, rest, NAME)


def encode_settings(settings: Settings, body: dict[str, Any], *, policy: Policy, report: Report) -> None:
    """Write ``settings`` into ``body`` (in place); report what Ollama cannot take.

    ``model`` is not written here (only the caller's ``model=`` argument is, ADR 0007).
    """
    own = own_provider_data(settings.provider_data, NAME, report, what="settings", settings=settings)
    options: dict[str, Any] = {}
    encode_plain(settings, SETTINGS_TABLE, options, under="options")
    report_unsupported(settings, SETTINGS_TABLE, policy=policy, report=report)  # (none today: a row added later)
    if settings.response_format is not U:
        fmt = settings.response_format
        if fmt.type == "json_object":
            body["format"] = "json"
        elif fmt.type == "json_schema" and fmt.schema is not U:
            body["format"] = copy.deepcopy(fmt.schema)
        elif fmt.type == "json_schema":
            body["format"] = "json"
            approximated_setting(report, "response_format", fmt, "format", "json", why="a json_schema format without a schema")
        else:
            unsupported_setting(report, policy, "Ollama", "response_format", fmt, why="free text is Ollama's default")
        if fmt.type != "text":  # (a text format is left out whole)
            report_unsupported(fmt, SETTINGS_TABLE, policy=policy, report=report, group="response_format")
    if settings.reasoning is not U:
        think = _think(settings.reasoning, policy, report)
        if think is not None:
            body["think"] = think
    if options:
        body["options"] = options
    encode_plain(settings, SETTINGS_TABLE, body)  # the top-level plain rows: stream (the model is never from the settings)
    if settings.stream is U and "stream" not in own:  # a stream value that fit no canonical field goes back as given
        body["stream"] = False
        report.add(
            "changed",
            "stream: false written: Ollama streams unless told not to, and the transcript does not ask for a stream",
            item_type="settings",
            pointer="/settings/stream",
        )
    merge_provider_fields(body, own, report, target=NAME)


def _think(reasoning: ReasoningSettings, policy: Policy, report: Report) -> bool | str | None:
    """``think`` for the reasoning settings (``None``: leave it out)."""
    effort: Any = reasoning.effort
    if reasoning.budget_tokens is not U:
        if effort is U:
            effort = effort_from_budget(reasoning.budget_tokens)
            approximated_setting(report, "reasoning.budget_tokens", reasoning.budget_tokens, "think", effort, why="Ollama takes a thinking level, not a token budget")
        else:
            unsupported_setting(report, policy, "Ollama", "reasoning.budget_tokens", reasoning.budget_tokens, why="the effort level is sent instead")
    report_unsupported(reasoning, SETTINGS_TABLE, policy=policy, report=report, group="reasoning")
    think: bool | str | None = None
    if effort == "none":
        think = False
    elif effort in ("minimal", "xhigh"):
        think = "low" if effort == "minimal" else "high"
        approximated_setting(report, "reasoning.effort", effort, "think", think, why="Ollama's levels are low, medium and high")
    elif effort is not U:
        think = effort
    include = reasoning.include_thoughts
    if include is True and think is None:
        think = True
    elif include is True and think is not False:
        approximated_setting(report, "reasoning.include_thoughts", True, "think", think, why="a think level returns the thinking too")
    elif include is not U:
        unsupported_setting(report, policy, "Ollama", "reasoning.include_thoughts", include, why="Ollama returns the thinking whenever it thinks" if include is False else "thinking is turned off")
    return think
