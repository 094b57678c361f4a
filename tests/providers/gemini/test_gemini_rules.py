"""Gemini wire rules, each with the input shape that breaks naive mappers."""

from __future__ import annotations

import copy
import json
from typing import Any

import msgspec
import pytest

from interlingua.errors import ConversionError, MalformedArgumentsError
from interlingua.items import (
    Base64Source,
    ImageItem,
    OpaqueReasoning,
    Origin,
    RawItem,
    ReasoningItem,
    StructuredItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
    Transcript,
    UrlSource,
)
from interlingua.mapping import get_mapper
from interlingua.mapping.spelling import without_spelling
from interlingua.providers.gemini import mapper
from interlingua.streaming import StreamDone, StreamError, collect

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def T(*items: Any, **kw: Any) -> Transcript:
    return Transcript(schema_version="1.0", items=list(items), **kw)


def encode(*items: Any, **kw: Any) -> Any:
    policy = kw.pop("policy", "error")
    model = kw.pop("model", None)
    return mapper.encode_request(T(*items, **kw), model=model, policy=policy)


def test_idless_calls_get_deterministic_ids_and_results_link_by_name_and_order() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "weather and time?"}]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "weather", "args": {"city": "Paris"}}, "thoughtSignature": "c2ln"},
                {"functionCall": {"name": "time", "args": {}}},
                {"functionCall": {"name": "weather", "args": {"city": "Rome"}}},
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "time", "response": {"output": "noon"}}},
                {"functionResponse": {"name": "weather", "response": {"output": "sun"}}},
                {"functionResponse": {"name": "weather", "response": {"output": "rain"}}},
            ]},
        ]
    }
    t = mapper.decode_request(body).value
    calls = [i for i in t.items if isinstance(i, ToolCallItem)]
    results = [i for i in t.items if isinstance(i, ToolResultItem)]
    assert [c.id for c in calls] == ["gemini_m1_c0", "gemini_m1_c1", "gemini_m1_c2"]
    # time answers the time call; the two weather answers go to the weather calls in order
    assert [r.call_id for r in results] == ["gemini_m1_c1", "gemini_m1_c0", "gemini_m1_c2"]
    assert [r.content for r in results] == [[TextItem(text="noon")], [TextItem(text="sun")], [TextItem(text="rain")]]
    # deterministic
    assert mapper.decode_request(body).value == t
    # and back without ids, since the source had none
    assert mapper.encode_request(t).value == body


def test_ids_sent_only_when_source_had_them_or_call_is_foreign() -> None:
    call = ToolCallItem(id="toolu_01", name="f", arguments={})
    res = ToolResultItem(call_id="toolu_01", content=[TextItem(text="ok")])
    out = encode(TextItem(role="user", text="go"), call, res).value
    assert out["contents"][1]["parts"] == [{"functionCall": {"id": "toolu_01", "name": "f", "args": {}}}]
    assert out["contents"][2]["parts"] == [{"functionResponse": {"id": "toolu_01", "name": "f", "response": {"output": "ok"}}}]
    gem = ToolCallItem(id="gemini_x_c0", name="f", arguments={}, origin=Origin(provider="gemini"))
    res2 = ToolResultItem(call_id="gemini_x_c0", content=[TextItem(text="ok")])
    out2 = encode(TextItem(role="user", text="go"), gem, res2).value
    assert "id" not in out2["contents"][1]["parts"][0]["functionCall"]
    assert "id" not in out2["contents"][2]["parts"][0]["functionResponse"]


def test_parallel_results_from_separate_messages_share_one_user_turn() -> None:
    items = [
        TextItem(role="user", text="two", message="m0"),
        ToolCallItem(id="call_a", name="a", arguments={}, message="m1"),
        ToolCallItem(id="call_b", name="b", arguments={}, message="m1"),
        ToolResultItem(call_id="call_a", content=[TextItem(text="A")], message="m2"),
        ToolResultItem(call_id="call_b", content=[TextItem(text="B")], message="m3"),
    ]
    out = encode(*items).value
    assert [c["role"] for c in out["contents"]] == ["user", "model", "user"]
    assert [p["functionResponse"]["name"] for p in out["contents"][2]["parts"]] == ["a", "b"]


