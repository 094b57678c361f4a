"""OpenAI Chat generation settings <-> canonical :class:`~interlingua.items.Settings` (ADR 0007).

Wire fields (openai-python ``types/chat/completion_create_params.py``): ``model``, ``stream``,
``max_completion_tokens`` (and the deprecated ``max_tokens``), ``temperature``, ``top_p``, ``stop``
(a string or a list), ``seed``, ``presence_penalty``, ``frequency_penalty``, ``response_format``
(``shared_params/response_format_text.py``, ``..._json_object.py``, ``..._json_schema.py``:
``{type:"json_schema", json_schema:{name, description?, schema?, strict?}}``) and
``reasoning_effort`` (``shared/reasoning_effort.py``). Every other top-level field (``store``,
``service_tier``, ``metadata``, ``user``, ``n``, ``logprobs``, ``stream_options``, OpenRouter
``provider``/``transforms``, DeepSeek ``thinking``, ...) and every value that does not fit its
canonical field (``null``, an effort outside the canonical levels) is kept in
``settings.provider_data["openai-chat"]`` as given and written back only by this mapper.

What each dialect takes (their public API references):

* ``openai``: ``max_completion_tokens`` (``max_tokens`` is deprecated and refused by o-series
  models: OpenAI API reference, Create chat completion); no ``top_k``.
* ``deepseek``: ``max_tokens`` only; no ``seed``, no ``top_k``; ``response_format`` ``text`` or
  ``json_object`` only; ``reasoning_effort`` (``low``/``medium`` read as ``high`` by the server)
  and the ``thinking:{type:"enabled"|"disabled"}`` toggle (api-docs.deepseek.com, Create Chat
  Completion and guides/thinking_mode).
* ``openrouter``: ``max_tokens``, ``top_k``, ``seed``, and the unified
  ``reasoning:{effort, max_tokens, exclude, enabled}`` object (openrouter.ai/docs API reference
  "Parameters" and use-cases/reasoning-tokens); ``cache_control`` on content parts.
* ``ollama`` (``/v1/chat/completions``): ``max_tokens``, ``seed``, ``stop``, penalties,
  ``response_format``, ``reasoning_effort`` and ``reasoning.effort``; no ``top_k``
  (docs.ollama.com/api/openai-compatibility, "Supported request fields").
* the OpenAI-compatible hosts (``groq``, ``together``, ...): output budget field, effort field and
  ``top_k`` from ``_dialects.DIALECT_RULES``, each with its source.
* ``mistral``: ``max_tokens``, ``reasoning_effort``, penalties, ``stop``; the seed is
  ``random_seed`` (renamed by the ``mistral`` mapper); no ``top_k`` (Mistral API reference,
  "Chat Completion"; ``mistralai`` ``ChatCompletionRequest``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ...items import ResponseFormat, Settings
from ...mapping.report import Policy, Report
from ...mapping.settings import (
    approximated_setting,
    build_settings,
    claim_provider_field,
    effort_from_budget,
    merge_provider_fields,
    own_provider_data,
    unsupported_setting,
    valid_setting,
)
from ...mapping.settings_table import SettingsTable, Unsupported, Wire, encode_plain, report_unsupported
from ._common import DIALECTS, NAME, Dialect
from ._dialects import DIALECT_RULES

__all__ = ["SETTINGS_TABLES", "decode_settings", "encode_settings", "settings_table"]

U = msgspec.UNSET

_EFFORT_PATH: dict[str, tuple[str, ...]] = {name: rules.effort_path for name, rules in DIALECT_RULES.items()}

_CONVERSATION = frozenset({"messages", "tools", "functions"})


_MAX_TOKENS_FIELDS = ("max_completion_tokens", "max_tokens")
"""The two output budget fields of the Chat wire; a dialect's table names the one its reference documents
(``DIALECT_RULES``): the other is read too, and written back where the source used it."""


def _table(dialect: str) -> SettingsTable:
    """The settings table of one dialect (its rules: :data:`DIALECT_RULES`, module docstring)."""
    rules = DIALECT_RULES[dialect]
    effort = ".".join(rules.effort_path)
    target = f"OpenAI Chat ({dialect})"
    fmt = {
        "response_format.type": Wire("response_format.type"),
        "response_format.name": Wire("response_format.json_schema.name", "required: 'response' when not set (changed)"),
        "response_format.description": Wire("response_format.json_schema.description"),
        "response_format.schema": Wire("response_format.json_schema.schema"),
        "response_format.strict": Wire("response_format.json_schema.strict"),
    }
    if dialect == "deepseek":
        fmt = {name: Wire("response_format", "DeepSeek takes text or json_object: a JSON Schema format is refused (degrade: json_object, changed)") for name in fmt}
    return SettingsTable(
        NAME if dialect == "openai" else f"{NAME}:{dialect}",
        target,
        {
            "model": Wire("model", "from encode_request(model=...); the settings' model is not written (ADR 0007)", plain=True),
            # the plain rows, in the order they are written (the shared loop, ADR 0044)
            "stream": Wire("stream", plain=True),
            "max_output_tokens": Wire(rules.max_tokens_field, "the field the source used when it kept one", plain=True, spelled=_MAX_TOKENS_FIELDS),
            "temperature": Wire("temperature", plain=True),
            "top_p": Wire("top_p", plain=True),
            # seed before top_k: the order the two are reported in
            "seed": Unsupported(target="DeepSeek", read=Wire("seed", plain=True)) if dialect == "deepseek" else Wire("seed", plain=True),
            "presence_penalty": Wire("presence_penalty", plain=True),
            "frequency_penalty": Wire("frequency_penalty", plain=True),
            "top_k": Wire("top_k", plain=True)
            if rules.top_k
            else Unsupported(why=f"the {dialect} dialect takes no top_k", read=Wire("top_k", plain=True), keep=True),
            "stop": Wire("stop", "a one-element list as the string the source sent"),
            **fmt,
            "reasoning.effort": Wire(effort, "DeepSeek none -> thinking disabled (changed)" if dialect == "deepseek" else ""),
            "reasoning.budget_tokens": Wire("reasoning.max_tokens") if dialect == "openrouter" else Wire(effort, "an effort level for the budget (changed); dropped beside an effort"),
            "reasoning.include_thoughts": Wire("reasoning.exclude", "negated") if dialect == "openrouter" else Unsupported(why="whether reasoning is returned is the model's"),
            "reasoning.summary": Unsupported(why="reasoning summaries are a Responses API setting", target="OpenAI Chat"),
        },
    )


SETTINGS_TABLES: dict[str, SettingsTable] = {dialect: _table(dialect) for dialect in DIALECTS}
"""What each dialect does with every canonical setting (ADR 0042), by dialect; built (and checked) at import."""


def settings_table(dialect: str) -> SettingsTable:
    """The settings table of ``dialect`` (:data:`SETTINGS_TABLES`; built from its rules for a host added later)."""
    table = SETTINGS_TABLES.get(dialect)
    return table if table is not None else _table(dialect)


# --------------------------------------------------------------------------- decode


def _response_format(value: Any, rest: dict[str, Any]) -> dict[str, Any] | None:
    """``response_format`` -> canonical fields (``None``: no canonical form); extra fields go to ``rest``."""
    if not isinstance(value, Mapping):
        return None
    kind = value.get("type")
    extra = {k: copy.deepcopy(v) for k, v in value.items() if k not in ("type", "json_schema")}
    if kind in ("text", "json_object") and "json_schema" not in value:
        if extra:
            rest["response_format"] = extra
        return {"type": kind}
    spec = value.get("json_schema")
    if kind != "json_schema" or not isinstance(spec, Mapping):
        return None
    out: dict[str, Any] = {"type": "json_schema"}
    inner: dict[str, Any] = {}
    for key, v in spec.items():
        ok = {
            "name": isinstance(v, str) and bool(v),
            "description": isinstance(v, str),
            "schema": isinstance(v, Mapping),
            "strict": isinstance(v, bool),
        }.get(key, False)
        if ok:
            out[key] = copy.deepcopy(v)
        else:
            inner[key] = copy.deepcopy(v)
    if inner:
        extra["json_schema"] = inner
    if extra:
        rest["response_format"] = extra
    return out


def decode_settings(body: Mapping[str, Any], dialect: Dialect, consumed: frozenset[str]) -> Settings | msgspec.UnsetType:
    """Every top-level field but the conversation (``messages``, ``tools``, ``functions`` and the
    ``consumed`` tool-choice fields) -> :class:`~interlingua.items.Settings`.

    Fields with a canonical meaning and a valid value go to canonical fields; the field an output
    budget or an effort came from is kept in ``provider_data`` when it is not the dialect's own
    (so the same provider gets the same key back), and so is the string form of ``stop``.
    Everything else is kept in ``provider_data["openai-chat"]`` as given.
    """
    fields: dict[str, Any] = {}
    reasoning: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    plain = settings_table(dialect).reader()
    for key, value in body.items():
        if key in _CONVERSATION or key in consumed or plain.take(key, value, fields, rest):
            continue
        if key == "stop" and isinstance(value, str) and valid_setting("stop", [value]):
            fields["stop"] = [value]
            rest["stop"] = value  # the string form, written back as a string
        elif key == "stop" and valid_setting("stop", value):
            fields["stop"] = copy.deepcopy(value)
        elif key == "response_format" and (fmt := _response_format(value, rest)) is not None:
            fields["response_format"] = fmt
        elif key == "reasoning_effort" and "effort" not in reasoning and valid_setting("reasoning", {"effort": value}):
            reasoning["effort"] = value
            if _EFFORT_PATH[dialect] != ("reasoning_effort",):
                rest["reasoning_effort"] = value
        elif key == "reasoning" and isinstance(value, Mapping):
            _openrouter_reasoning(value, reasoning, rest, dialect)
        else:
            rest[key] = copy.deepcopy(value)
    plain.finish(body, fields, rest)  # the output budget, in whichever of its fields the source used
    if reasoning:
        fields["reasoning"] = reasoning
    return build_settings(fields, rest, NAME)


def settings_mirrors(data: Mapping[str, Any], settings: Settings) -> set[str]:
    """Keys of ``provider_data["openai-chat"]`` (as :func:`decode_settings` keeps them) that only
    record how the source spelled a value ``settings`` carries: ``max_tokens`` /
    ``max_completion_tokens`` equal to ``max_output_tokens``, a string ``stop`` that is the one stop
    sequence, ``top_k`` equal to ``top_k``, ``reasoning_effort`` equal to the reasoning effort. Another
    wire format writes the value in its own field, so nothing of these is lost."""
    out: set[str] = set()
    for key in ("max_tokens", "max_completion_tokens"):
        if key in data and type(data[key]) is int and data[key] == settings.max_output_tokens:
            out.add(key)
    if isinstance(data.get("stop"), str) and settings.stop == [data["stop"]]:
        out.add("stop")
    if "top_k" in data and type(data["top_k"]) is int and data["top_k"] == settings.top_k:
        out.add("top_k")
    effort = getattr(settings.reasoning, "effort", msgspec.UNSET) if settings.reasoning is not msgspec.UNSET else msgspec.UNSET
    if isinstance(data.get("reasoning_effort"), str) and data["reasoning_effort"] == effort:
        out.add("reasoning_effort")
    return out


def _openrouter_reasoning(value: Mapping[str, Any], reasoning: dict[str, Any], rest: dict[str, Any], dialect: Dialect) -> None:
    """OpenRouter (and Ollama-compatible) ``reasoning:{effort, max_tokens, exclude, ...}``."""
    left: dict[str, Any] = {}
    for key, v in value.items():
        if key == "effort" and "effort" not in reasoning and valid_setting("reasoning", {"effort": v}):
            reasoning["effort"] = v
            if _EFFORT_PATH[dialect] != ("reasoning", "effort"):
                left["effort"] = v
        elif key == "max_tokens" and valid_setting("reasoning", {"budget_tokens": v}):
            reasoning["budget_tokens"] = v
            if dialect != "openrouter":
                left["max_tokens"] = v  # not this dialect's budget field: kept so the same body is written back
        elif key == "exclude" and isinstance(v, bool):
            reasoning["include_thoughts"] = not v
        else:
            left[key] = copy.deepcopy(v)
    if left or not value:
        rest["reasoning"] = left  # the fields with no canonical form (an empty object stays as given)


# --------------------------------------------------------------------------- encode


def _put(body: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = body
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value


def encode_settings(settings: Settings, body: dict[str, Any], *, dialect: Dialect, policy: Policy, report: Report) -> None:
    """Write ``settings`` into ``body`` (in place) for ``dialect``; report what it cannot take.

    ``model`` is not written here (only the caller's ``model=`` argument is, ADR 0007).

    Raises:
        ConversionError: under policy ``error``, a ``json_schema`` response format the dialect
            cannot enforce (DeepSeek).
    """
    # The field a source used (kept in the own provider_data, see decode_settings) is honoured in every
    # dialect, like any other provider_data field: it is this mapper's, written back as given.
    own = own_provider_data(settings.provider_data, NAME, report, what="settings", settings=settings)
    table = settings_table(dialect)
    # the plain rows; a field this dialect does not take which the source itself sent with this value (an
    # OpenRouter body's top_k read as plain Chat) is written back as it was (kept), not reported
    kept = encode_plain(settings, table, body, own=own)
    report_unsupported(settings, table, policy=policy, report=report, kept=kept)
    if settings.stop is not U:
        stop = list(settings.stop)
        body["stop"] = stop[0] if len(stop) == 1 and claim_provider_field(own, ("stop",), stop[0]) else stop
    if settings.response_format is not U:
        _encode_response_format(settings.response_format, body, dialect=dialect, policy=policy, report=report)
        report_unsupported(settings.response_format, table, policy=policy, report=report, group="response_format")
    if settings.reasoning is not U:
        _encode_reasoning(settings.reasoning, body, own, dialect=dialect, policy=policy, report=report)
    merge_provider_fields(body, own, report, target=NAME)


def _encode_response_format(fmt: ResponseFormat, body: dict[str, Any], *, dialect: Dialect, policy: Policy, report: Report) -> None:
    if fmt.type != "json_schema":
        body["response_format"] = {"type": fmt.type}
        return
    if dialect == "deepseek":
        if policy == "degrade":
            approximated_setting(report, "response_format", fmt, "response_format", {"type": "json_object"}, why="DeepSeek cannot enforce a JSON Schema")
            body["response_format"] = {"type": "json_object"}
        else:
            unsupported_setting(report, policy, "DeepSeek", "response_format", fmt, meaning_changes=True, why="DeepSeek takes json_object, not a JSON Schema")
        return
    spec: dict[str, Any] = {}
    if fmt.name is U:
        spec["name"] = "response"
        approximated_setting(report, "response_format.name", None, "response_format.json_schema.name", "response", why="OpenAI requires a schema name")
    for key in ("name", "description", "schema", "strict"):
        value = getattr(fmt, key)
        if value is not U:
            spec[key] = copy.deepcopy(value)
    body["response_format"] = {"type": "json_schema", "json_schema": spec}


def _encode_reasoning(reasoning: Any, body: dict[str, Any], own: dict[str, Any], *, dialect: Dialect, policy: Policy, report: Report) -> None:
    effort = reasoning.effort
    budget = reasoning.budget_tokens
    kept = own.get("reasoning")
    if budget is not U and (dialect == "openrouter" or claim_provider_field(own, ("reasoning", "max_tokens"), budget)):
        _put(body, ("reasoning", "max_tokens"), budget)
    elif isinstance(kept, dict) and "max_tokens" in kept:
        kept.pop("max_tokens")  # the budget the source sent there no longer holds: the settings decide
        if not kept:
            own.pop("reasoning")
    elif budget is not U and effort is U:
        effort = effort_from_budget(budget)
        approximated_setting(report, "reasoning.budget_tokens", budget, "reasoning_effort", effort, why=f"the {dialect} dialect takes an effort level, not a token budget")
    elif budget is not U:
        unsupported_setting(report, policy, f"OpenAI Chat ({dialect})", "reasoning.budget_tokens", budget, why="an effort level is sent instead")
    if effort is not U:
        if dialect == "deepseek" and effort == "none":
            approximated_setting(report, "reasoning.effort", effort, "thinking", {"type": "disabled"}, why="DeepSeek turns thinking off with the thinking toggle")
            _put(body, ("thinking",), {"type": "disabled"})
        else:
            candidates: list[tuple[str, ...]] = [("reasoning_effort",), ("reasoning", "effort")]
            paths = [p for p in candidates if claim_provider_field(own, p, effort)]
            for path in paths or [_EFFORT_PATH[dialect]]:
                _put(body, path, effort)
    if reasoning.include_thoughts is not U and dialect == "openrouter":
        _put(body, ("reasoning", "exclude"), not reasoning.include_thoughts)
    report_unsupported(reasoning, settings_table(dialect), policy=policy, report=report, group="reasoning")
