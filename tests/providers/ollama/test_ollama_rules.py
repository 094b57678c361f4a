"""Ollama wire rules, each with the input shape that breaks naive mappers."""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import msgspec
import pytest

from interlingua.errors import ConversionError, MalformedArgumentsError
from interlingua.items import (
    Settings,
    Base64Source,
    ImageItem,
    OpaqueReasoning,
    Origin,
    ReasoningItem,
    StructuredItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
    Transcript,
    UrlSource,
)
from interlingua.mapping.spelling import without_spelling
from interlingua.providers.ollama import mapper
from interlingua.providers.ollama._common import sniff_image_type
from interlingua.streaming import ReasoningDelta, StreamDone, StreamError, TextDelta, collect, iter_stream


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def T(*items: Any, **kw: Any) -> Transcript:
    """A transcript that asks for no stream (so Ollama's explicit ``stream: false`` is not a change)."""
    kw.setdefault("settings", Settings(stream=False))
    return Transcript(schema_version="1.0", items=list(items), **kw)


def encode(transcript: Transcript, **kw: Any) -> Any:
    """``encode_request`` with a model passed (these tests are about messages; the no-model note has its own test)."""
    given = "model" in kw
    kw.setdefault("model", "m")
    conv = mapper.encode_request(transcript, **kw)
    if not given:
        conv.value.pop("model")
    return conv


@pytest.mark.parametrize(
    ("raw", "media"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 20, "image/png"),
        (b"\xff\xd8\xff\xe0" + b"\0" * 20, "image/jpeg"),
        (b"GIF89a" + b"\0" * 20, "image/gif"),
        (b"GIF87a" + b"\0" * 20, "image/gif"),
        (b"RIFF\x10\0\0\0WEBPVP8 " + b"\0" * 20, "image/webp"),
        (b"BM" + b"\0" * 30, "image/png"),  # unknown -> documented default
    ],
)
def test_image_media_type_from_magic_bytes(raw: bytes, media: str) -> None:
    assert sniff_image_type(b64(raw)) == media
    t = mapper.decode_request({"model": "m", "messages": [{"role": "user", "content": "", "images": [b64(raw)]}]}).value
    assert t.items == [ImageItem(role="user", message="m0", source=Base64Source(media_type=media, data=b64(raw)))]


def test_sniff_survives_garbage() -> None:
    assert sniff_image_type("not base64 at all!!") == "image/png"
    assert sniff_image_type("") == "image/png"


def test_idless_calls_linked_by_name_then_order_and_sent_back_without_ids() -> None:
    body = {
        "model": "m",
        "stream": False,
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "a", "arguments": {"x": 1}}},
                {"function": {"name": "b", "arguments": {}}},
            ]},
            {"role": "tool", "content": "B", "tool_name": "b"},
            {"role": "tool", "content": "A", "tool_name": "a"},
        ],
    }
    t = mapper.decode_request(body).value
    calls = [i for i in t.items if isinstance(i, ToolCallItem)]
    results = [i for i in t.items if isinstance(i, ToolResultItem)]
    assert [c.id for c in calls] == ["ollama_m1_c0", "ollama_m1_c1"]
    assert [r.call_id for r in results] == ["ollama_m1_c1", "ollama_m1_c0"]
    assert encode(t, model="m").value == body
    # without tool_name: by order
    body2 = copy.deepcopy(body)
    for m in body2["messages"][2:]:
        del m["tool_name"]
    t2 = mapper.decode_request(body2).value
    assert [i.call_id for i in t2.items if isinstance(i, ToolResultItem)] == ["ollama_m1_c0", "ollama_m1_c1"]


def test_ids_kept_when_present_and_foreign_calls_keep_theirs() -> None:
    body = {
        "model": "m",
        "stream": False,
        "messages": [
            {"role": "assistant", "content": "", "tool_calls": [{"id": "call_abcd1234", "function": {"name": "a", "arguments": {}}}]},
            {"role": "tool", "content": "ok", "tool_name": "a", "tool_call_id": "call_abcd1234"},
        ],
    }
    t = mapper.decode_request(body).value
    assert t.items[0].id == "call_abcd1234" and t.items[0].origin.item_id == "call_abcd1234"
    assert encode(t, model="m").value == body
    out = encode(T(ToolCallItem(id="toolu_1", name="f", arguments={}), ToolResultItem(call_id="toolu_1", content=[TextItem(text="r")]))).value
    assert out["messages"] == [
        {"role": "assistant", "content": "", "tool_calls": [{"id": "toolu_1", "function": {"name": "f", "arguments": {}}}]},
        {"role": "tool", "content": "r", "tool_name": "f", "tool_call_id": "toolu_1"},
    ]


