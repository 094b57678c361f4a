"""Anthropic Messages generation settings <-> canonical :class:`~interlingua.items.Settings`.

Sources: the Messages API reference (platform.claude.com/docs/en/api/messages, ANT SDK
``types/message_create_params.py``), extended thinking
(platform.claude.com/docs/en/build-with-claude/extended-thinking: ``budget_tokens`` >= 1024 and
below ``max_tokens``), the effort parameter (platform.claude.com/docs/en/build-with-claude/effort:
``output_config.effort``) and structured outputs
(platform.claude.com/docs/en/build-with-claude/structured-outputs: ``output_config.format`` =
``{type: "json_schema", schema}``; the beta spelling ``output_format`` with the same shape).

Decode (top-level body key -> canonical):

* ``model`` -> ``model``; ``max_tokens`` -> ``max_output_tokens``; ``temperature``, ``top_p``,
  ``top_k`` (older requests: the current API has none of them, so they are never written back);
  ``stop_sequences`` -> ``stop``; ``stream``.
* ``thinking``: ``{type: "enabled", budget_tokens}`` -> ``reasoning.budget_tokens``;
  ``{type: "disabled"}`` -> ``reasoning.effort = "none"``; the other fields of those two
  (``display``) stay in ``provider_data["anthropic"]["thinking"]``; any other form
  (``{type: "adaptive"}``, ...) is kept whole there.
* ``output_config``: ``effort`` (``low``/``medium``/``high``/``xhigh``) -> ``reasoning.effort``
  (``max`` and anything else stays); ``format`` ``{type: "json_schema", schema}`` ->
  ``response_format`` ``json_schema``. What is left of ``output_config`` stays in
  ``provider_data["anthropic"]["output_config"]``; after an effort was taken that is kept even when
  empty (``{}``): it records that the effort goes back to ``output_config`` (not into a thinking budget).
* ``output_format`` (beta) ``{type: "json_schema", schema}`` -> ``response_format``; the rest
  (possibly ``{}``) stays in ``provider_data["anthropic"]["output_format"]``, so it is written back
  under the same name.
* every other key (``metadata``, ``service_tier``, ``speed``, ``inference_geo``, ``container``,
  ``mcp_servers``, ``context_management``, top-level ``cache_control``, ...) -> ``provider_data["anthropic"]``
  unchanged, written back only to Anthropic (so an Anthropic round trip keeps them).

Encode: the reverse, plus the approximations in :func:`encode_settings`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ...capabilities import lookup
from ...errors import MappingError
from ...items import ReasoningSettings, ResponseFormat, Settings
from ...mapping.report import Policy, Report
from ...mapping.settings import approximated_setting, note_model, own_provider_data, unsupported_setting
from ...mapping.settings_table import (
    BOOLEAN,
    INTEGER_AT_LEAST_0,
    NONEMPTY_STRING,
    NONEMPTY_STRINGS,
    NUMBER_0_TO_1,
    NUMBER_AT_LEAST_0,
    POSITIVE_INTEGER,
    SettingsTable,
    Unsupported,
    Wire,
    encode_plain,
    report_unsupported,
)
from ._models import NONSTREAMING_TOKEN_RULE, effort_levels, nonstreaming_max_tokens

__all__ = ["DEFAULT_MAX_TOKENS", "EFFORT_BUDGET", "MIN_BUDGET_TOKENS", "SAMPLING_SETTINGS", "SETTINGS_KEYS", "SETTINGS_TABLE", "decode_settings", "encode_settings"]

UNSET = msgspec.UNSET
NAME = "anthropic"

DEFAULT_MAX_TOKENS = 4096
"""``max_tokens`` sent when neither the settings nor the model table give one: within the output limit
of every Claude model (Claude 3 Haiku, the smallest, takes 4096)."""

MIN_BUDGET_TOKENS = 1024
"""Smallest ``thinking.budget_tokens`` the API takes (extended-thinking guide)."""

EFFORT_BUDGET: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768}
"""``reasoning.effort`` -> ``thinking.budget_tokens`` when the target body has no ``output_config``
(an approximation, reported). ``minimal`` is the API minimum; each step roughly doubles or
quadruples, ``high`` is 16k (the guide: "start at the minimum and increase incrementally";
budgets above 32k are best sent in batches)."""

SAMPLING_SETTINGS = ("temperature", "top_p", "top_k", "seed", "presence_penalty", "frequency_penalty")
"""Canonical settings the current Messages API has no field for: ``MessageCreateParamsNonStreaming`` (and the
beta variant) of the ``anthropic`` SDK (2.14 and later) has no ``temperature``, ``top_p`` or ``top_k``, and never
had ``seed`` or penalties. Older recorded requests holding the first three still decode."""

_NO_SAMPLING = "the current Messages API takes no sampling parameters (anthropic SDK MessageCreateParams)"

_SAMPLING = Unsupported(why=_NO_SAMPLING, meaning_changes=True)


def _older(path: str, check: Any) -> Unsupported:
    """A sampling setting the current API lacks, still read back from an older request's ``path``."""
    return Unsupported(why=_NO_SAMPLING, meaning_changes=True, read=Wire(path, plain=True, check=check))


