"""Each Responses wire rule, tested with the exact input shape that breaks naive mappers."""

from __future__ import annotations

import copy
import json

import msgspec
import pytest

from interlingua.codec import to_builtins
from interlingua.errors import ConversionError, MalformedArgumentsError
from interlingua.items import (
    AudioItem,
    Base64Source,
    DocumentItem,
    ErrorItem,
    FileSource,
    HandoffCallItem,
    ImageItem,
    OpaqueReasoning,
    Origin,
    RawItem,
    ReasoningItem,
    RefusalItem,
    StructuredItem,
    TextItem,
    TextSource,
    ToolCallItem,
    ToolChoice,
    ToolDefinition,
    ToolResultItem,
    Transcript,
)
from interlingua.mapping import ModelResponse, get_mapper
from interlingua.mapping.spelling import without_spelling

UNSET = msgspec.UNSET
ENC = "gAAAAABo-ENCRYPTED-" + "x" * 64


def T(*items, **kw) -> Transcript:
    return Transcript(schema_version="1.0", items=list(items), **kw)


def dec(oar, body):
    before = copy.deepcopy(body)
    conv = oar.decode_request(body)
    assert body == before, "decode_request mutated its input"
    return conv


def enc(oar, transcript, **kw):
    """``encode_request`` with a model passed unless given (these tests are about items; the no-model
    note has its own test); the model is taken out of the body again."""
    before = to_builtins(transcript)
    given = "model" in kw
    kw.setdefault("model", "gpt-test")
    conv = oar.encode_request(transcript, **kw)
    if not given:
        conv.value.pop("model")
    assert to_builtins(transcript) == before, "encode_request mutated its input"
    return conv


def fc(call_id, name="f", args='{"x":1}', item_id=None):
    out = {"type": "function_call", "call_id": call_id, "name": name, "arguments": args}
    if item_id:
        out["id"] = item_id
    return out


def fco(call_id, output="ok"):
    return {"type": "function_call_output", "call_id": call_id, "output": output}


# --------------------------------------------------------------------------- tool calls


def test_parallel_calls_then_outputs_link_by_call_id(oar, wire):
    body = {"input": [fc("call_a", "a", '{"q": 1}', "fc_a"), fc("call_b", "b", '{"q": 2}', "fc_b"), fco("call_b", "B"), fco("call_a", "A")]}
    items = dec(oar, body).value.items
    calls = {i.id: i for i in items if isinstance(i, ToolCallItem)}
    results = [i for i in items if isinstance(i, ToolResultItem)]
    assert list(calls) == ["call_a", "call_b"]
    assert {r.call_id: r.content[0].text for r in results} == {"call_b": "B", "call_a": "A"}
    assert calls["call_a"].arguments == {"q": 1} and calls["call_b"].arguments == {"q": 2}
    assert calls["call_a"].origin.item_id == "fc_a"
    assert calls["call_a"].message != calls["call_b"].message
    out = enc(oar, dec(oar, body).value).value
    assert [i["type"] for i in out["input"]] == ["function_call", "function_call", "function_call_output", "function_call_output"]
    assert wire.request(out) == wire.request(body)


def test_malformed_arguments_kept_raw_never_empty_object(oar):
    items = dec(oar, {"input": [fc("call_1", args='{"x": 1')]}).value.items
    (call,) = items
    assert call.arguments is UNSET
    assert call.arguments_raw == '{"x": 1' and call.arguments_error
    non_object = dec(oar, {"input": [fc("call_2", args="[1, 2]")]}).value.items[0]
    assert non_object.arguments is UNSET and non_object.arguments_raw == "[1, 2]"


def test_empty_arguments_are_an_empty_object(oar):
    assert dec(oar, {"input": [fc("call_1", args="")]}).value.items[0].arguments == {}


def _malformed_turn():
    return T(
        TextItem(text="go", role="user"),
        ReasoningItem(summary=[], opaque=OpaqueReasoning(namespace="openai.encrypted_content", issuer="openai-responses", value=ENC), origin=Origin(provider="openai-responses", item_id="rs_1")),
        ToolCallItem(id="call_1", name="f", arguments_raw="{oops", arguments_error="bad"),
        ToolResultItem(call_id="call_1", content=[TextItem(text="r")]),
        TextItem(text="next", role="user"),
    )


