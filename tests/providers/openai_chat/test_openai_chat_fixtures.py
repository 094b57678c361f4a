"""Golden tests on every real Chat-wire fixture: snapshots, round trips, streams, purity."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from _openai_chat_support import (
    dialect_of,
    fixture_files,
    join_stream,
    load,
    norm_request,
    norm_response,
    sse_events,
)

from interlingua.codec import to_builtins
from interlingua.items import Transcript
from interlingua.providers.openai_chat import OpenAIChatMapper
from interlingua.streaming import StreamDone, StreamError, collect, is_terminal

REQUESTS = fixture_files(".request.json")
RESPONSES = fixture_files(".response.json")
STREAMS = fixture_files(".sse")


def _id(path: Path) -> str:
    return path.name


def test_fixture_lists_are_complete() -> None:
    # Guards against a glob silently matching nothing.
    assert len(REQUESTS) == 7 and len(RESPONSES) == 9 and len(STREAMS) == 4


@pytest.mark.parametrize("path", REQUESTS, ids=_id)
def test_request_decodes_to_snapshot(path: Path, snapshot) -> None:
    conversion = OpenAIChatMapper(dialect_of(path)).decode_request(load(path))
    assert isinstance(conversion.value, Transcript)
    assert {"transcript": to_builtins(conversion.value), "report": conversion.report.lines()} == snapshot


@pytest.mark.parametrize("path", REQUESTS, ids=_id)
def test_request_round_trip(path: Path) -> None:
    body = load(path)
    mapper = OpenAIChatMapper(dialect_of(path))
    transcript = mapper.decode_request(body).value
    encoded = mapper.encode_request(transcript, model=body["model"])
    assert not encoded.report.entries
    assert norm_request(encoded.value) == norm_request(body)


@pytest.mark.parametrize("path", RESPONSES, ids=_id)
def test_response_decodes_to_snapshot(path: Path, snapshot) -> None:
    conversion = OpenAIChatMapper(dialect_of(path)).decode_response(load(path))
    r = conversion.value
    assert {
        "items": to_builtins(r.items),
        "usage": to_builtins(r.usage),
        "stop_reason": to_builtins(r.stop_reason),
        "model": r.model,
        "response_id": r.response_id,
        "report": conversion.report.lines(),
    } == snapshot


@pytest.mark.parametrize("path", RESPONSES, ids=_id)
def test_response_round_trip(path: Path) -> None:
    body = load(path)
    mapper = OpenAIChatMapper(dialect_of(path))
    response = mapper.decode_response(body).value
    encoded = mapper.encode_response(response)
    assert not encoded.report.entries
    assert norm_response(encoded.value) == norm_response(body)


@pytest.mark.parametrize("path", RESPONSES, ids=_id)
def test_response_read_by_default_dialect_keeps_the_hosts_reasoning(path: Path) -> None:
    """Read by the default dialect, a compatible host's reasoning fields go back into its response
    as read (issue 13), and are left out of a request for another model with a report."""
    body = load(path)
    response = OpenAIChatMapper().decode_response(body).value
    encoded = OpenAIChatMapper().encode_response(response, model=body.get("model"))
    fields = [k for k in ("reasoning", "reasoning_content", "reasoning_details") if body["choices"][0]["message"].get(k)]
    assert not encoded.report.entries
    for k in fields:
        assert encoded.value["choices"][0]["message"][k] == body["choices"][0]["message"][k]
    transcript = Transcript(schema_version="1.0", items=list(response.items))
    request = OpenAIChatMapper().encode_request(transcript, model="gpt-4.1")
    assert not any(k in m for m in request.value["messages"] for k in fields)
    assert bool([e for e in request.report if e.item_type == "reasoning"]) == bool(fields)


@pytest.mark.parametrize("path", REQUESTS + RESPONSES, ids=_id)
def test_kind_of(path: Path) -> None:
    expected = "request" if path.name.endswith(".request.json") else "response"
    assert OpenAIChatMapper().kind_of(load(path)) == expected


@pytest.mark.parametrize("path", REQUESTS + RESPONSES, ids=_id)
def test_inputs_not_mutated(path: Path) -> None:
    body = load(path)
    before = copy.deepcopy(body)
    mapper = OpenAIChatMapper(dialect_of(path))
    if path.name.endswith(".request.json"):
        transcript = mapper.decode_request(body).value
        snap = to_builtins(transcript)
        mapper.encode_request(transcript)
        assert to_builtins(transcript) == snap
    else:
        response = mapper.decode_response(body).value
        snap = to_builtins(response.items)
        mapper.encode_response(response)
        assert to_builtins(response.items) == snap
    assert body == before


@pytest.mark.parametrize("path", STREAMS, ids=_id)
def test_stream_accumulates_to_snapshot(path: Path, snapshot) -> None:
    events = collect(OpenAIChatMapper(), path.read_bytes())
    assert [is_terminal(e) for e in events].count(True) == 1
    done = events[-1]
    assert isinstance(done, StreamDone)
    kinds = [type(e).__name__ for e in events]
    assert {
        "events": sorted(set(kinds)),
        "items": to_builtins(done.response.items),
        "usage": to_builtins(done.response.usage),
        "stop_reason": to_builtins(done.response.stop_reason),
    } == snapshot


@pytest.mark.parametrize("path", STREAMS, ids=_id)
def test_stream_equals_decoded_equivalent_response(path: Path) -> None:
    raw = path.read_bytes()
    done = collect(OpenAIChatMapper(), raw)[-1]
    assert isinstance(done, StreamDone)
    expected = OpenAIChatMapper().decode_response(join_stream(raw)).value
    assert to_builtins(done.response.items) == to_builtins(expected.items)
    assert done.response.usage == expected.usage
    assert done.response.stop_reason == expected.stop_reason
    assert (done.response.model, done.response.response_id) == (expected.model, expected.response_id)


@pytest.mark.parametrize("path", STREAMS, ids=_id)
def test_stream_tool_call_events_match_final_items(path: Path) -> None:
    events = collect(OpenAIChatMapper(), path.read_bytes())
    completed = [e.item for e in events if type(e).__name__ == "ToolCallComplete"]
    final = [it for it in events[-1].response.items if type(it).__name__ == "ToolCallItem"]
    assert completed == final


@pytest.mark.parametrize("path", STREAMS, ids=_id)
def test_stream_cut_at_every_event_boundary_is_truncated(path: Path) -> None:
    events = sse_events(path.read_bytes())
    assert events[-1].strip() == b"data: [DONE]"
    for cut in range(len(events)):  # every prefix that stops before [DONE]
        out = collect(OpenAIChatMapper(), b"".join(events[:cut]))
        assert [is_terminal(e) for e in out].count(True) == 1, cut
        assert isinstance(out[-1], StreamError), cut
        assert out[-1].error.code == "truncated"


@pytest.mark.parametrize("path", STREAMS, ids=_id)
def test_stream_in_small_chunks_gives_same_result(path: Path) -> None:
    raw = path.read_bytes()
    whole = collect(OpenAIChatMapper(), raw)
    pieces = collect(OpenAIChatMapper(), [raw[i : i + 7] for i in range(0, len(raw), 7)])
    assert [type(e) for e in pieces] == [type(e) for e in whole]
    assert to_builtins(pieces[-1].response.items) == to_builtins(whole[-1].response.items)
