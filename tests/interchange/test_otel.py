"""interlingua.otel against the published GenAI JSON Schemas, recorded spans and every real fixture."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest

from interlingua.history._integrity import READER_RULES, check_history
from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua.errors import ConversionError, InterlinguaError, MalformedInputError
from interlingua.items import ErrorItem, ReasoningItem, StopReason, TextItem, ToolCallItem, ToolResultItem, Transcript, Usage
from interlingua.otel import INPUT_MESSAGES, OUTPUT_MESSAGES, SYSTEM_INSTRUCTIONS, TOOL_DEFINITIONS, from_otel, to_otel

from ._roundtrip import load, real_fixture_paths, unreported

HERE = Path(__file__).parent
SCHEMAS = {name: json.loads((HERE / "schemas" / f"gen-ai-{name}.json").read_text()) for name in ("input-messages", "output-messages", "system-instructions", "tool-definitions")}
ATTR_SCHEMA = {INPUT_MESSAGES: "input-messages", OUTPUT_MESSAGES: "output-messages", SYSTEM_INSTRUCTIONS: "system-instructions", TOOL_DEFINITIONS: "tool-definitions"}
SPANS = sorted((HERE / "spans").glob("*.json"))
FIXTURES = real_fixture_paths()

# The published schemas end every part union with GenericPart ({"type": any string}), so a text part
# without its content would still pass. A part whose type is one the conventions define must also
# match that definition: checked against the definition itself.
_PART_DEFS = {
    "text": "TextPart",
    "tool_call": "ToolCallRequestPart",
    "tool_call_response": "ToolCallResponsePart",
    "server_tool_call": "ServerToolCallPart",
    "server_tool_call_response": "ServerToolCallResponsePart",
    "blob": "BlobPart",
    "file": "FilePart",
    "uri": "UriPart",
    "reasoning": "ReasoningPart",
}


def _validator(schema: dict[str, Any]) -> Any:
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


VALIDATORS = {name: _validator(s) for name, s in SCHEMAS.items()}
PART_VALIDATORS = {t: _validator({**SCHEMAS["output-messages"], **SCHEMAS["output-messages"]["$defs"][d]}) for t, d in _PART_DEFS.items()}


def validate(attrs: dict[str, Any]) -> None:
    """Every message attribute against its published schema, every known part against its definition."""
    for key, name in ATTR_SCHEMA.items():
        if key not in attrs:
            continue
        VALIDATORS[name].validate(attrs[key])
        parts = attrs[key] if key == SYSTEM_INSTRUCTIONS else [p for m in attrs[key] for p in m.get("parts", [])] if key != TOOL_DEFINITIONS else []
        for part in parts:
            if part["type"] in PART_VALIDATORS:
                PART_VALIDATORS[part["type"]].validate(part)
    json.dumps(attrs, allow_nan=False)  # JSON-safe


def test_the_schema_check_can_fail() -> None:
    with pytest.raises(jsonschema.ValidationError):
        validate({INPUT_MESSAGES: [{"role": "user", "parts": [{"type": "text"}]}]})  # no content
    with pytest.raises(jsonschema.ValidationError):
        validate({OUTPUT_MESSAGES: [{"role": "assistant", "parts": []}]})  # no finish_reason
    with pytest.raises(jsonschema.ValidationError):
        validate({INPUT_MESSAGES: [{"role": "user", "parts": [{"type": "blob", "content": "AA=="}]}]})  # no modality


# --------------------------------------------------------------------------- recorded spans


@pytest.mark.parametrize("path", SPANS, ids=lambda p: p.stem)
def test_recorded_span_reads_and_writes_back_valid(path: Path) -> None:
    attrs = json.loads(path.read_text())["attributes"]
    before = copy.deepcopy(attrs)
    conv = from_otel(attrs)
    assert attrs == before, "from_otel mutated its input"
    t = conv.value
    n_in = sum(len(m["parts"]) for m in attrs.get(INPUT_MESSAGES, []))
    n_out = len(attrs[OUTPUT_MESSAGES][0]["parts"]) if attrs.get(OUTPUT_MESSAGES) else 0
    # a result whose call is not in the span is left out and reported (the readers' integrity rule)
    orphans = sum("which is not an earlier tool_call; left out" in e.reason for e in conv.report)
    assert len(t.items) == len(attrs.get(SYSTEM_INSTRUCTIONS, [])) + n_in + n_out - orphans
    if "gen_ai.response.id" in attrs:
        assert t.response.id == attrs["gen_ai.response.id"]
    if "gen_ai.usage.input_tokens" in attrs:
        assert t.usage.input_tokens == attrs["gen_ai.usage.input_tokens"]
    out = to_otel(t)
    validate(out.value)
    # Every text and tool call of the recording is in the output.
    def texts(a: dict[str, Any]) -> list[str]:
        msgs = a.get(INPUT_MESSAGES, []) + a.get(OUTPUT_MESSAGES, [])
        return [p["content"] for p in a.get(SYSTEM_INSTRUCTIONS, [])] + [p["content"] for m in msgs for p in m["parts"] if p["type"] == "text"]
    assert texts(out.value) == texts(attrs)
    calls = lambda a: [(p["id"], p["name"]) for m in a.get(INPUT_MESSAGES, []) + a.get(OUTPUT_MESSAGES, []) for p in m["parts"] if p["type"] == "tool_call"]  # noqa: E731
    assert calls(out.value) == calls(attrs)


def test_pydantic_ai_span_variants() -> None:
    attrs = json.loads((HERE / "spans" / "pydantic_ai.test_instrumented_model.0.json").read_text())["attributes"]
    conv = from_otel(attrs)
    t = conv.value
    assert t.items[0] == TextItem(text="instructions", role="system")
    # Both results answer calls the span does not hold: read (the 'result' variant), then left out as
    # every reader leaves out a result whose call is not in the history, each reported
    assert [i for i in t.items if isinstance(i, ToolResultItem)] == []
    assert sum("'result'" in e.reason for e in conv.report) == 2
    assert [e.reason.split("'")[1] for e in conv.report if "not an earlier tool_call" in e.reason] == ["tool_call_3", "tool_call_4"]
    bad = next(i for i in t.items if isinstance(i, ToolCallItem) and i.id == "tool_call_1")
    assert bad.arguments is msgspec.UNSET and bad.arguments_raw == "args1"  # never {}
    assert t.usage == Usage(input_tokens=100, output_tokens=200, cache_read_tokens=20, cache_write_tokens=10)
    assert t.settings.temperature == 1 and t.settings.model == "gpt-4o"
    out = to_otel(t).value
    # The history's assistant message stays input; the response is the output message.
    assert out[INPUT_MESSAGES][-1] == {"role": "assistant", "parts": [{"type": "text", "content": "text3"}]}
    assert [p["type"] for p in out[OUTPUT_MESSAGES][0]["parts"]] == ["text", "tool_call", "tool_call", "text"]
    assert out[OUTPUT_MESSAGES][0]["parts"][1]["arguments"] == "args1"


def test_logfire_variants() -> None:
    attrs = json.loads((HERE / "spans" / "logfire_anthropic.test_sync_messages.0.json").read_text())["attributes"]
    conv = from_otel(attrs)
    t = conv.value
    assert t.stop_reason == StopReason(reason="end_turn", raw="end_turn")
    # Attributes with no place in a transcript are reported, each with its pointer.
    assert sorted(e.pointer for e in conv.report) == ["/gen_ai.provider.name", "/gen_ai.system", "/gen_ai.usage.raw"]
    assert t.items[0] == TextItem(text="You are a helpful assistant.", role="system")
    tools = json.loads((HERE / "spans" / "logfire_openai.test_sync_chat_tool_call_stream.1.json").read_text())["attributes"]
    conv = from_otel(tools)
    assert [d.name for d in conv.value.tools] == ["get_current_weather"]
    assert conv.value.tools[0].parameters["required"] == ["location"]
    assert any("OpenAI Chat shape" in e.reason for e in conv.report)


def test_span_attributes_as_json_strings_and_otlp() -> None:
    attrs = json.loads((HERE / "spans" / "logfire_openai.test_responses_api.1.json").read_text())["attributes"]
    as_strings = {k: json.dumps(v) if isinstance(v, list | dict) else v for k, v in attrs.items()}
    assert from_otel(as_strings).value == from_otel(attrs).value
    def any_value(v: Any) -> dict[str, Any]:
        if isinstance(v, bool):
            return {"boolValue": v}
        if isinstance(v, int):
            return {"intValue": str(v)}
        if isinstance(v, float):
            return {"doubleValue": v}
        return {"stringValue": v if isinstance(v, str) else json.dumps(v)}
    otlp = {"name": "chat", "attributes": [{"key": k, "value": any_value(v)} for k, v in attrs.items()]}
    assert from_otel(otlp).value == from_otel(attrs).value


# --------------------------------------------------------------------------- every real fixture


@pytest.mark.parametrize(("fmt", "path"), FIXTURES, ids=[p.name for _, p in FIXTURES])
def test_real_fixture_goes_to_otel_and_back(fmt: str, path: Path) -> None:
    t = load(fmt, path)
    before = msgspec.json.encode(t)
    out = to_otel(t, policy="drop")
    assert msgspec.json.encode(t) == before, "to_otel mutated its input"
    validate(out.value)
    wire = json.loads(json.dumps(out.value))  # what a span carries is JSON
    back = from_otel(wire).value
    problems = unreported(t, back, out.report)
    assert not problems, "\n".join(problems)


def test_policy_error_refuses_what_no_part_holds() -> None:
    t = Transcript(schema_version="1.0", items=[TextItem(text="hi", role="user"), ErrorItem(code="server", message="boom")])
    with pytest.raises(ConversionError):
        to_otel(t)
    dropped = to_otel(t, policy="drop")
    assert [e.action for e in dropped.report] == ["dropped"]
    degraded = to_otel(t, policy="degrade").value
    assert "omitted" in degraded[INPUT_MESSAGES][-1]["parts"][0]["content"]


def test_opaque_reasoning_is_reported_not_written() -> None:
    from interlingua.items import OpaqueReasoning

    t = Transcript(
        schema_version="1.0",
        items=[
            TextItem(text="hi", role="user"),
            ReasoningItem(text="thinking", opaque=OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value="SIG")),
            ReasoningItem(opaque=OpaqueReasoning(namespace="anthropic.redacted_thinking", issuer="anthropic", value="RED"), redacted=True),
            TextItem(text="answer", role="assistant"),
        ],
    )
    out = to_otel(t)
    assert "SIG" not in json.dumps(out.value) and "RED" not in json.dumps(out.value)
    assert [(e.action, e.index) for e in out.report] == [("degraded", 1), ("dropped", 2)]
    assert "opaque" in str(out.report.entries[0])


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("attrs", "pointer"),
    [
        ({INPUT_MESSAGES: "{not json"}, f"/{INPUT_MESSAGES}"),
        ({INPUT_MESSAGES: {"role": "user"}}, f"/{INPUT_MESSAGES}"),
        ({INPUT_MESSAGES: [{"role": "user", "parts": [{"type": "text"}]}]}, f"/{INPUT_MESSAGES}/0/parts/0/content"),
        ({INPUT_MESSAGES: [{"role": "user", "parts": [7]}]}, f"/{INPUT_MESSAGES}/0/parts/0"),
        ({INPUT_MESSAGES: [{"parts": []}]}, f"/{INPUT_MESSAGES}/0/role"),
        ({INPUT_MESSAGES: [{"role": "tool", "parts": [{"type": "tool_call_response", "response": "x"}]}]}, f"/{INPUT_MESSAGES}/0/parts/0/id"),
        ({OUTPUT_MESSAGES: [{"role": "assistant", "parts": [{"type": "tool_call", "id": "c"}]}]}, f"/{OUTPUT_MESSAGES}/0/parts/0/name"),
        ({INPUT_MESSAGES: [{"role": "user", "parts": [{"type": "blob", "modality": "image", "content": 5}]}]}, f"/{INPUT_MESSAGES}/0/parts/0/content"),
        ({"gen_ai.usage.input_tokens": "many", INPUT_MESSAGES: []}, "/gen_ai.usage.input_tokens"),
    ],
)
def test_bad_spans_are_located_errors(attrs: dict[str, Any], pointer: str) -> None:
    with pytest.raises(MalformedInputError) as exc:
        from_otel(attrs)
    assert exc.value.pointer == pointer
    assert isinstance(exc.value, InterlinguaError)


@pytest.mark.parametrize(
    ("value", "pointer"),
    [
        ({"intValue": "abc"}, "/0/value/intValue"),
        ({"intValue": None}, "/0/value/intValue"),
        ({"intValue": 1.5}, "/0/value/intValue"),
        ({"intValue": True}, "/0/value/intValue"),
        ({"arrayValue": [1]}, "/0/value/arrayValue"),
        ({"arrayValue": {"values": 5}}, "/0/value/arrayValue/values"),
        ({"kvlistValue": {"values": [1]}}, "/0/value/kvlistValue/values/0"),
        ({"kvlistValue": {"values": [{"key": [], "value": {"stringValue": "x"}}]}}, "/0/value/kvlistValue/values/0"),
        ({"arrayValue": {"values": [{"intValue": "x1"}]}}, "/0/value/arrayValue/values/0/intValue"),
    ],
)
def test_bad_otlp_attribute_values_are_located_errors(value: dict[str, Any], pointer: str) -> None:
    """OTLP/JSON AnyValues of the wrong shape were a ValueError/TypeError/AttributeError traceback in the CLI."""
    with pytest.raises(MalformedInputError) as exc:
        from_otel([{"key": "gen_ai.usage.input_tokens", "value": value}])
    assert exc.value.pointer == pointer


def test_otlp_int64_as_decimal_string_is_read() -> None:
    span = [{"key": "gen_ai.usage.input_tokens", "value": {"intValue": "12"}}, {"key": "gen_ai.usage.output_tokens", "value": {"intValue": 3}}]
    usage = from_otel(span).value.usage
    assert isinstance(usage, Usage) and (usage.input_tokens, usage.output_tokens) == (12, 3)


def test_not_attributes() -> None:
    with pytest.raises(MalformedInputError):
        from_otel([1, 2])


def test_unknown_parts_are_kept_raw_and_written_back() -> None:
    part = {"type": "server_tool_call", "id": "srv_1", "name": "web_search", "server_tool_call": {"type": "web_search", "query": "x"}}
    conv = from_otel({INPUT_MESSAGES: [{"role": "assistant", "parts": [part]}]})
    assert conv.value.items[0].value == part and conv.report
    assert to_otel(conv.value).value[INPUT_MESSAGES] == [{"role": "assistant", "parts": [part]}]


# --------------------------------------------------------------------------- properties

_text = st.text(max_size=20)
_items = st.lists(
    st.one_of(
        st.builds(lambda t, r: TextItem(text=t, role=r), _text, st.sampled_from(["user", "assistant", "developer"])),
        st.builds(lambda i, a: ToolCallItem(id=f"c{i}", name="f", arguments=a), st.integers(0, 5), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3)),
        st.builds(lambda i, t: ToolResultItem(call_id=f"c{i}", content=[TextItem(text=t)] if t else []), st.integers(0, 5), _text),
        st.builds(lambda t: ReasoningItem(text=t), _text),
    ),
    max_size=8,
)


@given(_items, st.booleans())
@settings(max_examples=60, deadline=None)
def test_property_schema_valid_and_round_trip(items: list[Any], response: bool) -> None:
    t = Transcript(schema_version="1.0", items=items, stop_reason=StopReason(reason="end_turn") if response else msgspec.UNSET)
    out = to_otel(t)
    validate(out.value)
    conv = from_otel(json.loads(json.dumps(out.value)))
    if any(f.rule in READER_RULES for f in check_history(items)):
        # a history validate refuses (a result without its call, a reused call id): the reader
        # applies the integrity rules, so what comes back is valid, each change reported there
        assert not [f for f in check_history(conv.value.items) if f.rule in READER_RULES]
        return
    assert not unreported(t, conv.value, out.report)


def test_request_settings_of_the_wrong_type_are_reported_not_kept() -> None:
    conv = from_otel({"gen_ai.request.temperature": "hot", "gen_ai.request.top_k": 1.5, "gen_ai.request.max_tokens": 0, "gen_ai.request.model": "m", INPUT_MESSAGES: []})
    assert conv.value.settings.model == "m" and conv.value.settings.temperature is msgspec.UNSET
    assert sorted(e.pointer for e in conv.report) == ["/gen_ai.request.max_tokens", "/gen_ai.request.temperature", "/gen_ai.request.top_k"]


def test_a_span_that_makes_no_valid_transcript_is_refused() -> None:
    with pytest.raises(MalformedInputError, match="usage/input_tokens"):
        from_otel({"gen_ai.usage.input_tokens": -3, OUTPUT_MESSAGES: [{"role": "assistant", "parts": [], "finish_reason": "stop"}]})


def test_unknown_items_of_a_newer_version_follow_the_policy() -> None:
    from interlingua.codec import decode_transcript

    t = decode_transcript(b'{"schema_version":"1.0","items":[{"type":"text","role":"user","text":"hi"},{"type":"hologram","x":1}]}')
    with pytest.raises(ConversionError):
        to_otel(t)
    assert [(e.action, e.index) for e in to_otel(t, policy="drop").report] == [("dropped", 1)]
