"""Responses stream shapes that break naive accumulators (synthetic streams in the recorded framing)."""

from __future__ import annotations

import json

import pytest

from interlingua.codec import to_builtins
from interlingua.items import RawItem, RefusalItem
from interlingua.streaming import (
    RawEvent,
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

RESP = {"id": "resp_s", "object": "response", "status": "in_progress", "model": "gpt-5", "output": [], "usage": None, "error": None, "incomplete_details": None}
USAGE = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 2}, "total_tokens": 15}


def sse(*events: dict) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def created() -> dict:
    return {"type": "response.created", "sequence_number": 0, "response": RESP}


def completed(output: list, status: str = "completed", **extra) -> dict:
    return {"type": f"response.{status}", "response": {**RESP, "status": status, "output": output, "usage": USAGE, **extra}}


def added(i: int, item: dict) -> dict:
    return {"type": "response.output_item.added", "output_index": i, "item": item}


def done(i: int, item: dict) -> dict:
    return {"type": "response.output_item.done", "output_index": i, "item": item}


def args_delta(item_id: str, i: int, delta: str) -> dict:
    return {"type": "response.function_call_arguments.delta", "item_id": item_id, "output_index": i, "delta": delta}


def call(i: int, args: str, status="completed") -> dict:
    return {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": f"tool{i}", "arguments": args, "status": status}


def check_matches_completed(oar, events, final_event):
    assert sum(is_terminal(e) for e in events) == 1 and isinstance(events[-1], StreamDone)
    expected = oar.decode_response(final_event["response"]).value
    assert to_builtins(events[-1].response.items) == to_builtins(expected.items)
    assert events[-1].response.stop_reason == expected.stop_reason
    return events[-1].response


def test_interleaved_parallel_calls_keep_their_arguments_apart(oar):
    final = completed([call(0, '{"a":1}'), call(1, '{"b":2}')])
    stream = sse(
        created(),
        added(0, call(0, "", "in_progress")),
        added(1, call(1, "", "in_progress")),
        args_delta("fc_0", 0, '{"a"'),
        args_delta("fc_1", 1, '{"b"'),
        args_delta("fc_1", 1, ":2}"),
        args_delta("fc_0", 0, ":1}"),
        done(1, {**call(1, '{"b":2}')}),
        done(0, {**call(0, '{"a":1}')}),
        final,
    )
    events = collect(oar, stream)
    calls = [e.item for e in events if isinstance(e, ToolCallComplete)]
    assert [(c.id, c.name, c.arguments, c.origin.item_id) for c in calls] == [("call_1", "tool1", {"b": 2}, "fc_1"), ("call_0", "tool0", {"a": 1}, "fc_0")]
    response = check_matches_completed(oar, events, final)
    assert response.stop_reason.reason == "tool_use"
    assert [i.id for i in response.items] == ["call_0", "call_1"]


def test_call_done_without_arguments_uses_the_deltas(oar):
    item = call(0, "x")
    del item["arguments"]
    events = collect(oar, sse(created(), added(0, call(0, "", "in_progress")), args_delta("fc_0", 0, '{"k":'), args_delta("fc_0", 0, '"v"}'), done(0, item), completed([])))
    (tc,) = [e.item for e in events if isinstance(e, ToolCallComplete)]
    assert tc.arguments == {"k": "v"}
    assert to_builtins(events[-1].response.items) == [to_builtins(tc)]


def test_malformed_streamed_arguments_stay_raw(oar):
    events = collect(oar, sse(created(), added(0, call(0, "", "in_progress")), args_delta("fc_0", 0, '{"k": '), done(0, call(0, '{"k": ')), completed([call(0, '{"k": ')])))
    (tc,) = [e.item for e in events if isinstance(e, ToolCallComplete)]
    assert tc.arguments_raw == '{"k": ' and tc.arguments_error and tc.arguments != {}


def test_reasoning_encrypted_content_is_taken_from_output_item_done(oar):
    full = {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Think **hard**"}], "encrypted_content": "gAAAA-FULL-BLOB"}
    msg = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "ok", "annotations": []}]}
    stream = sse(
        created(),
        added(0, {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA-PART"}),
        {"type": "response.reasoning_summary_part.added", "item_id": "rs_1", "output_index": 0, "summary_index": 0, "part": {"type": "summary_text", "text": ""}},
        {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": 0, "delta": "Think "},
        {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": 0, "delta": "**hard**"},
        done(0, full),
        added(1, {**msg, "status": "in_progress", "content": []}),
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": "ok"},
        done(1, msg),
        completed([]),  # output left empty: the streamed items are used
    )
    events = collect(oar, stream)
    assert [e.text for e in events if isinstance(e, ReasoningDelta)] == ["Think ", "**hard**"]
    reasoning, text = events[-1].response.items
    assert reasoning.opaque.value == "gAAAA-FULL-BLOB" and reasoning.summary == ["Think **hard**"]
    assert text.text == "ok"
    assert to_builtins(events[-1].response.items) == to_builtins(oar.decode_response(completed([full, msg])["response"]).value.items)


def test_reasoning_text_delta_is_reasoning_not_text(oar):
    events = collect(oar, sse(created(), added(0, {"type": "reasoning", "id": "rs_1", "summary": []}), {"type": "response.reasoning_text.delta", "item_id": "rs_1", "output_index": 0, "content_index": 0, "delta": "hmm"}))
    assert [type(e) for e in events] == [ReasoningDelta, StreamError]
    assert events[-1].error.code == "truncated"
    assert events[-1].partial.items[0].text == "hmm"


def test_text_deltas_keep_whitespace_exactly(oar):
    pieces = ["  lead", "\n\n", " ", "mid  ", "\t", "end\n"]
    msg = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "".join(pieces), "annotations": []}]}
    deltas = [{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": p} for p in pieces]
    final = completed([msg])
    events = collect(oar, sse(created(), added(0, {**msg, "content": []}), *deltas, done(0, msg), final))
    assert [e.text for e in events if isinstance(e, TextDelta)] == pieces
    check_matches_completed(oar, events, final)


def test_refusal_stream(oar):
    msg = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "refusal", "refusal": "I can't help."}]}
    final = completed([msg])
    events = collect(
        oar,
        sse(
            created(),
            added(0, {**msg, "content": []}),
            {"type": "response.refusal.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "I can't"},
            {"type": "response.refusal.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": " help."},
            done(0, msg),
            final,
        ),
    )
    assert [e.text for e in events if isinstance(e, RefusalDelta)] == ["I can't", " help."]
    response = check_matches_completed(oar, events, final)
    assert isinstance(response.items[0], RefusalItem) and response.stop_reason.reason == "refusal"


@pytest.mark.parametrize(("reason", "stable"), [("max_output_tokens", "max_tokens"), ("content_filter", "content_filter")])
def test_incomplete_is_done_with_its_stop_reason(oar, reason, stable):
    final = completed([], "incomplete", incomplete_details={"reason": reason})
    events = collect(oar, sse(created(), final))
    assert [type(e) for e in events] == [UsageUpdate, StreamDone]
    assert events[-1].response.stop_reason.reason == stable


@pytest.mark.parametrize(("code", "stable"), [("rate_limit_exceeded", "rate_limit"), ("server_error", "server"), ("vector_store_timeout", "provider_error")])
def test_failed_response_is_a_stream_error(oar, code, stable):
    failed = {"type": "response.failed", "response": {**RESP, "status": "failed", "error": {"code": code, "message": "raw upstream text with secret"}}}
    partial_msg = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}
    events = collect(oar, sse(created(), added(0, partial_msg), {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "par"}, failed))
    assert isinstance(events[-1], StreamError) and sum(is_terminal(e) for e in events) == 1
    assert events[-1].error.code == stable and "secret" not in events[-1].error.message
    assert [i.text for i in events[-1].partial.items] == ["par"]