SETTINGS_TABLE = SettingsTable(
    "anthropic",
    "Anthropic",
    {
        "model": Wire("model", "from encode_request(model=...); the settings' model is not written (ADR 0007)", plain=True, check=NONEMPTY_STRING),
        "max_output_tokens": Wire(
            "max_tokens", "required: from the model table or a default when not set (reported changed)", plain=True, check=POSITIVE_INTEGER, write=False
        ),
        "temperature": _older("temperature", NUMBER_AT_LEAST_0),
        "top_p": _older("top_p", NUMBER_0_TO_1),
        "top_k": _older("top_k", INTEGER_AT_LEAST_0),
        "stop": Wire("stop_sequences", plain=True, check=NONEMPTY_STRINGS),
        "seed": _SAMPLING,
        "presence_penalty": _SAMPLING,
        "frequency_penalty": _SAMPLING,
        "response_format.type": Wire("output_config.format", "json_schema with a schema (or output_format when the source used it); text writes nothing; json_object refused"),
        "response_format.name": Unsupported(why="the output format has a schema only", by_mapper=True),
        "response_format.description": Unsupported(why="the output format has a schema only", by_mapper=True),
        "response_format.schema": Wire("output_config.format.schema"),
        "response_format.strict": Unsupported(why="Anthropic always enforces the schema", by_mapper=True),
        "reasoning.effort": Wire("output_config.effort", "or a thinking.budget_tokens from EFFORT_BUDGET when the model takes no effort (changed); none -> thinking disabled"),
        "reasoning.budget_tokens": Wire("thinking.budget_tokens", "0 -> thinking disabled; below 1024 raised to 1024 (changed)"),
        "reasoning.summary": Unsupported(why="Claude 4 models return summarized thinking by default"),
        "reasoning.include_thoughts": Wire("thinking.display", "false -> omitted while thinking (changed); otherwise reported dropped"),
        "stream": Wire("stream", plain=True, check=BOOLEAN),
    },
)
"""What Anthropic Messages does with every canonical setting (ADR 0042); sampling rows: :data:`SAMPLING_SETTINGS`.
The plain rows are written and read back by the shared loop (ADR 0044, ADR 0049), which refuses a value of the
wrong wire type with its place; ``max_tokens`` is written by :func:`encode_settings` (required), the sampling
fields of older requests are read back, never written."""

_NATIVE_EFFORT = ("low", "medium", "high", "xhigh")
"""Canonical effort levels ``output_config.effort`` takes as they are."""

SETTINGS_KEYS = frozenset({"model", "max_tokens", "temperature", "top_p", "top_k", "stop_sequences", "stream", "thinking", "output_config", "output_format"})
"""Top-level keys with a canonical meaning; every other non-conversation key goes to provider_data."""

_CONVERSATION = frozenset({"messages", "system", "tools", "tool_choice"})


def _bad(key: str, what: str) -> MappingError:
    return MappingError(f"anthropic request: {key!r} must be {what} (at /{key})")


def _json_schema_format(fmt: Any) -> dict[str, Any] | None:
    """``{type: "json_schema", schema: {...}}`` -> its schema, when that is all it holds."""
    if isinstance(fmt, Mapping) and fmt.get("type") == "json_schema" and isinstance(fmt.get("schema"), Mapping):
        if set(fmt) == {"type", "schema"}:
            return copy.deepcopy(dict(fmt["schema"]))
    return None


