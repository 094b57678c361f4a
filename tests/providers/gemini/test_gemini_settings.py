"""Gemini generation settings: every rule, real fixtures and the corpus, and properties."""

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
from interlingua.errors import ConversionError
from interlingua.items import CacheBreakpoint, ReasoningSettings, ResponseFormat, Settings, TextItem, ToolCallItem, ToolResultItem, Transcript
from interlingua.mapping.spelling import without_spelling
from interlingua.providers.gemini import mapper
from interlingua.providers.gemini._common import camel
from interlingua.providers.gemini._settings import json_schema_to_openapi, openapi_to_json_schema
from interlingua.testing.strategies import generation_settings

UNSET = msgspec.UNSET
REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "gemini"
CORPUS = Path("/work/shared/corpus/corpus.tar.xz")
CONVERSATION = ("contents", "systemInstruction", "tools", "toolConfig")


def t(*items: Any, **s: Any) -> Transcript:
    return Transcript(schema_version=SCHEMA_VERSION, items=list(items) or [TextItem(text="hi", role="user")], settings=Settings(**s) if s else UNSET)


def settings_part(body: dict[str, Any]) -> dict[str, Any]:
    """Everything but the conversation, in the mapper's camelCase spelling, plus toolConfig's non-choice keys."""
    out: dict[str, Any] = {}
    for key, value in body.items():
        ck = camel(key)
        if ck in CONVERSATION or ck == "model":
            continue
        if ck == "generationConfig" and isinstance(value, dict):
            value = {camel(k): ({camel(a): b for a, b in v.items()} if camel(k) == "thinkingConfig" and isinstance(v, dict) else v) for k, v in value.items()}
        out[ck] = value
    tool_config = body.get("toolConfig", body.get("tool_config"))
    if isinstance(tool_config, dict) and (rest := {k: v for k, v in tool_config.items() if camel(k) != "functionCallingConfig"}):
        out["toolConfig"] = rest
    return out


def round_trip(body: dict[str, Any], model: str | None = None) -> tuple[Any, Any]:
    before = copy.deepcopy(body)
    dec = mapper.decode_request(body)
    assert body == before
    enc = mapper.encode_request(dec.value, model=model, policy="drop")
    return dec, enc


def gc_body(**gc: Any) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": "q"}]}], "generationConfig": gc}


# --------------------------------------------------------------------------- real payloads


@pytest.mark.parametrize("path", sorted(REAL.glob("*.request.json")), ids=lambda p: p.name)
def test_every_fixture_keeps_every_setting(path: Path) -> None:
    body = json.loads(path.read_text(encoding="utf-8"))
    dec, enc = round_trip(body)
    assert not dec.report and not enc.report
    assert settings_part(enc.value) == settings_part(body)


def _corpus_requests() -> list[tuple[str, dict[str, Any]]]:
    if not CORPUS.exists():
        return []
    out = []
    with tarfile.open(CORPUS) as tar:
        for member in tar.getmembers():
            if member.name.startswith("gemini/") and member.name.endswith(".request.json"):
                f = tar.extractfile(member)
                assert f is not None
                out.append((member.name, json.loads(f.read())))
    return out


def test_corpus_requests_keep_every_setting() -> None:
    """374 recorded requests (responseModalities, responseJsonSchema/responseSchema, thinkingConfig,
    logprobs, imageConfig, safetySettings, cachedContent, labels, modelArmorConfig, toolConfig extras)."""
    requests = _corpus_requests()
    if not requests:
        pytest.skip("corpus not available")
    assert len(requests) > 300
    kinds: set[str] = set()
    for name, body in requests:
        try:
            dec, enc = round_trip(body)
        except ConversionError as exc:
            assert "tools" in str(exc), name  # two recordings hold a tools value that is not a list
            continue
        assert settings_part(enc.value) == settings_part(body), name
        assert not [e for e in [*dec.report, *enc.report] if e.item_type == "settings"], name
        want = settings_part(body)
        kinds |= set(want) | {f"generationConfig.{k}" for k in want.get("generationConfig", {})}
    assert {"safetySettings", "cachedContent", "labels", "toolConfig", "generationConfig.responseJsonSchema", "generationConfig.responseSchema", "generationConfig.thinkingConfig"} <= kinds


# --------------------------------------------------------------------------- decode rules


