"""Golden tests on every real OpenAI Responses payload in tests/fixtures/real/openai_responses/.

Requests and responses round-trip (provider -> canonical -> provider) up to the representation
choices listed in conftest.REPRESENTATION_CHOICES; canonical forms are syrupy snapshots; streams
accumulate to what decode_response gives for the final response object and end with exactly one
terminal event; a stream cut anywhere before ``response.completed`` is ``truncated``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import msgspec
import pytest
import yaml

from interlingua.codec import to_builtins
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

DIR = Path(__file__).parents[2] / "fixtures" / "real" / "openai_responses"
REQUESTS = sorted(p.name for p in DIR.glob("*.request.json"))
RESPONSES = sorted(p.name for p in DIR.glob("*.response.json"))
STREAMS = sorted(p.name for p in DIR.glob("*.response.sse"))
CASSETTES = sorted(p.name for p in DIR.glob("*.yaml"))


def test_every_fixture_file_is_covered():
    covered = set(REQUESTS) | set(RESPONSES) | set(STREAMS) | set(CASSETTES)
    assert covered == {p.name for p in DIR.iterdir()}
    assert REQUESTS and RESPONSES and STREAMS and CASSETTES


def _load(name: str):
    return json.loads((DIR / name).read_text(encoding="utf-8"))


def _events(raw: bytes) -> list[bytes]:
    """The SSE events of a stream, each with its terminating blank line."""
    return [e + b"\n\n" for e in raw.split(b"\n\n") if e.strip()]


# --------------------------------------------------------------------------- requests


@pytest.mark.parametrize("name", REQUESTS)
def test_request_round_trip(name, oar, wire, snapshot):
    body = _load(name)
    before = copy.deepcopy(body)
    assert oar.kind_of(body) == "request"
    decoded = oar.decode_request(body)
    # Request settings are kept in the transcript's settings (issue 12): nothing is reported.
    assert decoded.report.entries == []
    assert decoded.value.settings.model == body["model"]
    assert to_builtins(decoded.value) == snapshot
    encoded = oar.encode_request(decoded.value, model=body["model"])
    assert encoded.report.entries == []
    assert encoded.value["model"] == body["model"]
    assert wire.request(encoded.value) == wire.request(body)
    settings = [k for k in body if k not in ("instructions", "input", "tools")]
    assert {k: encoded.value.get(k) for k in settings} == {k: body[k] for k in settings}
    assert body == before


@pytest.mark.parametrize("name", REQUESTS)
def test_request_items_survive_a_second_trip(name, oar):
    transcript = oar.decode_request(_load(name)).value
    again = oar.decode_request(oar.encode_request(transcript, model=transcript.settings.model).value).value
    assert to_builtins(again) == to_builtins(transcript)


def test_replayed_reasoning_and_call_are_byte_identical(oar):
    body = _load("pai_openai_responses_thinking_with_tool_calls.1.request.json")
    encoded = oar.encode_request(oar.decode_request(body).value).value
    original = [i for i in body["input"] if i.get("type") in ("reasoning", "function_call", "function_call_output")]
    replayed = [i for i in encoded["input"] if i.get("type") in ("reasoning", "function_call", "function_call_output")]
    assert json.dumps(replayed, sort_keys=True) == json.dumps(original, sort_keys=True)
    assert replayed[0]["encrypted_content"] == original[0]["encrypted_content"]
    assert [i["type"] for i in replayed] == ["reasoning", "function_call", "function_call_output"]


# --------------------------------------------------------------------------- responses


@pytest.mark.parametrize("name", RESPONSES)
def test_response_round_trip(name, oar, wire, snapshot):
    body = _load(name)
    before = copy.deepcopy(body)
    assert oar.kind_of(body) == "response"
    decoded = oar.decode_response(body)
    assert decoded.report.entries == []
    response = decoded.value
    assert to_builtins(response.to_transcript()) == snapshot
    encoded = oar.encode_response(response)
    assert encoded.report.entries == []
    assert wire.response(encoded.value) == wire.response(body)
    assert body == before


def test_response_output_replays_as_the_next_request_input(oar):
    """Turn 0's output, encoded as request input, equals what the client sent in turn 1."""
    output = oar.decode_response(_load("pai_openai_responses_thinking_with_tool_calls.0.response.json")).value.items
    request = _load("pai_openai_responses_thinking_with_tool_calls.1.request.json")
    from interlingua.items import Transcript

    encoded = oar.encode_request(Transcript(schema_version="1.0", items=output)).value["input"]
    sent = [i for i in request["input"] if i.get("type") in ("reasoning", "function_call")]
    assert encoded == sent


# --------------------------------------------------------------------------- streams


def _completed_response(raw: bytes) -> dict:
    for event in _events(raw):
        for line in event.decode().splitlines():
            if line.startswith("data:"):
                data = json.loads(line[5:])
                if data.get("type") == "response.completed":
                    return data["response"]
    raise AssertionError("no response.completed")


