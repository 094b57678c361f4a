"""Anthropic stream accumulator: error events, interleaving, citations, ping, usage, terminal rules."""

from __future__ import annotations

import json

import pytest

from interlingua.codec import to_builtins
from interlingua.items import Annotation, RawItem, TextItem
from interlingua.providers.anthropic import mapper
from interlingua.streaming import (
    ReasoningDelta,
    StreamDone,
    StreamError,
    TextDelta,
    ToolCallComplete,
    UsageUpdate,
    collect,
    is_terminal,
)
from interlingua.streaming.events import RawEvent

from ._sse import assemble, encode_events

START = {"type": "message_start", "message": {"id": "msg_s", "type": "message", "role": "assistant", "content": [], "model": "claude-x", "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 1}}}
STOP = {"type": "message_stop"}


def ev(data: dict, name: str | None = None) -> RawEvent:
    return RawEvent(name or data["type"], json.dumps(data))


def delta(index: int, d: dict) -> dict:
    return {"type": "content_block_delta", "index": index, "delta": d}


def run(*datas: dict) -> list:
    return collect(mapper, encode_events([ev(d) for d in datas]))


def msg_delta(stop: str = "end_turn", **usage) -> dict:
    return {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": usage or {"output_tokens": 9}}


@pytest.mark.parametrize(
    ("etype", "code", "retryable"),
    [
        ("overloaded_error", "overloaded", True),
        ("rate_limit_error", "rate_limit", True),
        ("api_error", "server", True),
        ("invalid_request_error", "invalid_request", False),
        ("authentication_error", "auth", False),
        ("brand_new_error", "provider_error", False),
    ],
)
def test_error_event_gives_stable_code_and_safe_message(etype, code, retryable):
    upstream = "Overloaded: secret internal detail req_123 sk-ant-xyz"
    events = run(START, {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}, delta(0, {"type": "text_delta", "text": "Hel"}), {"type": "error", "error": {"type": etype, "message": upstream}, "request_id": "req_123"})
    last = events[-1]
    assert isinstance(last, StreamError) and sum(is_terminal(e) for e in events) == 1
    assert last.error.code == code and last.error.retryable is retryable and last.error.provider == "anthropic"
    assert upstream not in last.error.message and "req_123" not in last.error.message and "sk-ant" not in last.error.message
    assert last.partial.items[0].text == "Hel"


def test_error_event_before_message_start():
    events = collect(mapper, b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n')
    assert len(events) == 1 and events[0].error.code == "overloaded"


def test_nothing_after_the_terminal_event():
    acc = mapper.accumulator()
    assert acc.feed(ev({"type": "error", "error": {"type": "api_error", "message": "x"}})) and acc.feed(ev(START)) == [] and acc.finish() == []


def test_interleaved_input_json_deltas_are_joined_per_block_index():
    events = run(
        START,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_a", "name": "f", "input": {}}},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_b", "name": "g", "input": {}}},
        delta(0, {"type": "input_json_delta", "partial_json": ""}),
        delta(1, {"type": "input_json_delta", "partial_json": '{"y": '}),
        delta(0, {"type": "input_json_delta", "partial_json": '{"x": "a'}),
        {"type": "ping"},
        delta(1, {"type": "input_json_delta", "partial_json": "[1, 2]}"}),
        delta(0, {"type": "input_json_delta", "partial_json": 'b"}'}),
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_stop", "index": 0},
        msg_delta("tool_use"),
        STOP,
    )
    calls = [e.item for e in events if isinstance(e, ToolCallComplete)]
    assert [(c.id, c.arguments) for c in calls] == [("toolu_b", {"y": [1, 2]}), ("toolu_a", {"x": "ab"})]
    done = events[-1]
    assert isinstance(done, StreamDone)
    assert [(i.id, i.arguments) for i in done.response.items] == [("toolu_a", {"x": "ab"}), ("toolu_b", {"y": [1, 2]})]


def test_tool_use_without_input_deltas_and_with_non_object_json():
    events = run(
        START,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_a", "name": "f", "input": {}}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_b", "name": "g", "input": {}}},
        delta(1, {"type": "input_json_delta", "partial_json": "[1]"}),
        {"type": "content_block_stop", "index": 1},
        msg_delta("tool_use"),
        STOP,
    )
    a, b = events[-1].response.items
    assert a.arguments == {}
    assert b.arguments_raw == "[1]" and "not an object" in b.arguments_error and to_builtins(b).get("arguments") is None


