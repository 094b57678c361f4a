"""Each request-side wire rule, tested with the input shape that breaks naive mappers."""

from __future__ import annotations

import copy
import json

import msgspec
import pytest

from interlingua.codec import SCHEMA_VERSION, to_builtins
from interlingua.errors import ConversionError, MalformedArgumentsError
from interlingua.items import (
    CacheBreakpoint,
    AudioItem,
    Base64Source,
    DocumentItem,
    ErrorItem,
    FileSource,
    ImageItem,
    OpaqueReasoning,
    RawItem,
    ReasoningItem,
    RefusalItem,
    StructuredItem,
    TextItem,
    ToolCallItem,
    ToolChoice,
    ToolDefinition,
    ToolResultItem,
    Transcript,
    UrlSource,
)
from interlingua.mapping import Mapper, get_mapper
from interlingua.mapping.spelling import without_spelling
from interlingua.providers.openai_chat import ID_RULE, OpenAIChatMapper, mapper

U = msgspec.UNSET
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def T(*items, **kw) -> Transcript:
    return Transcript(schema_version=SCHEMA_VERSION, items=list(items), **kw)


def round_trip(body: dict, m: OpenAIChatMapper = mapper) -> dict:
    decoded = m.decode_request(body)
    settings = decoded.value.settings
    return m.encode_request(decoded.value, model=settings.model if settings and settings.model else None).value


def encode(m: OpenAIChatMapper, transcript: Transcript, **kw):
    """``encode_request`` with a model passed (these tests are about items; the no-model note has its own test)."""
    kw.setdefault("model", "gpt-test")
    conv = m.encode_request(transcript, **kw)
    conv.value.pop("model")
    return conv


# ----------------------------------------------------------------------------- mapper shape


def test_registered_mapper_attributes() -> None:
    m = get_mapper("openai-chat")
    assert m is mapper and isinstance(m, Mapper)
    assert (m.name, m.issuer, m.framing) == ("openai-chat", "openai-chat", "sse")
    assert m.id_rule == ID_RULE and ID_RULE.max_length == 40 and ID_RULE.prefix == "call_"
    assert m.dialect == "openai"


def test_unknown_dialect_is_refused() -> None:
    with pytest.raises(ValueError, match="dialect"):
        OpenAIChatMapper("klingon")  # type: ignore[arg-type]


def test_capabilities_defaults() -> None:
    caps = mapper.capabilities("gpt-4o")
    assert caps.tools and caps.parallel_tool_calls and caps.streaming and caps.structured_output
    assert set(caps.input_modalities) == {"text", "image", "audio", "document"}
    assert caps.reasoning is False
    assert OpenAIChatMapper("deepseek").capabilities(None).reasoning is True


def test_kind_of_rejects_other_bodies() -> None:
    assert mapper.kind_of({"contents": []}) is None
    assert mapper.kind_of({"messages": "x"}) is None
    assert mapper.kind_of({"input": []}) is None


# ----------------------------------------------------------------------------- system / user


def test_system_and_developer_with_text_parts_and_name() -> None:
    body = {
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Be kind."}], "name": "ops"},
            {"role": "developer", "content": "Use tools."},
            {"role": "user", "content": "hi", "name": "bob"},
        ]
    }
    t = mapper.decode_request(body).value
    kinds = [(type(i).__name__, getattr(i, "role", None), i.message) for i in t.items]
    assert kinds == [
        ("TextItem", "system", "m0"),
        ("TextItem", "system", "m0"),
        ("RawItem", "system", "m0"),
        ("TextItem", "developer", "m1"),
        ("TextItem", "user", "m2"),
        ("RawItem", "user", "m2"),
    ]
    assert round_trip(body) == body


def test_system_content_other_than_text_is_unsupported() -> None:
    t = T(ImageItem(source=UrlSource(url="https://x/y.png"), role="system"))
    with pytest.raises(ConversionError):
        encode(mapper, t)
    out = encode(mapper, t, policy="drop")
    assert out.value["messages"] == [] and out.report.entries[0].action == "dropped"


