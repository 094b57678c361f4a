"""Response and stream wire rules, each with the input shape that breaks naive mappers."""

from __future__ import annotations

import dataclasses
import json

import msgspec
import pytest
from _openai_chat_support import REAL, join_stream, sse_events

from interlingua.codec import SCHEMA_VERSION, to_builtins
from interlingua.errors import MalformedArgumentsError
from interlingua.items import Annotation, RawItem, ReasoningItem, RefusalItem, StopReason, TextItem, ToolCallItem, Transcript
from interlingua.mapping import ModelResponse
from interlingua.providers.openai_chat import OpenAIChatMapper, mapper
from interlingua.streaming import (
    ReasoningDelta,
    RefusalDelta,
    StreamDone,
    StreamError,
    TextDelta,
    ToolCallComplete,
    UsageUpdate,
    collect,
    is_terminal,
)

U = msgspec.UNSET


def completion(message: dict, finish: str = "stop", **extra) -> dict:
    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o", "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
    body.update(extra)
    return body


def sse(*chunks: object, done: bool = True) -> bytes:
    out = b"".join(b"data: " + (c if isinstance(c, bytes) else json.dumps(c).encode()) + b"\n\n" for c in chunks)
    return out + (b"data: [DONE]\n\n" if done else b"")


def chunk(delta: dict | None = None, finish: str | None = None, **extra) -> dict:
    c = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o", "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}
    c.update(extra)
    return c


# ----------------------------------------------------------------------------- responses


@pytest.mark.parametrize(
    ("finish", "reason"),
    [("stop", "end_turn"), ("length", "max_tokens"), ("tool_calls", "tool_use"), ("content_filter", "content_filter"), ("function_call", "tool_use"), ("weird", "other")],
)
def test_finish_reason_mapping(finish: str, reason: str) -> None:
    r = mapper.decode_response(completion({"role": "assistant", "content": "x"}, finish)).value
    assert r.stop_reason == StopReason(reason=reason, raw=finish)
    back = mapper.encode_response(r).value["choices"][0]["finish_reason"]
    assert back == finish  # a value outside the enum goes back to OpenAI Chat as given (provider_data)
    # Without this provider's response data (the stop reason came from elsewhere) only enum values are written.
    r.provider_data = None
    assert mapper.encode_response(r).value["choices"][0]["finish_reason"] == (finish if finish != "weird" else "stop")


