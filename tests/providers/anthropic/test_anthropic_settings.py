"""Anthropic generation settings and prompt-cache breakpoints: every rule, real fixtures and the corpus, and properties."""

from __future__ import annotations

import copy
import json
import tarfile
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua.codec import SCHEMA_VERSION, to_builtins
from interlingua.errors import ConversionError, MappingError
from interlingua.items import CacheBreakpoint, ReasoningSettings, ResponseFormat, Settings, TextItem, ToolCallItem, ToolDefinition, ToolResultItem, Transcript
from interlingua.providers.anthropic import mapper
from interlingua.providers.anthropic._settings import DEFAULT_MAX_TOKENS, EFFORT_BUDGET
from interlingua.testing.strategies import generation_settings

from ._sse import REAL

UNSET = msgspec.UNSET
CONVERSATION = ("messages", "system", "tools", "tool_choice")
CORPUS = Path("/work/shared/corpus/corpus.tar.xz")
SAMPLING_KEYS = frozenset({"temperature", "top_p", "top_k"})


def t(*items: Any, **s: Any) -> Transcript:
    return Transcript(schema_version=SCHEMA_VERSION, items=list(items) or [TextItem(text="hi", role="user")], settings=Settings(**s) if s else UNSET)


def settings_part(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k not in CONVERSATION}