def test_data_url_image_round_trip() -> None:
    url = f"data:image/png;base64,{PNG}"
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": {"url": url, "detail": "high"}}]}]}
    t = mapper.decode_request(body).value
    image = t.items[1]
    assert isinstance(image, ImageItem)
    assert image.source == Base64Source(media_type="image/png", data=PNG)
    assert image.detail == "high"
    assert round_trip(body) == body


def test_http_image_url_and_unusual_data_url_stay_urls() -> None:
    odd = "data:image/svg+xml;charset=utf-8,<svg/>"
    body = {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://e.com/a.png"}}, {"type": "image_url", "image_url": {"url": odd}}]}]}
    t = mapper.decode_request(body).value
    assert [i.source for i in t.items] == [UrlSource(url="https://e.com/a.png"), UrlSource(url=odd)]
    assert round_trip(body) == body


def test_image_detail_original_is_left_out_and_reported() -> None:
    out = encode(mapper, T(ImageItem(source=UrlSource(url="https://e/a.png"), detail="original", role="user")))
    assert out.value["messages"][0]["content"] == [{"type": "image_url", "image_url": {"url": "https://e/a.png"}}]
    assert "detail" in str(out.report.entries[0])


def test_input_audio_round_trip() -> None:
    body = {"messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}, {"type": "input_audio", "input_audio": {"data": "SUQz", "format": "mp3"}}]}]}
    t = mapper.decode_request(body).value
    assert t.items[0] == AudioItem(source=Base64Source(media_type="audio/wav", data="UklGRg=="), format="wav", role="user", message="m0")
    assert t.items[1].source.media_type == "audio/mpeg"
    assert round_trip(body) == body


def test_audio_url_is_unsupported() -> None:
    t = T(AudioItem(source=UrlSource(url="https://e/a.wav"), role="user"))
    with pytest.raises(ConversionError):
        encode(mapper, t)


def test_file_parts_round_trip() -> None:
    body = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"}},
                    {"type": "file", "file": {"file_id": "file-abc123"}},
                ],
            }
        ]
    }
    t = mapper.decode_request(body).value
    assert t.items[0] == DocumentItem(source=Base64Source(media_type="application/pdf", data="JVBERi0="), media_type="application/pdf", filename="a.pdf", role="user", message="m0")
    assert t.items[1].source == FileSource(file_id="file-abc123", provider="openai")
    assert round_trip(body) == body


def test_file_with_bare_base64_is_kept_raw() -> None:
    body = {"messages": [{"role": "user", "content": [{"type": "file", "file": {"file_data": "JVBERi0=", "filename": "a.pdf"}}]}]}
    conv = mapper.decode_request(body)
    assert isinstance(conv.value.items[0], RawItem) and conv.report.entries
    assert round_trip(body) == body


def test_document_from_other_file_store_is_unsupported() -> None:
    t = T(DocumentItem(source=FileSource(file_id="file_01", provider="anthropic"), role="user"))
    with pytest.raises(ConversionError):
        encode(mapper, t)


def test_unknown_part_and_part_fields_are_kept_or_reported() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}, "extra": 1}, {"type": "input_video", "input_video": {"url": "u"}}]}]}
    conv = mapper.decode_request(body)
    assert isinstance(conv.value.items[1], RawItem)
    # cache_control is a cache breakpoint now (OpenRouter, issue 12); other part fields are kept in
    # provider_data (issue 13), written back to OpenAI Chat and reported by other targets
    assert conv.value.items[0].cache_breakpoint == CacheBreakpoint()
    # the default dialect writes no cache_control of its own: a hint says the part had one (issue 13)
    assert conv.value.items[0].provider_data == {"openai-chat": {"extra": 1, "cache_control_read": True}}
    reasons = " ".join(str(e) for e in conv.report)
    assert "input_video" in reasons and "cache_control" not in reasons
    part = mapper.encode_request(conv.value, model="m").value["messages"][0]["content"][0]
    assert part == {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}, "extra": 1}  # the hint is no wire field
    # for another model (perhaps OpenAI itself) the default dialect leaves the breakpoint out, reported
    other = mapper.encode_request(conv.value, model="gpt-4.1")
    assert "cache_control" not in other.value["messages"][0]["content"][0]
    assert any("cache_control" in e.reason for e in other.report)