def test_decode_maps_every_canonical_setting_and_keeps_the_rest_for_gemini() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    body = {
        **gc_body(
            maxOutputTokens=500, temperature=0.7, topP=0.9, topK=40, stopSequences=["END"], seed=7, presencePenalty=0.5, frequencyPenalty=-0.5,
            responseMimeType="application/json", responseJsonSchema=schema, candidateCount=1, responseModalities=["TEXT"],
            thinkingConfig={"thinkingLevel": "low", "includeThoughts": True},
        ),
        "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
        "cachedContent": "cachedContents/abc",
        "labels": {"team": "x"},
        "toolConfig": {"includeServerSideToolInvocations": True},
    }  # fmt: skip
    dec, enc = round_trip(body)
    assert not dec.report
    s = dec.value.settings
    assert (s.max_output_tokens, s.temperature, s.top_p, s.top_k, s.stop, s.seed, s.presence_penalty, s.frequency_penalty) == (500, 0.7, 0.9, 40, ["END"], 7, 0.5, -0.5)
    assert s.response_format == ResponseFormat(type="json_schema", schema=schema)
    assert s.reasoning == ReasoningSettings(effort="low", include_thoughts=True)
    assert s.model is UNSET  # Gemini takes the model in the URL
    assert s.provider_data == {
        "gemini": {
            "generationConfig": {"candidateCount": 1, "responseModalities": ["TEXT"]},
            "safetySettings": body["safetySettings"],
            "cachedContent": "cachedContents/abc",
            "labels": {"team": "x"},
            "toolConfig": {"includeServerSideToolInvocations": True},
        }
    }
    assert enc.value == body and not enc.report


def test_response_schema_is_converted_for_others_and_goes_back_as_it_came() -> None:
    openapi = {"type": "OBJECT", "properties": {"n": {"type": "INTEGER", "nullable": True}, "tags": {"type": "ARRAY", "items": {"type": "STRING"}}}, "propertyOrdering": ["n", "tags"]}
    body = gc_body(responseMimeType="application/json", responseSchema=openapi)
    dec, enc = round_trip(body)
    fmt = dec.value.settings.response_format
    assert fmt.schema == {"type": "object", "properties": {"n": {"type": ["integer", "null"]}, "tags": {"type": "array", "items": {"type": "string"}}}, "propertyOrdering": ["n", "tags"]}
    assert enc.value == body and not enc.report
    # an edited schema no longer matches the original: it goes as responseJsonSchema
    edited = msgspec.structs.replace(dec.value, settings=msgspec.structs.replace(dec.value.settings, response_format=ResponseFormat(type="json_schema", schema={"type": "object"})))
    out = mapper.encode_request(edited).value["generationConfig"]
    assert out == {"responseMimeType": "application/json", "responseJsonSchema": {"type": "object"}}


def test_json_schema_for_a_model_without_response_json_schema_is_converted_and_reported() -> None:
    schema = {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}
    enc = mapper.encode_request(t(response_format=ResponseFormat(type="json_schema", schema=schema)), model="gemini-2.0-flash")
    assert enc.value["generationConfig"]["responseSchema"] == {"type": "object", "properties": {"n": {"type": "integer", "nullable": True}}}
    assert [(e.action, e.pointer) for e in enc.report] == [("changed", "/settings/response_format/schema")]
    assert "responseJsonSchema" in mapper.encode_request(t(response_format=ResponseFormat(type="json_schema", schema=schema)), model="gemini-2.5-flash").value["generationConfig"]


@pytest.mark.parametrize(
    ("gc", "fmt"),
    [({"responseMimeType": "text/plain"}, ResponseFormat(type="text")), ({"responseMimeType": "application/json"}, ResponseFormat(type="json_object"))],
)
def test_mime_types_alone(gc: dict[str, Any], fmt: ResponseFormat) -> None:
    dec, enc = round_trip(gc_body(**gc))
    assert dec.value.settings.response_format == fmt and enc.value == gc_body(**gc)


@pytest.mark.parametrize(
    ("tc", "reasoning", "kept"),
    [
        ({"thinkingBudget": 1024}, ReasoningSettings(budget_tokens=1024), None),
        ({"thinkingBudget": 0}, ReasoningSettings(budget_tokens=0), None),
        ({"thinkingBudget": -1, "includeThoughts": True}, ReasoningSettings(include_thoughts=True), {"thinkingBudget": -1}),
        ({"thinkingLevel": "HIGH"}, ReasoningSettings(effort="high"), {"thinkingLevel": "HIGH"}),
        ({"thinking_level": "minimal"}, ReasoningSettings(effort="minimal"), None),
    ],
)
def test_thinking_config_forms(tc: dict[str, Any], reasoning: ReasoningSettings, kept: Any) -> None:
    body = gc_body(thinkingConfig=tc)
    dec, enc = round_trip(body)
    assert dec.value.settings.reasoning == reasoning
    pd = without_spelling(dec.value).settings.provider_data
    assert (pd["gemini"]["generationConfig"]["thinkingConfig"] if kept else pd) == (kept if kept else UNSET)
    assert settings_part(enc.value) == settings_part(body) and not enc.report


