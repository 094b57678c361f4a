"""Issue 13: a report of a join names where it happened.

* Turn joins (Gemini, Ollama): a flat source's next call joins the model turn / assistant message
  holding the calls before it; the entry carries the source item's index and names the output
  content / message (and the Gemini part) the joined content starts at. Real case: OpenAI Responses
  requests with two consecutive ``function_call`` items (pydantic-ai cassettes).
* Gemini stream joins: text deltas of one kind are joined into one part; a field beside ``text`` on
  a joined delta, and candidates after the first, are reported with the chunk and part index and a
  pointer into the stream read as an array of events.
* Ollama stream joins: the lines' messages are joined into one; a message field beside the joined ones
  goes onto the final message, reported with the line when it was not on the first line or differs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from interlingua.items import ToolCallItem
from interlingua.mapping import get_mapper
from interlingua.streaming import StreamDone, iter_stream

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
RESPONSES_PARALLEL = [
    "openai_responses/pai_openai_responses_model_retry.1.request.json",
    "openai_responses/pai_deepseek_responses_replay_interleaved_settled_function_calls.0.request.json",
]


def _transcript(name: str) -> Any:
    return get_mapper("openai-responses").decode_request(json.loads((REAL / name).read_text(encoding="utf-8"))).value


@pytest.mark.parametrize("name", RESPONSES_PARALLEL)
def test_gemini_turn_join_names_the_item_and_the_part(name: str) -> None:
    t = _transcript(name)
    out = get_mapper("gemini").encode_request(t, policy="drop")
    joins = [e for e in out.report if "joined to the function call turn" in e.reason]
    assert joins, out.report.lines()
    for e in joins:
        item = t.items[e.index]
        assert isinstance(item, ToolCallItem)
        c, p = map(int, re.search(r"/contents/(\d+)/parts/(\d+)", e.reason).groups())
        assert out.value["contents"][c]["parts"][p]["functionCall"]["name"] == item.name


@pytest.mark.parametrize("name", RESPONSES_PARALLEL)
def test_ollama_turn_join_names_the_item_and_the_message(name: str) -> None:
    t = _transcript(name)
    out = get_mapper("ollama").encode_request(t, policy="drop")
    joins = [e for e in out.report if "joined to the assistant message with tool calls" in e.reason]
    assert joins, out.report.lines()
    for e in joins:
        item = t.items[e.index]
        assert isinstance(item, ToolCallItem)
        (m,) = map(int, re.search(r"/messages/(\d+)", e.reason).groups())
        assert item.name in [c["function"]["name"] for c in out.value["messages"][m]["tool_calls"]]


def _sse(*chunks: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)


def _done(data: bytes) -> StreamDone:
    (done,) = [e for e in iter_stream(get_mapper("gemini"), data) if isinstance(e, StreamDone)]
    return done


def _text(*parts: dict[str, Any], finish: bool = False) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        cand["finishReason"] = "STOP"
    return {"candidates": [cand], "modelVersion": "gemini-2.5-flash"}


def test_gemini_stream_join_of_a_delta_with_an_extra_field_is_reported_with_its_place() -> None:
    data = _sse(_text({"text": "Hel"}), _text({"text": "lo", "partMetadata": {"k": 1}}), _text({"text": "!"}, finish=True))
    done = _done(data)
    assert [i.text for i in done.response.items] == ["Hello!"]
    (entry,) = done.report
    assert entry.action == "changed" and entry.pointer == "/1/candidates/0/content/parts/0/partMetadata"
    assert "stream chunk 1 part 0" in entry.reason


def test_gemini_stream_join_keeps_the_first_of_two_values_and_says_so() -> None:
    data = _sse(_text({"text": "a", "partMetadata": 1}), _text({"text": "b"}, {"text": "c", "partMetadata": 2}, finish=True))
    done = _done(data)
    assert [i.text for i in done.response.items] == ["abc"]
    assert [(e.action, e.pointer) for e in done.report] == [("dropped", "/1/candidates/0/content/parts/1/partMetadata")]


def test_gemini_stream_extra_candidates_reported_with_the_chunk() -> None:
    chunk = _text({"text": "a"}, finish=True)
    chunk["candidates"].append({"content": {"role": "model", "parts": [{"text": "b"}]}, "index": 1})
    done = _done(_sse(chunk))
    assert [(e.action, e.pointer) for e in done.report] == [("dropped", "/0/candidates")]


def test_real_gemini_streams_join_without_a_report() -> None:
    for path in sorted((REAL / "gemini").glob("*.response.sse")):
        done = _done(path.read_bytes())
        assert not done.report, (path.name, done.report.lines())


def _ollama_done(lines: list[dict[str, Any]]) -> StreamDone:
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    (done,) = [e for e in iter_stream(get_mapper("ollama"), data) if isinstance(e, StreamDone)]
    return done


def test_ollama_stream_join_reports_message_fields_with_the_line() -> None:
    """The docs' text stream (ollama_docs.chat_stream_text.response.ndjson shape) with a message field on
    later lines: it goes onto the final message, and the join is reported with the line."""
    base = {"model": "llama3.2", "created_at": "2023-08-04T08:52:19.385406455-07:00"}
    lines = [
        {**base, "message": {"role": "assistant", "content": "The"}, "done": False},
        {**base, "message": {"role": "assistant", "content": " sky", "annotations": [1]}, "done": False},
        {**base, "message": {"role": "assistant", "content": " is", "annotations": [2]}, "done": False},
        {**base, "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop", "eval_count": 3},
    ]
    done = _ollama_done(lines)
    assert [e.pointer for e in done.report] == ["/1/message/annotations", "/2/message/annotations"]
    assert [e.action for e in done.report] == ["changed", "dropped"]
    back = get_mapper("ollama").encode_response(done.response).value
    assert back["message"] == {"role": "assistant", "content": "The sky is", "annotations": [1]}


def test_real_ollama_streams_join_without_a_report() -> None:
    for path in sorted((REAL / "ollama").glob("ollama_docs.chat_stream_*.ndjson")):
        data = path.read_bytes()
        (done,) = [e for e in iter_stream(get_mapper("ollama"), data) if isinstance(e, StreamDone)]
        assert not done.report, (path.name, done.report.lines())