# ----------------------------------------------------------------------------- assistant


def test_assistant_null_content_with_tool_calls_and_name_and_audio() -> None:
    body = {
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "name": "agent", "audio": {"id": "audio_1"}, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
        ]
    }
    t = mapper.decode_request(body).value
    raw = [i for i in t.items if isinstance(i, RawItem)]
    assert raw[0].value == {"name": "agent", "audio": {"id": "audio_1"}}
    out = round_trip(body)
    assert out == body  # the null content and the argument bytes as the client wrote them (ADR 0027)
    fresh = mapper.encode_request(without_spelling(t), model=None).value  # the encoder's own spelling:
    assert "content" not in fresh["messages"][1]  # null content is written as absent next to tool_calls
    assert fresh["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"a":1}'


def test_assistant_refusal_field_and_refusal_parts() -> None:
    body = {"messages": [{"role": "assistant", "content": "Hmm.", "refusal": "I can't."}, {"role": "assistant", "content": [{"type": "refusal", "refusal": "No."}, {"type": "text", "text": "Sorry."}]}]}
    t = mapper.decode_request(body).value
    assert [type(i).__name__ for i in t.items] == ["TextItem", "RefusalItem", "RefusalItem", "TextItem"]
    assert round_trip(body) == body


def test_malformed_arguments_kept_raw_never_empty_object() -> None:
    body = {"messages": [{"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Par'}}]}]}
    call = mapper.decode_request(body).value.items[0]
    assert isinstance(call, ToolCallItem)
    assert call.arguments is U and call.arguments_raw == '{"city": "Par' and call.arguments_error
    # policy error refuses, degrade sends the raw text (reported), drop leaves the call out (reported)
    t = mapper.decode_request(body).value
    with pytest.raises(MalformedArgumentsError):
        encode(mapper, t)
    degraded = encode(mapper, t, policy="degrade")
    assert degraded.value["messages"][0]["tool_calls"][0]["function"]["arguments"] == '{"city": "Par'
    assert [e.action for e in degraded.report] == ["degraded"]
    dropped = encode(mapper, t, policy="drop")
    assert dropped.value["messages"] == [] and [e.action for e in dropped.report] == ["dropped"]


def test_dropped_malformed_call_drops_its_result_too() -> None:
    t = T(ToolCallItem(id="call_1", name="f", arguments_raw="{", arguments_error="bad"), ToolResultItem(call_id="call_1", content=[TextItem(text="x")]))
    out = encode(mapper, t, policy="drop")
    assert out.value["messages"] == []
    assert [e.item_type for e in out.report] == ["tool_call", "tool_result"]


def test_arguments_empty_string_and_non_object() -> None:
    body = {"messages": [{"role": "assistant", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "now", "arguments": ""}},
        {"id": "call_2", "type": "function", "function": {"name": "f", "arguments": "[1, 2]"}},
    ]}]}
    a, b = mapper.decode_request(body).value.items
    assert a.arguments == {}
    assert b.arguments is U and b.arguments_raw == "[1, 2]"


def test_deprecated_function_call_and_function_message() -> None:
    body = {"messages": [
        {"role": "assistant", "content": None, "function_call": {"name": "lookup", "arguments": "{\"q\": \"x\"}"}},
        {"role": "function", "name": "lookup", "content": "found"},
    ]}
    conv = mapper.decode_request(body)
    call, result = conv.value.items
    assert isinstance(call, ToolCallItem) and call.name == "lookup" and call.arguments == {"q": "x"}
    assert isinstance(result, ToolResultItem) and result.call_id == call.id and result.content == [TextItem(text="found")]
    assert [e.action for e in conv.report] == ["changed", "changed"]
    out = encode(mapper, conv.value).value["messages"]
    assert out[0]["tool_calls"][0]["id"] == out[1]["tool_call_id"] == call.id


def test_custom_tool_call_kept_raw_and_round_trips() -> None:
    body = {"messages": [
        {"role": "assistant", "tool_calls": [{"id": "call_c", "type": "custom", "custom": {"name": "grep", "input": "foo"}}]},
        {"role": "tool", "tool_call_id": "call_c", "content": "bar"},
    ]}
    conv = mapper.decode_request(body)
    assert isinstance(conv.value.items[0], RawItem) and conv.value.items[0].provider == "openai-chat"
    assert round_trip(body) == body


def test_raw_items_of_other_providers_are_dropped_and_reported() -> None:
    out = encode(mapper, T(RawItem(provider="anthropic", value={"type": "server_tool_use"}), TextItem(text="hi", role="user")))
    assert out.value["messages"] == [{"role": "user", "content": "hi"}]
    assert out.report.entries[0].action == "dropped"


def test_error_items_are_not_sent() -> None:
    out = encode(mapper, T(TextItem(text="hi", role="user"), ErrorItem(code="server", message="boom")))
    assert out.value["messages"] == [{"role": "user", "content": "hi"}] and out.report.entries[0].item_type == "error"


# ----------------------------------------------------------------------------- tool calls and results


def test_parallel_calls_without_message_keys_group_into_one_assistant_message() -> None:
    t = T(
        TextItem(text="weather in Paris and Rome?", role="user"),
        ToolCallItem(id="call_a", name="weather", arguments={"city": "Paris"}),
        ToolCallItem(id="call_b", name="weather", arguments={"city": "Rome"}),
        ToolResultItem(call_id="call_a", content=[TextItem(text="20")]),
        ToolResultItem(call_id="call_b", content=[TextItem(text="25")]),
    )
    out = encode(mapper, t)
    msgs = out.value["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "tool", "tool"]
    assert [c["id"] for c in msgs[1]["tool_calls"]] == ["call_a", "call_b"]
    assert [m["tool_call_id"] for m in msgs[2:]] == ["call_a", "call_b"]
    assert "content" not in msgs[1]
    assert not out.report


def test_results_sharing_one_message_key_still_become_separate_tool_messages() -> None:
    # e.g. from an Anthropic user turn holding two tool_result blocks and a text
    t = T(
        ToolCallItem(id="a", name="f", arguments={}, message="x"),
        ToolCallItem(id="b", name="f", arguments={}, message="x"),
        ToolResultItem(call_id="a", content=[TextItem(text="1")], message="y"),
        ToolResultItem(call_id="b", content=[TextItem(text="2")], message="y"),
        TextItem(text="thanks", role="user", message="y"),
    )
    msgs = encode(mapper, t).value["messages"]
    assert [m["role"] for m in msgs] == ["assistant", "tool", "tool", "user"]


def test_long_tool_call_id_mapped_same_on_call_and_result() -> None:
    long_id = "toolu_" + "x" * 54
    assert len(long_id) == 60
    t = T(ToolCallItem(id=long_id, name="f", arguments={}), ToolResultItem(call_id=long_id, content=[TextItem(text="ok")]))
    out = encode(mapper, t)
    call_id = out.value["messages"][0]["tool_calls"][0]["id"]
    assert len(call_id) <= 40 and call_id.startswith("call_")
    assert out.value["messages"][1]["tool_call_id"] == call_id
    assert [e.action for e in out.report] == ["changed"]
    assert encode(mapper, t).value == out.value  # deterministic
    # the canonical form keeps the original id on decode
    assert mapper.decode_request(out.value).value.items[0].id == call_id
    assert t.items[0].id == long_id


def test_two_long_ids_never_collide() -> None:
    a, b = "x" * 41, "y" * 41
    t = T(ToolCallItem(id=a, name="f", arguments={}), ToolCallItem(id=b, name="f", arguments={}))
    ids = [c["id"] for c in encode(mapper, t).value["messages"][0]["tool_calls"]]
    assert len(set(ids)) == 2


def test_tool_result_with_image_cannot_go_in_a_tool_message() -> None:
    t = T(
        ToolCallItem(id="call_1", name="screenshot", arguments={}),
        ToolResultItem(call_id="call_1", content=[TextItem(text="here"), ImageItem(source=Base64Source(media_type="image/png", data=PNG))]),
    )
    with pytest.raises(ConversionError):
        encode(mapper, t)
    dropped = encode(mapper, t, policy="drop")
    assert dropped.value["messages"][1]["content"] == "here"
    assert [e.action for e in dropped.report] == ["dropped"]
    degraded = encode(mapper, t, policy="degrade")
    content = degraded.value["messages"][1]["content"]
    assert content[0] == {"type": "text", "text": "here"} and content[1]["type"] == "text"
    assert PNG not in json.dumps(degraded.value)  # never base64 in text
    assert [e.action for e in degraded.report] == ["degraded"]


def test_tool_result_document_unsupported_and_structured_becomes_json_text() -> None:
    t = T(ToolCallItem(id="c", name="f", arguments={}), ToolResultItem(call_id="c", content=[DocumentItem(source=Base64Source(media_type="application/pdf", data="JVBERi0="))]))
    with pytest.raises(ConversionError):
        encode(mapper, t)
    t2 = T(ToolCallItem(id="c", name="f", arguments={}), ToolResultItem(call_id="c", content=[StructuredItem(data={"temp": 20})]))
    out = encode(mapper, t2)
    assert out.value["messages"][1]["content"] == '{"temp":20}' and out.report.entries[0].action == "changed"


def test_tool_message_text_parts_and_error_flag() -> None:
    body = {"messages": [
        {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
    ]}
    t = mapper.decode_request(body).value
    assert t.items[1].content == [TextItem(text="a"), TextItem(text="b")]
    assert round_trip(body) == body
    flagged = T(ToolCallItem(id="c", name="f", arguments={}), ToolResultItem(call_id="c", content=[TextItem(text="boom")], is_error=True))
    out = encode(mapper, flagged)
    assert out.value["messages"][1]["content"] == "boom" and "is_error" in str(out.report.entries[0])


def test_orphan_tool_result_is_refused() -> None:
    t = T(ToolResultItem(call_id="nobody", content=[TextItem(text="x")]))
    with pytest.raises(ConversionError):
        encode(mapper, t)
    assert encode(mapper, t, policy="drop").value["messages"] == []


# ----------------------------------------------------------------------------- tools


def test_tools_parameters_kept_exactly_and_tool_choice_forms() -> None:
    params = {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "integer", "minimum": 0}}, "required": ["z"], "additionalProperties": False}
    body = {
        "messages": [{"role": "user", "content": "x"}],
        "tools": [{"type": "function", "function": {"name": "f", "description": "d", "parameters": params, "strict": True}}],
        "tool_choice": {"type": "function", "function": {"name": "f"}},
        "parallel_tool_calls": False,
    }
    t = mapper.decode_request(body).value
    assert t.tools == [ToolDefinition(name="f", description="d", parameters=params, strict=True)]
    assert list(t.tools[0].parameters["properties"]) == ["z", "a"]  # key order kept
    assert t.tool_choice == ToolChoice(mode="tool", name="f", parallel=False)
    out = round_trip(body)
    assert out == body and json.dumps(out["tools"]) == json.dumps(body["tools"])
    for mode in ("auto", "none", "required"):
        b = dict(body, tool_choice=mode)
        assert mapper.decode_request(b).value.tool_choice.mode == mode
        assert round_trip(b) == b


def test_request_settings_are_kept_not_reported() -> None:
    """Issue 12: every top-level setting goes into the transcript's settings; nothing is dropped."""
    conv = mapper.decode_request({"model": "gpt-4o", "messages": [], "temperature": 0.2, "stream": True, "weird_field": 1})
    assert not conv.report
    assert to_builtins(conv.value.settings) == {"model": "gpt-4o", "temperature": 0.2, "stream": True, "provider_data": {"openai-chat": {"weird_field": 1}}}


def test_request_settings_map_to_canonical_fields_and_back() -> None:
    """User report: temperature, response_format, seed, max_tokens, stream, n were left out silently."""
    body = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0.2,
        "response_format": {"type": "json_object"},
        "seed": 7,
        "max_tokens": 100,
        "stream": True,
        "n": 2,
    }
    conv = mapper.decode_request(body)
    assert not conv.report
    settings = conv.value.settings
    assert (settings.temperature, settings.seed, settings.max_output_tokens, settings.stream) == (0.2, 7, 100, True)
    assert settings.response_format.type == "json_object"
    # max_tokens is not the openai dialect's own field: kept so the same key is written back
    assert settings.provider_data == {"openai-chat": {"max_tokens": 100, "n": 2}}
    assert round_trip(body) == body