@pytest.mark.parametrize(
    ("key", "value"),
    [("maxOutputTokens", 0), ("maxOutputTokens", "5"), ("temperature", -0.1), ("topP", 2), ("stopSequences", "END"), ("seed", 1.5), ("presencePenalty", "x"), ("thinkingConfig", [])],
)
def test_bad_setting_values_are_refused_with_the_key(key: str, value: Any) -> None:
    with pytest.raises(ConversionError, match=key):
        mapper.decode_request(gc_body(**{key: value}))
    with pytest.raises(ConversionError, match="generationConfig"):
        mapper.decode_request({"contents": [], "generationConfig": "fast"})


# --------------------------------------------------------------------------- encode rules


def test_effort_levels_and_their_approximations() -> None:
    assert mapper.encode_request(t(reasoning=ReasoningSettings(effort="medium"))).value["generationConfig"] == {"thinkingConfig": {"thinkingLevel": "medium"}}
    off = mapper.encode_request(t(reasoning=ReasoningSettings(effort="none")))
    assert off.value["generationConfig"] == {"thinkingConfig": {"thinkingBudget": 0}} and [e.action for e in off.report] == ["changed"]
    top = mapper.encode_request(t(reasoning=ReasoningSettings(effort="xhigh")))
    assert top.value["generationConfig"] == {"thinkingConfig": {"thinkingLevel": "high"}}
    assert "setting reasoning.effort='xhigh' sent as thinkingConfig.thinkingLevel='high'" in top.report.entries[0].reason
    both = mapper.encode_request(t(reasoning=ReasoningSettings(effort="low", budget_tokens=2048, summary="detailed")))
    assert both.value["generationConfig"] == {"thinkingConfig": {"thinkingBudget": 2048}}
    assert sorted(e.pointer for e in both.report) == ["/settings/reasoning/effort", "/settings/reasoning/summary"]


def test_stream_model_and_foreign_provider_data_are_reported_not_written() -> None:
    enc = mapper.encode_request(t(stream=True, model="gpt-4o", provider_data={"anthropic": {"metadata": {}}}), model="gemini-2.5-pro")
    assert set(enc.value) == {"contents"}
    assert sorted(e.pointer or "" for e in enc.report) == ["", "/settings/stream"]


def test_cache_breakpoints_are_reported_dropped() -> None:
    doc = t(
        TextItem(text="q", role="user", cache_breakpoint=CacheBreakpoint()),
        ToolCallItem(id="c1", name="f", arguments={}),
        ToolResultItem(call_id="c1", name="f", content=[TextItem(text="r", cache_breakpoint=CacheBreakpoint(ttl="1h"))], cache_breakpoint=CacheBreakpoint()),
    )
    enc = mapper.encode_request(doc)
    assert "cache" not in json.dumps(enc.value)
    assert [(e.action, e.index, e.item_type) for e in enc.report] == [("dropped", 0, "text"), ("dropped", 2, "tool_result"), ("dropped", 2, "text")]


def test_schema_conversions_invert_each_other_on_the_openapi_subset() -> None:
    openapi = {"type": "OBJECT", "nullable": True, "properties": {"x": {"type": "NUMBER", "format": "float"}}, "required": ["x"]}
    js = openapi_to_json_schema(openapi)
    assert js == {"type": ["object", "null"], "properties": {"x": {"type": "number", "format": "float"}}, "required": ["x"]}
    assert json_schema_to_openapi(js) == {"type": "object", "nullable": True, "properties": {"x": {"type": "number", "format": "float"}}, "required": ["x"]}
    assert json_schema_to_openapi({"anyOf": [{"type": "string"}, {"type": "null"}]}) == {"type": "string", "nullable": True}


# --------------------------------------------------------------------------- properties


