"""Gemini ``generateContent`` generation settings <-> canonical :class:`~interlingua.items.Settings`.

Sources: the API reference for ``GenerationConfig``, ``ThinkingConfig`` and ``Schema``
(ai.google.dev/api/generate-content#generationconfig, ai.google.dev/api/caching#Schema; GEN SDK
``types.py`` ``GenerationConfig``), structured output (ai.google.dev/gemini-api/docs/structured-output:
``responseMimeType: "application/json"`` with ``responseJsonSchema`` (JSON Schema) or
``responseSchema`` (the OpenAPI 3.0 subset)) and thinking (ai.google.dev/gemini-api/docs/thinking:
``thinkingBudget`` (0 off, -1 dynamic), ``thinkingLevel`` for Gemini 3, not both in one request).

``model`` is not in a Gemini body: the API takes it in the URL (``models/{model}:generateContent``),
so ``settings.model`` is never decoded from a body and never written into one (the caller passes
the model to its transport). A body that holds ``model`` all the same (``GenerateContentRequest.model``;
ruby_llm sends it on its speech calls) keeps it in ``provider_data["gemini"]`` like any other field the
mapper does not model: it goes back to Gemini as given. ``stream`` is the URL too (``:streamGenerateContent``).

Decode (``generationConfig`` key -> canonical; camelCase or snake_case read, camelCase written):

* ``maxOutputTokens`` -> ``max_output_tokens``; ``temperature``; ``topP`` -> ``top_p``; ``topK`` ->
  ``top_k``; ``stopSequences`` -> ``stop``; ``seed``; ``presencePenalty``; ``frequencyPenalty``.
* ``responseMimeType`` ``text/plain`` -> ``response_format`` ``text``; ``application/json`` alone ->
  ``json_object``; with ``responseJsonSchema`` -> ``json_schema`` (schema kept exactly); with
  ``responseSchema`` -> ``json_schema`` with the schema converted to JSON Schema, the original kept
  in ``provider_data["gemini"]["generationConfig"]["responseSchema"]`` and written back as it was
  while the canonical schema is unchanged.
* ``thinkingConfig``: ``thinkingBudget`` >= 0 -> ``reasoning.budget_tokens``; ``thinkingLevel``
  (``minimal``/``low``/``medium``/``high``, any case) -> ``reasoning.effort``; ``includeThoughts``
  -> ``reasoning.include_thoughts``; the rest (``thinkingBudget: -1``, ...) stays in provider data.
* every other ``generationConfig`` key (``candidateCount``, ``responseModalities``, ``logprobs``,
  ``imageConfig``, ...) -> ``provider_data["gemini"]["generationConfig"]``; every other top-level key
  (``safetySettings``, ``cachedContent``, ``labels``, ``modelArmorConfig``, ...) ->
  ``provider_data["gemini"]``, written back only to Gemini.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ...errors import ConversionError
from ...items import ReasoningSettings, ResponseFormat, Settings
from ...mapping.report import Policy, Report
from ...mapping.settings import approximated_setting, own_provider_data, unsupported_setting
from ...mapping.settings_table import (
    INTEGER,
    NUMBER,
    NUMBER_0_TO_1,
    NUMBER_AT_LEAST_0,
    POSITIVE_INTEGER,
    STRINGS,
    SettingsTable,
    Unsupported,
    Wire,
    encode_plain,
    report_unsupported,
)
from ._common import NAME, camel
from ._models import EFFORT_THINKING_BUDGET, ThinkingRule, thinking_rule

__all__ = ["SETTINGS_TABLE", "decode_settings", "encode_settings", "openapi_to_json_schema", "json_schema_to_openapi"]

UNSET = msgspec.UNSET

_LEVELS = ("minimal", "low", "medium", "high")
"""``thinkingLevel`` values with the same name as a canonical effort."""

_GC = "generationConfig"
_TC = "thinkingConfig"

SETTINGS_TABLE = SettingsTable(
    NAME,
    "Gemini",
    {
        "model": Wire("URL path models/{model}", "never in the body: passed to the call (model_in_body = False)"),
        "max_output_tokens": Wire("generationConfig.maxOutputTokens", plain=True, check=POSITIVE_INTEGER),
        "temperature": Wire("generationConfig.temperature", plain=True, check=NUMBER_AT_LEAST_0),
        "top_p": Wire("generationConfig.topP", plain=True, check=NUMBER_0_TO_1),
        "top_k": Wire("generationConfig.topK", plain=True, check=NUMBER_AT_LEAST_0),
        "stop": Wire("generationConfig.stopSequences", plain=True, check=STRINGS),
        "seed": Wire("generationConfig.seed", plain=True, check=INTEGER),
        "presence_penalty": Wire("generationConfig.presencePenalty", plain=True, check=NUMBER),
        "frequency_penalty": Wire("generationConfig.frequencyPenalty", plain=True, check=NUMBER),
        "response_format.type": Wire("generationConfig.responseMimeType", "text -> text/plain; JSON -> application/json"),
        "response_format.name": Unsupported(why="Gemini takes the schema only", by_mapper=True),
        "response_format.description": Unsupported(why="Gemini takes the schema only", by_mapper=True),
        "response_format.schema": Wire("generationConfig.responseJsonSchema", "responseSchema (OpenAPI subset, changed) for Gemini 1.x/2.0"),
        "response_format.strict": Unsupported(why="Gemini always constrains output to the schema", by_mapper=True),
        "reasoning.effort": Wire("generationConfig.thinkingConfig.thinkingLevel", "a thinkingBudget for models that take budgets (changed)"),
        "reasoning.budget_tokens": Wire("generationConfig.thinkingConfig.thinkingBudget"),
        "reasoning.summary": Unsupported(why="includeThoughts returns thought summaries"),
        "reasoning.include_thoughts": Wire("generationConfig.thinkingConfig.includeThoughts"),
        "stream": Unsupported(why="Gemini picks streaming by URL: streamGenerateContent or generateContent", target="Gemini body"),
    },
)
"""What Gemini ``generateContent`` does with every canonical setting (ADR 0042); the plain rows are written and
read back by the shared loop (ADR 0044, ADR 0049), which refuses a value of the wrong wire type (the row's check)
with its place."""


def _bad(where: str, what: str) -> ConversionError:
    return ConversionError(f"Gemini request: {where} must be {what} (at /{where.replace('.', '/')})", item_type="settings")


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# --------------------------------------------------------------------------- schema conversion

_OPENAPI_TYPES = {"STRING": "string", "NUMBER": "number", "INTEGER": "integer", "BOOLEAN": "boolean", "ARRAY": "array", "OBJECT": "object", "NULL": "null"}


def openapi_to_json_schema(schema: Any) -> Any:
    """A Gemini ``Schema`` (OpenAPI 3.0 subset) -> JSON Schema.

    ``type`` names are lowercased (``OBJECT`` -> ``object``), ``nullable: true`` becomes a
    ``["<type>", "null"]`` type, ``properties``/``items``/``anyOf`` are converted recursively;
    ``propertyOrdering`` and the other keywords (``enum``, ``format``, ``description``, ``required``,
    ``minItems``, ...) are kept as they are (JSON Schema ignores unknown keywords).
    """
    if not isinstance(schema, Mapping):
        return copy.deepcopy(schema)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            out["type"] = _OPENAPI_TYPES.get(value.upper(), value)
        elif key == "properties" and isinstance(value, Mapping):
            out["properties"] = {k: openapi_to_json_schema(v) for k, v in value.items()}
        elif key == "items":
            out["items"] = openapi_to_json_schema(value)
        elif key in ("anyOf", "any_of") and isinstance(value, list):
            out["anyOf"] = [openapi_to_json_schema(v) for v in value]
        elif key == "nullable":
            continue
        else:
            out[key] = copy.deepcopy(value)
    if schema.get("nullable") is True:
        typ = out.get("type")
        if isinstance(typ, str):
            out["type"] = [typ, "null"]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


def json_schema_to_openapi(schema: Any) -> Any:
    """JSON Schema -> a Gemini ``Schema`` (the reverse of :func:`openapi_to_json_schema`, best effort).

    ``["<type>", "null"]`` becomes ``nullable: true``; ``anyOf`` with a ``{"type": "null"}`` branch
    and one other becomes that branch with ``nullable``; keywords the OpenAPI subset lacks are
    kept (the API refuses what it cannot take).
    """
    if not isinstance(schema, Mapping):
        return copy.deepcopy(schema)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, list):
            rest = [t for t in value if t != "null"]
            out["type"] = rest[0] if len(rest) == 1 else copy.deepcopy(value)
            if "null" in value and len(rest) == 1:
                out["nullable"] = True
        elif key == "properties" and isinstance(value, Mapping):
            out["properties"] = {k: json_schema_to_openapi(v) for k, v in value.items()}
        elif key == "items":
            out["items"] = json_schema_to_openapi(value)
        elif key == "anyOf" and isinstance(value, list):
            branches = [v for v in value if v != {"type": "null"}]
            if len(branches) == 1 and len(value) == 2:
                out.update(json_schema_to_openapi(branches[0]))
                out["nullable"] = True
            else:
                out["anyOf"] = [json_schema_to_openapi(v) for v in value]
        else:
            out[key] = copy.deepcopy(value)
    return out


# --------------------------------------------------------------------------- decode


def decode_settings(body: Mapping[str, Any], conversation: frozenset[str]) -> Settings | msgspec.UnsetType:
    """The settings of a Gemini request body (rules in the module docstring); ``UNSET`` when it has none.

    Args:
        body: The request body.
        conversation: camelCase top-level keys the transcript itself carries (left alone here).

    Raises:
        ConversionError: a canonical setting of the wrong type or range (``maxOutputTokens`` not a
            positive integer, ``stopSequences`` not a list of strings, ...); the message names it.
    """
    fields: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in body.items():
        ck = camel(key)
        if ck in conversation:
            continue
        if ck == _GC and isinstance(value, Mapping):
            rest = _decode_generation_config(value, fields)
            if rest or not value:  # an empty generationConfig is kept: it goes back as it came
                extra[_GC] = rest
        elif ck == _GC and value is not None:
            raise _bad(_GC, "an object")
        else:
            extra[key] = copy.deepcopy(value)
    if extra:
        fields["provider_data"] = {NAME: extra}
    return Settings(**fields) if fields else UNSET


def _decode_generation_config(gc: Mapping[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    rest: dict[str, Any] = {}
    reasoning: dict[str, Any] = {}
    camelled = {camel(k): k for k in gc}
    plain = SETTINGS_TABLE.reader(_GC)
    for key, value in gc.items():
        ck = camel(key)
        if plain.take(key, value, fields, rest, as_key=ck, refuse=_bad):
            continue
        where = f"{_GC}.{ck}"
        if value is None:
            rest[key] = None
        elif ck == _TC:
            if not isinstance(value, Mapping):
                raise _bad(where, "an object")
            left = _decode_thinking(value, reasoning)
            if left or not value:  # an empty thinkingConfig goes back as it came
                rest[key] = left
        elif ck in ("responseMimeType", "responseSchema", "responseJsonSchema"):
            continue
        else:
            rest[key] = copy.deepcopy(value)
    _decode_format(gc, camelled, fields, rest)
    if reasoning:
        fields["reasoning"] = ReasoningSettings(**reasoning)
    return rest


def _decode_thinking(tc: Mapping[str, Any], reasoning: dict[str, Any]) -> dict[str, Any]:
    left: dict[str, Any] = {}
    for key, value in tc.items():
        ck = camel(key)
        if ck == "thinkingBudget" and _int(value) and value >= 0:
            reasoning["budget_tokens"] = value
        elif ck == "thinkingLevel" and isinstance(value, str) and value.lower() in _LEVELS:
            reasoning["effort"] = value.lower()
            if value != value.lower():
                left[key] = value  # the original spelling, written back while the effort is unchanged
        elif ck == "includeThoughts" and isinstance(value, bool):
            reasoning["include_thoughts"] = value
        else:
            left[key] = copy.deepcopy(value)
    return left


def _decode_format(gc: Mapping[str, Any], camelled: dict[str, str], fields: dict[str, Any], rest: dict[str, Any]) -> None:
    mime_key, js_key, os_key = (camelled.get(k) for k in ("responseMimeType", "responseJsonSchema", "responseSchema"))
    mime = gc.get(mime_key) if mime_key else None
    js = gc.get(js_key) if js_key else None
    os_ = gc.get(os_key) if os_key else None
    if mime == "text/plain" and js is None and os_ is None:
        fields["response_format"] = ResponseFormat(type="text")
    elif mime == "application/json" and js is None and os_ is None:
        fields["response_format"] = ResponseFormat(type="json_object")
    elif mime == "application/json" and isinstance(js, Mapping) and os_ is None:
        fields["response_format"] = ResponseFormat(type="json_schema", schema=copy.deepcopy(dict(js)))
    elif mime == "application/json" and isinstance(os_, Mapping) and js is None:
        fields["response_format"] = ResponseFormat(type="json_schema", schema=openapi_to_json_schema(os_))
        rest["responseSchema"] = copy.deepcopy(dict(os_))
    else:  # another MIME type (text/x.enum), or a schema without one: kept as it is
        for key in (mime_key, js_key, os_key):
            if key is not None:
                rest[key] = copy.deepcopy(gc[key])
        return


# --------------------------------------------------------------------------- encode


def encode_settings(settings: Settings, model: str | None, policy: Policy, report: Report) -> dict[str, Any]:
    """Canonical settings -> Gemini top-level keys (``generationConfig`` and provider data).

    Rules (docs/providers/gemini.md): canonical settings go to ``generationConfig`` under their Gemini
    names. ``response_format``: ``text`` -> ``responseMimeType: "text/plain"``; ``json_object`` ->
    ``application/json``; ``json_schema`` -> ``application/json`` + ``responseJsonSchema`` (the
    schema exactly), or the ``responseSchema`` it was decoded from while unchanged; for a model that
    takes ``responseSchema`` only (Gemini 1.x and 2.0) the schema is converted and reported.
    ``name``/``description``/``strict`` have no field (reported). Reasoning: ``budget_tokens`` ->
    ``thinkingBudget``; ``effort`` ``minimal``..``high`` -> ``thinkingLevel``, ``xhigh`` -> ``high``,
    ``none`` -> ``thinkingBudget: 0`` (approximations, reported); for a model that takes budgets, not
    levels (Gemini 2.5: :func:`._models.thinking_rule`) every effort -> a ``thinkingBudget`` from
    :data:`._models.EFFORT_THINKING_BUDGET` clipped to the model's range (reported), and a saved
    ``thinkingLevel`` is left out (reported); both a budget and an effort: the
    budget is sent, the effort reported (the API refuses both). ``summary`` has no equivalent.
    ``model`` and ``stream`` are in the URL, not the body: ``stream`` is reported.

    Raises:
        ConversionError: never for settings (nothing Gemini cannot enforce changes the meaning).
    """
    s = settings
    extra = own_provider_data(s.provider_data, NAME, report, what="settings", settings=s)
    saved_gc = extra.pop(_GC, None)
    saved = {camel(k): v for k, v in saved_gc.items()} if isinstance(saved_gc, Mapping) else {}
    gc: dict[str, Any] = {}
    encode_plain(s, SETTINGS_TABLE, gc, under=_GC)
    _encode_format(s, saved, gc, model, report)
    if s.response_format is not UNSET:
        report_unsupported(s.response_format, SETTINGS_TABLE, policy=policy, report=report, group="response_format")
    saved_tc = saved.pop(_TC, None)
    thinking = _encode_reasoning(s, saved_tc, report, thinking_rule(model))
    if thinking or isinstance(saved_tc, Mapping):
        gc[_TC] = thinking
    for key, value in saved.items():
        gc.setdefault(key, copy.deepcopy(value))
    report_unsupported(s, SETTINGS_TABLE, policy=policy, report=report)
    out: dict[str, Any] = {}
    if gc or isinstance(saved_gc, Mapping):
        out[_GC] = gc
    out.update(extra)
    return out


def _encode_format(s: Settings, saved: dict[str, Any], gc: dict[str, Any], model: str | None, report: Report) -> None:
    original = saved.pop("responseSchema", None)
    fmt = s.response_format
    if fmt is UNSET:
        if original is not None:
            gc["responseSchema"] = original
        return
    if fmt.type == "text":
        gc["responseMimeType"] = "text/plain"
        return
    gc["responseMimeType"] = "application/json"
    if fmt.type == "json_schema" and fmt.schema is not UNSET:
        if isinstance(original, Mapping) and openapi_to_json_schema(original) == fmt.schema:
            gc["responseSchema"] = copy.deepcopy(original)
        elif model is not None and _schema_only(model):
            converted = json_schema_to_openapi(fmt.schema)
            gc["responseSchema"] = converted
            report.add(
                "changed",
                f"response_format.schema sent as responseSchema (OpenAPI subset, converted from JSON Schema): {model} takes no responseJsonSchema",
                item_type="settings",
                pointer="/settings/response_format/schema",
            )
        else:
            gc["responseJsonSchema"] = copy.deepcopy(fmt.schema)
    elif fmt.type == "json_schema":
        approximated_setting(report, "response_format", fmt, "responseMimeType", "application/json", why="no schema given: any JSON")
    for name in ("name", "description"):
        value = getattr(fmt, name)
        if value is not UNSET:
            unsupported_setting(report, "drop", "Gemini", f"response_format.{name}", value, why="Gemini takes the schema only")
    if fmt.strict is False:
        unsupported_setting(report, "drop", "Gemini", "response_format.strict", False, why="Gemini always constrains output to the schema")


def _schema_only(model: str) -> bool:
    """Gemini 1.x and 2.0 models take ``responseSchema`` only (``responseJsonSchema`` came with 2.5)."""
    name = model.rsplit("/", 1)[-1].lower()
    return name.startswith(("gemini-1", "gemini-2.0"))


def _encode_reasoning(s: Settings, saved: Any, report: Report, rule: ThinkingRule | None) -> dict[str, Any]:
    """``thinkingConfig`` from the reasoning settings. ``rule``: the model's (:func:`._models.thinking_rule`);
    a model that takes budgets gets every effort as a ``thinkingBudget`` (reported), never a ``thinkingLevel``."""
    tc: dict[str, Any] = {camel(k): copy.deepcopy(v) for k, v in saved.items()} if isinstance(saved, Mapping) else {}
    spelled = tc.pop("thinkingLevel", None)
    budgets = rule is not None and rule.field == "thinkingBudget"
    r = s.reasoning
    if r is UNSET:
        if spelled is not None:
            if budgets:
                report.add("dropped", f"thinkingConfig.thinkingLevel {spelled!r} left out: the model takes thinkingBudget, not thinkingLevel (Gemini 2.5)",
                           item_type="settings", pointer="/settings/provider_data/gemini/generationConfig/thinkingConfig/thinkingLevel")
            else:
                tc["thinkingLevel"] = spelled
        return tc
    if r.budget_tokens is not UNSET:
        tc["thinkingBudget"] = r.budget_tokens
        if r.effort is not UNSET:
            unsupported_setting(report, "drop", "Gemini", "reasoning.effort", r.effort, why="thinkingBudget is set and Gemini refuses thinkingLevel with it")
    elif budgets and r.effort is not UNSET:
        assert rule is not None
        tc["thinkingBudget"] = _effort_budget(r.effort, rule, report)
    elif r.effort == "none":
        approximated_setting(report, "reasoning.effort", "none", "thinkingConfig.thinkingBudget", 0, why="a budget of 0 turns thinking off where the model allows it")
        tc["thinkingBudget"] = 0
    elif r.effort == "xhigh":
        approximated_setting(report, "reasoning.effort", "xhigh", "thinkingConfig.thinkingLevel", "high", why="Gemini's highest level")
        tc["thinkingLevel"] = "high"
    elif r.effort is not UNSET:
        tc["thinkingLevel"] = spelled if isinstance(spelled, str) and spelled.lower() == r.effort else r.effort
    if r.include_thoughts is not UNSET:
        tc["includeThoughts"] = r.include_thoughts
    report_unsupported(r, SETTINGS_TABLE, policy="drop", report=report, group="reasoning")
    return tc


def _effort_budget(effort: str, rule: ThinkingRule, report: Report) -> int:
    """The ``thinkingBudget`` written for ``effort`` on a model that takes budgets (always reported)."""
    target = "thinkingConfig.thinkingBudget"
    if effort == "none":
        if rule.can_disable:
            approximated_setting(report, "reasoning.effort", "none", target, 0, why="a budget of 0 turns thinking off; the model takes thinkingBudget, not thinkingLevel")
            return 0
        approximated_setting(report, "reasoning.effort", "none", target, rule.min_budget, why="the model cannot turn thinking off: its smallest budget")
        return rule.min_budget
    wanted = rule.max_budget if effort == "xhigh" else EFFORT_THINKING_BUDGET[effort]
    budget = min(max(wanted, rule.min_budget), rule.max_budget)
    approximated_setting(report, "reasoning.effort", effort, target, budget, why=f"the model takes thinkingBudget ({rule.min_budget}-{rule.max_budget}), not thinkingLevel; table in docs/providers/gemini.md")
    return budget