def cache_controls(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """Every ``cache_control`` in a body's conversation part, with where it is."""
    out: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            out += [(path, v)] if k == "cache_control" else cache_controls(v, f"{path}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += cache_controls(v, f"{path}/{i}")
    return out


def round_trip(body: dict[str, Any]) -> tuple[Any, Any]:
    before = copy.deepcopy(body)
    dec = mapper.decode_request(body)
    assert body == before
    model = dec.value.settings.model if dec.value.settings is not UNSET else UNSET
    enc = mapper.encode_request(dec.value, model=model if isinstance(model, str) else None, policy="drop")
    return dec, enc


# --------------------------------------------------------------------------- real payloads


@pytest.mark.parametrize("name", sorted(p.name for p in REAL.glob("*.request.json")))
def test_every_fixture_keeps_every_setting_and_cache_control(name: str) -> None:
    body = json.loads((REAL / name).read_text(encoding="utf-8"))
    dec, enc = round_trip(body)
    assert dec.value.settings.model == body["model"] and dec.value.settings.max_output_tokens == body["max_tokens"]
    assert settings_part(enc.value) == settings_part(body)
    assert cache_controls({k: enc.value.get(k) for k in CONVERSATION}) == cache_controls({k: body.get(k) for k in CONVERSATION})
    assert not [e for e in enc.report if e.item_type == "settings"]


def _corpus_requests() -> list[tuple[str, dict[str, Any]]]:
    if not CORPUS.exists():
        return []
    out = []
    with tarfile.open(CORPUS) as tar:
        for member in tar.getmembers():
            if member.name.startswith("anthropic/") and member.name.endswith(".request.json"):
                f = tar.extractfile(member)
                assert f is not None
                out.append((member.name, json.loads(f.read())))
    return out


def test_corpus_requests_keep_every_setting_and_cache_control() -> None:
    """272 recorded requests (thinking enabled/adaptive, output_config effort/format/task_budget,
    top-level cache_control, container, mcp_servers, context_management, metadata, ...)."""
    requests = _corpus_requests()
    if not requests:
        pytest.skip("corpus not available")
    assert len(requests) > 200
    kinds: set[str] = set()
    for name, body in requests:
        dec, enc = round_trip(body)
        want, got = settings_part(body), settings_part(enc.value)
        for key in SAMPLING_KEYS & set(want):  # the current API has none: reported dropped, never sent
            assert any(e.action == "dropped" and e.pointer == f"/settings/{key}" for e in enc.report), name
            kinds.add(key)
            del want[key]
        if "model" not in body:  # Bedrock bodies: the model is in the URL, reported
            assert any(e.pointer == "/model" for e in enc.report), name
        assert got == want, name
        # every cache_control comes back, unchanged (at its place, unless the conversation itself was reshaped and reported)
        got_cc, want_cc = cache_controls({k: enc.value.get(k) for k in CONVERSATION}), cache_controls({k: body.get(k) for k in CONVERSATION})
        assert sorted(json.dumps(v, sort_keys=True) for _, v in got_cc) == sorted(json.dumps(v, sort_keys=True) for _, v in want_cc), name
        if not [e for e in enc.report if e.item_type != "settings"]:
            assert got_cc == want_cc, name
        assert not [e for e in dec.report if e.item_type == "settings"], name
        kinds |= set(want)
    assert {"thinking", "output_config", "cache_control", "container", "mcp_servers", "context_management", "metadata", "top_k", "stop_sequences"} <= kinds


# --------------------------------------------------------------------------- decode rules


def test_decode_maps_every_canonical_setting_and_keeps_the_rest_for_anthropic() -> None:
    body = {
        "model": "claude-opus-4-6",
        "max_tokens": 8000,
        "temperature": 0.5,
        "top_p": 0.9,
        "top_k": 40,
        "stop_sequences": ["END", "STOP"],
        "stream": True,
        "thinking": {"type": "adaptive", "display": "summarized"},
        "output_config": {"effort": "high", "format": {"type": "json_schema", "schema": {"type": "object", "additionalProperties": False}}, "task_budget": {"type": "tokens", "total": 20000}},
        "metadata": {"user_id": "u"},
        "service_tier": "auto",
        "cache_control": {"type": "ephemeral"},
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    dec, enc = round_trip(body)
    assert not dec.report
    s = dec.value.settings
    assert (s.model, s.max_output_tokens, s.temperature, s.top_p, s.top_k, s.stop, s.stream) == ("claude-opus-4-6", 8000, 0.5, 0.9, 40, ["END", "STOP"], True)
    assert s.reasoning == ReasoningSettings(effort="high")
    assert s.response_format == ResponseFormat(type="json_schema", schema={"type": "object", "additionalProperties": False})
    assert s.provider_data == {
        "anthropic": {
            "thinking": {"type": "adaptive", "display": "summarized"},
            "output_config": {"task_budget": {"type": "tokens", "total": 20000}},
            "metadata": {"user_id": "u"},
            "service_tier": "auto",
            "cache_control": {"type": "ephemeral"},
        }
    }
    # an old request's sampling parameters decode; the current API takes none, so they are reported, not sent
    assert enc.value == {k: v for k, v in body.items() if k not in SAMPLING_KEYS}
    assert sorted((e.action, e.pointer) for e in enc.report) == [("dropped", f"/settings/{k}") for k in sorted(SAMPLING_KEYS)]
    with pytest.raises(ConversionError, match="temperature=0.5 has no Anthropic equivalent"):
        mapper.encode_request(dec.value, model="claude-opus-4-6", policy="error")


@pytest.mark.parametrize(
    ("thinking", "reasoning", "kept"),
    [
        ({"type": "enabled", "budget_tokens": 2048}, ReasoningSettings(budget_tokens=2048), None),
        ({"type": "enabled", "budget_tokens": 2048, "display": "omitted"}, ReasoningSettings(budget_tokens=2048), {"display": "omitted"}),
        ({"type": "disabled"}, ReasoningSettings(effort="none"), None),
        ({"type": "adaptive"}, UNSET, {"type": "adaptive"}),
    ],
)
def test_thinking_forms(thinking: dict[str, Any], reasoning: Any, kept: Any) -> None:
    body = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "thinking": thinking, "messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}]}
    dec, enc = round_trip(body)
    s = dec.value.settings
    assert s.reasoning == reasoning
    assert (s.provider_data["anthropic"]["thinking"] if kept else s.provider_data) == (kept if kept else UNSET)
    assert enc.value == body and not enc.report


def test_beta_output_format_goes_back_under_its_own_name() -> None:
    fmt = {"type": "json_schema", "schema": {"type": "object", "properties": {"a": {"type": "string"}}}}
    body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "output_format": fmt, "messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}]}
    dec, enc = round_trip(body)
    assert dec.value.settings.response_format == ResponseFormat(type="json_schema", schema=fmt["schema"])
    assert enc.value == body and not enc.report


@pytest.mark.parametrize(
    ("key", "value"),
    [("max_tokens", 0), ("max_tokens", "100"), ("max_tokens", True), ("temperature", -1), ("top_p", 1.5), ("top_k", 2.5), ("stop_sequences", "END"), ("stop_sequences", [""]), ("stream", "yes"), ("model", ""), ("thinking", "on"), ("output_config", [])],
)
def test_bad_setting_values_are_refused_with_the_key(key: str, value: Any) -> None:
    body = {"model": "m", "max_tokens": 10, key: value, "messages": []}
    with pytest.raises(MappingError, match=key):
        mapper.decode_request(body)


# --------------------------------------------------------------------------- encode rules


def test_max_tokens_comes_from_the_settings_else_the_model_table_else_the_default() -> None:
    assert mapper.encode_request(t(max_output_tokens=77), model="claude-sonnet-4-5").value["max_tokens"] == 77
    table = mapper.encode_request(t(), model="claude-3-5-haiku-20241022")
    assert table.value["max_tokens"] == 8192
    assert [str(e) for e in table.report] == ["changed: settings /settings/max_output_tokens: max_tokens 8192 added: required by Anthropic, from the model table (claude-3-5-haiku*: output limit)"]
    streamed = mapper.encode_request(t(stream=True), model="claude-opus-4-1-20250805")
    assert streamed.value["max_tokens"] == 32000
    assert [str(e) for e in streamed.report] == ["changed: settings /settings/max_output_tokens: max_tokens 32000 added: required by Anthropic, from the model table (claude-opus-4-1*: output limit; a streamed request)"]
    unknown = mapper.encode_request(t(), model="my-proxy-model")
    assert unknown.value["max_tokens"] == DEFAULT_MAX_TOKENS and "default (model 'my-proxy-model' is not in the model table)" in unknown.report.entries[0].reason
    bare = mapper.encode_request(t())
    assert bare.value["max_tokens"] == DEFAULT_MAX_TOKENS and "model" not in bare.value
    assert [e.pointer for e in bare.report] == ["/model", "/settings/max_output_tokens"]


@pytest.mark.parametrize("effort", sorted(EFFORT_BUDGET))
def test_effort_becomes_a_thinking_budget_from_the_table(effort: str) -> None:
    enc = mapper.encode_request(t(max_output_tokens=100000, reasoning=ReasoningSettings(effort=effort)), model="claude-sonnet-4-5")
    assert enc.value["thinking"] == {"type": "enabled", "budget_tokens": EFFORT_BUDGET[effort]}
    assert [str(e) for e in enc.report] == [
        f"changed: settings /settings/reasoning/effort: setting reasoning.effort={effort!r} sent as thinking.budget_tokens={EFFORT_BUDGET[effort]} "
        "(Anthropic budgets thinking in tokens; table in docs/providers/anthropic.md)"
    ]


def test_effort_none_disables_thinking_and_effort_goes_to_output_config_when_the_source_used_it() -> None:
    assert mapper.encode_request(t(max_output_tokens=10, reasoning=ReasoningSettings(effort="none")), model="m").value["thinking"] == {"type": "disabled"}
    s = Settings(max_output_tokens=10, reasoning=ReasoningSettings(effort="minimal"), provider_data={"anthropic": {"output_config": {}}})
    enc = mapper.encode_request(Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(text="q", role="user")], settings=s), model="m")
    assert enc.value["output_config"] == {"effort": "low"} and "thinking" not in enc.value
    assert [e.pointer for e in enc.report] == ["/settings/reasoning/effort"]


def test_budget_at_or_above_max_tokens_raises_max_tokens_or_fits_the_budget() -> None:
    enc = mapper.encode_request(t(max_output_tokens=1000, reasoning=ReasoningSettings(budget_tokens=2000)), model="my-model")
    assert (enc.value["max_tokens"], enc.value["thinking"]["budget_tokens"]) == (3000, 2000)
    assert "Anthropic requires max_tokens above thinking.budget_tokens (2000)" in enc.report.entries[0].reason
    capped = mapper.encode_request(t(max_output_tokens=30000, reasoning=ReasoningSettings(budget_tokens=31000), stream=True), model="claude-opus-4-1")
    assert (capped.value["max_tokens"], capped.value["thinking"]["budget_tokens"]) == (32000, 2000)
    assert capped.value["thinking"]["budget_tokens"] < capped.value["max_tokens"]
    # not streamed: the official clients' non-streaming maximum is the cap (8192 for Claude Opus 4.1)
    sync = mapper.encode_request(t(max_output_tokens=1000, reasoning=ReasoningSettings(budget_tokens=16000)), model="claude-opus-4-1")
    assert (sync.value["max_tokens"], sync.value["thinking"]["budget_tokens"]) == (8192, 7192)
    tight = mapper.encode_request(t(max_output_tokens=31800, reasoning=ReasoningSettings(budget_tokens=31900), stream=True), model="claude-opus-4-1")
    assert (tight.value["max_tokens"], tight.value["thinking"]["budget_tokens"]) == (32000, 31900)  # the budget fits under the limit
    low = mapper.encode_request(t(max_output_tokens=4096, reasoning=ReasoningSettings(budget_tokens=10)), model="m")
    assert low.value["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    off = mapper.encode_request(t(max_output_tokens=4096, reasoning=ReasoningSettings(budget_tokens=0)), model="m")
    assert off.value["thinking"] == {"type": "disabled"}


def test_settings_anthropic_has_no_equivalent_for_are_reported_dropped() -> None:
    doc = t(max_output_tokens=5, seed=1, presence_penalty=0.5, frequency_penalty=0.1, temperature=1.5, top_p=0.5, top_k=3, provider_data={"openai-chat": {"store": True}})
    enc = mapper.encode_request(doc, model="m", policy="drop")
    assert not {"seed", "temperature", "top_p", "top_k", "presence_penalty", "frequency_penalty"} & set(enc.value)
    assert sorted((e.action, e.pointer or "") for e in enc.report) == sorted(
        [("dropped", f"/settings/{k}") for k in ("seed", "presence_penalty", "frequency_penalty", "temperature", "top_p", "top_k")] + [("dropped", "")]
    )
    with pytest.raises(ConversionError, match="no sampling parameters"):
        mapper.encode_request(doc, model="m", policy="error")


def test_json_object_without_schema_is_refused_under_error_and_dropped_otherwise() -> None:
    doc = t(max_output_tokens=5, response_format=ResponseFormat(type="json_object"))
    with pytest.raises(ConversionError, match="response_format"):
        mapper.encode_request(doc, model="m")
    enc = mapper.encode_request(doc, model="m", policy="drop")
    assert "output_config" not in enc.value and [e.pointer for e in enc.report] == ["/settings/response_format"]


def test_json_schema_goes_to_output_config_and_name_is_reported() -> None:
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": False}
    enc = mapper.encode_request(t(max_output_tokens=5, response_format=ResponseFormat(type="json_schema", name="answer", schema=schema, strict=True)), model="claude-sonnet-4-5")
    assert enc.value["output_config"] == {"format": {"type": "json_schema", "schema": schema}}
    assert [e.pointer for e in enc.report] == ["/settings/response_format/name"]
    old = t(max_output_tokens=5, response_format=ResponseFormat(type="json_schema", schema=schema))
    with pytest.raises(ConversionError, match="no structured outputs"):
        mapper.encode_request(old, model="claude-3-5-haiku-latest")


# --------------------------------------------------------------------------- cache breakpoints


def test_cache_control_on_every_block_kind_round_trips_exactly() -> None:
    five, hour = {"type": "ephemeral"}, {"type": "ephemeral", "ttl": "1h"}
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "system": [{"type": "text", "text": "sys", "cache_control": hour}],
        "tools": [{"name": "f", "input_schema": {"type": "object"}, "cache_control": five}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}, "cache_control": five},
                    {"type": "document", "source": {"type": "url", "url": "https://x/a.pdf"}, "cache_control": hour},
                    {"type": "text", "text": "q", "cache_control": {"type": "ephemeral", "ttl": "5m"}},
                ],
            },
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}, "cache_control": five}]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "r", "cache_control": hour}], "cache_control": five},
                    {"type": "text", "text": "odd", "cache_control": {"type": "persistent"}},
                ],
            },
        ],
    }
    dec, enc = round_trip(body)
    assert not dec.report
    items = dec.value.items
    assert items[0].cache_breakpoint == CacheBreakpoint(ttl="1h")
    assert [i.cache_breakpoint for i in items[1:4]] == [CacheBreakpoint(), CacheBreakpoint(ttl="1h"), CacheBreakpoint(ttl="5m")]
    assert isinstance(items[4], ToolCallItem) and items[4].cache_breakpoint == CacheBreakpoint()
    assert isinstance(items[5], ToolResultItem) and items[5].cache_breakpoint == CacheBreakpoint() and items[5].content[0].cache_breakpoint == CacheBreakpoint(ttl="1h")
    assert items[6].cache_breakpoint is UNSET and items[6].provider_data == {"anthropic": {"cache_control": {"type": "persistent"}}}
    assert enc.value == body and not enc.report