def decode_settings(body: Mapping[str, Any]) -> Settings | msgspec.UnsetType:
    """The settings of an Anthropic request body (rules in the module docstring); ``UNSET`` when it has none.

    Raises:
        MappingError: a setting with a canonical meaning holds a value of the wrong type or range
            (``max_tokens`` not a positive integer, ``temperature`` negative, ``stop_sequences`` not a
            list of non-empty strings, ...); the message names the key.
    """
    fields: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    reasoning: dict[str, Any] = {}
    plain = SETTINGS_TABLE.reader()
    for key, value in body.items():
        if key in _CONVERSATION or plain.take(key, value, fields, extra, refuse=_bad):
            continue
        if value is None and key in SETTINGS_KEYS:
            extra[key] = None
            continue
        if key == "thinking":
            _decode_thinking(value, reasoning, extra)
        elif key in ("output_config", "output_format"):
            continue  # after thinking: a disabled thinking wins over an effort
        else:
            extra[key] = copy.deepcopy(value)
    for key in ("output_config", "output_format"):
        if key in body and body[key] is not None:
            _decode_output(key, body[key], fields, reasoning, extra)
    if reasoning:
        fields["reasoning"] = ReasoningSettings(**reasoning)
    if extra:
        fields["provider_data"] = {NAME: extra}
    return Settings(**fields) if fields else UNSET


def _decode_thinking(value: Any, reasoning: dict[str, Any], extra: dict[str, Any]) -> None:
    if not isinstance(value, Mapping):
        raise _bad("thinking", "an object")
    rest = copy.deepcopy(dict(value))
    kind = rest.get("type")
    budget = rest.get("budget_tokens")
    if kind == "enabled" and isinstance(budget, int) and not isinstance(budget, bool) and budget >= 0:
        reasoning["budget_tokens"] = budget
        del rest["type"], rest["budget_tokens"]
    elif kind == "disabled" and "budget_tokens" not in rest:
        reasoning["effort"] = "none"
        del rest["type"]
    if rest:
        extra["thinking"] = rest


def _decode_output(key: str, value: Any, fields: dict[str, Any], reasoning: dict[str, Any], extra: dict[str, Any]) -> None:
    if not isinstance(value, Mapping):
        raise _bad(key, "an object")
    if key == "output_format":
        schema = _json_schema_format(value)
        if schema is not None and "response_format" not in fields:
            fields["response_format"] = ResponseFormat(type="json_schema", schema=schema)
            extra[key] = {}
        else:
            extra[key] = copy.deepcopy(dict(value))
        return
    rest = copy.deepcopy(dict(value))
    schema = _json_schema_format(rest.get("format"))
    if schema is not None and "response_format" not in fields:
        fields["response_format"] = ResponseFormat(type="json_schema", schema=schema)
        del rest["format"]
    effort = rest.get("effort")
    took_effort = effort in _NATIVE_EFFORT and "effort" not in reasoning
    if took_effort:
        reasoning["effort"] = effort
        del rest["effort"]
    if rest or took_effort or not value:  # an empty one marks that the effort goes back to output_config
        extra[key] = rest


# --------------------------------------------------------------------------- encode