# ----------------------------------------------------------------------------- reasoning by dialect


def _reasoning_history(opaque: OpaqueReasoning | None = None) -> Transcript:
    return T(
        TextItem(text="go", role="user", message="m0"),
        ReasoningItem(text="thinking...", opaque=opaque if opaque is not None else U, message="m1"),
        ToolCallItem(id="call_1", name="f", arguments={}, message="m1"),
        ToolResultItem(call_id="call_1", content=[TextItem(text="ok")], message="m2"),
        ReasoningItem(text="more thinking", message="m3"),
        TextItem(text="done", role="assistant", message="m3"),
    )


def test_openai_dialect_drops_and_reports_all_reasoning() -> None:
    out = encode(mapper, _reasoning_history())
    assert not any(k in m for m in out.value["messages"] for k in ("reasoning", "reasoning_content", "reasoning_details"))
    assert [e.action for e in out.report] == ["dropped", "dropped"]


def test_deepseek_writes_reasoning_content_only_on_tool_call_turns() -> None:
    out = encode(OpenAIChatMapper("deepseek"), _reasoning_history())
    msgs = out.value["messages"]
    assert msgs[1]["reasoning_content"] == "thinking..." and "tool_calls" in msgs[1]
    assert "reasoning_content" not in msgs[3] and msgs[3]["content"] == "done"
    assert [(e.action, e.index) for e in out.report] == [("dropped", 4)]