def test_malformed_arguments_refused_under_error(oar):
    with pytest.raises(MalformedArgumentsError) as info:
        enc(oar, _malformed_turn())
    assert info.value.index == 2


def test_malformed_arguments_drop_takes_the_reasoning_and_result_with_it(oar):
    conv = enc(oar, _malformed_turn(), policy="drop")
    assert conv.value["input"] == [{"role": "user", "content": "go"}, {"role": "user", "content": "next"}]
    dropped = sorted((e.item_type, e.index) for e in conv.report if e.action == "dropped")
    assert dropped == [("reasoning", 1), ("tool_call", 2), ("tool_result", 3)]


def test_malformed_arguments_degrade_sends_raw_text(oar):
    conv = enc(oar, _malformed_turn(), policy="degrade")
    (call,) = [i for i in conv.value["input"] if i.get("type") == "function_call"]
    assert call["arguments"] == "{oops"
    assert [e.action for e in conv.report] == ["degraded"]


def test_call_id_of_80_chars_is_mapped_on_call_and_output(oar):
    long_id = "toolu_" + "A1b2" * 18 + "zz"
    assert len(long_id) == 80
    transcript = T(
        ToolCallItem(id=long_id, name="f", arguments={}),
        ToolCallItem(id="call_short", name="g", arguments={}),
        ToolResultItem(call_id=long_id, content=[TextItem(text="x")]),
        ToolResultItem(call_id="call_short", content=[TextItem(text="y")]),
    )
    conv = enc(oar, transcript)
    call, short, out, short_out = conv.value["input"]
    assert len(call["call_id"]) <= 64 and call["call_id"].startswith("call_")
    assert out["call_id"] == call["call_id"]
    assert short["call_id"] == short_out["call_id"] == "call_short"
    assert [e.action for e in conv.report] == ["changed"]
    assert enc(oar, transcript).value == conv.value  # deterministic


def test_call_id_of_exactly_64_chars_is_kept(oar):
    call_id = "c" * 64
    conv = enc(oar, T(ToolCallItem(id=call_id, name="f", arguments={})))
    assert conv.value["input"][0]["call_id"] == call_id and not conv.report


def test_foreign_fc_ids_are_not_sent(oar):
    call = ToolCallItem(id="toolu_1", name="f", arguments={}, origin=Origin(provider="anthropic", item_id="fc_lookalike"))
    assert "id" not in enc(oar, T(call)).value["input"][0]


def test_function_call_output_parts(oar, wire):
    parts = [{"type": "input_text", "text": "see"}, {"type": "input_image", "image_url": "https://x/y.png", "detail": "low"}, {"type": "input_file", "file_id": "file-1"}]
    body = {"input": [fco("call_1", parts)]}
    (result,) = dec(oar, body).value.items
    assert [type(c).__name__ for c in result.content] == ["TextItem", "ImageItem", "DocumentItem"]
    assert all(c.role is UNSET for c in result.content)
    assert enc(oar, dec(oar, body).value).value["input"] == body["input"]


def test_tool_result_is_error_and_structured_are_reported(oar):
    conv = enc(oar, T(ToolResultItem(call_id="c", content=[StructuredItem(data={"a": 1})], is_error=True)))
    assert conv.value["input"][0]["output"] == [{"type": "input_text", "text": '{"a":1}'}]
    assert sorted(e.action for e in conv.report) == ["changed", "changed"]


# --------------------------------------------------------------------------- reasoning


def _reasoning_item():
    return {
        "type": "reasoning",
        "id": "rs_abc",
        "summary": [{"type": "summary_text", "text": "**Plan**\n\nfirst"}, {"type": "summary_text", "text": "second "}],
        "content": [{"type": "reasoning_text", "text": "  raw thoughts\n"}],
        "encrypted_content": ENC,
    }