def test_tool_result_with_image_keeps_image_in_function_response_parts() -> None:
    """An Anthropic-style tool_result (text + image) keeps the image as functionResponse.parts inlineData."""
    items = [
        TextItem(role="user", text="screenshot", message="m0"),
        ToolCallItem(id="toolu_01A", name="screenshot", arguments={}, message="m1"),
        ToolResultItem(
            call_id="toolu_01A",
            content=[TextItem(text="here"), ImageItem(source=Base64Source(media_type="image/png", data=PNG))],
            message="m2",
        ),
    ]
    conv = encode(*items)
    fr = conv.value["contents"][2]["parts"][0]["functionResponse"]
    assert fr == {
        "id": "toolu_01A",
        "name": "screenshot",
        "response": {"output": "here"},
        "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG}}],
    }
    assert not conv.report
    back = mapper.decode_request(conv.value).value
    assert back.items[2].content == items[2].content


def test_function_response_output_error_and_whole_object_forms() -> None:
    def decode(resp: dict[str, Any]) -> ToolResultItem:
        body = {"contents": [{"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "f", "response": resp}}]}]}
        return mapper.decode_request(body).value.items[0]

    assert decode({"output": "x"}).content == [TextItem(text="x")]
    assert decode({"output": [1, 2]}).content == [StructuredItem(data=[1, 2])]
    err = decode({"error": "boom"})
    assert err.is_error is True and err.content == [TextItem(text="boom")]
    whole = decode({"return_value": "Mexico"})
    assert whole.is_error is msgspec.UNSET and whole.content == [StructuredItem(data={"return_value": "Mexico"})]
    assert whole.name == "f"


def test_foreign_opaque_dropped_and_reported_its_text_sent_as_a_thought() -> None:
    """The opaque state of another issuer cannot be replayed; its text goes as a thought part without a
    signature, as pydantic-ai's test_google_model_thinking_part_from_other_model.yaml sent OpenAI
    reasoning to Gemini (answered 200)."""
    anth = ReasoningItem(text="hmm", opaque=OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value="sig"))
    conv = encode(TextItem(role="user", text="q"), anth, TextItem(role="assistant", text="a"))
    assert conv.value["contents"][1]["parts"] == [{"text": "hmm", "thought": True}, {"text": "a"}]
    assert [(e.action, e.item_type) for e in conv.report] == [("dropped", "reasoning")]
    assert "anthropic" in conv.report.entries[0].reason and "thought part" in conv.report.entries[0].reason
    # opaque state alone (no text) is left out whole
    bare = ReasoningItem(opaque=OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value="sig"))
    conv1 = encode(TextItem(role="user", text="q"), bare, TextItem(role="assistant", text="a"))
    assert conv1.value["contents"][1]["parts"] == [{"text": "a"}] and "reasoning left out" in conv1.report.entries[0].reason
    # a Gemini signature from another model is dropped too when the target model is known
    other = ReasoningItem(opaque=OpaqueReasoning(namespace="gemini.thought_signature", issuer="gemini", value="s", model="gemini-2.5-pro"))
    conv2 = encode(TextItem(role="user", text="q"), other, TextItem(role="assistant", text="a"), model="gemini-3-pro-preview")
    assert conv2.value["contents"][1]["parts"] == [{"text": "a"}]
    assert conv2.report.entries[0].action == "dropped"


def test_signature_goes_back_on_the_part_of_the_following_item() -> None:
    sig = ReasoningItem(opaque=OpaqueReasoning(namespace="gemini.thought_signature", issuer="gemini", value="AB+/=="), message="r")
    call = ToolCallItem(id="c", name="f", arguments={}, message="r", origin=Origin(provider="gemini"))
    out = encode(TextItem(role="user", text="q"), sig, call, TextItem(role="assistant", text="x", message="r")).value
    assert out["contents"][1]["parts"] == [{"functionCall": {"name": "f", "args": {}}, "thoughtSignature": "AB+/=="}, {"text": "x"}]


def test_signature_on_empty_text_part_survives() -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "q"}]}, {"role": "model", "parts": [{"text": "a"}, {"text": "", "thoughtSignature": "Zz=="}]}]}
    t = mapper.decode_request(body).value
    assert mapper.encode_request(t).value == body