@pytest.mark.parametrize(("code", "stable"), [("rate_limit_exceeded", "rate_limit"), ("server_error", "server"), ("weird", "provider_error")])
def test_error_event_is_a_stream_error(oar, code, stable):
    events = collect(oar, sse(created(), {"type": "error", "code": code, "message": "secret upstream body", "param": None}, completed([])))
    assert [type(e) for e in events] == [StreamError]
    assert events[0].error.code == stable and "secret" not in events[0].error.message


def test_malformed_event_data_is_an_error(oar):
    events = collect(oar, b"event: response.created\ndata: {not json\n\n")
    assert [type(e) for e in events] == [StreamError] and events[0].error.code == "provider_error"


def test_tool_progress_events_are_ignored_and_the_item_is_raw(oar):
    ws = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "q"}}
    final = completed([ws])
    events = collect(
        oar,
        sse(
            created(),
            added(0, {**ws, "status": "in_progress"}),
            {"type": "response.web_search_call.searching", "item_id": "ws_1", "output_index": 0},
            done(0, ws),
            final,
        ),
    )
    response = check_matches_completed(oar, events, final)
    assert isinstance(response.items[0], RawItem) and response.items[0].value == ws


def test_accumulator_contract(oar):
    acc = oar.accumulator()
    assert acc.feed(RawEvent("response.created", json.dumps(created()))) == []
    out = acc.feed(RawEvent("response.completed", json.dumps(completed([]))))
    assert isinstance(out[-1], StreamDone)
    assert acc.feed(RawEvent("response.created", json.dumps(created()))) == []
    assert acc.finish() == []
    fresh = oar.accumulator()
    (err,) = fresh.finish()
    assert isinstance(err, StreamError) and err.error.code == "truncated"
    assert oar.accumulator() is not oar.accumulator()