def test_reasoning_with_encrypted_content_round_trips_byte_identical(oar):
    body = {"input": [{"role": "user", "content": "q"}, _reasoning_item(), fc("call_1", item_id="fc_1")]}
    (_, reasoning, _) = dec(oar, body).value.items
    assert reasoning.summary == ["**Plan**\n\nfirst", "second "]
    assert reasoning.text == "  raw thoughts\n"
    assert reasoning.opaque == OpaqueReasoning(namespace="openai.encrypted_content", issuer="openai-responses", value=ENC)
    assert reasoning.origin.item_id == "rs_abc"
    out = enc(oar, dec(oar, body).value).value["input"]
    assert json.dumps(out, sort_keys=True) == json.dumps(body["input"], sort_keys=True)
    assert [i.get("type") for i in out] == [None, "reasoning", "function_call"]


def test_reasoning_with_empty_summary_keeps_summary_list(oar):
    body = {"input": [{"type": "reasoning", "id": "rs_1", "summary": []}, fc("call_1")]}
    out = enc(oar, dec(oar, body).value).value["input"]
    assert out[0] == {"type": "reasoning", "id": "rs_1", "summary": []}


def test_foreign_opaque_is_dropped_and_reported_never_text(oar):
    thinking = ReasoningItem(
        text="secret chain of thought",
        opaque=OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value="SIG-anthropic"),
        origin=Origin(provider="anthropic"),
    )
    transcript = T(TextItem(text="q", role="user"), thinking, ToolCallItem(id="toolu_1", name="f", arguments={}), ToolResultItem(call_id="toolu_1", content=[TextItem(text="r")]))
    conv = enc(oar, transcript)
    text = json.dumps(conv.value)
    assert "SIG-anthropic" not in text and "secret chain of thought" not in text
    assert [i.get("type") for i in conv.value["input"]] == [None, "function_call", "function_call_output"]
    assert any(e.action == "dropped" and e.item_type == "reasoning" and e.index == 1 for e in conv.report)


def test_own_reasoning_with_foreign_opaque_keeps_only_its_own_state(oar):
    item = ReasoningItem(summary=["s"], opaque=OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value="SIG"), origin=Origin(provider="openai-responses", item_id="rs_9"))
    conv = enc(oar, T(item, ToolCallItem(id="c", name="f", arguments={})))
    assert conv.value["input"][0] == {"type": "reasoning", "id": "rs_9", "summary": [{"type": "summary_text", "text": "s"}]}
    assert "SIG" not in json.dumps(conv.value)
    assert [e.action for e in conv.report] == ["dropped"]


# --------------------------------------------------------------------------- raw items


@pytest.mark.parametrize(
    "item",
    [
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "weather"}},
        {"type": "item_reference", "id": "msg_1"},
        {"id": "rs_123"},
        {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "x", "tools": []},
        {"type": "custom_tool_call", "call_id": "call_c", "name": "grammar", "input": "x = 1"},
        {"type": "message", "role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "AAA=", "format": "wav"}}]},
        {"type": "message", "role": "tool", "content": "x"},
        {"type": "message", "role": "user", "content": []},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "a", "extra": 1}]},
    ],
)
def test_items_without_canonical_form_are_raw_and_round_trip(oar, item):
    body = {"input": [item]}
    (raw,) = dec(oar, body).value.items
    assert isinstance(raw, RawItem) and raw.provider == "openai-responses" and raw.value == item
    assert raw.value is not item
    assert enc(oar, dec(oar, body).value).value["input"] == [item]


def test_raw_item_of_another_provider_is_dropped_and_reported(oar):
    conv = enc(oar, T(RawItem(provider="anthropic", value={"type": "server_tool_use"})))
    assert conv.value["input"] == []
    assert [(e.action, e.item_type) for e in conv.report] == [("dropped", "raw")]