def test_a_breakpoint_keeps_system_and_tool_result_text_in_block_form() -> None:
    doc = t(
        TextItem(text="sys", role="system", cache_breakpoint=CacheBreakpoint()),
        TextItem(text="q", role="user"),
        ToolCallItem(id="toolu_1", name="f", arguments={}),
        ToolResultItem(call_id="toolu_1", content=[TextItem(text="r", cache_breakpoint=CacheBreakpoint(ttl="1h"))]),
        max_output_tokens=5,
    )
    doc = msgspec.structs.replace(doc, tools=[ToolDefinition(name="f", parameters={"type": "object"})])
    body = mapper.encode_request(doc, model="m").value
    assert body["system"] == [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}]
    assert body["messages"][2]["content"][0]["content"] == [{"type": "text", "text": "r", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    back = mapper.decode_request(body).value.items
    assert [getattr(i, "cache_breakpoint", UNSET) for i in back] == [i.cache_breakpoint for i in doc.items]
    assert back[3].content[0].cache_breakpoint == CacheBreakpoint(ttl="1h")


def test_other_providers_item_data_is_reported_not_sent() -> None:
    doc = t(TextItem(text="q", role="user", provider_data={"openrouter": {"x": 1}, "anthropic": {"citations": []}}), max_output_tokens=5)
    enc = mapper.encode_request(doc, model="m")
    assert enc.value["messages"][0]["content"] == [{"type": "text", "text": "q", "citations": []}]
    assert [(e.action, e.index) for e in enc.report] == [("dropped", 0)]


# --------------------------------------------------------------------------- properties

MODELS = st.sampled_from([None, "claude-sonnet-4-5", "claude-opus-4-1", "claude-3-5-haiku-20241022", "proxy-model"])


def assert_settings_come_back(sent: Settings, back: Any, report: Any, model: str | None) -> None:
    """Every setting sent comes back equal, or a report entry names it."""
    back = back if isinstance(back, Settings) else Settings()
    pointers = {e.pointer for e in report if e.pointer}
    reasons = " | ".join(e.reason for e in report)

    def named(path: str) -> bool:
        return any(p == path or p.startswith(path + "/") or path.startswith(p + "/") for p in pointers)

    for field in msgspec.structs.fields(Settings):
        name = field.name
        value = getattr(sent, name)
        if value is UNSET or name == "model":
            continue
        if name == "provider_data":
            for key, data in value.items():
                if key == "anthropic":
                    own = (back.provider_data or {}).get("anthropic", {})
                    assert {k: own.get(k) for k in data} == data, (data, back.provider_data)  # approximations may add fields (thinking.display)
                else:
                    assert f"{key} provider data" in reasons, key
            continue
        if name == "reasoning":
            got = back.reasoning if back.reasoning is not UNSET else ReasoningSettings()
            for sub in ("effort", "budget_tokens", "summary", "include_thoughts"):
                if getattr(value, sub) is not UNSET and getattr(got, sub) != getattr(value, sub):
                    assert named(f"/settings/reasoning/{sub}"), (sub, value, got, [str(e) for e in report])
            continue
        if name == "response_format" and value.type == "text":
            continue  # the default: nothing to write
        if name == "response_format" and value.strict is True:
            value = msgspec.structs.replace(value, strict=UNSET)  # implied: Anthropic always enforces the schema
        if getattr(back, name) != value:
            assert named(f"/settings/{name}"), (name, value, getattr(back, name), [str(e) for e in report])
    if model is None:
        assert "/model" in pointers
    else:
        assert back.model == model


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generation_settings(), MODELS)
def test_random_settings_come_back_or_are_reported_and_max_tokens_is_always_sent(sent: Settings, model: str | None) -> None:
    doc = Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(text="hi", role="user")], settings=sent)
    before = to_builtins(doc)
    enc = mapper.encode_request(doc, model=model, policy="drop")
    assert to_builtins(doc) == before, "encode_request mutated its input"
    body = enc.value
    assert isinstance(body["max_tokens"], int) and body["max_tokens"] >= 1
    thinking = body.get("thinking")
    if thinking and thinking.get("type") == "enabled":
        assert 1024 <= thinking["budget_tokens"] < body["max_tokens"]
    assert body.get("temperature", 0) <= 1
    dec = mapper.decode_request(body)
    assert not dec.report
    assert_settings_come_back(sent, dec.value.settings, enc.report, model)
    # and the decoded settings are a fixed point: Anthropic -> Anthropic is exact
    again = mapper.encode_request(dec.value, model=model, policy="drop")
    assert settings_part(again.value) == settings_part(body)