def test_empty_text_parts_of_a_request_are_kept_and_sent_back() -> None:
    """test_google/test_google_model_empty_user_prompt.yaml and test_google_model_empty_assistant_response.yaml:
    the API answered requests holding ``{"text": ""}`` (a user turn, a model turn) with 200."""
    body = {"contents": [{"role": "user", "parts": [{"text": ""}, {"text": "hi"}]}, {"role": "model", "parts": [{"text": ""}]}]}
    conv = mapper.decode_request(copy.deepcopy(body))
    gemini = Origin(provider="gemini")  # an empty text read from Gemini is sent back to Gemini (and only there)
    assert conv.value.items == [TextItem(role="user", text="", message="m0", origin=gemini), TextItem(role="user", text="hi", message="m0"),
                                TextItem(role="assistant", text="", message="m1", origin=gemini)]
    assert not conv.report
    enc = mapper.encode_request(conv.value)
    assert enc.value["contents"] == body["contents"] and not enc.report
    # a response's empty filler part is still left out (reported)
    resp = mapper.decode_response({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}, {"text": "a"}]}, "finishReason": "STOP"}]})
    assert [i.text for i in resp.value.items] == ["a"] and [e.action for e in resp.report] == ["dropped"]


def test_snake_case_input_reads_like_camel_case() -> None:
    snake = {
        "system_instruction": {"parts": [{"text": "sys"}]},
        "contents": [
            {"role": "user", "parts": [{"inline_data": {"mime_type": "image/png", "data": PNG}}]},
            {"role": "model", "parts": [{"function_call": {"name": "f", "args": {"a": 1}}, "thought_signature": "s1"}]},
            {"role": "user", "parts": [{"function_response": {"name": "f", "response": {"output": 2}}}]},
        ],
        "tools": [{"function_declarations": [{"name": "f", "parameters_json_schema": {"type": "object"}}]}],
        "tool_config": {"function_calling_config": {"mode": "ANY", "allowed_function_names": ["f"]}},
    }
    camel = {
        "systemInstruction": {"parts": [{"text": "sys"}]},
        "contents": [
            {"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG}}]},
            {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"a": 1}}, "thoughtSignature": "s1"}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": 2}}}]},
        ],
        "tools": [{"functionDeclarations": [{"name": "f", "parametersJsonSchema": {"type": "object"}}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f"]}},
    }
    a, b = mapper.decode_request(snake), mapper.decode_request(camel)
    # the same canonical value; each keeps its own spelling to write back to Gemini (ADR 0027)
    assert without_spelling(a.value) == without_spelling(b.value) and not a.report
    assert a.value.items[1] == ImageItem(role="user", message="m0", source=Base64Source(media_type="image/png", data=PNG))
    assert mapper.encode_request(without_spelling(a.value)).value == camel  # the encoder's own spelling
    assert mapper.encode_request(a.value).value == snake  # the client's, kept while the value is unchanged


def test_media_kinds_and_unknown_parts() -> None:
    body = {"contents": [{"role": "user", "parts": [
        {"inlineData": {"mimeType": "audio/wav", "data": "AAAA"}},
        {"inlineData": {"mimeType": "application/pdf", "data": "JVBE"}},
        {"fileData": {"mimeType": "image/jpeg", "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc"}},
        {"fileData": {"mimeType": "video/mp4", "fileUri": "https://www.youtube.com/watch?v=x"}},
        {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
    ]}]}
    t = mapper.decode_request(body).value
    tags = [type(i).__struct_config__.tag for i in t.items]
    assert tags == ["audio", "document", "image", "video", "raw"]
    assert t.items[2].source.__struct_config__.tag == "file" and t.items[2].source.provider == "gemini"
    assert t.items[3].source == UrlSource(url="https://www.youtube.com/watch?v=x", media_type="video/mp4")
    assert isinstance(t.items[4], RawItem) and t.items[4].value == body["contents"][0]["parts"][4]
    assert mapper.encode_request(t).value == body
    # a raw item of another provider is never sent
    conv = encode(TextItem(role="user", text="x"), RawItem(provider="anthropic", value={"type": "x"}, role="user"))
    assert conv.value["contents"] == [{"role": "user", "parts": [{"text": "x"}]}] and conv.report.entries[0].action == "dropped"


def test_malformed_arguments_never_become_empty_object() -> None:
    bad = ToolCallItem(id="c", name="f", arguments_raw="{oops", arguments_error="not JSON")
    with pytest.raises(MalformedArgumentsError):
        encode(TextItem(role="user", text="q"), bad)
    conv = encode(TextItem(role="user", text="q"), bad, policy="drop")
    assert len(conv.value["contents"]) == 1 and conv.report.entries[0].action == "dropped"


def test_foreign_file_and_unsupported_content_follow_policy() -> None:
    from interlingua.items import FileSource, HandoffCallItem

    img = ImageItem(role="user", source=FileSource(file_id="file-abc", provider="openai"))
    with pytest.raises(ConversionError):
        encode(img)
    assert encode(img, policy="drop").report.entries[0].action == "dropped"
    deg = encode(HandoffCallItem(id="h", target="agent"), policy="degrade")
    assert deg.value["contents"][0]["parts"][0]["text"].startswith("[handoff_call omitted")


def test_tools_and_tool_choice() -> None:
    body = {
        "contents": [{"role": "user", "parts": [{"text": "x"}]}],
        "tools": [
            {"functionDeclarations": [{"name": "a", "description": "", "parameters": {"type": "OBJECT"}}, {"name": "b", "parametersJsonSchema": {"type": "object"}}]},
            {"googleSearch": {}},
        ],
        "toolConfig": {"functionCallingConfig": {"mode": "NONE"}},
    }
    conv = mapper.decode_request(body)
    tools = conv.value.tools
    assert [t.provider_data["gemini"]["schema_field"] for t in tools] == ["parameters", "parametersJsonSchema"]
    assert conv.value.tool_choice.mode == "none"
    assert [(e.action, e.pointer) for e in conv.report] == [("changed", "/tools/1/googleSearch")]
    out = mapper.encode_request(conv.value).value
    assert out["tools"] == body["tools"]  # the Gemini tool is kept (settings provider data) and goes back in place
    chat = get_mapper("openai-chat").encode_request(conv.value, policy="drop")
    assert [t["function"]["name"] for t in chat.value["tools"]] == ["a", "b"]
    assert any(e.action == "dropped" and "tools" in e.reason for e in chat.report), chat.report.lines()
    from interlingua.items import ToolChoice, ToolDefinition

    choices = {"auto": "AUTO", "required": "ANY", "none": "NONE"}
    for mode, wire in choices.items():
        o = encode(TextItem(role="user", text="x"), tools=[ToolDefinition(name="f")], tool_choice=ToolChoice(mode=mode)).value  # type: ignore[arg-type]
        assert o["toolConfig"] == {"functionCallingConfig": {"mode": wire}}
        assert mapper.decode_request(o).value.tool_choice == ToolChoice(mode=mode)  # type: ignore[arg-type]
    o = encode(TextItem(role="user", text="x"), tools=[ToolDefinition(name="f", parameters={"type": "object"})], tool_choice=ToolChoice(mode="tool", name="f")).value
    assert o["toolConfig"] == {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f"]}}
    assert o["tools"] == [{"functionDeclarations": [{"name": "f", "parametersJsonSchema": {"type": "object"}}]}]


def test_system_text_goes_to_system_instruction() -> None:
    out = encode(TextItem(role="system", text="be brief"), TextItem(role="user", text="hi"), TextItem(role="developer", text="late"))
    assert out.value["systemInstruction"] == {"parts": [{"text": "be brief"}, {"text": "late"}]}
    assert [e.action for e in out.report] == ["changed"]


@pytest.mark.parametrize(
    ("finish", "calls", "reason"),
    [
        ("STOP", False, "end_turn"),
        ("STOP", True, "tool_use"),
        ("MAX_TOKENS", False, "max_tokens"),
        ("SAFETY", False, "content_filter"),
        ("RECITATION", False, "content_filter"),
        ("BLOCKLIST", False, "content_filter"),
        ("PROHIBITED_CONTENT", False, "content_filter"),
        ("SPII", False, "content_filter"),
        ("MALFORMED_FUNCTION_CALL", False, "error"),
        ("OTHER", False, "other"),
        ("SOMETHING_NEW", False, "other"),
    ],
)
def test_finish_reasons(finish: str, calls: bool, reason: str) -> None:
    parts: list[dict[str, Any]] = [{"functionCall": {"name": "f", "args": {}}}] if calls else [{"text": "x"}]
    body = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}]}
    resp = mapper.decode_response(body).value
    assert (resp.stop_reason.reason, resp.stop_reason.raw) == (reason, finish)
    assert mapper.encode_response(resp).value == body


def test_prompt_feedback_block_is_content_filter() -> None:
    body = {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {"promptTokenCount": 5, "totalTokenCount": 5}}
    resp = mapper.decode_response(body).value
    assert resp.items[0].code == "content_filter" and resp.stop_reason.reason == "content_filter"
    assert resp.usage.input_tokens == 5 and resp.usage.output_tokens is msgspec.UNSET
    assert mapper.kind_of(body) == "response"
    assert mapper.encode_response(resp).value == body


def test_usage_cache_and_details() -> None:
    md = {"promptTokenCount": 100, "cachedContentTokenCount": 40, "candidatesTokenCount": 7, "thoughtsTokenCount": 3, "totalTokenCount": 110}
    resp = mapper.decode_response({"candidates": [{"content": {"role": "model", "parts": [{"text": "x"}]}, "finishReason": "STOP"}], "usageMetadata": md}).value
    u = resp.usage
    assert (u.input_tokens, u.output_tokens, u.reasoning_tokens, u.cache_read_tokens, u.details) == (100, 10, 3, 40, md)


def test_error_body_is_error_item_with_safe_message() -> None:
    resp = mapper.decode_response({"error": {"code": 429, "message": "secret upstream text", "status": "RESOURCE_EXHAUSTED"}}).value
    err = resp.items[0]
    assert (err.code, err.status, err.retryable) == ("rate_limit", 429, True)
    assert "secret" not in err.message


def test_kind_of() -> None:
    assert mapper.kind_of({"contents": []}) == "request"
    assert mapper.kind_of({"candidates": []}) == "response"
    assert mapper.kind_of({"messages": []}) is None


def _sse(*chunks: str) -> bytes:
    return b"".join(b"data: " + c.encode() + b"\r\n\r\n" for c in chunks)


def test_stream_error_chunk_is_stream_error_with_stable_code() -> None:
    raw = _sse(
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]}}],"responseId":"r1"}',
        '{"error":{"code":503,"message":"backend said something private","status":"UNAVAILABLE"}}',
    )
    events = collect(mapper, raw)
    last = events[-1]
    assert isinstance(last, StreamError) and last.error.code == "overloaded"
    assert "private" not in last.error.message
    assert [i.text for i in last.partial.items] == ["Hel"]


