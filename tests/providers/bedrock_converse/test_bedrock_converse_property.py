"""Hypothesis: Converse requests and responses within the supported subset round-trip unchanged,
and every body the mapper writes passes botocore's own ``Converse`` request validation."""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua.providers.bedrock_converse import mapper

text = st.text(min_size=1, max_size=20)
sig = st.text(alphabet="ABCDEFabcdef0123456789+/=", min_size=4, max_size=16)
b64 = st.sampled_from(["iVBORw0KGgo=", "JVBERi0xLjQK", "AAAA"])
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), st.text(max_size=8))
json_value = st.recursive(json_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)), max_leaves=8)
args = st.dictionaries(st.text(min_size=1, max_size=6), json_value, max_size=3)
names = st.sampled_from(["get_weather", "lookup", "f"])
cache_point = st.sampled_from([{"cachePoint": {"type": "default"}}, {"cachePoint": {"type": "default", "ttl": "1h"}}])
doc_name = st.text(alphabet="abcXYZ019 -()[]", min_size=1, max_size=10).map(lambda s: " ".join(s.split()) or "doc").filter(lambda s: s == s.strip() and s)

user_block = st.one_of(
    text.map(lambda t: {"text": t}),
    st.tuples(st.sampled_from(["png", "jpeg", "gif", "webp"]), b64).map(lambda a: {"image": {"format": a[0], "source": {"bytes": a[1]}}}),
    st.tuples(st.sampled_from(["pdf", "txt", "md", "csv"]), doc_name, b64).map(lambda a: {"document": {"format": a[0], "name": a[1], "source": {"bytes": a[2]}}}),
    st.just({"image": {"format": "png", "source": {"s3Location": {"uri": "s3://bucket/a.png", "bucketOwner": "123456789012"}}}}),
    st.just({"video": {"format": "mp4", "source": {"s3Location": {"uri": "s3://bucket/a.mp4"}}}}),
)
reasoning_block = st.one_of(
    st.tuples(text, sig).map(lambda a: {"reasoningContent": {"reasoningText": {"text": a[0], "signature": a[1]}}}),
    text.map(lambda t: {"reasoningContent": {"reasoningText": {"text": t}}}),
    b64.map(lambda b: {"reasoningContent": {"redactedContent": b}}),
)
result_part = st.one_of(
    text.map(lambda t: {"text": t}),
    args.map(lambda a: {"json": a}),
    b64.map(lambda b: {"image": {"format": "png", "source": {"bytes": b}}}),
)


