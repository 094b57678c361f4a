"""Hypothesis: Cohere v2 requests and responses within the supported subset round-trip unchanged (tool call
arguments are written as msgspec writes JSON, the mapper's one form),
and every body the mapper writes passes the cohere SDK's own types (strict, see tests/sdk_oracle)."""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua.providers.cohere import mapper
from tests.sdk_oracle.oracle import check_request, check_response

text = st.text(min_size=1, max_size=20)
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), st.text(max_size=8))
json_value = st.recursive(json_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)), max_leaves=8)
args = st.dictionaries(st.text(min_size=1, max_size=6), json_value, max_size=3)
names = st.sampled_from(["get_weather", "lookup", "f"])
image = st.tuples(st.sampled_from(["data:image/png;base64,iVBORw0KGgo=", "https://example.com/a.png"]), st.sampled_from([None, "auto", "low", "high"])).map(
    lambda a: {"type": "image_url", "image_url": {"url": a[0], **({"detail": a[1]} if a[1] else {})}}
)
user_content = st.one_of(text, st.lists(st.one_of(text.map(lambda t: {"type": "text", "text": t}), image), min_size=2, max_size=3))
document = st.tuples(st.dictionaries(st.sampled_from(["title", "snippet", "url"]), st.text(max_size=10), min_size=1), st.sampled_from([None, "doc_1"])).map(
    lambda a: {"type": "document", "document": {"data": a[0], **({"id": a[1]} if a[1] else {})}}
)
tool_content = st.one_of(text, st.lists(st.one_of(text.map(lambda t: {"type": "text", "text": t}), document), min_size=2, max_size=3))


@st.composite
def request(draw: Any) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(text)})
    n = 0
    for _ in range(draw(st.integers(1, 3))):
        messages.append({"role": "user", "content": draw(user_content)})
        assistant: dict[str, Any] = {"role": "assistant"}
        calls = draw(st.lists(st.tuples(names, args), max_size=2))
        parts = draw(st.lists(st.sampled_from(["thinking", "text"]), max_size=2 if not calls else 1))
        if parts:
            assistant["content"] = [{"type": p, p: draw(text)} for p in sorted(parts, key=lambda p: p != "thinking")]
        if calls:
            if draw(st.booleans()):
                assistant["tool_plan"] = draw(text)
            assistant["tool_calls"] = []
            for name, a in calls:
                n += 1
                assistant["tool_calls"].append({"id": f"{name}_{n}", "type": "function", "function": {"name": name, "arguments": msgspec.json.encode(a).decode()}})
        if len(assistant) == 1:
            assistant["content"] = [{"type": "text", "text": draw(text)}]
        messages.append(assistant)
        for call in assistant.get("tool_calls", []):
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": draw(tool_content)})
    body: dict[str, Any] = {"model": "command-a-03-2025", "messages": messages}
    if n:
        body["tools"] = [{"type": "function", "function": {"name": nm, "description": "d", "parameters": {"type": "object", "properties": {}}}} for nm in ("get_weather", "lookup", "f")]
        choice = draw(st.sampled_from([None, "REQUIRED", "NONE"]))
        if choice:
            body["tool_choice"] = choice
    for key, value in draw(st.dictionaries(st.sampled_from(["max_tokens", "temperature", "p", "k", "seed", "stop_sequences", "stream"]), st.just(None), max_size=4)).items():
        body[key] = {"max_tokens": 256, "temperature": 0.3, "p": 0.9, "k": 40, "seed": 7, "stop_sequences": ["END"], "stream": False}[key]
    return body


@st.composite
def response(draw: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant"}
    calls = draw(st.lists(st.tuples(names, args), max_size=2))
    if calls:
        if draw(st.booleans()):
            message["tool_plan"] = draw(text)
        message["tool_calls"] = [{"id": f"{nm}_{k}", "type": "function", "function": {"name": nm, "arguments": msgspec.json.encode(a).decode()}} for k, (nm, a) in enumerate(calls)]
    else:
        parts = [{"type": "thinking", "thinking": draw(text)}] if draw(st.booleans()) else []
        reply = draw(text)
        parts.append({"type": "text", "text": reply})
        message["content"] = parts
        if draw(st.booleans()) and len(reply) > 2:
            message["citations"] = [{"start": 0, "end": 2, "text": reply[:2], "sources": [{"type": "document", "id": "doc_0", "document": {"id": "doc_0", "snippet": "x"}}], "type": "TEXT_CONTENT", "content_index": len(parts) - 1}]
    body = {"id": "5481bf9b-876e-487f-88fe-6b59a9a5b96c", "finish_reason": "TOOL_CALL" if calls else draw(st.sampled_from(["COMPLETE", "MAX_TOKENS", "STOP_SEQUENCE"])), "message": message}
    if draw(st.booleans()):
        body["usage"] = {"billed_units": {"input_tokens": 41, "output_tokens": 25}, "tokens": {"input_tokens": 1441, "output_tokens": 54}, "cached_tokens": 144}
    return body


@settings(max_examples=80, deadline=None)
@given(request())
def test_request_round_trip_and_sdk_types(body: dict[str, Any]) -> None:
    assert not check_request("cohere", body), check_request("cohere", body)  # the strategy writes valid bodies
    decoded = mapper.decode_request(body)
    again = mapper.encode_request(decoded.value, model=body["model"])
    assert again.value == body
    assert not decoded.report and not again.report


@settings(max_examples=60, deadline=None)
@given(response())
def test_response_round_trip_and_sdk_types(body: dict[str, Any]) -> None:
    assert not check_response("cohere", body)
    decoded = mapper.decode_response(body)
    again = mapper.encode_response(decoded.value)
    assert again.value == body
    assert not decoded.report and not again.report