def encode_settings(settings: Settings, model: str | None, policy: Policy, report: Report) -> dict[str, Any]:
    """Canonical settings -> the top-level Anthropic body keys (``model`` first, ``max_tokens`` always).

    Rules (each approximation is a ``changed`` entry naming both values; see docs/providers/anthropic.md):

    * ``model``: the ``model`` argument; without one the body has no model (reported).
    * ``max_tokens`` is required: ``max_output_tokens``; else, for a streamed request (``stream: true``), the
      model's output limit from the model table (``ModelCapabilities.max_output_tokens``); else the largest
      value the official clients send without streaming (:func:`._models.nonstreaming_max_tokens`: the
      Python client refuses a non-streaming call when ``3600 s x max_tokens / 128000`` exceeds 600 s, i.e.
      above 21,333, and above 8,192 for Claude Opus 4 / 4.1), capped at the output limit; else
      :data:`DEFAULT_MAX_TOKENS`. An added one is reported (``changed``). With thinking, ``max_tokens`` must
      exceed ``budget_tokens``: a smaller one is raised to ``budget_tokens + max_tokens`` (the answer keeps
      its tokens), capped at the model limit (at the non-streaming maximum when not streamed) with the
      budget lowered to fit; when no budget of at least 1024 fits, thinking is left out (reported).
    * ``temperature``, ``top_p``, ``top_k``, ``seed``, ``presence_penalty``, ``frequency_penalty``: the
      current Messages API has none of them (:data:`SAMPLING_SETTINGS`): refused under policy ``error``,
      else reported dropped.
    * ``reasoning.budget_tokens`` -> ``thinking`` ``enabled`` (0 -> ``disabled``; 1-1023 -> 1024);
      ``effort`` ``none`` -> ``thinking`` ``disabled``; any other effort -> ``output_config.effort`` when
      the source used ``output_config`` or an adaptive thinking, or the model takes it
      (:func:`._models.effort_levels`; a level the model lacks goes to the nearest one it has,
      ``minimal`` as ``low``; reported); else a ``thinking.budget_tokens`` from :data:`EFFORT_BUDGET`
      (reported). ``include_thoughts: false`` ->
      ``thinking.display: "omitted"``; ``summary`` has no equivalent (reported).
    * ``response_format`` ``json_schema`` -> ``output_config.format`` (or ``output_format`` when the
      source used it); ``name``/``description`` and ``strict: false`` have no field (reported);
      ``json_object`` or a schema-less ``json_schema`` cannot be enforced: refused under policy
      ``error``, else reported dropped; so is a schema for a model the table says has no structured outputs.
    * ``provider_data["anthropic"]`` keys are written back as they are; other providers' are reported.

    Raises:
        ConversionError: policy ``error`` and a response format Anthropic cannot enforce, or a sampling
            setting the current API lacks.
    """
    s = settings
    out: dict[str, Any] = {}
    if model is None:
        note_model(report, model, s, "Anthropic")
    else:
        out["model"] = model
    extra: dict[str, Any] = {}
    nulls: dict[str, Any] = {}
    if s.provider_data is not UNSET:
        extra = own_provider_data(s.provider_data, NAME, report, what="settings", settings=s)
        nulls = {key: None for key, value in extra.items() if value is None}  # explicit nulls go back as they came
        extra = {key: value for key, value in extra.items() if value is not None}
    entry = lookup(NAME, model) if model is not None else None
    limit = entry.capabilities.max_output_tokens if entry is not None else None
    limit = limit if isinstance(limit, int) else None

    streaming = s.stream is True
    cap = limit if streaming else min(limit if limit is not None else DEFAULT_MAX_TOKENS, nonstreaming_max_tokens(model))
    if s.max_output_tokens is not UNSET:
        max_tokens = s.max_output_tokens
    elif limit is not None and streaming:
        max_tokens = limit
        report.add(
            "changed",
            f"max_tokens {limit} added: required by Anthropic, from the model table ({entry.pattern if entry else ''}: output limit; a streamed request)",
            item_type="settings",
            pointer="/settings/max_output_tokens",
        )
    elif limit is not None:
        max_tokens = min(limit, nonstreaming_max_tokens(model))
        why = (
            f"output limit {limit} needs streaming with the official clients; {max_tokens} is the largest they send without it"
            if max_tokens < limit
            else "output limit"
        )
        report.add(
            "changed",
            f"max_tokens {max_tokens} added: required by Anthropic, from the model table ({entry.pattern if entry else ''}: {why})",
            item_type="settings",
            pointer="/settings/max_output_tokens",
        )
    else:
        max_tokens = DEFAULT_MAX_TOKENS
        why = f"model {model!r} is not in the model table" if model is not None else "no model given"
        report.add(
            "changed",
            f"max_tokens {DEFAULT_MAX_TOKENS} added: required by Anthropic, default ({why})",
            item_type="settings",
            pointer="/settings/max_output_tokens",
        )
    out["max_tokens"] = max_tokens

    report_unsupported(s, SETTINGS_TABLE, policy=policy, report=report)

    def reasoning_and_format() -> None:
        # (without reasoning settings or a saved thinking, and without a response format, both write nothing)
        thinking = _encode_reasoning(s, extra, out, report, effort_levels(model)) if s.reasoning is not UNSET or "thinking" in extra else None
        if s.response_format is not UNSET:
            _encode_format(s, extra, out, policy, report, entry)
            report_unsupported(s.response_format, SETTINGS_TABLE, policy=policy, report=report, group="response_format")
        if thinking is not None:
            thinking = _fit_budget(thinking, out, cap, report)
        if thinking is not None:
            out["thinking"] = thinking
        if "output_config" in extra:
            out["output_config"] = {**extra.pop("output_config"), **out.get("output_config", {})}
        if "output_format" in extra:
            out["output_format"] = {**extra.pop("output_format"), **out.get("output_format", {})}

    # the plain rows (stop_sequences, stream) in the table's order, thinking and the output format at theirs
    encode_plain(s, SETTINGS_TABLE, out, rules={"response_format.type": reasoning_and_format})
    if extra or nulls:
        for key, value in {**extra, **nulls}.items():
            out.setdefault(key, value)
    return out