def test_citations_delta_become_annotations():
    cite = {"type": "char_location", "cited_text": "green", "document_index": 0, "document_title": "Doc", "start_char_index": 0, "end_char_index": 5}
    datas = [
        START,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "", "citations": []}},
        delta(0, {"type": "citations_delta", "citation": cite}),
        delta(0, {"type": "text_delta", "text": "the grass is green"}),
        {"type": "content_block_stop", "index": 0},
        msg_delta(),
        STOP,
    ]
    done = run(*datas)[-1]
    [text] = done.response.items
    assert text.annotations == [Annotation(kind="char_location", cited_text="green", document_index=0, title="Doc", start_index=0, end_index=5)]
    message, _ = assemble([ev(d) for d in datas])
    assert done.response.items == mapper.decode_response(message).value.items


def test_thinking_deltas_and_signature():
    events = run(
        START,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
        delta(0, {"type": "thinking_delta", "thinking": "Let me "}),
        delta(0, {"type": "thinking_delta", "thinking": "think."}),
        delta(0, {"type": "signature_delta", "signature": "SIG=="}),
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        delta(1, {"type": "text_delta", "text": "Answer"}),
        {"type": "content_block_stop", "index": 1},
        msg_delta(),
        STOP,
    )
    assert [e.text for e in events if isinstance(e, ReasoningDelta)] == ["Let me ", "think."]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Answer"]
    r, t = events[-1].response.items
    assert r.text == "Let me think." and r.opaque.value == "SIG==" and r.opaque.model == "claude-x"
    assert isinstance(t, TextItem) and t.text == "Answer"


def test_usage_is_cumulative_not_summed():
    events = run(
        START,
        {"type": "message_delta", "delta": {"stop_reason": None}, "usage": {"output_tokens": 10}},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 30, "input_tokens": 5, "cache_read_input_tokens": 100}},
        STOP,
    )
    updates = [e.usage for e in events if isinstance(e, UsageUpdate)]
    assert [u.output_tokens for u in updates] == [1, 10, 30]
    final = events[-1].response.usage
    assert final.output_tokens == 30 and final.input_tokens == 105 and final.cache_read_tokens == 100


def test_ping_and_unknown_events_are_ignored():
    events = run(START, {"type": "ping"}, {"type": "future_event", "x": 1}, msg_delta(), {"type": "ping"}, STOP)
    assert isinstance(events[-1], StreamDone) and events[-1].response.items == []


def test_server_tool_use_stream_is_raw_with_joined_input():
    events = run(
        START,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}},
        delta(0, {"type": "input_json_delta", "partial_json": '{"query": "x"}'}),
        {"type": "content_block_stop", "index": 0},
        msg_delta(),
        STOP,
    )
    [raw] = events[-1].response.items
    assert isinstance(raw, RawItem) and raw.value == {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}}
    assert not [e for e in events if isinstance(e, ToolCallComplete)]


@pytest.mark.parametrize("data", ["{not json", "[1, 2]"])
def test_malformed_event_data_is_a_provider_error(data):
    events = collect(mapper, encode_events([ev(START), RawEvent("content_block_start", data)]))
    assert isinstance(events[-1], StreamError) and events[-1].error.code == "provider_error"
    assert data not in events[-1].error.message


def test_delta_for_unknown_block_index_is_a_provider_error():
    events = run(START, delta(7, {"type": "text_delta", "text": "x"}))
    assert isinstance(events[-1], StreamError) and events[-1].error.code == "provider_error"


