"""bedrock-converse on the real Bedrock recordings (pydantic-ai cassettes, tests/fixtures/real/bedrock_converse)
and on every other provider's real requests converted to Converse.

Oracles: the recorded bodies themselves (decode -> encode gives them back, or the report names the
difference), the request a client sent next (a streamed assistant turn is replayed in it), and
botocore's own ``Converse`` request validation for every body the mapper writes.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from interlingua.errors import ConversionError, MalformedInputError
from interlingua.items import OpaqueReasoning, RawItem, ReasoningItem, TextItem, Transcript
from interlingua.mapping import available, get_mapper
from interlingua.providers.bedrock_converse import mapper
from interlingua.streaming.driver import iter_stream
from interlingua.streaming.events import RawEvent, StreamDone, StreamError, ToolCallComplete

from .test_bedrock_converse_property import validate

REAL = Path(__file__).parents[2] / "fixtures" / "real"
HERE = REAL / "bedrock_converse"
INDEX: dict[str, Any] = json.loads((HERE / "index.json").read_text())
REQUESTS = sorted(HERE.glob("*.request.json"))
RESPONSES = sorted(HERE.glob("*.response.json"))
STREAMS = sorted(HERE.glob("*.stream.ndjson"))


def _stem(path: Path) -> str:
    return path.name.split(".")[0]


def _load(path: Path) -> Any:
    return json.loads(path.read_text())


def _final(events: list[Any]) -> Any:
    assert sum(isinstance(e, (StreamDone, StreamError)) for e in events) == 1
    return events[-1]


def test_fixtures_present() -> None:
    assert len(REQUESTS) == 88 and len(RESPONSES) == 79 and len(STREAMS) == 9
    assert set(INDEX) == {_stem(p) for p in REQUESTS}


# --------------------------------------------------------------------------- requests


@pytest.mark.parametrize("path", REQUESTS, ids=_stem)
def test_request_round_trip_is_lossless(path: Path) -> None:
    body = _load(path)
    before = copy.deepcopy(body)
    model = INDEX[_stem(path)]["model"]
    decoded = mapper.decode_request(body)
    assert not decoded.report, decoded.report.lines()
    assert body == before
    encoded = mapper.encode_request(decoded.value, model=model)
    assert not encoded.report, encoded.report.lines()
    assert encoded.value == {"modelId": model, **body}
    validate(encoded.value)
    # without a model the body is the recorded one, and the report says the model is missing
    bare = mapper.encode_request(decoded.value)
    assert bare.value == body
    assert [e.pointer for e in bare.report] == ["/model"]


def test_recorded_shapes_are_modelled() -> None:
    """The real recordings exercise the canonical forms, not just raw passthrough."""
    kinds: dict[str, int] = {}
    for path in REQUESTS:
        for item in mapper.decode_request(_load(path)).value.items:
            key = type(item).__name__
            if getattr(item, "cache_breakpoint", None) not in (None, __import__("msgspec").UNSET):
                key += "+cache"
            kinds[key] = kinds.get(key, 0) + 1
    for kind in ("TextItem", "TextItem+cache", "ImageItem", "DocumentItem", "ToolCallItem", "ToolResultItem", "ReasoningItem", "RawItem"):
        assert kinds.get(kind, 0) > 0, kinds
    thinking = mapper.decode_request(_load(HERE / "pai_bedrock_model_thinking_part_anthropic_2.request.json")).value
    assert thinking.settings.reasoning.budget_tokens == 1024  # type: ignore[union-attr]
    guard = mapper.decode_request(_load(HERE / "pai_bedrock_model_guardrail_config.request.json")).value
    assert "guardrailConfig" in guard.settings.provider_data["bedrock-converse"]  # type: ignore[union-attr,index]


# --------------------------------------------------------------------------- responses


@pytest.mark.parametrize("path", RESPONSES, ids=_stem)
def test_response_round_trip_equal_or_reported(path: Path) -> None:
    body = _load(path)
    decoded = mapper.decode_response(body)
    reported = {e.pointer for e in decoded.report}
    assert reported <= {"/metrics", "/additionalModelResponseFields", "/trace", "/performanceConfig", "/serviceTier"}
    assert "/metrics" in reported
    encoded = mapper.encode_response(decoded.value)
    assert not encoded.report, encoded.report.lines()
    kept = {k: v for k, v in body.items() if f"/{k}" not in reported}
    assert {k: v for k, v in encoded.value.items() if f"/{k}" not in reported} == kept
    usage = decoded.value.usage
    assert usage is not None and usage.total_tokens == body["usage"]["totalTokens"]
    assert usage.input_tokens + usage.output_tokens == body["usage"]["totalTokens"]  # cache tokens counted as input


# --------------------------------------------------------------------------- streams


@pytest.mark.parametrize("path", STREAMS, ids=_stem)
def test_stream_accumulates_like_a_response(path: Path) -> None:
    events = list(iter_stream(mapper, path.read_bytes()))
    done = _final(events)
    assert isinstance(done, StreamDone), getattr(done, "error", None)
    response = done.response
    # the accumulated response, written as a Converse response and read back, is the same
    again = mapper.decode_response(mapper.encode_response(response).value).value
    assert again.items == response.items
    assert again.usage == response.usage and again.stop_reason == response.stop_reason
    calls = [e.item for e in events if isinstance(e, ToolCallComplete)]
    assert calls == [i for i in response.items if type(i).__name__ == "ToolCallItem"]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    last = lines[-1]
    assert response.usage is not None and response.usage.total_tokens == last["metadata"]["usage"]["totalTokens"]


def test_streamed_turn_is_the_turn_the_client_sent_back() -> None:
    """pydantic-ai replayed the streamed assistant turn in its next request: the accumulation must equal it."""
    done = _final(list(iter_stream(mapper, (HERE / "pai_bedrock_model_iter_stream_1.stream.ndjson").read_bytes())))
    assert isinstance(done, StreamDone)
    body = mapper.encode_response(done.response).value
    sent = _load(HERE / "pai_bedrock_model_iter_stream_2.request.json")["messages"][1]
    assert body["output"]["message"] == sent


def test_binary_event_stream_matches_the_ndjson_form() -> None:
    """The AWS event-stream frames (header ``:event-type`` + payload) give the same result as the one-member form."""
    from botocore.eventstream import EventStreamBuffer

    for path in STREAMS:
        buf = EventStreamBuffer()
        buf.add_data((HERE / path.name.replace(".ndjson", ".bin")).read_bytes())
        acc = mapper.accumulator()
        events = []
        for message in buf:
            events.extend(acc.feed(RawEvent(event=message.headers[":event-type"], data=message.payload.decode())))
        events.extend(acc.finish())
        ndjson = _final(list(iter_stream(mapper, path.read_bytes())))
        assert isinstance(_final(events), StreamDone)
        assert _final(events).response == ndjson.response


def test_stream_without_message_stop_is_truncated() -> None:
    lines = (HERE / "pai_bedrock_model_stream.stream.ndjson").read_text().splitlines()
    cut = [line for line in lines if "messageStop" not in line and "metadata" not in line]
    end = _final(list(iter_stream(mapper, ("\n".join(cut) + "\n").encode())))
    assert isinstance(end, StreamError) and end.error.code == "truncated"
    assert end.partial.items and isinstance(end.partial.items[0], TextItem)  # type: ignore[attr-defined]


def test_stream_cut_before_metadata_is_truncated() -> None:
    """``metadata`` (usage) always ends a ConverseStream; without it the stream lost its usage."""
    lines = (HERE / "pai_bedrock_model_stream.stream.ndjson").read_text().splitlines()
    assert "metadata" in lines[-1] and "messageStop" in lines[-2]
    end = _final(list(iter_stream(mapper, ("\n".join(lines[:-1]) + "\n").encode())))
    assert isinstance(end, StreamError) and end.error.code == "truncated" and "metadata" in end.error.message
    assert end.partial.stop_reason.raw == "end_turn"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "event, pointer",
    [
        ({"contentBlockDelta": {"contentBlockIndex": "0", "delta": {"text": "x"}}}, "/1/contentBlockDelta/contentBlockIndex"),
        ({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": 5}}}, "/1/contentBlockDelta/delta/text"),
        ({"messageStop": {}}, "/1/messageStop"),
        ({"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"name": "f"}}}}, "/1/contentBlockStart/start/toolUse"),
        ({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{}"}}}}, "/1/contentBlockDelta/delta/toolUse"),
        ({"a": {}, "b": {}}, "/1"),
        ([1, 2], "/1"),
    ],
)
def test_malformed_event_is_a_provider_error_with_a_pointer(event: Any, pointer: str) -> None:
    data = (json.dumps({"messageStart": {"role": "assistant"}}) + "\n" + json.dumps(event) + "\n").encode()
    end = _final(list(iter_stream(mapper, data)))
    assert isinstance(end, StreamError) and end.error.code == "provider_error"
    assert end.pointer is not None and end.pointer.startswith(pointer), end.pointer


@pytest.mark.parametrize(
    "lines, code",
    [
        ([{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "x"}}}], "provider_error"),  # before messageStart
        ([{"messageStart": {"role": "assistant"}}, {"messageStart": {"role": "assistant"}}], "provider_error"),
        ([{"messageStart": {"role": "assistant"}}, {"messageStop": {"stopReason": "end_turn"}}, {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "x"}}}], "provider_error"),
        ([{"messageStart": {"role": "assistant"}}, {"throttlingException": {"message": "slow down"}}], "rate_limit"),
        ([{"messageStart": {"role": "assistant"}}, {"modelStreamErrorException": {"message": "x"}}], "provider_error"),
    ],
)
def test_stream_order_and_exceptions(lines: list[Any], code: str) -> None:
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    end = _final(list(iter_stream(mapper, data)))
    assert isinstance(end, StreamError) and end.error.code == code
    assert "slow down" not in end.error.message  # upstream error text is not passed on


@pytest.mark.parametrize("delta", [{"citation": {"title": "t", "location": {"documentChar": {"start": 0, "end": 4}}}}, {"type": []}, {"image": {"p": 1}}])
def test_a_delta_the_accumulator_does_not_join_is_kept_beside_its_text(delta: dict[str, Any]) -> None:
    """``ContentBlockDelta`` also carries ``citation`` (and members this mapper does not model) in a block
    whose ``text`` deltas it joins: the text is kept and each such member becomes one ``raw`` item after it,
    its deltas in order (a mixed block once failed at the end of the stream, pointing at no event)."""
    lines = (HERE / "pai_bedrock_model_iter_stream_1.stream.ndjson").read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if '"text"' in line and "contentBlockDelta" in line)
    extra = json.dumps({"contentBlockDelta": {"contentBlockIndex": 0, "delta": delta}})
    mixed = [*lines[: first + 1], extra, *lines[first + 1 : first + 2], extra, *lines[first + 2 :]]
    plain = _final(list(iter_stream(mapper, ("\n".join(lines) + "\n").encode())))
    end = _final(list(iter_stream(mapper, ("\n".join(mixed) + "\n").encode())))
    assert isinstance(plain, StreamDone) and isinstance(end, StreamDone), end
    (key, value), = delta.items()
    assert end.response.items[0] == plain.response.items[0]
    raw = end.response.items[1]
    assert isinstance(raw, RawItem) and raw.value == {key: [value, value]}
    assert end.response.items[2:] == plain.response.items[1:]


def test_malformed_tool_input_keeps_its_text() -> None:
    lines = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t1", "name": "f"}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": '{"a": 1'}}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "tool_use"}},
        {"metadata": {"usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3}, "metrics": {"latencyMs": 1}}},
    ]
    end = _final(list(iter_stream(mapper, "".join(json.dumps(x) + "\n" for x in lines).encode())))
    assert isinstance(end, StreamDone)
    (call,) = end.response.items
    assert call.arguments_raw == '{"a": 1' and call.arguments_error  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "body, pointer",
    [
        ({"messages": {}}, "/messages"),
        ({"messages": [{"role": "tool", "content": []}]}, "/messages/0/role"),
        ({"messages": [{"role": "user", "content": [{"text": "a", "image": {}}]}]}, "/messages/0/content/0"),
        ({"messages": [{"role": "user", "content": [{"text": 1}]}]}, "/messages/0/content/0/text"),
        ({"messages": [{"role": "user", "content": [{"image": {"format": "png", "source": {"bytes": 3}}}]}]}, "/messages/0/content/0/image/source/bytes"),
        ({"messages": [{"role": "assistant", "content": [{"toolUse": {"name": "f", "input": {}}}]}]}, "/messages/0/content/0/toolUse/toolUseId"),
        ({"messages": [], "toolConfig": {"tools": [{"toolSpec": {"inputSchema": {}}}]}}, "/toolConfig/tools/0/toolSpec/name"),
        ({"messages": [], "inferenceConfig": []}, "/inferenceConfig"),
    ],
)
def test_bad_request_is_located(body: Any, pointer: str) -> None:
    with pytest.raises(MalformedInputError) as info:
        mapper.decode_request(body)
    assert info.value.pointer == pointer


def test_bad_response_is_located() -> None:
    with pytest.raises(MalformedInputError) as info:
        mapper.decode_response({"output": {"message": {"role": "assistant", "content": "hi"}}, "stopReason": "end_turn"})
    assert info.value.pointer == "/output/message/content"


def test_boto3_bytes_are_read_as_base64() -> None:
    body = {"messages": [{"role": "user", "content": [{"image": {"format": "png", "source": {"bytes": b"\x89PNG"}}}]}]}
    out = mapper.encode_request(mapper.decode_request(body).value, model="m").value
    assert out["messages"][0]["content"][0]["image"]["source"]["bytes"] == "iVBORw=="


# --------------------------------------------------------------------------- reasoning issuers


def test_bedrock_signatures_go_back_to_bedrock_only() -> None:
    transcript = mapper.decode_request(_load(HERE / "pai_bedrock_anthropic_tool_with_thinking_2.request.json")).value
    reasoning = [i for i in transcript.items if isinstance(i, ReasoningItem)]
    assert reasoning and all(r.opaque.issuer == "bedrock-converse" for r in reasoning)  # type: ignore[union-attr]
    anthropic = get_mapper("anthropic").encode_request(transcript, model="claude-sonnet-4-5", policy="drop")
    assert "thinking" not in json.dumps(anthropic.value["messages"])
    assert any(e.item_type == "reasoning" and e.action == "dropped" for e in anthropic.report)


def test_foreign_reasoning_is_not_sent_to_bedrock() -> None:
    items = [
        TextItem(text="hi", role="user"),
        ReasoningItem(text="thought", opaque=OpaqueReasoning(namespace="anthropic.signature", issuer="anthropic", value="sig")),
        ReasoningItem(text="loose thought"),
        TextItem(text="answer", role="assistant"),
    ]
    out = mapper.encode_request(Transcript(schema_version="1.0", items=items), model="m")
    assert out.value["messages"][1] == {"role": "assistant", "content": [{"text": "answer"}]}
    assert [e.index for e in out.report if e.item_type == "reasoning"] == [1, 2]


def test_url_image_follows_policy() -> None:
    from interlingua.items import ImageItem, UrlSource

    t = Transcript(schema_version="1.0", items=[ImageItem(source=UrlSource(url="https://x/a.png"), role="user")])
    with pytest.raises(ConversionError):
        mapper.encode_request(t, model="m")
    assert mapper.encode_request(t, model="m", policy="drop").value["messages"] == []
    degraded = mapper.encode_request(t, model="m", policy="degrade")
    assert degraded.value["messages"][0]["content"][0]["text"].startswith("[image omitted")


# --------------------------------------------------------------------------- every other provider's real requests


def _other_requests() -> list[tuple[str, Path]]:
    out = []
    for folder in sorted(p for p in REAL.iterdir() if p.is_dir() and p.name != "bedrock_converse"):
        name = {
            "openai_chat": "openai-chat", "openai_chat_extra": "openai-chat", "openai_compatible": "openai-chat",
            "openai_responses": "openai-responses", "openrouter": "openai-chat",
        }.get(folder.name, folder.name)
        if name not in available():
            continue  # a folder of mixed formats (e.g. corpus copies): covered by their own tests
        for path in sorted(folder.glob("*.json")):
            body = _load(path)
            if isinstance(body, dict) and get_mapper(name).kind_of(body) == "request":
                out.append((name, path))
    return out


OTHER = _other_requests()


def test_other_requests_found() -> None:
    assert len({name for name, _ in OTHER}) >= 4 and len(OTHER) >= 20


@pytest.mark.parametrize("policy", ["drop", "degrade"])
@pytest.mark.parametrize("source, path", OTHER, ids=[f"{n}:{p.name}" for n, p in OTHER])
def test_other_providers_requests_convert_to_valid_converse(source: str, path: Path, policy: str) -> None:
    transcript = get_mapper(source).decode_request(_load(path)).value
    out = mapper.encode_request(transcript, model="us.anthropic.claude-sonnet-4-5-20250929-v1:0", policy=policy)  # type: ignore[arg-type]
    validate(out.value)
    roles = [m["role"] for m in out.value["messages"]]
    assert all(a != b for a, b in zip(roles, roles[1:])), roles  # turns alternate
    assert all(m["content"] for m in out.value["messages"])
    back = mapper.decode_request(out.value)
    assert not back.report


@pytest.mark.parametrize(
    "body",
    [
        {"messages": [{"role": "user", "content": [{"text": 1}]}]},
        {"messages": [{"role": "user", "content": [{"text": "a", "image": {"format": "png", "source": {"bytes": "AA=="}}}]}]},
        {"messages": [{"role": "user", "content": [{"image": {"format": "png"}}]}]},
        {"messages": [], "inferenceConfig": {"max_tokens": 5}},
        {"messages": [{"role": "user", "content": [{"type": "text", "text": "anthropic spelling"}]}]},
    ],
)
def test_the_botocore_oracle_rejects_bad_bodies(body: dict[str, Any]) -> None:
    with pytest.raises(AssertionError):
        validate(body)


def test_result_without_its_call_follows_policy() -> None:
    from interlingua.items import ToolResultItem

    t = Transcript(schema_version="1.0", items=[TextItem(text="hi", role="user"), ToolResultItem(call_id="call_9", content=[TextItem(text="42")])])
    with pytest.raises(ConversionError):
        mapper.encode_request(t, model="m")
    dropped = mapper.encode_request(t, model="m", policy="drop")
    assert "toolResult" not in json.dumps(dropped.value) and [e.item_type for e in dropped.report] == ["tool_result"]
    degraded = mapper.encode_request(t, model="m", policy="degrade").value
    assert degraded["messages"][0]["content"][1]["text"].startswith("[tool_result omitted")