def test_deepseek_request_reads_reasoning_content() -> None:
    body = {"messages": [{"role": "assistant", "content": None, "reasoning_content": "hmm", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c", "content": "1"}]}
    m = OpenAIChatMapper("deepseek")
    t = m.decode_request(body).value
    assert t.items[0] == ReasoningItem(text="hmm", message="m0")  # the dialect's own field: no hint
    out = encode(m, t).value
    assert out == body  # as the client wrote it, null content included (ADR 0027)
    assert "content" not in encode(m, without_spelling(t)).value["messages"][0]


def test_ollama_writes_reasoning_text_back() -> None:
    out = encode(OpenAIChatMapper("ollama"), _reasoning_history())
    assert out.value["messages"][1]["reasoning"] == "thinking..." and out.value["messages"][3]["reasoning"] == "more thinking"
    assert not out.report


def test_openrouter_replays_its_own_reasoning_details_only() -> None:
    details = [{"type": "reasoning.encrypted", "data": "gAAA", "id": "rs_1", "format": "openai-responses-v1", "index": 0}]
    own = OpaqueReasoning(namespace="openrouter.reasoning_details", issuer="openrouter", value=details, model="openai/gpt-5-mini")
    out = OpenAIChatMapper("openrouter").encode_request(_reasoning_history(own), model="openai/gpt-5-mini")
    assert out.value["messages"][1]["reasoning_details"] == details
    assert out.value["messages"][1]["reasoning"] == "thinking..."
    assert not out.report
    # another model: the encrypted state is bound to its model, left out and reported
    other = OpenAIChatMapper("openrouter").encode_request(_reasoning_history(own), model="anthropic/claude-sonnet-4")
    assert "reasoning_details" not in other.value["messages"][1]
    assert [e.action for e in other.report] == ["dropped"]
    # the default dialect drops it
    assert "reasoning_details" not in encode(mapper, _reasoning_history(own)).value["messages"][1]


@pytest.mark.parametrize("dialect", ["openai", "deepseek", "openrouter", "ollama"])
def test_foreign_opaque_reasoning_dropped_and_reported_never_text(dialect: str) -> None:
    sig = OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value="SIG123")
    out = OpenAIChatMapper(dialect).encode_request(_reasoning_history(sig))  # type: ignore[arg-type]
    assert "SIG123" not in json.dumps(out.value)
    assert any("anthropic.signature" in e.reason for e in out.report)


def test_reasoning_only_turn_is_not_an_empty_assistant_message() -> None:
    t = T(TextItem(text="q", role="user"), ReasoningItem(text="hmm"), TextItem(text="q2", role="user"))
    out = encode(mapper, t)
    assert [m["role"] for m in out.value["messages"]] == ["user", "user"]
    assert out.report.entries[0].action == "dropped"


def test_redacted_or_summary_only_reasoning_is_reported() -> None:
    t = T(ReasoningItem(summary=["s"]), TextItem(text="a", role="assistant"))
    out = OpenAIChatMapper("ollama").encode_request(t)
    assert out.value["messages"] == [{"role": "assistant", "content": "a"}]
    assert out.report.entries[0].action == "dropped"


# ----------------------------------------------------------------------------- purity


def test_encode_does_not_mutate_transcript() -> None:
    t = _reasoning_history(OpaqueReasoning(namespace="openrouter.reasoning_details", issuer="openrouter", value=[{"type": "reasoning.text", "text": "x"}]))
    before = to_builtins(t)
    out = OpenAIChatMapper("openrouter").encode_request(t).value
    out["messages"][1]["reasoning_details"][0]["text"] = "changed"
    assert to_builtins(t) == before


def test_decode_does_not_share_structures_with_input() -> None:
    params = {"type": "object", "properties": {}}
    body = {"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "f", "parameters": params}}]}
    t = mapper.decode_request(body).value
    t.tools[0].parameters["mutated"] = True
    assert "mutated" not in params


def test_narration_between_call_and_result_is_moved_after_the_results() -> None:
    t = T(
        ToolCallItem(id="call_a", name="f", arguments={}),
        TextItem(text="while you wait", role="user"),
        ToolResultItem(call_id="call_a", content=[TextItem(text="1")]),
    )
    out = encode(mapper, t)
    assert [m["role"] for m in out.value["messages"]] == ["assistant", "tool", "user"]
    assert [(e.action, e.index) for e in out.report] == [("changed", 2)]


def test_tool_message_extra_name_field_round_trips() -> None:
    # Chat tool messages have no `name`, but some clients send one: kept as a raw field item.
    body = {"messages": [
        {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "1", "name": "f"},
    ]}
    t = mapper.decode_request(body).value
    assert isinstance(t.items[2], RawItem) and t.items[2].value == {"name": "f"} and t.items[2].role is U
    assert round_trip(body) == body


def test_unknown_role_message_kept_raw_and_round_trips() -> None:
    body = {"messages": [{"role": "user", "content": "a"}, {"role": "critic", "content": "b"}]}
    conv = mapper.decode_request(body)
    assert isinstance(conv.value.items[1], RawItem) and conv.report.entries[0].action == "changed"
    assert round_trip(body) == body


# ----------------------------------------------------------------------------- conformance gaps: every drop is reported


def _dropped(report) -> list[tuple[int | None, str | None]]:
    return [(e.index, e.item_type) for e in report if e.action == "dropped"]


def test_empty_text_beside_other_text_is_left_out_and_reported() -> None:
    # texts ['a', ''] in one user message: content 'a'; the empty text cannot come back
    enc = encode(mapper, T(TextItem(role="user", text="a", message="m0"), TextItem(role="user", text="", message="m0")))
    assert enc.value["messages"] == [{"role": "user", "content": "a"}]
    assert _dropped(enc.report) == [(1, "text")]
    # the report names the item that was left out, not its neighbour
    enc = encode(mapper, T(TextItem(role="user", text="", message="m0"), ImageItem(role="user", source=UrlSource(url="https://example.com/a.png"), message="m0")))
    assert enc.value["messages"][0]["content"] == [{"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]
    assert _dropped(enc.report) == [(0, "text")]


def test_empty_assistant_text_beside_a_call_or_refusal_is_reported() -> None:
    call = ToolCallItem(id="call_1", name="f", arguments={}, message="m0")
    enc = encode(mapper, T(TextItem(role="assistant", text="", message="m0"), call))
    assert "content" not in enc.value["messages"][0]
    assert _dropped(enc.report) == [(0, "text")]
    enc = encode(mapper, T(TextItem(role="assistant", text="", message="m0"), RefusalItem(text="no", message="m0")))
    assert enc.value["messages"] == [{"role": "assistant", "refusal": "no", "content": ""}]  # content is required without tool_calls
    assert _dropped(enc.report) == [(0, "text")]


def test_empty_refusal_is_sent_as_a_part_so_it_comes_back() -> None:
    # `refusal: ""` reads back as no refusal; a refusal part keeps it
    t = T(RefusalItem(text="", message="m0"))
    enc = encode(mapper, t)
    assert enc.value["messages"] == [{"role": "assistant", "content": [{"type": "refusal", "refusal": ""}]}]
    assert not enc.report
    assert to_builtins(mapper.decode_request(enc.value).value.items) == to_builtins(t.items)


def test_empty_tool_result_text_is_reported() -> None:
    enc = encode(mapper, 
        T(ToolCallItem(id="call_1", name="f", arguments={}, message="m0"), ToolResultItem(call_id="call_1", content=[TextItem(text="")], message="m1"))
    )
    assert enc.value["messages"][1] == {"role": "tool", "tool_call_id": "call_1", "content": ""}
    assert _dropped(enc.report) == [(1, "text")]
    assert mapper.decode_request(enc.value).value.items[1].content == []


def test_document_fields_a_file_part_cannot_carry_are_reported() -> None:
    doc = DocumentItem(role="user", source=Base64Source(media_type="application/pdf", data="JVBERi0="), media_type="application/pdf", title="Q3 report", context="ctx", citations=True, filename="q3.pdf")
    enc = encode(mapper, T(doc))
    assert enc.value["messages"][0]["content"] == [{"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "q3.pdf"}}]
    reasons = [e.reason for e in enc.report]
    assert _dropped(enc.report) == [(0, "document")] * 3
    assert [r for r in reasons if "title" in r] and [r for r in reasons if "context" in r] and [r for r in reasons if "citations" in r]
    # base64 media type matches: nothing lost there; a file id carries no media type
    enc = encode(mapper, T(DocumentItem(role="user", source=FileSource(file_id="file-1", provider="openai"), media_type="application/pdf")))
    assert _dropped(enc.report) == [(0, "document")]
    assert not encode(mapper, T(DocumentItem(role="user", source=Base64Source(media_type="application/pdf", data="JVBERi0="), media_type="application/pdf"))).report


def test_audio_transcript_is_reported() -> None:
    enc = encode(mapper, T(AudioItem(role="user", source=Base64Source(media_type="audio/wav", data="UklGRg=="), format="wav", transcript="hello")))
    assert enc.value["messages"][0]["content"] == [{"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}]
    assert _dropped(enc.report) == [(0, "audio")]