def _cached(blocks: list[dict[str, Any]], marks: list[bool]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block, mark in zip(blocks, marks):
        out.append(block)
        if mark and "reasoningContent" not in block and "video" not in block:
            out.append({"cachePoint": {"type": "default"}})
    return out


@st.composite
def request(draw: Any) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    n = 0
    for _ in range(draw(st.integers(1, 3))):
        blocks = [{"toolResult": r} for r in results] + draw(st.lists(user_block, min_size=0 if results else 1, max_size=3))
        if any("document" in b for b in blocks) and not any("text" in b for b in blocks):
            blocks.append({"text": draw(text)})  # AWS Message.content: a document needs a text block beside it
        messages.append({"role": "user", "content": _cached(blocks, draw(st.lists(st.booleans(), min_size=len(blocks), max_size=len(blocks))))})
        results = []
        assistant = draw(st.lists(reasoning_block, max_size=1)) + draw(st.lists(text.map(lambda t: {"text": t}), max_size=2))
        for name, a in draw(st.lists(st.tuples(names, args), max_size=2)):
            n += 1
            call_id = f"tooluse_{n}"
            assistant.append({"toolUse": {"toolUseId": call_id, "name": name, "input": a}})
            res: dict[str, Any] = {"toolUseId": call_id, "content": draw(st.lists(result_part, max_size=2))}
            status = draw(st.sampled_from([None, "success", "error"]))
            if status is not None:
                res["status"] = status
            results.append(res)
        if not assistant or all("reasoningContent" in b for b in assistant):
            assistant.append({"text": draw(text)})  # Converse alternates user and assistant turns
        messages.append({"role": "assistant", "content": assistant})
    if results:
        messages.append({"role": "user", "content": [{"toolResult": r} for r in results]})
    body: dict[str, Any] = {"messages": messages}
    if draw(st.booleans()):
        body["modelId"] = draw(st.sampled_from(["us.anthropic.claude-sonnet-4-20250514-v1:0", "us.amazon.nova-micro-v1:0"]))
    if draw(st.booleans()):
        system: list[dict[str, Any]] = [{"text": draw(text)}]
        if draw(st.booleans()):
            system.append({"cachePoint": {"type": "default"}})
        body["system"] = system
    inference = draw(st.fixed_dictionaries({}, optional={"maxTokens": st.integers(1, 4096), "temperature": st.floats(0, 1), "topP": st.floats(0, 1), "stopSequences": st.lists(text, min_size=1, max_size=2)}))
    if inference or draw(st.booleans()):
        body["inferenceConfig"] = inference
    if n or draw(st.booleans()):
        tools = [{"toolSpec": {"name": name, "inputSchema": {"json": {"type": "object", "properties": {}}}}} for name in ["get_weather", "lookup", "f"]]
        body["toolConfig"] = {"tools": tools}
        choice = draw(st.sampled_from([None, {"auto": {}}, {"any": {}}, {"tool": {"name": "f"}}]))
        if choice is not None:
            body["toolConfig"]["toolChoice"] = choice
    extra = draw(st.fixed_dictionaries({}, optional={"top_k": st.integers(0, 100), "thinking": st.integers(1024, 8192).map(lambda b: {"type": "enabled", "budget_tokens": b}), "other": json_value}))
    last = messages[-1] if messages[-1]["role"] == "assistant" else messages[-2]
    if "thinking" in extra and "anthropic." in body.get("modelId", "") and any("toolUse" in b for b in last["content"]) and "reasoningContent" not in last["content"][0]:
        del extra["thinking"]  # Claude refuses thinking when the last tool turn does not open with its reasoning
    if extra:
        body["additionalModelRequestFields"] = extra
    if draw(st.booleans()):
        body["requestMetadata"] = {"k": "v"}
    if draw(st.booleans()):
        body["performanceConfig"] = {"latency": "optimized"}
    return body


@st.composite
def response(draw: Any) -> dict[str, Any]:
    content = draw(st.lists(reasoning_block, max_size=1)) + draw(st.lists(text.map(lambda t: {"text": t}), max_size=2))
    for k, (name, a) in enumerate(draw(st.lists(st.tuples(names, args), max_size=2))):
        content.append({"toolUse": {"toolUseId": f"tooluse_r{k}", "name": name, "input": a}})
    usage: dict[str, Any] = {"inputTokens": draw(st.integers(0, 99)), "outputTokens": draw(st.integers(0, 99))}
    cache = draw(st.booleans())
    if cache:
        usage["cacheReadInputTokens"] = draw(st.integers(0, 99))
        usage["cacheWriteInputTokens"] = draw(st.integers(0, 99))
    usage["totalTokens"] = sum(v for v in usage.values())
    stop = draw(st.sampled_from(["end_turn", "tool_use", "max_tokens", "stop_sequence", "guardrail_intervened", "content_filtered", "malformed_model_output"]))
    return {"output": {"message": {"role": "assistant", "content": content}}, "stopReason": stop, "usage": usage}


@functools.cache
def _converse_input() -> Any:
    import botocore.session

    return botocore.session.get_session().get_service_model("bedrock-runtime").operation_model("Converse").input_shape


def validate(body: dict[str, Any]) -> None:
    """botocore's own request validation for ``Converse`` (strict service model; raises on any error)."""
    from botocore.validate import ParamValidator

    params = {"modelId": "us.amazon.nova-micro-v1:0", **body}
    report = ParamValidator().validate(params, _converse_input())
    assert not report.has_errors(), report.generate_report()


@settings(max_examples=150, deadline=None)
@given(request())
def test_request_round_trip(body: dict[str, Any]) -> None:
    before = copy.deepcopy(body)
    conv = mapper.decode_request(body)
    assert not conv.report, conv.report.lines()
    out = mapper.encode_request(conv.value)
    expected_report = [] if "modelId" in body else ["/model"]
    assert [e.pointer for e in out.report] == expected_report, out.report.lines()
    assert out.value == body
    assert body == before
    assert mapper.decode_request(out.value).value == conv.value
    validate(out.value)


@settings(max_examples=150, deadline=None)
@given(response())
def test_response_round_trip(body: dict[str, Any]) -> None:
    conv = mapper.decode_response(body)
    assert not conv.report
    out = mapper.encode_response(conv.value)
    assert not out.report
    assert {k: v for k, v in out.value.items() if k != "metrics"} == body


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in zip(points, points[1:])] or [""]


@st.composite
def response_and_stream(draw: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A Converse response and the ConverseStream events that carry it (text and JSON cut at random offsets)."""
    body = draw(response())
    cuts = st.lists(st.integers(0, 60), max_size=4)
    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    for i, block in enumerate(body["output"]["message"]["content"]):
        if "text" in block:
            events += [{"contentBlockDelta": {"contentBlockIndex": i, "delta": {"text": t}}} for t in _split(block["text"], draw(cuts))]
        elif "toolUse" in block:
            use = block["toolUse"]
            events.append({"contentBlockStart": {"contentBlockIndex": i, "start": {"toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}}}})
            text = json.dumps(use["input"])
            events += [{"contentBlockDelta": {"contentBlockIndex": i, "delta": {"toolUse": {"input": t}}}} for t in _split(text, draw(cuts))]
        else:
            rc = block["reasoningContent"]
            if "redactedContent" in rc:
                events.append({"contentBlockDelta": {"contentBlockIndex": i, "delta": {"reasoningContent": {"redactedContent": rc["redactedContent"]}}}})
            else:
                rt = rc["reasoningText"]
                events += [{"contentBlockDelta": {"contentBlockIndex": i, "delta": {"reasoningContent": {"text": t}}}} for t in _split(rt["text"], draw(cuts))]
                if "signature" in rt:
                    events.append({"contentBlockDelta": {"contentBlockIndex": i, "delta": {"reasoningContent": {"signature": rt["signature"]}}}})
        events.append({"contentBlockStop": {"contentBlockIndex": i}})
    events.append({"messageStop": {"stopReason": body["stopReason"]}})
    events.append({"metadata": {"usage": body["usage"], "metrics": {"latencyMs": 1}}})
    return body, events


@settings(max_examples=150, deadline=None)
@given(response_and_stream())
def test_stream_accumulates_to_the_matching_response(case: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    from interlingua.streaming import StreamDone, collect

    body, events = case
    data = "".join(json.dumps(e) + "\n" for e in events).encode()
    final = collect(mapper, data)[-1]
    assert isinstance(final, StreamDone)
    expected = mapper.decode_response(body).value
    assert final.response.items == expected.items
    assert final.response.usage == expected.usage and final.response.stop_reason == expected.stop_reason