def test_web_search_call_in_response_output_is_raw(oar):
    body = _response([{"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "q"}}, _message("hi")])
    items = oar.decode_response(body).value.items
    assert isinstance(items[0], RawItem) and items[0].value == body["output"][0]
    assert oar.encode_response(oar.decode_response(body).value).value["output"][0] == body["output"][0]


# --------------------------------------------------------------------------- messages and parts


def test_instructions_become_a_leading_system_item(oar):
    t = dec(oar, {"instructions": "Be brief.", "input": "hi"}).value
    assert to_builtins(t.items) == [
        {"type": "text", "text": "Be brief.", "role": "system", "message": "instructions"},
        {"type": "text", "text": "hi", "role": "user", "message": "m0"},
    ]
    assert enc(oar, t).value == {"instructions": "Be brief.", "input": "hi"}  # the client's string input back (ADR 0027)
    assert enc(oar, without_spelling(t)).value == {"instructions": "Be brief.", "input": [{"role": "user", "content": "hi"}]}


def test_system_message_in_input_stays_in_input(oar):
    body = {"input": [{"role": "system", "content": "S"}, {"role": "developer", "content": "D"}, {"role": "user", "content": "U"}]}
    assert enc(oar, dec(oar, body).value).value == body


def test_several_unkeyed_system_items_join_into_instructions_reported(oar):
    conv = enc(oar, T(TextItem(text="A", role="system"), TextItem(text="B", role="system"), TextItem(text="hi", role="user")))
    assert conv.value["instructions"] == "A\n\nB"
    assert [e.action for e in conv.report] == ["changed"]


def test_whitespace_is_exact(oar):
    body = {"input": [{"role": "user", "content": "  two  spaces\n\n"}]}
    assert dec(oar, body).value.items[0].text == "  two  spaces\n\n"
    assert enc(oar, dec(oar, body).value).value == body


def test_strict_message_with_parts_keeps_boundaries(oar, wire):
    body = {
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "c"}]},
        ]
    }
    t = dec(oar, body).value
    assert [i.message for i in t.items] == ["m0", "m0", "m1"]
    out = enc(oar, t).value
    assert len(out["input"]) == 2
    assert wire.request(out) == wire.request(body)


def test_images_and_files(oar):
    png = "data:image/png;base64,iVBORw0KGgo="
    body = {
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_image", "image_url": png, "detail": "high"},
                    {"type": "input_image", "image_url": "https://example.com/cat.jpg", "detail": "auto"},
                    {"type": "input_image", "file_id": "file-img", "detail": "original"},
                    {"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"},
                    {"type": "input_file", "file_id": "file-pdf"},
                    {"type": "input_file", "file_url": "https://example.com/b.pdf"},
                ],
            }
        ]
    }
    items = dec(oar, body).value.items
    assert items[0].source == Base64Source(media_type="image/png", data="iVBORw0KGgo=") and items[0].detail == "high"
    assert items[1].source.url == "https://example.com/cat.jpg"
    assert items[2].source == FileSource(file_id="file-img", provider="openai")
    assert items[3].source == Base64Source(media_type="application/pdf", data="JVBERi0=") and items[3].filename == "a.pdf"
    assert items[4].source.file_id == "file-pdf" and items[5].source.url == "https://example.com/b.pdf"
    assert all(i.role == "user" and i.message == "m0" for i in items)
    assert enc(oar, dec(oar, body).value).value == body


def test_bare_base64_file_data_is_reported(oar):
    conv = dec(oar, {"input": [{"type": "message", "role": "user", "content": [{"type": "input_file", "file_data": "JVBERi0=", "filename": "x.pdf"}]}]})
    assert conv.value.items[0].source == Base64Source(media_type="application/pdf", data="JVBERi0=")
    assert [e.action for e in conv.report] == ["changed"]


def test_assistant_replay_with_annotations_and_refusal(oar, wire):
    ann = [{"type": "url_citation", "url": "https://a.example", "title": "A", "start_index": 0, "end_index": 5}, {"type": "file_citation", "file_id": "file-1", "filename": "f.txt", "index": 3}]
    body = {
        "input": [
            {"role": "user", "content": "q"},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Hello", "annotations": ann}, {"type": "refusal", "refusal": "no"}]},
            {"type": "message", "id": "msg_2", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "again", "annotations": []}]},
            {"role": "assistant", "content": "plain"},
        ]
    }
    t = dec(oar, body).value
    text, refusal, again, plain = t.items[1:]
    assert text.annotations[0].url == "https://a.example" and text.annotations[1].provider_data == {"filename": "f.txt", "index": 3}
    assert isinstance(refusal, RefusalItem) and refusal.origin.item_id == "msg_1"
    assert again.origin.item_id == "msg_2" and plain.origin is UNSET
    out = enc(oar, t).value
    assert out["input"] == body["input"]
    assert wire.request(out) == wire.request(body)


