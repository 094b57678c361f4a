"""Golden round trips and snapshots on every real Anthropic fixture; stream accumulation on every recorded stream."""

from __future__ import annotations

import copy
import json

import pytest

from interlingua.codec import to_builtins
from interlingua.items import RawItem, RefusalItem, ToolCallItem
from interlingua.mapping import Mapper, get_mapper
from interlingua.providers.anthropic import mapper
from interlingua.streaming import StreamDone, StreamError, ToolCallComplete, collect, is_terminal

from ._sse import REAL, assemble, complete, encode_events, read, split_events

REQUESTS = sorted(p.name for p in REAL.glob("*.request.json"))
RESPONSES = sorted(p.name for p in REAL.glob("*.response.json"))
STREAMS = sorted(p.name for p in REAL.glob("*.sse"))

CONVERSATION = ("messages", "system", "tools", "tool_choice")


def load(name: str):
    return json.loads((REAL / name).read_text(encoding="utf-8"))


def test_fixture_lists_are_not_empty():
    assert len(REQUESTS) == 4 and len(RESPONSES) == 2 and len(STREAMS) == 7


def test_mapper_protocol_and_registry():
    assert isinstance(mapper, Mapper)
    assert get_mapper("anthropic") is mapper
    assert (mapper.name, mapper.issuer, mapper.framing) == ("anthropic", "anthropic", "sse")
    assert mapper.id_rule is not None and mapper.id_rule.prefix == "toolu_"
    assert mapper.id_rule.accepts("toolu_01A-b_c") and not mapper.id_rule.accepts("functions.write_todos:0")


@pytest.mark.parametrize("name", REQUESTS)
def test_request_round_trip(name, snapshot):
    body = load(name)
    before = copy.deepcopy(body)
    assert mapper.kind_of(body) == "request"
    conv = mapper.decode_request(body)
    assert body == before, "decode_request mutated its input"
    # Every top-level setting is held by the transcript's settings: nothing is reported.
    assert not conv.report, list(conv.report)
    settings = conv.value.settings
    assert settings.model == body["model"] and settings.max_output_tokens == body["max_tokens"] and settings.stream == body["stream"]
    if "thinking" in body:
        assert settings.reasoning.budget_tokens == body["thinking"]["budget_tokens"]
    assert to_builtins(conv.value) == snapshot
    back = mapper.encode_request(conv.value, model=settings.model)
    assert not back.report, list(back.report)
    assert back.value == body
    assert {k: back.value[k] for k in back.value if k not in CONVERSATION} == {k: body[k] for k in body if k not in CONVERSATION}


@pytest.mark.parametrize("name", RESPONSES)
def test_response_round_trip(name, snapshot):
    body = load(name)
    before = copy.deepcopy(body)
    assert mapper.kind_of(body) == "response"
    conv = mapper.decode_response(body)
    assert body == before
    assert not conv.report, list(conv.report)
    assert to_builtins(conv.value.items) == snapshot(name="items")
    assert to_builtins([conv.value.usage, conv.value.stop_reason]) == snapshot(name="usage_stop")
    items_before = to_builtins(conv.value.items)
    back = mapper.encode_response(conv.value)
    assert to_builtins(conv.value.items) == items_before, "encode_response mutated its input"
    assert not back.report
    assert back.value == body


def test_parallel_usage_and_stop_reason_values():
    resp = mapper.decode_response(load("pai_anthropic_parallel_tool_calls.0.response.json")).value
    assert resp.stop_reason.reason == "tool_use" and resp.stop_reason.raw == "tool_use"
    assert resp.usage.input_tokens == 423 and resp.usage.output_tokens == 202 and resp.usage.total_tokens == 625
    assert resp.usage.cache_read_tokens == 0 and resp.usage.cache_write_tokens == 0
    assert [type(i).__name__ for i in resp.items] == ["TextItem"] + ["ToolCallItem"] * 4
    assert {i.message for i in resp.items} == {"resp:msg_011S3wxtqL5CVescWqS3zeg2"}


@pytest.mark.parametrize("name", STREAMS)
def test_stream_equals_decode_response(name, snapshot):
    raw = complete(read(name))
    events = collect(mapper, raw)
    assert sum(is_terminal(e) for e in events) == 1 and is_terminal(events[-1])
    done = events[-1]
    assert isinstance(done, StreamDone), done
    message, partial = assemble(split_events(raw))
    expected = mapper.decode_response(message).value
    got = done.response
    assert to_builtins(got.items) == snapshot(name="items")
    assert got.usage == expected.usage
    assert got.stop_reason == expected.stop_reason
    assert (got.model, got.response_id) == (expected.model, expected.response_id)
    broken = {i: t for i, t in partial.items() if "input" not in message["content"][i] or message["content"][i]["input"] == {} and t.strip()}
    if not broken:
        assert got.items == expected.items
    else:
        # The equivalent message cannot hold unparsable input: compare everything else, then the raw text.
        for i, (g, e) in enumerate(zip(got.items, expected.items, strict=True)):
            if i in broken:
                assert isinstance(g, ToolCallItem) and g.arguments_raw == broken[i] and g.arguments_error
            else:
                assert g == e
    calls = [e.item for e in events if isinstance(e, ToolCallComplete)]
    assert calls == [i for i in got.items if isinstance(i, ToolCallItem)]