def test_tool_result_with_image_keeps_image() -> None:
    png = b64(b"\x89PNG\r\n\x1a\n" + b"\0" * 8)
    res = ToolResultItem(call_id="toolu_1", name="shot", content=[TextItem(text="here"), ImageItem(source=Base64Source(media_type="image/png", data=png))])
    conv = encode(T(ToolCallItem(id="toolu_1", name="shot", arguments={}), res))
    assert conv.value["messages"][1] == {"role": "tool", "content": "here", "images": [png], "tool_name": "shot", "tool_call_id": "toolu_1"}
    assert not conv.report
    assert mapper.decode_request({"model": "m", **conv.value}).value.items[1].content == res.content


def test_thinking_round_trip_and_foreign_opaque_dropped() -> None:
    body = {"model": "m", "stream": False, "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a", "thinking": "hmm"}]}
    t = mapper.decode_request(body).value
    assert t.items[1] == ReasoningItem(text="hmm", message="m1")
    assert encode(t, model="m").value == body
    anth = ReasoningItem(text="think", opaque=OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value="sig"))
    conv = encode(T(TextItem(role="user", text="q"), anth, TextItem(role="assistant", text="a")))
    assert conv.value["messages"][1] == {"role": "assistant", "content": "a", "thinking": "think"}
    assert [(e.action, e.item_type) for e in conv.report] == [("dropped", "reasoning")]
    gem_sig_only = ReasoningItem(opaque=OpaqueReasoning(namespace="gemini.thought_signature", issuer="gemini", value="s"))
    conv2 = encode(T(gem_sig_only, TextItem(role="assistant", text="a")))
    assert conv2.value["messages"] == [{"role": "assistant", "content": "a"}]
    assert conv2.report.entries[0].action == "dropped"


def test_text_after_tool_call_joins_the_calls_message_and_is_reported() -> None:
    # The calls of a turn are answered by the tool messages right after their message (as in
    # OpenAI Chat): text the assistant gives after its calls goes in that message (issue 13.1).
    items = [
        ToolCallItem(id="c", name="f", arguments={}, message="r"),
        TextItem(role="assistant", text="after", message="r"),
    ]
    conv = encode(T(*items))
    out = conv.value["messages"]
    assert len(out) == 1 and out[0]["tool_calls"] and out[0]["content"] == "after"
    assert any(e.action == "changed" and "joined" in e.reason for e in conv.report)


def test_string_arguments_parsed_and_malformed_kept_raw() -> None:
    body = {"model": "m", "messages": [{"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "f", "arguments": "{\"a\": 1}"}},
        {"function": {"name": "g", "arguments": "{oops"}},
    ]}]}
    t = mapper.decode_request(body).value
    assert t.items[0].arguments == {"a": 1}
    assert t.items[1].arguments is msgspec.UNSET and t.items[1].arguments_raw == "{oops" and t.items[1].arguments_error
    with pytest.raises(MalformedArgumentsError):
        encode(t)
    dropped = encode(t, policy="drop")
    assert len(dropped.value["messages"][0]["tool_calls"]) == 1 and dropped.report.entries[0].action == "dropped"


def test_unsupported_content_follows_policy() -> None:
    img = ImageItem(role="user", source=UrlSource(url="https://example.com/a.png"))
    with pytest.raises(ConversionError):
        encode(T(img))
    assert encode(T(img), policy="drop").report.entries[0].action == "dropped"


def test_structured_and_error_results_are_reported() -> None:
    res = ToolResultItem(call_id="c", name="f", content=[StructuredItem(data={"a": 1})], is_error=True)
    conv = encode(T(ToolCallItem(id="c", name="f", arguments={}), res))
    assert conv.value["messages"][1]["content"] == '{"a":1}'
    assert sorted(e.action for e in conv.report) == ["changed", "dropped"]


def test_settings_are_kept_and_written_back() -> None:
    """Issue 12: think, format, options and keep_alive are settings now, not dropped."""
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "think": True, "format": "json", "options": {"temperature": 0, "num_ctx": 4096}, "keep_alive": "5m"}
    conv = mapper.decode_request(body)
    assert not conv.report
    s = conv.value.settings
    assert (s.model, s.temperature, s.response_format.type, s.reasoning.include_thoughts, s.stream) == ("m", 0, "json_object", True, True)
    assert without_spelling(conv.value).settings.provider_data == {"ollama": {"options": {"num_ctx": 4096}, "keep_alive": "5m"}}
    out = mapper.encode_request(conv.value, model="m")
    # Ollama streams when stream is absent: the decoded default is written explicitly
    assert out.value == {**body, "stream": True} and not out.report