def test_message_phase_goes_back_to_responses_and_is_reported_elsewhere(oar):
    conv = dec(oar, {"input": [{"role": "assistant", "content": "x", "phase": "commentary"}]})
    assert list(conv.report) == []
    assert conv.value.items[0].provider_data == {"openai-responses": {"message": {"phase": "commentary"}}}
    back = enc(oar, conv.value)
    assert back.value["input"] == [{"role": "assistant", "content": "x", "phase": "commentary"}]
    other = get_mapper("anthropic").encode_request(conv.value, model="claude-sonnet-4-5")
    assert [e.reason for e in other.report if e.action == "dropped"] == ["openai-responses provider data (message.phase) of a text item is not for anthropic"]


def test_audio_follows_the_policy(oar):
    audio = AudioItem(source=Base64Source(media_type="audio/wav", data="UklGRg=="), role="user", format="wav")
    with pytest.raises(ConversionError):
        enc(oar, T(audio))
    dropped = enc(oar, T(audio, TextItem(text="hi", role="user")), policy="drop")
    assert dropped.value["input"] == [{"role": "user", "content": "hi"}] and [e.action for e in dropped.report] == ["dropped"]
    degraded = enc(oar, T(audio), policy="degrade")
    assert "UklGRg" not in json.dumps(degraded.value)
    assert degraded.value["input"][0]["role"] == "user" and [e.action for e in degraded.report] == ["degraded"]


@pytest.mark.parametrize(
    "item",
    [
        ImageItem(source=FileSource(file_id="files/abc", provider="gemini"), role="user"),
        DocumentItem(source=TextSource(text="doc"), role="user"),
        ImageItem(source=Base64Source(media_type="image/png", data="AA=="), role="assistant"),
        HandoffCallItem(id="h1", target="other"),
    ],
)
def test_content_the_api_cannot_carry_is_refused_under_error(oar, item):
    with pytest.raises(ConversionError):
        enc(oar, T(item))
    assert enc(oar, T(item), policy="drop").report


def test_error_items_are_not_sent(oar):
    conv = enc(oar, T(TextItem(text="a", role="user"), ErrorItem(code="server", message="x")))
    assert conv.value["input"] == [{"role": "user", "content": "a"}] and [e.item_type for e in conv.report] == ["error"]


# --------------------------------------------------------------------------- tools


def test_tools_keep_parameters_exactly_and_report_builtin_tools(oar):
    params = {"type": "object", "properties": {"a": {"type": "string", "enum": ["x"]}}, "required": ["a"], "additionalProperties": False}
    body = {
        "input": "hi",
        "tools": [{"type": "function", "name": "f", "description": "d", "parameters": params, "strict": True, "defer_loading": True}, {"type": "web_search"}],
        "tool_choice": {"type": "function", "name": "f"},
        "parallel_tool_calls": False,
    }
    conv = dec(oar, body)
    (tool,) = conv.value.tools
    assert tool.parameters == params and tool.parameters is not params
    assert tool.provider_data == {"openai-responses": {"defer_loading": True}}
    assert conv.value.tool_choice == ToolChoice(mode="tool", name="f", parallel=False)
    # the built-in tool is no tool definition: kept in the settings for Responses, at its place (issue 13)
    assert conv.report.entries == []
    assert without_spelling(conv.value).settings.provider_data == {"openai-responses": {"tools": [None, {"type": "web_search"}]}}
    out = enc(oar, conv.value).value
    assert out["tools"] == body["tools"]
    assert out["tool_choice"] == body["tool_choice"] and out["parallel_tool_calls"] is False
    # another target gets the function tool only, and says the built-in one is left out
    other = get_mapper("anthropic").encode_request(conv.value, model="claude-sonnet-4-5")
    assert [t["name"] for t in other.value["tools"]] == ["f"]
    assert any("openai-responses" in e.reason and "tools" in e.reason for e in other.report)


def test_foreign_tool_provider_data_is_not_sent(oar):
    conv = enc(oar, T(tools=[ToolDefinition(name="f", parameters={"type": "object"}, provider_data={"cache_control": {"type": "ephemeral"}})]))
    assert conv.value["tools"] == [{"type": "function", "name": "f", "parameters": {"type": "object"}, "strict": False}]
    assert [e.action for e in conv.report] == ["dropped"]