def test_incomplete_partial_json_keeps_raw_text_never_empty_object():
    events = collect(mapper, complete(read("anthropic_sdk.incomplete_partial_json_response.sse")))
    done = events[-1]
    assert isinstance(done, StreamDone)
    call = done.response.items[1]
    assert isinstance(call, ToolCallItem) and call.id == "toolu_01EKqbqmZrGRXy18eN7m9kvY"
    assert call.arguments is not None and to_builtins(call).get("arguments") is None
    assert call.arguments_raw.startswith('{"filename": "taxes.txt"') and call.arguments_raw.endswith('"Filing taxes')
    assert "not valid JSON" in call.arguments_error
    assert done.response.stop_reason.reason == "max_tokens"


@pytest.mark.parametrize("name", [n for n in STREAMS if n.startswith("anthropic_sdk.")])
def test_sdk_recordings_without_final_blank_line_complete(name):
    """The ANT SDK .txt recordings end without the blank line that dispatches the last SSE event.
    The framing delivers a final event whose data is complete JSON (as SDK parsers flush at EOF);
    the same event cut inside its JSON is not delivered, so the stream is truncated."""
    raw = read(name)
    assert not raw.endswith(b"\n\n")
    assert isinstance(collect(mapper, raw)[-1], StreamDone)
    cut = raw.rstrip()[:-3]
    last = collect(mapper, cut)[-1]
    assert isinstance(last, StreamError) and last.error.code == "truncated"


@pytest.mark.parametrize("name", STREAMS)
def test_stream_cut_at_every_event_boundary_is_truncated(name):
    events = split_events(read(name))
    stop = next(i for i, e in enumerate(events) if json.loads(e.data)["type"] == "message_stop")
    assert stop == len(events) - 1
    for cut in range(stop):  # every prefix that lacks message_stop
        out = collect(mapper, encode_events(events[:cut]))
        terminals = [e for e in out if is_terminal(e)]
        assert len(terminals) == 1 and out[-1] is terminals[0]
        assert isinstance(out[-1], StreamError) and out[-1].error.code == "truncated", (name, cut)
    full = collect(mapper, encode_events(events))
    assert isinstance(full[-1], StreamDone)


@pytest.mark.parametrize("name", STREAMS)
def test_stream_in_small_chunks_gives_the_same_result(name):
    raw = complete(read(name))
    whole = collect(mapper, raw)
    chunked = collect(mapper, [raw[i : i + 7] for i in range(0, len(raw), 7)])
    assert whole == chunked


def test_thinking_stream_reasoning_and_signature():
    events = collect(mapper, read("pai_anthropic_thinking_part_stream.0.response.sse"))
    done = events[-1]
    reasoning = done.response.items[0]
    assert reasoning.text.startswith("This is a straightforward question")
    assert reasoning.opaque.namespace == "anthropic.signature" and reasoning.opaque.issuer == "anthropic"
    assert reasoning.opaque.value.startswith("EvMCCkYICxgCKkCHP2cS")
    assert "".join(e.text for e in events if type(e).__name__ == "ReasoningDelta") == reasoning.text
    assert "".join(e.text for e in events if type(e).__name__ == "TextDelta") == done.response.items[1].text


def test_redacted_thinking_stream():
    done = collect(mapper, read("pai_anthropic_thinking_part_redacted_stream.0.response.sse"))[-1]
    kinds = [(type(i).__name__, getattr(i, "redacted", None)) for i in done.response.items]
    assert kinds == [("ReasoningItem", True), ("ReasoningItem", True), ("TextItem", None)]
    assert all(i.opaque.namespace == "anthropic.redacted_thinking" for i in done.response.items[:2])


def test_refusal_stream_gives_refusal_item():
    done = collect(mapper, complete(read("anthropic_sdk.refusal_response.sse")))[-1]
    assert done.response.stop_reason.reason == "refusal"
    assert isinstance(done.response.items[-1], RefusalItem)
    assert done.response.items[-1].text == "This request was refused due to policy."


def test_compaction_block_is_kept_raw():
    done = collect(mapper, complete(read("anthropic_sdk.compaction_response.sse")))[-1]
    raw = done.response.items[0]
    assert isinstance(raw, RawItem) and raw.provider == "anthropic"
    assert raw.value == {"type": "compaction", "content": "Earlier conversation summarized.", "encrypted_content": "EpwBCioIDxgCEAEYASJALd_opaque_compaction_payload"}
    # and it goes back only to Anthropic, unchanged
    body = mapper.encode_response(done.response).value
    assert body["content"][0] == raw.value