def test_stream_without_finish_reason_is_truncated() -> None:
    raw = _sse('{"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]}}]}')
    last = collect(mapper, raw)[-1]
    assert isinstance(last, StreamError) and last.error.code == "truncated"


def test_stream_thought_text_and_signature_accumulate_like_the_response() -> None:
    raw = _sse(
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"think ","thought":true}]}}],"responseId":"r","modelVersion":"m"}',
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"more","thought":true}]}}],"responseId":"r","modelVersion":"m"}',
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"Ans"}]}}],"responseId":"r","modelVersion":"m"}',
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"wer","thoughtSignature":"U0lH"}]}}],"responseId":"r","modelVersion":"m"}',
        '{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP"}],"responseId":"r","modelVersion":"m"}',
    )
    events = collect(mapper, raw)
    done = events[-1]
    assert isinstance(done, StreamDone)
    equivalent = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "think more", "thought": True}, {"text": "Answer", "thoughtSignature": "U0lH"}]}, "finishReason": "STOP"}],
        "responseId": "r",
        "modelVersion": "m",
    }
    assert done.response.items == mapper.decode_response(equivalent).value.items
    assert [type(e).__name__ for e in events[:-1]] == ["ReasoningDelta", "ReasoningDelta", "TextDelta", "TextDelta"]