@pytest.mark.parametrize(
    ("done_reason", "calls", "reason"),
    [("stop", False, "end_turn"), ("stop", True, "tool_use"), ("length", False, "max_tokens"), ("load", False, "other"), ("unload", False, "other")],
)
def test_done_reasons(done_reason: str, calls: bool, reason: str) -> None:
    msg: dict[str, Any] = {"role": "assistant", "content": "" if calls else "x"}
    if calls:
        msg["tool_calls"] = [{"function": {"name": "f", "arguments": {}}}]
    body = {"model": "m", "message": msg, "done_reason": done_reason, "done": True}
    resp = mapper.decode_response(body).value
    assert (resp.stop_reason.reason, resp.stop_reason.raw) == (reason, done_reason)
    assert mapper.encode_response(resp).value == body


def test_response_call_ids_differ_between_responses() -> None:
    def body(ts: str) -> dict[str, Any]:
        return {"model": "m", "created_at": ts, "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}, "done": True}

    a = mapper.decode_response(body("2025-07-07T20:32:53.844124Z")).value.items[0]
    b = mapper.decode_response(body("2025-07-07T20:33:01.000001Z")).value.items[0]
    assert a.id != b.id and a.origin == Origin(provider="ollama", model="m")


def test_kind_of() -> None:
    assert mapper.kind_of({"model": "m", "messages": []}) == "request"
    assert mapper.kind_of({"messages": []}) is None
    assert mapper.kind_of({"model": "m", "message": {}, "done": False}) == "response"
    assert mapper.kind_of({"contents": []}) is None


def test_stream_thinking_and_content_deltas() -> None:
    lines = [
        '{"model":"m","created_at":"t1","message":{"role":"assistant","content":"","thinking":"Let me "},"done":false}',
        '{"model":"m","created_at":"t2","message":{"role":"assistant","content":"","thinking":"think."},"done":false}',
        '{"model":"m","created_at":"t3","message":{"role":"assistant","content":"Hi"},"done":false}',
        '{"model":"m","created_at":"t4","message":{"role":"assistant","content":" there"},"done":false}',
        '{"model":"m","created_at":"t5","message":{"role":"assistant","content":""},"done":true,"done_reason":"length","eval_count":4}',
    ]
    events = collect(mapper, ("\n".join(lines) + "\n").encode())
    assert [type(e) for e in events[:4]] == [ReasoningDelta, ReasoningDelta, TextDelta, TextDelta]
    done = events[-1]
    assert isinstance(done, StreamDone)
    equivalent = {"model": "m", "created_at": "t5", "message": {"role": "assistant", "content": "Hi there", "thinking": "Let me think."}, "done": True, "done_reason": "length", "eval_count": 4}
    assert done.response.items == mapper.decode_response(equivalent).value.items
    assert done.response.stop_reason.reason == "max_tokens"


def test_stream_bad_line_is_an_error() -> None:
    out = collect(mapper, b'{"model":"m","message":{"role":"assistant","content":"a"},"done":false}\nnot json\n')
    assert isinstance(out[-1], StreamError) and out[-1].error.code == "provider_error"
    out2 = collect(mapper, b'{"error":"model \\"x\\" not found, try pulling it first"}\n')
    assert out2[-1].error.code == "not_found" and "pulling" not in out2[-1].error.message


def test_inputs_not_mutated() -> None:
    items = [
        TextItem(role="user", text="q", message="m0"),
        ReasoningItem(text="r", message="m1"),
        ToolCallItem(id="c", name="f", arguments={"a": [1]}, message="m1"),
        ToolResultItem(call_id="c", content=[TextItem(text="x")], message="m2"),
    ]
    t = T(*items)
    before = copy.deepcopy(t)
    out = encode(t, model="m").value
    assert t == before
    snap = copy.deepcopy(out)
    back = mapper.decode_request(out).value
    back.items[2].arguments["a"].append(2)
    assert out == snap


@pytest.mark.parametrize(
    "msg",
    [
        {"role": "assistant", "content": "", "tool_calls": {"a": 1}},
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"arguments": {}}}]},
        {"role": "user", "content": "x", "images": [1]},
        {"role": "developer", "content": "x"},
    ],
)
def test_malformed_or_unknown_messages_kept_raw_and_sent_back(msg: dict[str, Any]) -> None:
    body = {"model": "m", "stream": False, "messages": [msg]}
    t = mapper.decode_request(body).value
    assert len(t.items) == 1 and t.items[0].__struct_config__.tag == "raw" and t.items[0].value == msg
    assert encode(t, model="m").value == body


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
    from interlingua.providers import openai_chat, ollama

    transcript = openai_chat.mapper.decode_request(_CHAT_MALFORMED_CALL).value
    conv = ollama.mapper.encode_request(transcript, model="m", policy=policy)
    wire = json.dumps(conv.value)
    assert "get_weather" not in wire and "sunny" not in wire, conv.value
    lines = [str(e) for e in conv.report]
    assert any(line.startswith("dropped: item 1 tool_call:") and "call_1" in line for line in lines), lines
    assert "dropped: item 2 tool_result: result of the dropped tool call 'call_1'" in lines, lines