def assert_settings_come_back(sent: Settings, back: Any, report: Any) -> None:
    """Every setting sent comes back equal, or a report entry names it (``model`` never: it is the URL)."""
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
                if key == "gemini":
                    assert {k: (back.provider_data or {}).get("gemini", {}).get(k) for k in data} == data
                else:
                    assert f"{key} provider data" in reasons, key
            continue
        if name == "reasoning":
            got = back.reasoning if back.reasoning is not UNSET else ReasoningSettings()
            for sub in ("effort", "budget_tokens", "summary", "include_thoughts"):
                if getattr(value, sub) is not UNSET and getattr(got, sub) != getattr(value, sub):
                    assert named(f"/settings/reasoning/{sub}"), (sub, value, got, [str(e) for e in report])
            continue
        if name == "response_format" and value.strict is True:
            value = msgspec.structs.replace(value, strict=UNSET)  # implied: Gemini always enforces the schema
        if getattr(back, name) != value:
            assert named(f"/settings/{name}"), (name, value, getattr(back, name), [str(e) for e in report])
    assert back.model is UNSET


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generation_settings(), st.sampled_from([None, "gemini-2.5-flash", "gemini-2.0-flash", "gemini-3-pro-preview"]))
def test_random_settings_come_back_or_are_reported(sent: Settings, model: str | None) -> None:
    doc = Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(text="hi", role="user")], settings=sent)
    before = to_builtins(doc)
    enc = mapper.encode_request(doc, model=model, policy="drop")
    assert to_builtins(doc) == before, "encode_request mutated its input"
    assert "model" not in enc.value and "stream" not in enc.value
    tc = enc.value.get("generationConfig", {}).get("thinkingConfig", {})
    assert not ("thinkingBudget" in tc and "thinkingLevel" in tc), "Gemini refuses both"
    dec = mapper.decode_request(enc.value)
    assert not dec.report
    assert_settings_come_back(sent, dec.value.settings, enc.report)
    again = mapper.encode_request(dec.value, model=model, policy="drop")
    assert settings_part(again.value) == settings_part(enc.value)


schema_st = st.fixed_dictionaries({"type": st.just("object"), "properties": st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), st.just({"type": "string"}), max_size=2)})
openapi_st = st.fixed_dictionaries({"type": st.just("OBJECT"), "properties": st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), st.sampled_from([{"type": "STRING"}, {"type": "INTEGER", "nullable": True}]), max_size=2)})
generation_config = st.fixed_dictionaries(
    {},
    optional={
        "maxOutputTokens": st.integers(1, 65536),
        "temperature": st.floats(0, 2, allow_nan=False),
        "topP": st.floats(0, 1, allow_nan=False),
        "topK": st.integers(1, 100) | st.just(40.5),
        "stopSequences": st.lists(st.text(min_size=1, max_size=5), max_size=3),
        "seed": st.integers(-(2**31), 2**31),
        "presencePenalty": st.floats(-2, 2, allow_nan=False),
        "frequencyPenalty": st.floats(-2, 2, allow_nan=False),
        "candidateCount": st.just(1),
        "responseModalities": st.just(["TEXT"]),
        "responseLogprobs": st.booleans(),
        "thinkingConfig": st.fixed_dictionaries(
            {}, optional={"thinkingBudget": st.integers(-1, 24576), "includeThoughts": st.booleans()}
        ) | st.fixed_dictionaries({"thinkingLevel": st.sampled_from(["minimal", "low", "medium", "high", "LOW", "HIGH"])}, optional={"include_thoughts": st.booleans()}),
    },
)
response = st.one_of(
    st.just({}),
    st.just({"responseMimeType": "text/plain"}),
    st.just({"responseMimeType": "application/json"}),
    st.builds(lambda s: {"responseMimeType": "application/json", "responseJsonSchema": s}, schema_st),
    st.builds(lambda s: {"responseMimeType": "application/json", "responseSchema": s}, openapi_st),
    st.builds(lambda s: {"responseMimeType": "text/x.enum", "responseSchema": {"type": "STRING", "enum": s}}, st.lists(st.text(min_size=1, max_size=3), min_size=1, max_size=3)),
)
top_level = st.fixed_dictionaries(
    {},
    optional={
        "safetySettings": st.just([{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_ONLY_HIGH"}]),
        "cachedContent": st.just("cachedContents/x"),
        "labels": st.just({"env": "test"}),
        "toolConfig": st.just({"includeServerSideToolInvocations": True}),
    },
)


@settings(max_examples=300, deadline=None)
@given(generation_config, response, top_level)
def test_random_gemini_settings_round_trip_exactly(gc: dict[str, Any], fmt: dict[str, Any], rest: dict[str, Any]) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "q"}]}], **rest}
    if gc or fmt:
        body["generationConfig"] = {**gc, **fmt}
    dec, enc = round_trip(body)
    assert not dec.report and not enc.report
    assert settings_part(enc.value) == settings_part(body)
