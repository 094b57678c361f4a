"""Cohere v2 on its real recordings (pydantic-ai's cassettes): round trips, streams, cross-provider."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua import convert_request
from interlingua.items import ReasoningItem, TextItem, ToolCallItem
from interlingua.mapping import get_mapper
from interlingua.streaming import StreamDone, StreamError, ToolCallComplete, collect

from ._sse import sse_of

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real" / "cohere"
REQUESTS = sorted(REAL.glob("*.request.json"))
RESPONSES = sorted(REAL.glob("*.response.json"))
mapper = get_mapper("cohere")


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_recordings_are_all_here() -> None:
    index = load(REAL / "index.json")
    assert {f["file"] for f in index["files"]} == {p.name.split(".request")[0] for p in REQUESTS}
    assert len(REQUESTS) == len(RESPONSES) == 13


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_request_round_trip_is_lossless(path: Path) -> None:
    body = load(path)
    decoded = mapper.decode_request(body)
    again = mapper.encode_request(decoded.value, model=body["model"])
    assert again.value == body
    assert not decoded.report and not again.report


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.name)
def test_response_round_trip_is_lossless(path: Path) -> None:
    body = load(path)
    decoded = mapper.decode_response(body)
    again = mapper.encode_response(decoded.value)
    assert again.value == body
    assert not decoded.report and not again.report


def test_the_real_cases_decode_to_what_they_say() -> None:
    plan = mapper.decode_response(load(REAL / "pai_test_tool_choice_matrix_auto_cohere.0.response.json")).value
    assert [type(i) for i in plan.items] == [TextItem, ToolCallItem]
    assert plan.items[0].text == "I will use the 'get_weather' tool to find the weather in Paris."
    assert plan.items[1].arguments == {"city": "Paris"} and plan.items[1].id == "get_weather_9gpb31r7h7mj"
    assert plan.stop_reason.reason == "tool_use" and plan.stop_reason.raw == "TOOL_CALL"
    assert (plan.usage.input_tokens, plan.usage.output_tokens, plan.usage.cache_read_tokens) == (1441, 54, 144)
    thinking = mapper.decode_request(load(REAL / "pai_test_cohere_model_thinking_part.1.request.json")).value
    assert [type(i) for i in thinking.items] == [TextItem, ReasoningItem, TextItem, TextItem]
    assert thinking.items[1].opaque is msgspec.UNSET and thinking.items[1].text.startswith("**Exploring street crossing safety**")
    required = mapper.decode_request(load(REAL / "pai_test_tool_choice_matrix_required_cohere.0.request.json")).value
    assert required.tool_choice.mode == "required"
    stop = mapper.decode_request(load(REAL / "pai_test_stop_settings_cohere.0.request.json")).value
    assert stop.settings.stop == ["Paris"] and stop.settings.model == "command-r-plus" and stop.settings.stream is False


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.name)
def test_stream_of_the_response_accumulates_to_the_same_items(path: Path) -> None:
    body = load(path)
    expected = mapper.decode_response(body).value
    events = collect(mapper, sse_of(body))
    done = events[-1]
    assert isinstance(done, StreamDone), done
    got = done.response
    assert got.items == expected.items
    assert [e.item for e in events if isinstance(e, ToolCallComplete)] == [i for i in expected.items if isinstance(i, ToolCallItem)]
    assert (got.usage, got.stop_reason, got.response_id) == (expected.usage, expected.stop_reason, expected.response_id)


@settings(max_examples=60, deadline=None)
@given(path=st.sampled_from(RESPONSES), cuts=st.lists(st.integers(0, 5000), max_size=6))
def test_any_split_of_the_deltas_gives_the_same_items(path: Path, cuts: list[int]) -> None:
    body = load(path)
    done = collect(mapper, sse_of(body, cuts))[-1]
    assert isinstance(done, StreamDone)
    assert done.response.items == mapper.decode_response(body).value.items


def test_a_stream_cut_before_message_end_is_truncated_with_the_partial_text() -> None:
    body = load(REAL / "pai_test_request_simple_success_with_vcr.0.response.json")
    cut = sse_of(body).split(b"event: message-end")[0]
    last = collect(mapper, cut)[-1]
    assert isinstance(last, StreamError) and last.error.code == "truncated"
    assert [i.text for i in last.partial.items] == ["Hello! How can I assist you today?"]


@pytest.mark.parametrize(
    ("event", "pointer"),
    [
        ('{"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": 5}}}}', "/1/delta/message/content"),
        ('{"type": "tool-call-start", "index": "0"}', "/1/index"),
        ('{"index": 0}', "/1"),
    ],
)
def test_a_malformed_event_ends_the_stream_with_a_pointer(event: str, pointer: str) -> None:
    data = b'event: message-start\ndata: {"type": "message-start", "id": "x"}\n\n' + f"data: {event}\n\n".encode()
    last = collect(mapper, data)[-1]
    assert isinstance(last, StreamError) and last.error.code == "provider_error"
    assert last.pointer is not None and last.pointer.startswith(pointer)


@pytest.mark.parametrize("target", ["openai-chat", "openai-responses", "anthropic", "gemini", "ollama"])
@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_to_every_other_target_every_text_and_call_arrives_or_is_reported(path: Path, target: str) -> None:
    body = load(path)
    conv = convert_request(body, source="cohere", target=target, policy="drop", model="m")
    out = json.dumps(conv.value, ensure_ascii=False)
    reported = " ".join(str(e) for e in conv.report)
    for msg in body["messages"]:
        content = msg.get("content")
        texts = [content] if isinstance(content, str) else [p.get("text") or p.get("thinking") for p in content or ()]
        texts += [msg["tool_plan"]] if msg.get("tool_plan") else []
        for text in texts:
            assert json.dumps(text, ensure_ascii=False)[1:-1] in out or "reasoning" in reported, (text[:60], reported)
        for call in msg.get("tool_calls") or ():
            assert call["function"]["name"] in out


# --------------------------------------------------------------------------- hostile canonical input


@pytest.mark.parametrize("value", [None, 5, "s", [1], True])
def test_own_provider_data_that_is_no_object_is_reported_not_a_traceback(value: Any) -> None:
    """``provider_data`` holds any JSON: a ``cohere`` entry that is no object on a citation annotation
    or a tool definition was a TypeError (``'float' object is not iterable``) in ``convert --to cohere``."""
    response = mapper.decode_response(load(REAL / "pai_test_tool_choice_matrix_auto_cohere.1.response.json")).value
    text = next(i for i in response.items if isinstance(i, TextItem) and i.annotations is not msgspec.UNSET)
    ann = msgspec.structs.replace(text.annotations[0], provider_data={"cohere": value})
    hostile = msgspec.structs.replace(text, annotations=[ann, *text.annotations[1:]])
    request = mapper.decode_request(load(REAL / "pai_test_tool_choice_matrix_auto_cohere.1.request.json")).value
    tools = [msgspec.structs.replace(t, provider_data={"cohere": value}) for t in request.tools]
    t = msgspec.structs.replace(request, items=[*request.items, hostile], tools=tools)
    out = mapper.encode_request(t, model="command-a-03-2025")
    assert out.value["messages"][-1]["citations"][0]["text"] == ann.cited_text
    assert all(set(tool) == {"type", "function"} for tool in out.value["tools"])
    if value is not None:
        drops = [e for e in out.report if e.action == "dropped" and "not an object" in e.reason]
        assert len(drops) == 1 + len(tools)