def test_tool_use_cut_before_its_stop_is_completed_at_message_stop():
    events = run(
        START,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_a", "name": "f", "input": {}}},
        delta(0, {"type": "input_json_delta", "partial_json": '{"x": '}),
        msg_delta("max_tokens"),
        STOP,
    )
    calls = [e.item for e in events if isinstance(e, ToolCallComplete)]
    assert len(calls) == 1 and calls[0].arguments_raw == '{"x": ' and calls[0].arguments_error
    assert isinstance(events[-1], StreamDone) and events[-1].response.items == calls


def test_empty_stream_is_truncated():
    events = collect(mapper, b"")
    assert len(events) == 1 and isinstance(events[0], StreamError) and events[0].error.code == "truncated"


# ----------------------------------------------------------------------------- protocol order (user report)

_BLOCK_START = {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
_BLOCK_STOP = {"type": "content_block_stop", "index": 0}
_MSG_DELTA = {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 3}}


@pytest.mark.parametrize(
    ("events", "message"),
    [
        # no message_start at all: model and message id would be lost silently
        ([_BLOCK_START, delta(0, {"type": "text_delta", "text": "hi"}), _BLOCK_STOP, _MSG_DELTA, STOP], "Anthropic stream sent content before message_start"),
        # content_block_start before message_start
        ([_BLOCK_START, START, delta(0, {"type": "text_delta", "text": "hi"}), _BLOCK_STOP, _MSG_DELTA, STOP], "Anthropic stream sent content before message_start"),
        # content_block_stop after message_delta
        ([START, _BLOCK_START, delta(0, {"type": "text_delta", "text": "hi"}), _MSG_DELTA, _BLOCK_STOP, STOP], "Anthropic stream sent content_block_stop after message_delta"),
        ([_MSG_DELTA, STOP], "Anthropic stream sent message_delta before message_start"),
        ([STOP], "Anthropic stream sent message_stop before message_start"),
        ([START, START, STOP], "Anthropic stream sent a second message_start"),
    ],
)
def test_events_out_of_protocol_order_end_in_a_stream_error(events, message):
    out = run(*events)
    assert sum(is_terminal(e) for e in out) == 1
    assert isinstance(out[-1], StreamError)
    assert out[-1].error.code == "provider_error"
    assert out[-1].error.message == message
    assert not any(isinstance(e, StreamDone) for e in out)


def test_protocol_order_is_satisfied_by_a_minimal_stream():
    out = run(START, _BLOCK_START, delta(0, {"type": "text_delta", "text": "hi"}), _BLOCK_STOP, _MSG_DELTA, STOP)
    assert isinstance(out[-1], StreamDone)
    assert out[-1].response.model == "claude-x" and out[-1].response.response_id == "msg_s"


@pytest.mark.parametrize("data", ["not json", "", "[1, 2]", '{"type": "ping"'])
def test_a_ping_whose_data_is_not_a_json_object_fails_the_stream(data: str) -> None:
    """A real recording with one ``ping``'s data replaced: the stream was accepted (exit 0) before,
    since the ping's data was never read. Every event's data must be JSON."""
    from ._sse import complete, read, split_events

    events = split_events(complete(read("anthropic_sdk.basic_response.sse")))
    pings = [i for i, e in enumerate(events) if e.event == "ping"]
    assert pings, "the recording holds a ping"
    events[pings[0]] = RawEvent("ping", data)
    try:
        out = collect(mapper, encode_events(events))
    except Exception as exc:  # a malformed JSON text is a located DocumentError
        assert type(exc).__name__ == "DocumentError", exc
        return
    assert isinstance(out[-1], StreamError), out[-1]


def test_the_real_recording_with_its_pings_still_succeeds() -> None:
    from ._sse import complete, read, split_events

    out = collect(mapper, encode_events(split_events(complete(read("anthropic_sdk.basic_response.sse")))))
    assert isinstance(out[-1], StreamDone)