@settings(max_examples=100, deadline=None)
@given(generation_settings(providers=("openai-chat",)).filter(lambda s: s.response_format is not UNSET and s.response_format.type != "text"))
def test_response_formats_anthropic_cannot_enforce_are_refused_under_error(sent: Settings) -> None:
    doc = Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(text="hi", role="user")], settings=sent)
    fmt = sent.response_format
    if fmt.type == "json_schema" and fmt.schema is not UNSET:
        body = mapper.encode_request(doc, model="claude-sonnet-4-5", policy="drop").value
        assert body["output_config"]["format"] == {"type": "json_schema", "schema": fmt.schema}
    else:
        with pytest.raises(ConversionError):
            mapper.encode_request(doc, model="claude-sonnet-4-5", policy="error")


schema_st = st.fixed_dictionaries({"type": st.just("object"), "properties": st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), st.just({"type": "string"}), max_size=2)})
anthropic_settings = st.fixed_dictionaries(
    {"max_tokens": st.integers(1025, 64000)},
    optional={
        "model": st.sampled_from(["claude-sonnet-4-5", "claude-opus-4-7", "proxy"]),
        "stop_sequences": st.lists(st.text(min_size=1, max_size=5), max_size=3),
        "stream": st.booleans(),
        "thinking": st.one_of(
            st.builds(lambda b: {"type": "enabled", "budget_tokens": b}, st.integers(1024, 1024)),
            st.just({"type": "disabled"}),
            st.just({"type": "adaptive"}),
            st.builds(lambda d: {"type": "adaptive", "display": d}, st.sampled_from(["summarized", "omitted"])),
            st.builds(lambda d: {"type": "enabled", "budget_tokens": 1024, "display": d}, st.sampled_from(["summarized", "omitted"])),
        ),
        "output_config": st.fixed_dictionaries(
            {}, optional={"effort": st.sampled_from(["low", "medium", "high", "xhigh", "max"]), "format": st.builds(lambda s: {"type": "json_schema", "schema": s}, schema_st), "task_budget": st.just({"type": "tokens", "total": 20000})}
        ),
        "metadata": st.just({"user_id": "u"}),
        "service_tier": st.sampled_from(["auto", "standard_only"]),
        "cache_control": st.just({"type": "ephemeral"}),
        "container": st.just("container_1"),
        "speed": st.sampled_from(["standard", "fast", None]),
        "inference_geo": st.sampled_from(["us", "global"]),
    },
)


@settings(max_examples=300, deadline=None)
@given(anthropic_settings)
def test_random_anthropic_settings_round_trip_exactly(wire: dict[str, Any]) -> None:
    body = {**wire, "messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}]}
    dec, enc = round_trip(body)
    assert not dec.report
    assert settings_part(enc.value) == settings_part(body)
    assert [e.pointer for e in enc.report] == ([] if "model" in body else ["/model"])