def test_inputs_not_mutated() -> None:
    items = [
        TextItem(role="user", text="q", message="m0"),
        ReasoningItem(opaque=OpaqueReasoning(namespace="gemini.thought_signature", issuer="gemini", value="s"), message="m1"),
        ToolCallItem(id="c", name="f", arguments={"a": [1]}, message="m1"),
        ToolResultItem(call_id="c", content=[StructuredItem(data={"k": {"v": 1}})], message="m2"),
    ]
    t = T(*items)
    before = copy.deepcopy(t)
    out = mapper.encode_request(t).value
    assert t == before
    out_before = copy.deepcopy(out)
    back = mapper.decode_request(out).value
    assert out == out_before
    back.items[2].arguments["a"].append(2)  # the decoded transcript does not alias the body
    assert out == out_before


@pytest.mark.parametrize(
    "part",
    [
        {"functionCall": {"name": "f", "args": "not an object"}},
        {"functionResponse": {"name": "f", "response": [1]}},
        {"inlineData": {"mimeType": "image/png", "data": 5}},
        {"text": "a", "thoughtSignature": 5},
        {"text": "a", "thought": "no"},
        {"functionCall": {"name": "f", "args": {}, "willContinue": True}},
        {"functionCall": {"name": "f", "partialArgs": [{"jsonPath": "$.a", "stringValue": "x"}]}},
        {"functionResponse": {"name": "f", "response": {}, "parts": [{"inlineData": {"mimeType": "image/png", "data": "AAAA", "displayName": "x"}}]}},
    ],
)
def test_parts_of_unexpected_shape_kept_raw_and_sent_back(part: dict[str, Any]) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "q"}]}, {"role": "model", "parts": [part]}]}
    t = mapper.decode_request(body).value
    assert isinstance(t.items[1], RawItem) and t.items[1].value == part and t.items[1].role == "assistant"
    assert mapper.encode_request(t).value == body


