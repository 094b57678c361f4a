"""Generation settings of the ``openai-chat`` (every dialect), ``openai-responses`` and ``ollama`` mappers (issue 12, ADR 0007).

* Every real request fixture keeps every setting it holds through a same-provider round trip.
* Random settings -> encode -> decode: each setting comes back equal, or the report names it.
* The rules: which field each dialect writes, approximations named with both values, what a target
  cannot take reported (refused only when the output's meaning changes), provider data written back
  only to its own mapper, ``model`` only from ``model=``, Ollama's explicit ``stream``, OpenRouter
  ``cache_control`` <-> item cache breakpoints.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua.codec import SCHEMA_VERSION, to_builtins
from interlingua.errors import ConversionError
from interlingua.items import (
    CacheBreakpoint,
    ReasoningSettings,
    ResponseFormat,
    Settings,
    TextItem,
    ToolCallItem,
    ToolDefinition,
    ToolResultItem,
    Transcript,
)
from interlingua.mapping import get_mapper
from interlingua.mapping.report import POLICIES
from interlingua.mapping.spelling import without_spelling
from interlingua.providers.openai_chat import OpenAIChatMapper

REAL = Path(__file__).parents[1] / "fixtures" / "real"
U = msgspec.UNSET


def _mapper_for(path: Path) -> Any:
    """The mapper (and dialect) a fixture was recorded for."""
    if path.parent.name == "openrouter":
        return OpenAIChatMapper("openrouter")
    if path.parent.name == "ollama" and path.name.startswith("pai_"):
        return OpenAIChatMapper("ollama")  # Ollama Cloud's OpenAI-compatible endpoint
    if path.parent.name == "openai_chat":
        return OpenAIChatMapper("openai")
    if path.parent.name == "openai_responses":
        return get_mapper("openai-responses")
    return get_mapper("ollama")


REQUESTS = sorted(p for d in ("openai_chat", "openai_responses", "ollama", "openrouter") for p in (REAL / d).glob("*.request.json"))
CONVERSATION = ("messages", "input", "instructions", "tools")


def test_every_fixture_family_has_requests() -> None:
    assert {p.parent.name for p in REQUESTS} == {"openai_chat", "openai_responses", "ollama", "openrouter"}
    assert len(REQUESTS) >= 16


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_same_provider_round_trip_keeps_every_setting(path: Path) -> None:
    body = json.loads(path.read_text())
    before = copy.deepcopy(body)
    mapper = _mapper_for(path)
    decoded = mapper.decode_request(body)
    assert not [e for e in decoded.report if e.item_type == "settings"]
    assert not [e for e in decoded.report if "not conversation" in e.reason]
    s = decoded.value.settings
    assert isinstance(s, Settings) and s.model == body["model"]
    encoded = mapper.encode_request(decoded.value, model=s.model)
    assert not [e for e in encoded.report if e.item_type == "settings"], [str(e) for e in encoded.report]
    want = {k: v for k, v in body.items() if k not in CONVERSATION}
    if mapper.name == "ollama":
        want.setdefault("stream", True)  # Ollama streams when stream is absent; the body says so explicitly
    got = {k: v for k, v in encoded.value.items() if k not in CONVERSATION}
    assert got == want
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)  # same JSON types (1 stays 1, not True)
    assert body == before  # input never mutated


# --------------------------------------------------------------------------- property: settings -> encode -> decode

_floats = st.floats(allow_nan=False, allow_infinity=False, width=32)
_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=8)
_schema = st.fixed_dictionaries({"type": st.just("object"), "properties": st.dictionaries(st.sampled_from(["a", "b", "city"]), st.just({"type": "string"}), max_size=2)})

_response_formats = st.one_of(
    st.builds(ResponseFormat, type=st.sampled_from(["text", "json_object"])),
    st.builds(
        ResponseFormat,
        type=st.just("json_schema"),
        name=st.one_of(st.just(U), st.sampled_from(["Answer", "city_location"])),
        description=st.one_of(st.just(U), _text),
        schema=st.one_of(st.just(U), _schema),
        strict=st.one_of(st.just(U), st.booleans()),
    ),
)
_reasoning = st.builds(
    ReasoningSettings,
    effort=st.one_of(st.just(U), st.sampled_from(["none", "minimal", "low", "medium", "high", "xhigh"])),
    budget_tokens=st.one_of(st.just(U), st.integers(0, 40000)),
    summary=st.one_of(st.just(U), st.sampled_from(["auto", "concise", "detailed", "none"])),
    include_thoughts=st.one_of(st.just(U), st.booleans()),
)


def _maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.just(U), strategy)


@st.composite
def _settings(draw: Any, own: str) -> Settings:
    provider_data: Any = U
    if draw(st.booleans()):
        provider_data = {}
        if draw(st.booleans()):
            provider_data[own] = {"user": draw(_text)} if own != "ollama" else {"keep_alive": "5m", "options": {"num_ctx": 4096}}
        if draw(st.booleans()):
            provider_data["gemini"] = {"safetySettings": []}
        provider_data = provider_data or U
    return Settings(
        model=draw(_maybe(st.sampled_from(["gpt-5", "llama3.2", "m-1"]))),
        max_output_tokens=draw(_maybe(st.integers(1, 200000))),
        temperature=draw(_maybe(st.floats(0, 2, allow_nan=False, width=32))),
        top_p=draw(_maybe(st.floats(0, 1, allow_nan=False, width=32))),
        top_k=draw(_maybe(st.integers(0, 500))),
        stop=draw(_maybe(st.lists(_text, max_size=3))),
        seed=draw(_maybe(st.integers(-(2**31), 2**31))),
        presence_penalty=draw(_maybe(st.floats(-2, 2, allow_nan=False, width=32))),
        frequency_penalty=draw(_maybe(st.floats(-2, 2, allow_nan=False, width=32))),
        response_format=draw(_maybe(_response_formats)),
        reasoning=draw(_maybe(_reasoning)),
        stream=draw(_maybe(st.booleans())),
        provider_data=provider_data,
    )


MAPPERS = [OpenAIChatMapper(d) for d in ("openai", "deepseek", "openrouter", "ollama")] + [get_mapper("openai-responses"), get_mapper("ollama")]
_FIELDS = [f for f in Settings.__struct_fields__ if f not in ("model", "provider_data")]


def _norm(value: Any) -> Any:
    """An empty reasoning object is no setting."""
    if isinstance(value, ReasoningSettings) and not to_builtins(value):
        return U
    return value


def _named(report: Any, field: str) -> bool:
    return any(e.pointer is not None and (e.pointer == f"/settings/{field}" or e.pointer.startswith(f"/settings/{field}/")) for e in report)


@pytest.mark.parametrize("mapper", MAPPERS, ids=lambda m: m.name)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_settings_come_back_or_are_reported(mapper: Any, data: Any) -> None:
    s = data.draw(_settings(mapper.name))
    policy = data.draw(st.sampled_from(POLICIES))
    t = Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(role="user", text="hi")], settings=s)
    before = to_builtins(t)
    try:
        enc = mapper.encode_request(t, model=s.model if s.model is not U else None, policy=policy)
    except ConversionError as exc:
        # refused only when the output's meaning changes: a JSON Schema DeepSeek cannot enforce
        assert policy == "error" and getattr(mapper, "dialect", None) == "deepseek", exc
        assert s.response_format is not U and s.response_format.type == "json_schema"
        return
    assert to_builtins(t) == before
    if s.model is U:
        assert _named(enc.report, "model") or any(e.pointer == "/model" for e in enc.report)
    back = mapper.decode_request(enc.value)
    got = back.value.settings if isinstance(back.value.settings, Settings) else Settings()
    assert got.model == s.model
    for field in _FIELDS:
        assert _norm(getattr(got, field)) == _norm(getattr(s, field)) or _named(enc.report, field), (field, getattr(s, field), getattr(got, field), [str(e) for e in enc.report])
    # provider data: the own entry comes back as given; any other is reported
    sent = s.provider_data if s.provider_data is not U else {}
    back_own = (got.provider_data if got.provider_data is not U else {}).get(mapper.name, {})
    for key, value in sent.get(mapper.name, {}).items():
        assert back_own.get(key) == value
    for other in sent:
        if other != mapper.name:
            assert any(other in e.reason for e in enc.report)


# --------------------------------------------------------------------------- rules


def T(*items: Any, **kw: Any) -> Transcript:
    return Transcript(schema_version=SCHEMA_VERSION, items=list(items) or [TextItem(role="user", text="hi")], **kw)


def _reasons(report: Any) -> list[str]:
    return [str(e) for e in report]


@pytest.mark.parametrize(("dialect", "field"), [("openai", "max_completion_tokens"), ("deepseek", "max_tokens"), ("openrouter", "max_tokens"), ("ollama", "max_tokens")])
def test_each_dialect_writes_its_own_output_budget_field(dialect: str, field: str) -> None:
    out = OpenAIChatMapper(dialect).encode_request(T(settings=Settings(max_output_tokens=256)), model="m")  # type: ignore[arg-type]
    assert out.value[field] == 256 and all(k not in out.value for k in {"max_tokens", "max_completion_tokens"} - {field})
    assert not out.report


def test_the_source_budget_field_is_written_back_on_the_same_provider() -> None:
    for field in ("max_tokens", "max_completion_tokens"):
        body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], field: 100}
        t = OpenAIChatMapper("openai").decode_request(body).value
        assert t.settings.max_output_tokens == 100
        assert OpenAIChatMapper("openai").encode_request(t, model="gpt-4o").value == body
    # both keys, different values: the dialect's own is the canonical one, the other kept as given
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5, "max_completion_tokens": 9}
    t = OpenAIChatMapper("openai").decode_request(body).value
    assert t.settings.max_output_tokens == 9 and t.settings.provider_data == {"openai-chat": {"max_tokens": 5}}
    assert OpenAIChatMapper("openai").encode_request(t, model="gpt-4o").value == body


def test_stop_string_form_survives_and_becomes_a_list_elsewhere() -> None:
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "stop": "END"}
    t = OpenAIChatMapper().decode_request(body).value
    assert t.settings.stop == ["END"]
    assert OpenAIChatMapper().encode_request(t, model="gpt-4o").value == body
    assert get_mapper("ollama").encode_request(t, model="llama3.2").value["options"] == {"stop": ["END"]}
    out = get_mapper("openai-responses").encode_request(t, model="gpt-5")
    assert "stop" not in out.value
    assert "dropped: settings /settings/stop: setting stop=[\"END\"] has no OpenAI Responses equivalent" in _reasons(out.report)


def test_values_that_fit_no_canonical_field_stay_in_provider_data() -> None:
    body = {"model": "gpt-4o", "messages": [], "stop": None, "frequency_penalty": None, "reasoning_effort": "default", "temperature": "hot"}
    t = OpenAIChatMapper().decode_request(body).value
    assert t.settings.stop is U and t.settings.temperature is U and t.settings.reasoning is U
    assert t.settings.provider_data == {"openai-chat": {"stop": None, "frequency_penalty": None, "reasoning_effort": "default", "temperature": "hot"}}
    assert OpenAIChatMapper().encode_request(t, model="gpt-4o").value == body
    # ... and are reported, not sent, to another provider
    out = get_mapper("openai-responses").encode_request(t, model="gpt-5")
    assert "temperature" not in out.value
    assert any("openai-chat provider data (frequency_penalty, reasoning_effort, stop, temperature)" in r for r in _reasons(out.report))


def test_json_schema_response_format_both_ways() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": False}
    chat = {"model": "gpt-4o", "messages": [], "response_format": {"type": "json_schema", "json_schema": {"name": "City", "schema": schema, "strict": True}}}
    t = OpenAIChatMapper().decode_request(chat).value
    assert t.settings.response_format == ResponseFormat(type="json_schema", name="City", schema=schema, strict=True)
    resp = get_mapper("openai-responses").encode_request(t, model="gpt-5")
    assert resp.value["text"] == {"format": {"type": "json_schema", "name": "City", "schema": schema, "strict": True}} and not resp.report
    back = get_mapper("openai-responses").decode_request(resp.value).value
    assert back.settings.response_format == t.settings.response_format
    oll = get_mapper("ollama").encode_request(t, model="llama3.2", policy="drop")
    assert oll.value["format"] == schema
    assert "dropped: settings /settings/response_format/strict: setting response_format.strict=true has no Ollama equivalent (Ollama format takes the schema alone)" in _reasons(oll.report)


def test_deepseek_refuses_a_json_schema_under_error_only() -> None:
    t = T(settings=Settings(response_format=ResponseFormat(type="json_schema", name="A", schema={"type": "object"})))
    deepseek = OpenAIChatMapper("deepseek")
    with pytest.raises(ConversionError, match="has no DeepSeek equivalent"):
        deepseek.encode_request(t, model="deepseek-chat")
    dropped = deepseek.encode_request(t, model="deepseek-chat", policy="drop")
    assert "response_format" not in dropped.value and [e.action for e in dropped.report] == ["dropped"]
    degraded = deepseek.encode_request(t, model="deepseek-chat", policy="degrade")
    assert degraded.value["response_format"] == {"type": "json_object"}
    assert [(e.action, e.pointer) for e in degraded.report] == [("changed", "/settings/response_format")]
    # a seed changes no meaning: reported, never refused
    seeded = deepseek.encode_request(T(settings=Settings(seed=3)), model="deepseek-chat")
    assert "seed" not in seeded.value and _reasons(seeded.report) == ["dropped: settings /settings/seed: setting seed=3 has no DeepSeek equivalent"]


def test_budget_tokens_become_an_effort_level_naming_both_values() -> None:
    t = T(settings=Settings(reasoning=ReasoningSettings(budget_tokens=3000)))
    chat = OpenAIChatMapper().encode_request(t, model="o3")
    assert chat.value["reasoning_effort"] == "high"
    assert _reasons(chat.report) == [
        "changed: settings /settings/reasoning/budget_tokens: setting reasoning.budget_tokens=3000 sent as reasoning_effort='high' (the openai dialect takes an effort level, not a token budget)"
    ]
    resp = get_mapper("openai-responses").encode_request(t, model="gpt-5")
    assert resp.value["reasoning"] == {"effort": "high"} and "reasoning.effort='high'" in _reasons(resp.report)[0]
    assert get_mapper("ollama").encode_request(t, model="qwen3").value["think"] == "high"
    # OpenRouter takes the budget itself
    router = OpenAIChatMapper("openrouter").encode_request(t, model="anthropic/claude-sonnet-4")
    assert router.value["reasoning"] == {"max_tokens": 3000} and not router.report


def test_top_k_only_where_the_target_takes_it() -> None:
    t = T(settings=Settings(top_k=40))
    assert OpenAIChatMapper("openrouter").encode_request(t, model="m").value["top_k"] == 40
    assert get_mapper("ollama").encode_request(t, model="m").value["options"] == {"top_k": 40}
    for mapper in (OpenAIChatMapper("openai"), get_mapper("openai-responses")):
        out = mapper.encode_request(t, model="m")  # never refused: a sampling detail
        assert "top_k" not in out.value and [e.pointer for e in out.report] == ["/settings/top_k"]


def test_reasoning_effort_fields_per_dialect_and_back() -> None:
    t = T(settings=Settings(reasoning=ReasoningSettings(effort="low")))
    assert OpenAIChatMapper("openai").encode_request(t, model="m").value["reasoning_effort"] == "low"
    assert OpenAIChatMapper("openrouter").encode_request(t, model="m").value["reasoning"] == {"effort": "low"}
    off = OpenAIChatMapper("deepseek").encode_request(T(settings=Settings(reasoning=ReasoningSettings(effort="none"))), model="deepseek-chat")
    assert off.value["thinking"] == {"type": "disabled"} and off.report.entries[0].action == "changed"
    # an OpenRouter body read by the default mapper keeps its reasoning object on the way back
    body = {"model": "x-ai/grok-4", "messages": [], "reasoning": {"effort": "high", "enabled": True}, "provider": {"only": ["xai"]}}
    t2 = OpenAIChatMapper().decode_request(body).value
    assert t2.settings.reasoning.effort == "high"
    assert OpenAIChatMapper().encode_request(t2, model="x-ai/grok-4").value == body
    assert OpenAIChatMapper("openrouter").encode_request(t2, model="x-ai/grok-4").value == body


def test_responses_reasoning_and_text_extras_are_merged_back() -> None:
    body = {"model": "gpt-5", "input": "hi", "reasoning": {"effort": "low", "summary": None, "context": "all_turns"}, "text": {"format": {"type": "json_object"}, "verbosity": "low"}}
    m = get_mapper("openai-responses")
    t = m.decode_request(body).value
    assert t.settings.reasoning == ReasoningSettings(effort="low") and t.settings.response_format == ResponseFormat(type="json_object")
    assert without_spelling(t).settings.provider_data == {"openai-responses": {"reasoning": {"summary": None, "context": "all_turns"}, "text": {"verbosity": "low"}}}
    out = m.encode_request(t, model="gpt-5").value
    assert {k: v for k, v in out.items() if k != "input"} == {k: v for k, v in body.items() if k != "input"}


def test_ollama_options_think_and_format() -> None:
    body = {
        "model": "qwen3",
        "messages": [{"role": "user", "content": "hi"}],
        "think": "medium",
        "format": {"type": "object"},
        "options": {"num_predict": 64, "temperature": 0.1, "top_k": 20, "seed": 1, "stop": ["x"], "num_ctx": 8192, "repeat_penalty": 1.1},
        "keep_alive": 0,
        "stream": False,
    }
    m = get_mapper("ollama")
    conv = m.decode_request(body)
    s = conv.value.settings
    assert (s.max_output_tokens, s.temperature, s.top_k, s.seed, s.stop) == (64, 0.1, 20, 1, ["x"])
    assert s.reasoning == ReasoningSettings(effort="medium") and s.response_format == ResponseFormat(type="json_schema", schema={"type": "object"})
    assert s.provider_data == {"ollama": {"options": {"num_ctx": 8192, "repeat_penalty": 1.1}, "keep_alive": 0}}
    out = m.encode_request(conv.value, model="qwen3")
    assert out.value == body and json.dumps(out.value, sort_keys=True) == json.dumps(body, sort_keys=True) and not out.report
    chat = OpenAIChatMapper().encode_request(conv.value, model="gpt-4o", policy="drop")
    assert chat.value["max_completion_tokens"] == 64 and chat.value["reasoning_effort"] == "medium" and chat.value["seed"] == 1
    assert any("ollama provider data (keep_alive, options.num_ctx, options.repeat_penalty)" in r for r in _reasons(chat.report))


@pytest.mark.parametrize(("think", "reasoning"), [(True, ReasoningSettings(include_thoughts=True)), (False, ReasoningSettings(effort="none")), ("high", ReasoningSettings(effort="high"))])
def test_ollama_think_values(think: Any, reasoning: ReasoningSettings) -> None:
    body = {"model": "qwen3", "messages": [], "think": think, "stream": True}
    t = get_mapper("ollama").decode_request(body).value
    assert t.settings.reasoning == reasoning
    assert get_mapper("ollama").encode_request(t, model="qwen3").value == body


def test_ollama_always_gets_an_explicit_stream() -> None:
    m = get_mapper("ollama")
    out = m.encode_request(T(), model="llama3.2")
    assert out.value["stream"] is False
    assert [(e.action, e.pointer) for e in out.report] == [("changed", "/settings/stream")]
    assert m.encode_request(T(settings=Settings(stream=True)), model="llama3.2").value["stream"] is True
    # a body without stream streams: decoding records it, so converting it elsewhere keeps streaming
    t = m.decode_request({"model": "llama3.2", "messages": []}).value
    assert t.settings.stream is True
    assert OpenAIChatMapper().encode_request(t, model="gpt-4o").value["stream"] is True


@pytest.mark.parametrize("mapper", MAPPERS, ids=lambda m: m.name)
def test_model_only_from_the_argument(mapper: Any) -> None:
    t = T(settings=Settings(model="gpt-4o", stream=False))
    out = mapper.encode_request(t)
    assert "model" not in out.value
    assert [(e.action, e.pointer) for e in out.report] == [("changed", "/model")]
    assert "the transcript's settings name 'gpt-4o', which is not carried over" in out.report.entries[0].reason
    assert mapper.encode_request(t, model="other").value["model"] == "other"


@pytest.mark.parametrize("mapper", MAPPERS, ids=lambda m: m.name)
def test_other_providers_data_is_reported_not_written(mapper: Any) -> None:
    t = T(settings=Settings(stream=False, provider_data={"anthropic": {"metadata": {"user_id": "u"}}}))
    out = mapper.encode_request(t, model="m")
    assert "metadata" not in out.value
    assert _reasons(out.report) == ["dropped: settings: anthropic provider data (metadata.user_id) of settings is not for " + mapper.name]


@pytest.mark.parametrize("mapper", MAPPERS, ids=lambda m: m.name)
def test_decoding_never_mutates_settings_input(mapper: Any) -> None:
    body: dict[str, Any] = {"model": "m", "temperature": 0.5, "metadata": {"a": [1]}, "stop": ["x"]}
    body["messages" if mapper.name != "openai-responses" else "input"] = []
    if mapper.name == "ollama":
        body["options"] = {"num_ctx": 1, "stop": ["y"]}
    before = copy.deepcopy(body)
    t = mapper.decode_request(body).value
    assert body == before
    own = t.settings.provider_data[mapper.name]
    own["metadata"]["a"].append(2)  # the settings never alias the body
    assert body == before


# --------------------------------------------------------------------------- cache breakpoints


def _cached_history() -> dict[str, Any]:
    return {
        "model": "anthropic/claude-sonnet-4",
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "a long document", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]},
            {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "https://e/a.png"}, "cache_control": {"type": "ephemeral"}}]},
            {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "r", "cache_control": {"type": "ephemeral"}}]},
            {"role": "assistant", "content": [{"type": "text", "text": "ok", "cache_control": {"type": "ephemeral"}}]},
        ],
        "stream": False,
    }


def test_openrouter_cache_control_maps_to_item_breakpoints_and_back() -> None:
    body = _cached_history()
    m = OpenAIChatMapper("openrouter")
    conv = m.decode_request(body)
    assert not conv.report
    items = conv.value.items
    assert items[0].cache_breakpoint == CacheBreakpoint(ttl="1h") and items[2].cache_breakpoint == CacheBreakpoint()
    assert items[1].cache_breakpoint is U
    assert isinstance(items[4], ToolResultItem) and items[4].content[0].cache_breakpoint == CacheBreakpoint()
    out = m.encode_request(conv.value, model=body["model"])
    assert out.value == body and not out.report


@pytest.mark.parametrize("dialect", ["openai", "deepseek", "ollama"])
def test_other_dialects_report_each_dropped_breakpoint(dialect: str) -> None:
    t = OpenAIChatMapper("openrouter").decode_request(_cached_history()).value
    out = OpenAIChatMapper(dialect).encode_request(t, model="m")  # type: ignore[arg-type]
    assert "cache_control" not in json.dumps(out.value)
    assert [(e.action, e.index) for e in out.report] == [("dropped", 0), ("dropped", 2), ("dropped", 4), ("dropped", 5)]
    assert all("prompt-cache breakpoint left out" in e.reason for e in out.report)


def test_breakpoints_on_calls_and_results_in_openrouter() -> None:
    t = T(
        ToolCallItem(id="c1", name="f", arguments={}, cache_breakpoint=CacheBreakpoint()),
        ToolResultItem(call_id="c1", content=[TextItem(text="r")], cache_breakpoint=CacheBreakpoint(ttl="5m")),
        tools=[ToolDefinition(name="f")],
        settings=Settings(stream=False),
    )
    out = OpenAIChatMapper("openrouter").encode_request(t, model="m")
    assert out.value["messages"][1]["content"] == [{"type": "text", "text": "r", "cache_control": {"type": "ephemeral", "ttl": "5m"}}]
    # a tool_calls entry has no content part to carry it
    assert [(e.action, e.index, e.item_type) for e in out.report] == [("dropped", 0, "tool_call")]


def test_malformed_cache_control_is_reported_not_kept() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "x", "cache_control": {"type": "persistent"}}]}]}
    conv = OpenAIChatMapper("openrouter").decode_request(body)
    assert conv.value.items[0].cache_breakpoint is U
    assert [(e.action, e.pointer) for e in conv.report] == [("dropped", "/messages/0/content/0/cache_control")]


_ODD_BODIES = [
    (OpenAIChatMapper(), {"model": "m", "messages": [], "reasoning": {}, "response_format": {"type": "json_schema", "json_schema": {"name": "A", "x": 1}, "y": 2}, "stop": [], "max_tokens": 0}),
    (OpenAIChatMapper(), {"model": "", "messages": [], "stream": "yes", "seed": 1.5, "top_p": 3, "response_format": "json", "reasoning": "high", "parallel_tool_calls": None}),
    (get_mapper("openai-responses"), {"model": "m", "input": [], "reasoning": {}, "text": {}, "max_output_tokens": 0, "temperature": None}),
    (get_mapper("openai-responses"), {"model": 5, "input": [], "reasoning": "low", "text": {"format": {"type": "json_schema", "schema": []}}, "stream": None}),
    (get_mapper("ollama"), {"model": "m", "messages": [], "options": {}, "format": "yaml", "think": "max", "stream": True}),
    (get_mapper("ollama"), {"model": "m", "messages": [], "options": {"num_predict": -1, "stop": "x", "seed": True}, "format": [], "stream": 1}),
]


@pytest.mark.parametrize(("mapper", "body"), _ODD_BODIES, ids=lambda v: getattr(v, "name", None) or msgspec.json.encode(v).decode()[:60])
def test_odd_setting_values_are_kept_as_given_for_the_same_provider(mapper: Any, body: dict[str, Any]) -> None:
    """Values that fit no canonical field (wrong type, out of range, unknown shape) are not errors and
    not lost: they stay in the own provider_data and come back exactly."""
    before = copy.deepcopy(body)
    conv = mapper.decode_request(body)
    assert not [e for e in conv.report if e.item_type == "settings"]
    model = conv.value.settings.model if isinstance(conv.value.settings.model, str) else None
    out = mapper.encode_request(conv.value, model=model)
    assert json.dumps(out.value, sort_keys=True) == json.dumps(body, sort_keys=True)
    assert [e.pointer for e in out.report if e.item_type == "settings"] == ([] if model else ["/model"])
    assert body == before