def test_usage_with_cached_and_reasoning_tokens() -> None:
    usage = {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150, "prompt_tokens_details": {"cached_tokens": 80, "audio_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 30}}
    r = mapper.decode_response(completion({"role": "assistant", "content": "x"}, usage=usage)).value
    u = r.usage
    assert (u.input_tokens, u.output_tokens, u.total_tokens, u.cache_read_tokens, u.reasoning_tokens) == (100, 50, 150, 80, 30)
    assert u.details == usage and u.details is not usage


def test_usage_without_chat_details_is_rebuilt() -> None:
    from interlingua.items import Usage

    body = mapper.encode_response(ModelResponse(items=[TextItem(text="x", role="assistant")], usage=Usage(input_tokens=10, output_tokens=5, cache_read_tokens=4, reasoning_tokens=2, details={"input_tokens": 6}))).value
    assert body["usage"] == {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "prompt_tokens_details": {"cached_tokens": 4}, "completion_tokens_details": {"reasoning_tokens": 2}}


def test_only_choice_zero_is_canonical_others_reported() -> None:
    body = completion({"role": "assistant", "content": "a"})
    body["choices"].append({"index": 1, "message": {"role": "assistant", "content": "b"}, "finish_reason": "stop"})
    conv = mapper.decode_response(body)
    assert [i.text for i in conv.value.items] == ["a"]
    assert [e.pointer for e in conv.report] == ["/choices/1"]


def test_url_citation_annotations_round_trip() -> None:
    ann = {"type": "url_citation", "url_citation": {"end_index": 20, "start_index": 5, "title": "Example", "url": "https://example.com"}}
    body = completion({"role": "assistant", "content": "See the page here: ok", "refusal": None, "annotations": [ann]})
    r = mapper.decode_response(body).value
    assert r.items[0].annotations == [Annotation(kind="url_citation", url="https://example.com", title="Example", start_index=5, end_index=20)]
    out = mapper.encode_response(r).value
    assert out["choices"][0]["message"]["annotations"] == [ann]


def test_refusal_completion() -> None:
    path = REAL / "openai_chat" / "openai_python.completion_refusal.response.json"
    r = mapper.decode_response(json.loads(path.read_text())).value
    assert r.items == [RefusalItem(text="I'm very sorry, but I can't assist with that.", message=r.items[0].message, origin=r.items[0].origin)]
    assert not any(isinstance(i, TextItem) for i in r.items)


def test_response_malformed_arguments_kept_raw_and_refused_on_encode() -> None:
    body = completion({"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Par'}}]}, "tool_calls")
    r = mapper.decode_response(body).value
    call = r.items[0]
    assert isinstance(call, ToolCallItem) and call.arguments is U and call.arguments_raw == '{"city": "Par'
    with pytest.raises(MalformedArgumentsError):
        mapper.encode_response(r)
    out = mapper.encode_response(r, policy="degrade")
    assert out.value["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == '{"city": "Par'
    assert out.report.entries[0].action == "degraded"


def test_response_items_carry_origin_and_response_message_key() -> None:
    r = mapper.decode_response(completion({"role": "assistant", "content": "hi"})).value
    item = r.items[0]
    assert item.message == "resp:chatcmpl-1"
    assert (item.origin.provider, item.origin.model, item.origin.response_id) == ("openai-chat", "gpt-4o", "chatcmpl-1")
    assert r.response_id == "chatcmpl-1" and r.model == "gpt-4o"


def test_deepseek_reasoning_content_response() -> None:
    body = completion({"role": "assistant", "content": "4", "reasoning_content": "2+2 is 4"})
    r = mapper.decode_response(body).value
    assert isinstance(r.items[0], ReasoningItem) and r.items[0].text == "2+2 is 4"
    assert OpenAIChatMapper("deepseek").encode_response(r).value["choices"][0]["message"]["reasoning_content"] == "2+2 is 4"
    # read by the default dialect, the host's reasoning goes back into its response as read (issue 13) ...
    back = mapper.encode_response(r)
    assert back.value["choices"][0]["message"]["reasoning_content"] == "2+2 is 4" and not back.report
    # ... but not into a request: ChatCompletionAssistantMessageParam has no reasoning field
    req = mapper.encode_request(Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(text="q", role="user"), *r.items]), model="gpt-4.1")
    assert "reasoning_content" not in req.value["messages"][1] and req.report.entries[0].action == "dropped"
    # reasoning of another source in the default dialect: left out of the response, reported
    foreign = mapper.encode_response(dataclasses.replace(r, items=[ReasoningItem(text="2+2 is 4"), *r.items[1:]]))
    assert "reasoning_content" not in foreign.value["choices"][0]["message"] and foreign.report.entries[0].action == "dropped"


def test_both_reasoning_fields_differing_is_reported() -> None:
    conv = mapper.decode_response(completion({"role": "assistant", "content": "x", "reasoning_content": "a", "reasoning": "b"}))
    assert conv.value.items[0].text == "a" and conv.report.entries[0].action == "dropped"


def test_response_audio_is_kept_raw() -> None:
    audio = {"id": "audio_1", "data": "UklGRg==", "expires_at": 1, "transcript": "hi"}
    body = completion({"role": "assistant", "content": None, "refusal": None, "audio": audio})
    r = mapper.decode_response(body).value
    assert isinstance(r.items[0], RawItem) and r.items[0].value == {"audio": audio}
    out = mapper.encode_response(r).value
    assert out["choices"][0]["message"]["audio"] == audio


# ----------------------------------------------------------------------------- streams


def test_interleaved_tool_call_fragments_join_per_index() -> None:
    raw = sse(
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "f", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "call_b", "type": "function", "function": {"name": "g", "arguments": '{"y"'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"x": '}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": ": 2}"}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}),
        chunk({}, "tool_calls"),
    )
    events = collect(mapper, raw)
    calls = [e.item for e in events if isinstance(e, ToolCallComplete)]
    assert [(c.id, c.name, c.arguments) for c in calls] == [("call_a", "f", {"x": 1}), ("call_b", "g", {"y": 2})]
    assert isinstance(events[-1], StreamDone)
    assert events[-1].response.stop_reason.reason == "tool_use"


def test_stream_malformed_final_arguments_kept_raw_with_error() -> None:
    raw = sse(
        chunk({"tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "weather", "arguments": '{"city": '}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Par'}}]}),
        chunk({}, "length"),
    )
    events = collect(mapper, raw)
    call = next(e.item for e in events if isinstance(e, ToolCallComplete))
    assert call.arguments is U and call.arguments_raw == '{"city": "Par' and call.arguments_error
    assert events[-1].response.items == [call]


def test_stream_reasoning_deltas_never_mixed_into_text() -> None:
    raw = sse(
        chunk({"role": "assistant", "reasoning_content": "Let me "}),
        chunk({"reasoning_content": "think."}),
        chunk({"reasoning": "ollama style"}),
        chunk({"content": "Answer"}),
        chunk({}, "stop"),
    )
    events = collect(mapper, raw)
    assert [e.text for e in events if isinstance(e, ReasoningDelta)] == ["Let me ", "think.", "ollama style"]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Answer"]
    items = events[-1].response.items
    assert isinstance(items[0], ReasoningItem) and items[0].text == "Let me think."
    assert isinstance(items[1], TextItem) and items[1].text == "Answer"


def test_openrouter_stream_reasoning_and_details() -> None:
    detail = {"type": "reasoning.text", "text": "hmm", "format": "unknown", "index": 0}
    raw = sse(chunk({"role": "assistant", "reasoning": "hmm", "reasoning_details": [detail]}), chunk({"content": "ok"}), chunk({}, "stop"))
    done = collect(mapper, raw)[-1]
    reasoning = done.response.items[0]
    assert reasoning.text == "hmm" and reasoning.opaque.issuer == "openrouter" and reasoning.opaque.value == [detail]


def test_stream_refusal_fixture_gives_refusal_deltas_and_item() -> None:
    raw = (REAL / "openai_chat" / "openai_python.stream_refusal.sse").read_bytes()
    events = collect(mapper, raw)
    text = "".join(e.text for e in events if isinstance(e, RefusalDelta))
    assert text == "I'm sorry, I can't assist with that request."
    assert [type(i).__name__ for i in events[-1].response.items] == ["RefusalItem"]
    assert not any(isinstance(e, TextDelta) for e in events)


def test_usage_chunk_with_empty_choices() -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    events = collect(mapper, sse(chunk({"content": "x"}, "stop"), {"id": "chatcmpl-s", "object": "chat.completion.chunk", "choices": [], "usage": usage}))
    ups = [e for e in events if isinstance(e, UsageUpdate)]
    assert len(ups) == 1 and ups[0].usage.total_tokens == 5
    assert events[-1].response.usage.input_tokens == 3


@pytest.mark.parametrize(
    ("error", "code", "status"),
    [
        ({"message": "secret upstream detail sk-123", "type": "server_error", "code": None}, "server", None),
        ({"message": "slow down: secret", "type": "requests", "code": "rate_limit_exceeded"}, "rate_limit", None),
        ({"message": "Provider returned error: secret", "code": 502}, "server", 502),
        ({"message": "secret"}, "provider_error", None),
    ],
)
def test_error_chunk_gives_stable_code_and_safe_message(error: dict, code: str, status: int | None) -> None:
    events = collect(mapper, sse(chunk({"content": "partial"}), {"error": error}, chunk({"content": "never"})))
    assert [is_terminal(e) for e in events].count(True) == 1
    err = events[-1]
    assert isinstance(err, StreamError)
    assert err.error.code == code and (err.error.status if err.error.status is not U else None) == status
    assert "secret" not in err.error.message
    assert [i.text for i in err.partial.items] == ["partial"]
    assert not any(isinstance(e, TextDelta) and e.text == "never" for e in events)


def test_invalid_json_event_is_an_error() -> None:
    events = collect(mapper, sse(chunk({"content": "a"}), b"{not json"))
    assert isinstance(events[-1], StreamError) and events[-1].error.code == "provider_error"


def test_no_done_marker_is_truncated_even_after_finish_and_usage() -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    raw = sse(chunk({"content": "x"}), chunk({}, "stop"), {"id": "chatcmpl-s", "choices": [], "usage": usage}, done=False)
    events = collect(mapper, raw)
    assert isinstance(events[-1], StreamError) and events[-1].error.code == "truncated"
    assert events[-1].error.retryable is True
    assert [i.text for i in events[-1].partial.items] == ["x"]


def test_events_after_done_are_ignored() -> None:
    raw = sse(chunk({"content": "x"}, "stop")) + sse(chunk({"content": "late"}), done=False)
    events = collect(mapper, raw)
    assert isinstance(events[-1], StreamDone) and events[-1].response.items[0].text == "x"
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["x"]


def test_accumulator_finish_without_events_is_truncated() -> None:
    acc = mapper.accumulator()
    out = acc.finish()
    assert len(out) == 1 and isinstance(out[0], StreamError) and out[0].error.code == "truncated"


def test_reference_joiner_agrees_with_the_completion_fixture_shape() -> None:
    # The parallel-call stream and the non-streamed completion were recorded for the same prompt:
    # the calls differ only in their ids.
    raw = (REAL / "openai_chat" / "openai_python.stream_parallel_tool_calls.sse").read_bytes()
    streamed = collect(mapper, raw)[-1].response
    completed = mapper.decode_response(json.loads((REAL / "openai_chat" / "openai_python.completion_parallel_tool_calls.response.json").read_text())).value
    assert [(c.name, c.arguments) for c in streamed.items] == [(c.name, c.arguments) for c in completed.items]
    assert streamed.usage.total_tokens == completed.usage.total_tokens
    joined = join_stream(raw)["choices"][0]["message"]["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in joined] == [c.arguments for c in streamed.items]
    assert sse_events(raw)[-1] == b"data: [DONE]\n\n"


def test_stream_custom_tool_call_input_is_joined_and_kept_raw() -> None:
    raw = sse(
        chunk({"tool_calls": [{"index": 0, "id": "call_c", "type": "custom", "custom": {"name": "grep", "input": "fo"}}]}),
        chunk({"tool_calls": [{"index": 0, "custom": {"input": "o"}}]}),
        chunk({}, "tool_calls"),
    )
    done = collect(mapper, raw)[-1]
    assert isinstance(done, StreamDone)
    assert done.response.items == [RawItem(provider="openai-chat", value={"id": "call_c", "type": "custom", "custom": {"name": "grep", "input": "foo"}}, role="assistant", message="resp:chatcmpl-s", origin=done.response.items[0].origin)]


def test_stream_tool_call_without_id_gets_the_same_id_as_the_response() -> None:
    raw = sse(chunk({"tool_calls": [{"index": 0, "type": "function", "function": {"name": "f", "arguments": "{}"}}]}), chunk({}, "tool_calls"))
    done = collect(mapper, raw)[-1]
    body = {"id": "chatcmpl-s", "model": "gpt-4o", "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]}, "finish_reason": "tool_calls"}]}
    assert done.response.items == mapper.decode_response(body).value.items