def test_idless_response_to_call_with_id_is_linked_and_reported() -> None:
    body = {"contents": [
        {"role": "model", "parts": [{"functionCall": {"id": "c9", "name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": "x"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "g", "response": {"output": "y"}}}]},
    ]}
    conv = mapper.decode_request(body)
    assert conv.value.items[1].call_id == "c9"
    assert conv.value.items[2].call_id == "gemini_m2_p0_result"  # orphan: no call named g
    assert [e.pointer for e in conv.report] == ["/contents/1/parts/0", "/contents/2/parts/0"]


# --------------------------------------------------------------------------- conformance gaps


def _image_result(**kw: Any) -> list[Any]:
    call = ToolCallItem(id="c1", name="snap", arguments={}, message="m0")
    return [call, ToolResultItem(call_id="c1", name="snap", content=[ImageItem(source=Base64Source(media_type="image/png", data=PNG))], message="m1", **kw)]


@pytest.mark.parametrize("is_error", [msgspec.UNSET, True])
def test_tool_result_holding_only_an_image_round_trips_without_an_empty_text(is_error: Any) -> None:
    items = _image_result(is_error=is_error)
    conv = encode(*items)
    assert not conv.report
    fr = conv.value["contents"][1]["parts"][0]["functionResponse"]
    assert fr["response"] == ({"error": ""} if is_error is True else {})
    back = mapper.decode_request(conv.value)
    assert not back.report
    assert back.value.items[1].content == items[1].content  # no extra empty text part
    assert back.value.items[1].is_error == is_error