def _encode_reasoning(s: Settings, extra: dict[str, Any], out: dict[str, Any], report: Report, levels: tuple[str, ...] | None) -> dict[str, Any] | None:
    """``thinking`` (or ``None``) from the reasoning settings; an effort may go to ``output_config``.

    ``levels``: the ``output_config.effort`` values the model takes (empty: none; ``None``: unknown model)."""
    saved = extra.pop("thinking", None)
    saved = dict(saved) if isinstance(saved, Mapping) else None
    r = s.reasoning
    thinking: dict[str, Any] | None = None
    if r is not UNSET:
        if r.budget_tokens is not UNSET:
            budget = r.budget_tokens
            if budget == 0:
                approximated_setting(report, "reasoning.budget_tokens", 0, "thinking.type", "disabled", why="a budget of 0 turns thinking off")
                thinking = {"type": "disabled"}
            else:
                if budget < MIN_BUDGET_TOKENS:
                    approximated_setting(report, "reasoning.budget_tokens", budget, "thinking.budget_tokens", MIN_BUDGET_TOKENS, why="Anthropic's minimum")
                    budget = MIN_BUDGET_TOKENS
                thinking = {"type": "enabled", "budget_tokens": budget}
            if r.effort is not UNSET:
                _effort_to_output_config(r.effort, extra, out, report, alongside=True, levels=levels)
        elif r.effort == "none":
            thinking = {"type": "disabled"}
        elif r.effort is not UNSET:
            # the source's own form first (an Anthropic request that used output_config or an adaptive
            # thinking); else what the model takes; a model the rows do not know gets a budget
            native = "output_config" in extra or (saved is not None and saved.get("type") not in (None, "enabled", "disabled")) or bool(levels)
            if native:
                _effort_to_output_config(r.effort, extra, out, report, alongside=False, levels=levels)
            else:
                budget = EFFORT_BUDGET[r.effort]
                approximated_setting(report, "reasoning.effort", r.effort, "thinking.budget_tokens", budget, why="Anthropic budgets thinking in tokens; table in docs/providers/anthropic.md")
                thinking = {"type": "enabled", "budget_tokens": budget}
        thinks = (thinking is not None and thinking["type"] == "enabled") or (thinking is None and saved is not None and "type" in saved)
        if r.include_thoughts is False and thinks:
            approximated_setting(report, "reasoning.include_thoughts", False, "thinking.display", "omitted")
            thinking = {**(thinking or {}), "display": "omitted"}
        elif r.include_thoughts is not UNSET:
            why = "Anthropic returns thinking blocks whenever Claude thinks" if r.include_thoughts else "no thinking is configured"
            unsupported_setting(report, "drop", "Anthropic", "reasoning.include_thoughts", r.include_thoughts, why=why)
        report_unsupported(r, SETTINGS_TABLE, policy="drop", report=report, group="reasoning")
    if saved is not None:
        if thinking is None:
            return saved if "type" in saved else None
        return {**saved, **thinking}
    return thinking


def _effort_to_output_config(effort: str, extra: dict[str, Any], out: dict[str, Any], report: Report, *, alongside: bool, levels: tuple[str, ...] | None) -> None:
    if effort == "none":
        unsupported_setting(report, "drop", "Anthropic", "reasoning.effort", effort, why="a thinking budget is set: thinking stays on")
        return
    if alongside and not levels and "output_config" not in extra:
        unsupported_setting(report, "drop", "Anthropic", "reasoning.effort", effort, why="thinking.budget_tokens already sets how much Claude thinks")
        return
    value = _nearest_effort(effort, levels or _NATIVE_EFFORT)
    if value != effort:
        why = "Anthropic's lowest effort" if effort == "minimal" else f"the model takes output_config.effort {', '.join(levels or _NATIVE_EFFORT)}"
        approximated_setting(report, "reasoning.effort", effort, "output_config.effort", value, why=why)
    out.setdefault("output_config", {})["effort"] = value