def test_response_created_at_and_unknown_fields_go_back_to_ollama_only() -> None:
    """ollama_docs.chat_tools_nostream.response.json (Ollama docs example) plus a field added later:
    ``created_at`` has no canonical field (ADR 0009), so it is kept in the response's provider data."""
    from pathlib import Path

    from interlingua.codec import decode_transcript, encode_transcript
    from interlingua.mapping import ModelResponse, get_mapper

    body = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "real" / "ollama" / "ollama_docs.chat_tools_nostream.response.json").read_text())
    body["logprobs"] = [{"token": "x", "logprob": -0.1}]
    conv = mapper.decode_response(copy.deepcopy(body))
    assert not conv.report
    assert conv.value.provider_data == {"ollama": {"body": {"created_at": body["created_at"], "logprobs": body["logprobs"]}}}
    via_doc = ModelResponse.from_transcript(decode_transcript(encode_transcript(conv.value.to_transcript())))
    assert mapper.encode_response(via_doc).value == body
    chat = get_mapper("openai-chat").encode_response(conv.value, model="m")
    assert "created_at" not in json.dumps(chat.value)
    assert any(e.action == "dropped" and e.item_type == "response" and "body" in e.reason for e in chat.report), chat.report.lines()


def test_generate_stream_and_response_read_top_level_thinking() -> None:
    """/api/generate with ``think`` (Ollama API docs, "Generate a completion": ``thinking`` beside ``response``);
    the lines are shaped like ollama_docs.generate_stream_midstream_error.ndjson."""
    lines = [
        {"model": "gemma4", "created_at": "2025-10-26T17:21:21.196249Z", "response": "", "thinking": "Let me ", "done": False},
        {"model": "gemma4", "created_at": "2025-10-26T17:21:21.207235Z", "response": "", "thinking": "see.", "done": False},
        {"model": "gemma4", "created_at": "2025-10-26T17:21:21.219166Z", "response": "Yes", "done": False},
        {"model": "gemma4", "created_at": "2025-10-26T17:21:21.231094Z", "response": "", "done": True, "done_reason": "stop", "eval_count": 3},
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    events = list(iter_stream(mapper, data))
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "Let me see."
    done = events[-1]
    assert isinstance(done, StreamDone)
    assert [(type(i).__name__, getattr(i, "text", None)) for i in done.response.items] == [("ReasoningItem", "Let me see."), ("TextItem", "Yes")]
    one = mapper.decode_response({"model": "gemma4", "created_at": "t", "response": "Yes", "thinking": "Let me see.", "done": True, "done_reason": "stop", "eval_count": 3})
    assert one.value.items == done.response.items and not one.report


@pytest.mark.parametrize("where", [0, 1, 2])
def test_unknown_message_field_keeps_the_content_and_goes_back_to_ollama(where: int) -> None:
    """The issue-13 class "one unknown field turns the whole message into raw", on Ollama: the docs' tool
    history (ollama_docs.chat_tools_history.request.json) with a field added to a user, assistant-with-calls
    or tool message. The content is decoded as usual; the field goes back onto the same message."""
    from pathlib import Path

    from interlingua.mapping import get_mapper

    body = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "real" / "ollama" / "ollama_docs.chat_tools_history.request.json").read_text())
    body["messages"][where]["cache_hint"] = {"ttl": 60}
    conv = mapper.decode_request(copy.deepcopy(body))
    assert not conv.report, conv.report.lines()
    from interlingua.items import RawItem

    assert not any(isinstance(i, RawItem) for i in conv.value.items)
    back = mapper.encode_request(conv.value, model=body["model"])
    assert back.value["messages"] == body["messages"] and not back.report
    for target in ("anthropic", "gemini"):
        other = get_mapper(target).encode_request(conv.value, model="m", policy="drop")
        assert "cache_hint" not in json.dumps(other.value)
        assert any(e.action == "dropped" and "cache_hint" in e.reason for e in other.report), other.report.lines()


def test_unknown_message_field_of_a_response_goes_back() -> None:
    body = {"model": "m", "created_at": "t", "message": {"role": "assistant", "content": "hi", "annotations": [1]}, "done": True, "done_reason": "stop"}
    conv = mapper.decode_response(copy.deepcopy(body))
    assert not conv.report
    assert mapper.encode_response(conv.value).value == body