def test_empty_error_text_beside_an_image_is_reported() -> None:
    call, result = _image_result(is_error=True)
    result = msgspec.structs.replace(result, content=[TextItem(text=""), *result.content])
    conv = encode(call, result)
    assert [(e.action, e.index) for e in conv.report] == [("dropped", 1)]
    assert conv.value["contents"][1]["parts"][0]["functionResponse"]["response"] == {"error": ""}


def test_tool_result_media_fields_and_untyped_urls_are_reported() -> None:
    call = ToolCallItem(id="c1", name="snap", arguments={}, message="m0")
    result = ToolResultItem(call_id="c1", name="snap", content=[ImageItem(source=UrlSource(url="https://example.com/a.png"), detail="auto")], message="m1")
    conv = encode(call, result)
    assert conv.value["contents"][1]["parts"][0]["functionResponse"]["parts"] == [{"fileData": {"fileUri": "https://example.com/a.png"}}]
    # detail has no Gemini form; without a mimeType the part reads back as a document
    assert sorted((e.action, e.index) for e in conv.report) == [("changed", 1), ("dropped", 1)]
    assert type(mapper.decode_request(conv.value).value.items[1].content[0]).__name__ == "DocumentItem"


# ----------------------------------------------------------------------------- orphan results (user report)

_CHAT_MALFORMED_CALL = {
    "model": "gpt-4o",
    "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Par'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    ],
}


@pytest.mark.parametrize("policy", ["drop", "degrade"])
def test_result_of_a_call_dropped_for_malformed_arguments_is_dropped_too(policy):
    from interlingua.providers import openai_chat, gemini

    transcript = openai_chat.mapper.decode_request(_CHAT_MALFORMED_CALL).value
    conv = gemini.mapper.encode_request(transcript, model="m", policy=policy)
    wire = json.dumps(conv.value)
    assert "get_weather" not in wire and "sunny" not in wire, conv.value
    lines = [str(e) for e in conv.report]
    assert any(line.startswith("dropped: item 1 tool_call:") and "call_1" in line for line in lines), lines
    assert "dropped: item 2 tool_result: result of the dropped tool call 'call_1'" in lines, lines


@pytest.mark.parametrize(
    ("part", "kept"),
    [
        ({"text": "a", "thought": False}, {"thought": False}),
        ({"inlineData": {"mimeType": "image/png", "data": PNG, "displayName": "chart.png"}}, {"inlineData": {"displayName": "chart.png"}}),
        ({"fileData": {"fileUri": "https://example.com/o.pdf", "mimeType": "application/pdf", "displayName": "o.pdf"}}, {"fileData": {"displayName": "o.pdf"}}),
        ({"functionResponse": {"name": "f", "response": {"output": "x"}, "scheduling": "WHEN_IDLE"}}, {"functionResponse": {"scheduling": "WHEN_IDLE"}}),
    ],
)
def test_known_part_with_an_unmodelled_field_keeps_its_content(part: dict[str, Any], kept: dict[str, Any]) -> None:
    """Issue 13 rule: a field the mapper does not model, on a part (or inside its body) it does model,
    keeps the content and goes to ``provider_data["gemini"]`` (Gemini API reference: ``Blob``/``FileData``
    ``displayName``, ``FunctionResponse.scheduling``); written back to Gemini, reported by other targets."""
    calls = [{"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}] if "functionResponse" in part else []
    body = {"contents": [*calls, {"role": "user", "parts": [part]}]}
    conv = mapper.decode_request(copy.deepcopy(body))
    item = conv.value.items[-1]
    assert not isinstance(item, RawItem) and item.provider_data == {"gemini": kept}
    assert mapper.encode_request(conv.value).value == body
    other = get_mapper("anthropic").encode_request(conv.value, model="claude-sonnet-4-5", policy="drop")
    assert any(e.action == "dropped" and "gemini provider data" in e.reason for e in other.report), other.report.lines()