def test_event_name_is_used_when_data_has_no_type(oar):
    acc = oar.accumulator()
    assert acc.feed(RawEvent("response.created", json.dumps({"response": {**RESP, "status": "in_progress"}}))) == []
    payload = {"response": {**RESP, "status": "completed"}}
    (done_event,) = acc.feed(RawEvent("response.completed", json.dumps(payload)))
    assert isinstance(done_event, StreamDone)


def test_error_event_with_a_nested_error_object(oar):
    events = collect(oar, sse(created(), {"type": "error", "error": {"type": "invalid_request_error", "code": "rate_limit_exceeded", "message": "x"}}))
    assert [e.error.code for e in events] == ["rate_limit"]


# ----------------------------------------------------------------------------- protocol order (user report)


def test_stream_without_response_created_is_an_error_not_a_success(oar):
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{}", "status": "completed"}
    events = collect(oar, sse(added(0, {**call, "arguments": ""}), args_delta("fc_1", 0, "{}"), done(0, call), completed([call])))
    assert sum(is_terminal(e) for e in events) == 1
    assert isinstance(events[-1], StreamError) and not any(isinstance(e, StreamDone) for e in events)
    assert events[-1].error.code == "provider_error"
    assert events[-1].error.message == "OpenAI Responses stream sent response.output_item.added before response.created"


def test_completed_alone_without_response_created_is_an_error(oar):
    events = collect(oar, sse(completed([])))
    assert isinstance(events[-1], StreamError) and events[-1].error.code == "provider_error"


def test_arguments_delta_before_its_output_item_added_is_an_error(oar):
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{}", "status": "completed"}
    events = collect(oar, sse(created(), args_delta("fc_1", 0, "{}"), added(0, {**call, "arguments": ""}), done(0, call), completed([call])))
    assert sum(is_terminal(e) for e in events) == 1
    assert isinstance(events[-1], StreamError) and not any(isinstance(e, StreamDone) for e in events)
    assert events[-1].error.code == "provider_error"
    assert events[-1].error.message == "OpenAI Responses stream sent function_call_arguments.delta before its output_item.added"
