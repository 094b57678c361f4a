"""Property tests of the ``mistral`` mapper over generated Mistral request bodies.

``request()`` generates bodies of the supported subset in the mapper's own spelling (what it writes):
system/user/assistant/tool messages; text, ``image_url`` and ``document_url`` chunks; assistant
``thinking`` chunks; tool calls with 9-character ids and their results; tools; ``tool_choice``
``auto`` / ``none`` / ``any`` / a named function; ``prefix: true`` on a final assistant message;
``random_seed``. Every generated body passes the ``mistralai`` SDK types (strict), round-trips
unchanged with an empty report, and still passes the SDK types after the round trip.
"""

from __future__ import annotations

import json
import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlingua.mapping import get_mapper

from sdk_oracle.mistral_oracle import check_mistral_request

MODEL = "mistral-large-latest"
MAPPER = get_mapper("mistral")

_text = st.text(alphabet=string.ascii_letters + string.digits + " .,!?é", min_size=1, max_size=16).filter(lambda s: s.strip() == s and s != "")
_ids = st.text(alphabet=string.ascii_letters + string.digits, min_size=9, max_size=9)
_args = st.dictionaries(st.sampled_from(["city", "n", "flag"]), st.integers(-5, 5) | st.booleans() | _text, max_size=2)
_image = st.builds(lambda u: {"type": "image_url", "image_url": {"url": f"https://example.com/{u}.png"}}, st.integers(0, 99))
_document = st.builds(
    lambda u, name: {"type": "document_url", "document_url": f"https://example.com/{u}.pdf", **({"document_name": name} if name else {})},
    st.integers(0, 99),
    st.none() | _text,
)
_text_chunk = st.builds(lambda t: {"type": "text", "text": t}, _text)


@st.composite
def _user(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        return {"role": "user", "content": draw(_text)}
    parts = draw(st.lists(st.one_of(_text_chunk, _image, _document), min_size=1, max_size=3))
    if len(parts) == 1 and parts[0]["type"] == "text":
        return {"role": "user", "content": parts[0]["text"]}  # the mapper's spelling of one text chunk
    return {"role": "user", "content": parts}


@st.composite
def request(draw: st.DrawFn) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(_text)})
    used: set[str] = set()
    for _ in range(draw(st.integers(1, 3))):
        messages.append(draw(_user()))
        calls = []
        for _ in range(draw(st.integers(0, 2))):
            call_id = draw(_ids.filter(lambda i: i not in used))
            used.add(call_id)
            calls.append({"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": json.dumps(draw(_args), separators=(",", ":"), ensure_ascii=False)}})
        assistant: dict[str, Any] = {"role": "assistant"}
        thinking = draw(st.none() | _text)
        text = draw(st.none() | _text) if calls else draw(_text)
        if thinking is not None:
            assistant["content"] = [{"type": "thinking", "thinking": [{"type": "text", "text": thinking}]}] + ([{"type": "text", "text": text}] if text else [])
        elif text is not None:
            assistant["content"] = text
        if calls:
            assistant["tool_calls"] = calls
        if "content" not in assistant and not calls:
            assistant["content"] = draw(_text)
        messages.append(assistant)
        for call in calls:
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": draw(_text)})
    if draw(st.booleans()):
        messages.append(draw(_user()))
    elif draw(st.booleans()):
        messages.append({"role": "assistant", "content": draw(_text), "prefix": True})
    if messages[-1]["role"] == "assistant":
        messages[-1]["prefix"] = True  # the API takes a final assistant message only as a prefix
    body: dict[str, Any] = {"model": MODEL, "messages": messages}
    if draw(st.booleans()):
        body["tools"] = [{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
        choice = draw(st.none() | st.sampled_from(["auto", "none", "any", {"type": "function", "function": {"name": "get_weather"}}]))
        if choice is not None:
            body["tool_choice"] = choice
    if draw(st.booleans()):
        body["random_seed"] = draw(st.integers(0, 2**31))
    if draw(st.booleans()):
        body["temperature"] = draw(st.sampled_from([0.0, 0.3, 1.0]))
    if draw(st.booleans()):
        body["max_tokens"] = draw(st.integers(1, 4096))
    return body


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request())
def test_generated_bodies_pass_the_sdk_and_round_trip_unchanged(body: dict[str, Any]) -> None:
    assert check_mistral_request(body) == []
    decoded = MAPPER.decode_request(body)
    assert decoded.report.entries == []
    encoded = MAPPER.encode_request(decoded.value, model=MODEL)
    assert encoded.report.entries == []
    assert encoded.value == body
    assert check_mistral_request(encoded.value) == []


@settings(max_examples=60, deadline=None)
@given(request())
def test_foreign_ids_become_valid_and_results_still_link(body: dict[str, Any]) -> None:
    """Every call id replaced by an OpenAI-style id comes back as 9 alphanumerics, the same on call and result."""
    transcript = MAPPER.decode_request(body).value
    import msgspec

    from interlingua.items import ToolCallItem, ToolResultItem

    items = [
        msgspec.structs.replace(i, id=f"call_{i.id}-x") if isinstance(i, ToolCallItem) else msgspec.structs.replace(i, call_id=f"call_{i.call_id}-x") if isinstance(i, ToolResultItem) else i
        for i in transcript.items
    ]
    out = MAPPER.encode_request(msgspec.structs.replace(transcript, items=items), model=MODEL).value
    calls = [c["id"] for m in out["messages"] for c in m.get("tool_calls") or []]
    results = [m["tool_call_id"] for m in out["messages"] if m["role"] == "tool"]
    assert all(len(i) == 9 and i.isalnum() and i.isascii() for i in calls + results)
    assert sorted(calls) == sorted(results) and len(set(calls)) == len(calls)
    assert check_mistral_request(out) == []
