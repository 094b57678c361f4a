"""Hypothesis: Ollama chat requests within the supported subset round-trip unchanged."""

from __future__ import annotations

import base64
import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua.providers.ollama import mapper

text = st.text(min_size=1, max_size=20)
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), st.text(max_size=8))
json_value = st.recursive(json_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)), max_leaves=8)
args = st.dictionaries(st.text(min_size=1, max_size=6), json_value, max_size=3)
images = st.lists(
    st.sampled_from([b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff\xe0", b"GIF89a", b"RIFF\0\0\0\0WEBPVP8 "]).map(lambda m: base64.b64encode(m + b"\0" * 9).decode()),
    max_size=2,
)


@st.composite
def request(draw: Any) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(text)})
    for n in range(draw(st.integers(1, 4))):
        user: dict[str, Any] = {"role": "user", "content": draw(text)}
        imgs = draw(images)
        if imgs:
            user["images"] = imgs
        messages.append(user)
        assistant: dict[str, Any] = {"role": "assistant", "content": draw(st.just("") | text)}
        if draw(st.booleans()):
            assistant["thinking"] = draw(text)
        calls = draw(st.lists(st.tuples(st.sampled_from(["a", "b", "get_weather"]), args), max_size=3))
        with_ids = draw(st.booleans())
        tool_msgs = []
        if calls:
            assistant["tool_calls"] = []
            for k, (name, a) in enumerate(calls):
                call: dict[str, Any] = {"function": {"name": name, "arguments": a}}
                tool: dict[str, Any] = {"role": "tool", "content": draw(st.just("") | text), "tool_name": name}
                if with_ids:
                    call = {"id": f"call_{n}{k}", **call}
                    tool["tool_call_id"] = f"call_{n}{k}"
                assistant["tool_calls"].append(call)
                tool_msgs.append(tool)
        if assistant["content"] or "thinking" in assistant or calls:
            messages.append(assistant)
        messages.extend(tool_msgs)
    return {"model": "llama3.2", "messages": messages, "stream": draw(st.booleans())}


@settings(max_examples=150, deadline=None)
@given(request())
def test_request_round_trip(body: dict[str, Any]) -> None:
    before = copy.deepcopy(body)
    conv = mapper.decode_request(body)
    assert not conv.report
    out = mapper.encode_request(conv.value, model="llama3.2")
    assert out.value == body
    assert not out.report
    assert body == before
    assert mapper.decode_request(out.value).value == conv.value