@pytest.mark.parametrize("choice", ["auto", "none", "required"])
def test_tool_choice_modes(oar, choice):
    t = dec(oar, {"input": [], "tool_choice": choice}).value
    assert t.tool_choice == ToolChoice(mode=choice)
    assert enc(oar, t).value["tool_choice"] == choice


def test_unsupported_tool_choice_and_stateful_fields_are_reported(oar):
    conv = dec(oar, {"input": [], "tool_choice": {"type": "allowed_tools", "mode": "auto", "tools": []}, "previous_response_id": "resp_1"})
    # the stored prefix is not in the transcript: reported; both fields stay in the settings for Responses
    assert sorted(e.pointer for e in conv.report) == ["/previous_response_id"]
    assert conv.value.settings.provider_data == {
        "openai-responses": {"tool_choice": {"type": "allowed_tools", "mode": "auto", "tools": []}, "previous_response_id": "resp_1"}
    }
    out = enc(oar, conv.value).value
    assert out["tool_choice"] == {"type": "allowed_tools", "mode": "auto", "tools": []} and out["previous_response_id"] == "resp_1"


# --------------------------------------------------------------------------- kind_of and capabilities


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ({"input": "hi", "model": "gpt-5"}, "request"),
        ({"instructions": "x", "model": "gpt-5"}, "request"),
        ({"object": "response", "output": [], "id": "resp_1"}, "response"),
        ({"output": [], "instructions": "x", "model": "m"}, None),
        ({"messages": []}, None),
        ({"instructions": "x"}, None),
    ],
)
def test_kind_of(oar, body, kind):
    assert oar.kind_of(body) == kind


def test_capabilities(oar):
    caps = oar.capabilities("gpt-5-mini")
    assert caps.tools and caps.parallel_tool_calls and caps.reasoning and caps.streaming and caps.raw_round_trip
    assert "audio" not in caps.input_modalities and not caps.stop_sequences
    assert not oar.capabilities("gpt-4o").reasoning
    assert oar.name == oar.issuer == "openai-responses" and oar.framing == "sse"
    assert oar.id_rule.max_length == 64 and oar.id_rule.prefix == "call_"


# --------------------------------------------------------------------------- responses


def _message(text, msg_id="msg_1"):
    return {"type": "message", "id": msg_id, "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}


def _response(output, status="completed", **extra):
    body = {"id": "resp_1", "object": "response", "status": status, "model": "gpt-5", "output": output, "incomplete_details": None, "error": None, "usage": None}
    body.update(extra)
    return body


@pytest.mark.parametrize(
    ("status", "extra", "reason", "raw"),
    [
        ("completed", {}, "end_turn", "completed"),
        ("incomplete", {"incomplete_details": {"reason": "max_output_tokens"}}, "max_tokens", "max_output_tokens"),
        ("incomplete", {"incomplete_details": {"reason": "content_filter"}}, "content_filter", "content_filter"),
    ],
)
def test_stop_reasons(oar, wire, status, extra, reason, raw):
    body = _response([_message("partial")], status, **extra)
    response = oar.decode_response(body).value
    assert (response.stop_reason.reason, response.stop_reason.raw) == (reason, raw)
    assert wire.response(oar.encode_response(response).value) == wire.response(body)


def test_completed_with_function_call_is_tool_use(oar):
    body = _response([fc("call_1", item_id="fc_1") | {"status": "completed"}])
    assert oar.decode_response(body).value.stop_reason.reason == "tool_use"


def test_refusal_only_is_refusal(oar):
    body = _response([{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "refusal", "refusal": "I can't."}]}])
    response = oar.decode_response(body).value
    assert response.stop_reason.reason == "refusal" and isinstance(response.items[0], RefusalItem)


@pytest.mark.parametrize(("code", "stable"), [("rate_limit_exceeded", "rate_limit"), ("server_error", "server"), ("invalid_prompt", "provider_error"), (None, "provider_error")])
def test_failed_response_is_an_error_item_with_a_safe_message(oar, code, stable):
    body = _response([], "failed", error={"code": code, "message": "upstream secret text sk-123"})
    response = oar.decode_response(body).value
    (error,) = response.items
    assert isinstance(error, ErrorItem) and error.code == stable
    assert response.stop_reason.reason == "error"
    assert "secret" not in error.message and "sk-123" not in error.message