def _summary(events) -> list:
    out = []
    for ev in events:
        if isinstance(ev, (TextDelta, ReasoningDelta, RefusalDelta)):
            out.append([type(ev).__name__, ev.text])
        elif isinstance(ev, ToolCallComplete):
            out.append(["ToolCallComplete", to_builtins(ev.item)])
        elif isinstance(ev, UsageUpdate):
            out.append(["UsageUpdate", to_builtins(ev.usage)])
        elif isinstance(ev, StreamDone):
            out.append(["StreamDone", to_builtins(ev.response.to_transcript())])
        else:
            out.append(["StreamError", to_builtins(ev.error)])
    return out


@pytest.mark.parametrize("name", STREAMS)
def test_stream_accumulates_to_decode_response(name, oar, snapshot):
    raw = (DIR / name).read_bytes()
    events = collect(oar, raw)
    assert sum(is_terminal(e) for e in events) == 1 and isinstance(events[-1], StreamDone)
    assert _summary(events) == snapshot
    done = events[-1].response
    expected = oar.decode_response(_completed_response(raw)).value
    assert to_builtins(done.items) == to_builtins(expected.items)
    assert done.usage == expected.usage and done.stop_reason == expected.stop_reason
    assert done.response_id == expected.response_id and done.model == expected.model
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert text == "".join(i.text for i in done.items if getattr(i, "text", None) is not None and type(i).__name__ == "TextItem")
    calls = [e.item for e in events if isinstance(e, ToolCallComplete)]
    assert to_builtins(calls) == to_builtins([i for i in done.items if type(i).__name__ == "ToolCallItem"])


@pytest.mark.parametrize("name", STREAMS)
def test_stream_items_do_not_depend_on_the_completed_output(name, oar):
    """With the final response's ``output`` emptied, the streamed items give the same result."""
    raw = (DIR / name).read_bytes()
    events = _events(raw)
    stripped = []
    for event in events:
        text = event.decode()
        if "response.completed" in text.split("\n", 1)[0]:
            head, data = text.split("\ndata: ", 1)
            payload = json.loads(data)
            payload["response"]["output"] = []
            text = f"{head}\ndata: {json.dumps(payload)}\n\n"
        stripped.append(text.encode())
    full = collect(oar, raw)[-1].response
    rebuilt = collect(oar, b"".join(stripped))[-1].response
    assert to_builtins(rebuilt.items) == to_builtins(full.items)


@pytest.mark.parametrize("name", STREAMS)
def test_stream_cut_before_completion_is_truncated(name, oar):
    raw = (DIR / name).read_bytes()
    events = _events(raw)
    assert b"response.completed" in events[-1]
    for cut in range(len(events)):  # every boundary before the completion event
        prefix = b"".join(events[:cut])
        result = collect(oar, prefix)
        assert sum(is_terminal(e) for e in result) == 1
        assert isinstance(result[-1], StreamError), cut
        assert result[-1].error.code == "truncated"
        assert not any(isinstance(e, StreamDone) for e in result)
        # a cut inside the next event (half its bytes) is still truncated
        half = collect(oar, prefix + events[cut][: len(events[cut]) // 2])
        assert isinstance(half[-1], StreamError) and half[-1].error.code == "truncated"


def test_truncated_stream_keeps_partial_text(oar):
    raw = (DIR / "pai_openai_responses_stream.1.response.sse").read_bytes()
    events = _events(raw)
    cut = next(k for k, e in enumerate(events) if b"output_text.done" in e)
    result = collect(oar, b"".join(events[:cut]))
    partial = result[-1].partial
    assert [i.text for i in partial.items] == ["The capital of France is Paris."]


def test_truncated_stream_keeps_partial_arguments_raw(oar):
    raw = (DIR / "pai_openai_responses_stream.0.response.sse").read_bytes()
    events = _events(raw)
    cut = next(k for k, e in enumerate(events) if b"function_call_arguments.delta" in e) + 2
    partial = collect(oar, b"".join(events[:cut]))[-1].partial
    (call,) = partial.items
    assert call.arguments_raw == '{"country'
    assert call.arguments is msgspec.UNSET and call.arguments_error


# --------------------------------------------------------------------------- cassettes


@pytest.mark.parametrize("name", CASSETTES)
def test_cassette_interactions_match_the_split_files(name, oar):
    """Each cassette interaction is the request/response pair split into the .json/.sse files."""
    stem = name[: -len(".yaml")]
    cassette = yaml.safe_load((DIR / name).read_text(encoding="utf-8"))
    for k, interaction in enumerate(cassette["interactions"]):
        request = interaction["request"]["parsed_body"]
        assert request == _load(f"{stem}.{k}.request.json")
        assert oar.kind_of(request) == "request"
        response = interaction["response"]
        if "parsed_body" in response:
            assert response["parsed_body"] == _load(f"{stem}.{k}.response.json")
            assert oar.kind_of(response["parsed_body"]) == "response"
        else:
            assert response["body"]["string"].encode() == (DIR / f"{stem}.{k}.response.sse").read_bytes()


@pytest.mark.parametrize("name", STREAMS)
def test_streamed_final_response_round_trips(name, oar, wire):
    """The Response object carried by ``response.completed`` round-trips like a non-streamed one."""
    body = _completed_response((DIR / name).read_bytes())
    decoded = oar.decode_response(body)
    assert decoded.report.entries == []
    assert wire.response(oar.encode_response(decoded.value).value) == wire.response(body)