_EFFORT_ORDER = ("minimal", "low", "medium", "high", "xhigh", "max")


def _nearest_effort(effort: str, levels: tuple[str, ...]) -> str:
    """``effort`` when ``levels`` has it, else the highest level below it (the lowest level for ``minimal``)."""
    if effort in levels:
        return effort
    rank = _EFFORT_ORDER.index(effort)
    below = [lv for lv in levels if lv in _EFFORT_ORDER and _EFFORT_ORDER.index(lv) < rank]
    if below:
        return max(below, key=_EFFORT_ORDER.index)
    return min(levels, key=lambda lv: _EFFORT_ORDER.index(lv) if lv in _EFFORT_ORDER else len(_EFFORT_ORDER))


def _encode_format(s: Settings, extra: dict[str, Any], out: dict[str, Any], policy: Policy, report: Report, entry: Any) -> None:
    fmt = s.response_format
    if fmt is UNSET or fmt.type == "text":
        return
    if fmt.type == "json_object" or fmt.schema is UNSET:
        unsupported_setting(
            report, policy, "Anthropic", "response_format", fmt, meaning_changes=True,
            why="Anthropic structured outputs need a JSON Schema (objects need additionalProperties: false); pass a schema or ask for JSON in the prompt",
        )
        return
    if entry is not None and entry.capabilities.structured_output is False:
        unsupported_setting(report, policy, "Anthropic", "response_format", fmt, meaning_changes=True, why=f"the model table says {entry.pattern} has no structured outputs")
        return
    block = {"type": "json_schema", "schema": copy.deepcopy(fmt.schema)}
    if "output_format" in extra:
        out["output_format"] = block
    else:
        out.setdefault("output_config", {})["format"] = block
    for name in ("name", "description"):
        value = getattr(fmt, name)
        if value is not UNSET:
            unsupported_setting(report, "drop", "Anthropic", f"response_format.{name}", value, why="the output format has a schema only")
    if fmt.strict is False:
        unsupported_setting(report, "drop", "Anthropic", "response_format.strict", False, why="Anthropic always enforces the schema")


def _fit_budget(thinking: dict[str, Any], out: dict[str, Any], limit: int | None, report: Report) -> dict[str, Any] | None:
    """``max_tokens`` must exceed ``thinking.budget_tokens`` (else the API answers 400); ``None``: thinking left out."""
    budget = thinking.get("budget_tokens")
    if thinking.get("type") != "enabled" or not isinstance(budget, int):
        return thinking
    max_tokens = out["max_tokens"]
    if budget < max_tokens:
        return thinking
    wanted = budget + max_tokens
    if limit is None or wanted <= limit:
        report.add(
            "changed",
            f"max_tokens {max_tokens} sent as {wanted}: Anthropic requires max_tokens above thinking.budget_tokens ({budget}); the answer keeps its {max_tokens} tokens",
            item_type="settings",
            pointer="/settings/max_output_tokens",
        )
        out["max_tokens"] = wanted
        return thinking
    fitted = limit - max_tokens if limit - max_tokens >= MIN_BUDGET_TOKENS else min(budget, limit - 1)
    if fitted >= MIN_BUDGET_TOKENS:
        why = f"Anthropic requires max_tokens above thinking.budget_tokens, and {limit} is the model's output limit"
        report.add("changed", f"max_tokens {max_tokens} sent as {limit}: {why}", item_type="settings", pointer="/settings/max_output_tokens")
        if fitted != budget:
            report.add("changed", f"thinking.budget_tokens {budget} sent as {fitted}: {why}", item_type="settings", pointer="/settings/reasoning/budget_tokens")
        out["max_tokens"] = limit
        return {**thinking, "budget_tokens": fitted}
    report.add(
        "dropped",
        f"thinking.budget_tokens {budget} left out: no budget of at least {MIN_BUDGET_TOKENS} fits below max_tokens {max_tokens}",
        item_type="settings",
        pointer="/settings/reasoning/budget_tokens",
    )
    return None