def test_usage_maps_cache_and_reasoning_and_keeps_details(oar):
    usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 40, "cache_write_tokens": 10}, "output_tokens": 30, "output_tokens_details": {"reasoning_tokens": 20}, "total_tokens": 130}
    u = oar.decode_response(_response([], usage=usage)).value.usage
    assert (u.input_tokens, u.cache_read_tokens, u.cache_write_tokens, u.output_tokens, u.reasoning_tokens, u.total_tokens) == (100, 40, 10, 30, 20, 130)
    assert u.details == usage and u.details is not usage


def test_encode_response_gives_ids_to_items_without_them(oar):
    response = ModelResponse(items=[TextItem(text="hi", role="assistant"), ToolCallItem(id="call_1", name="f", arguments={})])
    out = oar.encode_response(response, model="gpt-5").value
    assert [o["id"] for o in out["output"]] == ["msg_0", "fc_1"]
    again = oar.decode_response(out).value
    assert [type(i).__name__ for i in again.items] == ["TextItem", "ToolCallItem"]


def test_encode_response_refuses_user_items(oar):
    with pytest.raises(ConversionError):
        oar.encode_response(ModelResponse(items=[TextItem(text="hi", role="user")]))


def test_tool_choice_tool_without_name_is_required_and_reported(oar):
    conv = enc(oar, T(tool_choice=ToolChoice(mode="tool")))
    assert conv.value["tool_choice"] == "required" and [e.action for e in conv.report] == ["changed"]


def test_output_list_with_an_unknown_part_is_raw_without_stale_report(oar):
    item = fco("call_1", [{"type": "input_file", "file_data": "JVBERi0=", "filename": "x.pdf"}, {"type": "input_audio", "input_audio": {}}])
    conv = dec(oar, {"input": [item]})
    assert isinstance(conv.value.items[0], RawItem) and conv.report.entries == []


def test_public_surface():
    import interlingua.providers.openai_responses as pkg

    assert pkg.__all__ == ["OpenAIResponsesMapper", "ResponsesAccumulator", "mapper"]
    assert pkg.OpenAIResponsesMapper.__module__ == pkg.__name__
    assert isinstance(pkg.mapper, pkg.OpenAIResponsesMapper)


def test_empty_system_text_is_no_instructions_and_is_reported(oar):
    # instructions "" is the same as none: the empty system text cannot come back, so it is reported
    conv = enc(oar, T(TextItem(text="", role="system"), TextItem(text="hi", role="user", message="m0")))
    assert "instructions" not in conv.value
    assert conv.value["input"] == [{"role": "user", "content": "hi"}]
    assert [(e.action, e.index, e.item_type) for e in conv.report] == [("dropped", 0, "text")]
    # a non-empty system text next to an empty one still makes instructions (the join is reported as before)
    conv = enc(oar, T(TextItem(text="", role="system"), TextItem(text="be brief", role="system")))
    assert conv.value["instructions"] == "\n\nbe brief"
    assert [e.action for e in conv.report] == ["changed"]


def test_request_settings_are_kept_and_written_back(oar):
    """User report: reasoning, include, store, stream, max_output_tokens were left out silently."""
    body = {
        "model": "gpt-5",
        "input": "hi",
        "reasoning": {"effort": "low", "summary": "auto"},
        "include": ["reasoning.encrypted_content"],
        "store": False,
        "stream": True,
        "max_output_tokens": 100,
    }
    conv = oar.decode_request(body)
    assert conv.report.entries == []
    s = conv.value.settings
    assert (s.model, s.stream, s.max_output_tokens, s.reasoning.effort, s.reasoning.summary) == ("gpt-5", True, 100, "low", "auto")
    assert without_spelling(conv.value).settings.provider_data == {"openai-responses": {"include": ["reasoning.encrypted_content"], "store": False}}
    out = oar.encode_request(conv.value, model="gpt-5")
    assert out.report.entries == []
    assert {k: v for k, v in out.value.items() if k != "input"} == {k: v for k, v in body.items() if k != "input"}
