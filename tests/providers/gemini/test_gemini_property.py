"""Hypothesis: Gemini requests and responses within the supported subset round-trip unchanged."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua.providers.gemini import mapper

text = st.text(min_size=1, max_size=20)
sig = st.text(alphabet="ABCDEFabcdef0123456789+/-_=", min_size=4, max_size=16)
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), st.text(max_size=8))
json_value = st.recursive(json_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)), max_leaves=8)
args = st.dictionaries(st.text(min_size=1, max_size=6), json_value, max_size=3)
names = st.sampled_from(["get_weather", "lookup", "f"])


def with_sig(part: dict[str, Any], s: str | None) -> dict[str, Any]:
    return {**part, "thoughtSignature": s} if s is not None else part


user_part = st.one_of(
    text.map(lambda t: {"text": t}),
    st.just({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}),
    st.just({"fileData": {"mimeType": "application/pdf", "fileUri": "https://example.com/a.pdf"}}),
)
model_plain = st.one_of(
    st.tuples(text, st.none() | sig).map(lambda a: with_sig({"text": a[0]}, a[1])),
    st.tuples(text, st.none() | sig).map(lambda a: with_sig({"text": a[0], "thought": True}, a[1])),
)
response_body = st.one_of(
    text.map(lambda t: {"output": t}),
    text.map(lambda t: {"error": t}),
    st.dictionaries(st.sampled_from(["result", "return_value", "data"]), json_value, min_size=1, max_size=2),
)


@st.composite
def request(draw: Any) -> dict[str, Any]:
    contents: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 4))):
        contents.append({"role": "user", "parts": draw(st.lists(user_part, min_size=1, max_size=3))})
        parts = draw(st.lists(model_plain, max_size=2))
        calls = draw(st.lists(st.tuples(names, args, st.booleans(), st.none() | sig), max_size=3))
        use_ids = draw(st.booleans())
        responses = []
        for k, (name, a, _, s) in enumerate(calls):
            fc: dict[str, Any] = {"name": name, "args": a}
            fr: dict[str, Any] = {"name": name, "response": draw(response_body)}
            if use_ids:
                fc = {"id": f"id{len(contents)}_{k}", **fc}
                fr = {"id": f"id{len(contents)}_{k}", **fr}
            parts.append(with_sig({"functionCall": fc}, s))
            responses.append({"functionResponse": fr})
        if parts:
            contents.append({"role": "model", "parts": parts})
        if responses:
            contents.append({"role": "user", "parts": responses})
    body: dict[str, Any] = {"contents": contents}
    if draw(st.booleans()):
        body["systemInstruction"] = {"parts": [{"text": draw(text)}]}
    return body


@settings(max_examples=150, deadline=None)
@given(request())
def test_request_round_trip(body: dict[str, Any]) -> None:
    before = copy.deepcopy(body)
    conv = mapper.decode_request(body)
    assert not conv.report
    out = mapper.encode_request(conv.value)
    assert out.value == body
    assert not out.report
    assert body == before
    assert mapper.decode_request(out.value).value == conv.value


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.one_of(model_plain, st.tuples(names, args, st.none() | sig).map(lambda a: with_sig({"functionCall": {"name": a[0], "args": a[1]}}, a[2]))), min_size=1, max_size=4),
    st.sampled_from(["STOP", "MAX_TOKENS", "SAFETY", "OTHER"]),
    st.none() | st.text(alphabet="abcXYZ0_", min_size=1, max_size=8),
)
def test_response_round_trip(parts: list[dict[str, Any]], finish: str, rid: str | None) -> None:
    body: dict[str, Any] = {"candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": finish, "index": 0}], "modelVersion": "gemini-x"}
    if rid:
        body["responseId"] = rid
    conv = mapper.decode_response(body)
    assert not conv.report
    assert mapper.encode_response(conv.value).value == body
