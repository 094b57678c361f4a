"""A same-provider round trip gives back the client's own spelling while the canonical value is unchanged
(issue 25 section 2; ADR 0027): one mechanism (``interlingua.mapping.spelling``) shared by every mapper.

The cases are the issue's, on the bodies the clients recorded (``tests/fixtures/corpus_extra``: ruby_llm,
langchain-cohere, openinference, simonw/llm-anthropic), and the ones the issue quotes where no recording
holds them; then the rules themselves, property-tested.
"""

from __future__ import annotations

import copy
import json
import tarfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua.mapping import get_mapper
from interlingua.mapping.spelling import SPELLING_KEY, restore_spelling, spelling_entries

EXTRA = Path(__file__).resolve().parents[1] / "fixtures" / "corpus_extra" / "corpus_extra.tar.xz"


@cache
def _archive() -> dict[str, bytes]:
    with tarfile.open(EXTRA, "r:xz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]


def recorded(name: str) -> dict[str, Any]:
    return json.loads(_archive()[name])


def request_round_trip(fmt: str, body: dict[str, Any], policy: Any = "error") -> tuple[dict[str, Any], Any]:
    before = copy.deepcopy(body)
    mapper = get_mapper(fmt)
    dec = mapper.decode_request(body)
    assert body == before  # inputs are never mutated
    enc = mapper.encode_request(dec.value, model=body.get("model"), policy=policy)
    return enc.value, dec.value


def response_round_trip(fmt: str, body: dict[str, Any]) -> dict[str, Any]:
    mapper = get_mapper(fmt)
    dec = mapper.decode_response(body)
    return mapper.encode_response(dec.value, model=body.get("model"), policy="error").value


# ---------------------------------------------------------------------------------------------- the cases


def test_cohere_content_as_text_parts_comes_back_as_parts() -> None:
    body = recorded("langchain-cohere/cohere/test_invoke_with_text_only_list.0.request.json")
    assert body["messages"][0]["content"] == [{"type": "text", "text": "Hello, "}, {"type": "text", "text": "how are you?"}]
    out, _ = request_round_trip("cohere", body)
    assert out["messages"] == body["messages"]


def test_cohere_tool_call_arguments_keep_their_bytes() -> None:
    body = recorded("langchain-cohere/cohere/test_tool_calling_agent_magic_function_.0.request.json")
    assert body["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"input": 3}'
    # the recorded body holds tool calls without tool definitions, which the cohere encoder now refuses
    # under policy error (it synthesizes them under drop): the arguments' bytes are what this test is about
    out, _ = request_round_trip("cohere", body, policy="drop")
    assert out["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"input": 3}'


def test_mistral_empty_content_beside_tool_calls_is_kept() -> None:
    body = recorded("ruby_llm/mistral/chat_function_calling_mistral_mistral-small-latest_can_handle_multiple_tool_calls_in_a_single_response.1.request.json")
    assert body["messages"][2]["content"] == "" and body["messages"][2]["tool_calls"]
    out, _ = request_round_trip("mistral", body)
    assert out["messages"] == body["messages"]


def test_mistral_string_content_stays_a_string_and_parts_stay_parts() -> None:
    body = {"model": "mistral-small-latest", "messages": [
        {"role": "user", "content": "plain"},
        {"role": "user", "content": [{"type": "text", "text": "as parts"}]},
    ]}
    out, _ = request_round_trip("mistral", body)
    assert out["messages"] == body["messages"]


def test_gemini_url_safe_base64_comes_back_url_safe() -> None:
    body = recorded("openinference/gemini/test_instrumentation__test_generate_content_describe_image_False_.0.request.json")
    datas = [p["inline_data"]["data"] if "inline_data" in p else p["inlineData"]["data"]
             for c in body["contents"] for p in c["parts"] if "inline_data" in p or "inlineData" in p]
    assert any("-" in d or "_" in d for d in datas)
    out, _ = request_round_trip("gemini", body)
    assert out == body  # snake_case field names and the URL-safe alphabet, as the client sent them


def test_anthropic_temperature_one_point_zero_keeps_its_float() -> None:
    body = recorded("llm-anthropic/anthropic/test_anthropic__test_async_prompt.0.request.json")
    assert type(body["temperature"]) is float and body["temperature"] == 1.0
    # today's Messages API takes no temperature (refused under error, dropped and reported under drop)
    out, _ = request_round_trip("anthropic", body, policy="drop")
    if "temperature" in out:  # written: as the client spelled it
        assert type(out["temperature"]) is float
    assert out["messages"] == body["messages"]  # the one text part stays a part


@pytest.mark.parametrize("value", [1, 1.0])
def test_responses_temperature_int_and_float_kept_apart(value: float) -> None:
    body = {"model": "gpt-4.1", "input": [{"role": "user", "content": "hi"}], "temperature": value}
    out, _ = request_round_trip("openai-responses", body)
    assert type(out["temperature"]) is type(value)


def test_responses_tool_strict_null_stays_null() -> None:
    tool = {"type": "function", "name": "get_weather", "description": "d", "parameters": {"type": "object", "properties": {}}, "strict": None}
    body = {"model": "gpt-4.1", "input": [{"role": "user", "content": "hi"}], "tools": [tool]}
    out, _ = request_round_trip("openai-responses", body)
    assert out["tools"] == [tool]


def test_chat_response_role_null_stays_null() -> None:
    body = {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": None, "content": "Hi"}}],
    }
    out = response_round_trip("openai-chat", body)
    assert out["choices"][0]["message"]["role"] is None


def test_an_edited_transcript_gets_the_encoders_spelling() -> None:
    """Canonical data wins: once the value changed, the kept spelling is not applied."""
    import msgspec

    body = {"model": "command-r", "messages": [{"role": "user", "content": [{"type": "text", "text": "Hello"}]}]}
    mapper = get_mapper("cohere")
    t = mapper.decode_request(body).value
    assert t.settings.provider_data["cohere"][SPELLING_KEY]
    item = t.items[0]
    edited = msgspec.structs.replace(t, items=[msgspec.structs.replace(item, text="Goodbye")])
    out = mapper.encode_request(edited, model="command-r").value
    assert out["messages"][0]["content"] in ("Goodbye", [{"type": "text", "text": "Goodbye"}])
    assert SPELLING_KEY not in json.dumps(out)


def test_kept_spelling_is_not_sent_to_another_provider() -> None:
    body = recorded("langchain-cohere/cohere/test_invoke_with_text_only_list.0.request.json")
    t = get_mapper("cohere").decode_request(body).value
    enc = get_mapper("openai-chat").encode_request(t, model="gpt-4.1", policy="error")
    assert SPELLING_KEY not in json.dumps(enc.value)
    assert not any(SPELLING_KEY in e.reason for e in enc.report)


# ---------------------------------------------------------------------------------------------- the rules


def test_entries_only_for_spelling_not_for_changed_values() -> None:
    assert spelling_entries({"a": "x"}, {"a": "y"}) == []
    assert spelling_entries({"arguments": '{"a": 1}'}, {"arguments": '{"a":2}'}) == []
    assert spelling_entries({"data": "ab-_"}, {"data": "ab+/"}) != []
    assert spelling_entries({"data": "ab-_"}, {"data": "ab++"}) == []
    assert spelling_entries({"t": 1}, {"t": 1.0}) == [{"at": ["t"], "was": 1, "is": 1.0}]
    # a dropped field with content is a loss, not a spelling
    assert spelling_entries({"reasoning": {"max_tokens": 5}}, {}) == []
    # an added key beside a missing one may be that key renamed: not a default
    assert spelling_entries({"a": {"x_y": 1, "z": 2}}, {"a": {"other": 2}}) == []


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5, allow_nan=False) | st.text(max_size=5),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "content", "text", "type"]), kids, max_size=3),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(JSON, JSON)
def test_restoring_the_entries_never_changes_a_value_they_do_not_name(source: Any, written: Any) -> None:
    """Applied to the output they were taken from, the entries give back the source where the two differ by
    spelling (no spelling difference is left) and change nothing when there is none."""
    src, dst = {"body": source}, {"body": written}
    entries = spelling_entries(src, dst)
    out = copy.deepcopy(dst)
    restore_spelling(out, json.loads(json.dumps(entries)))  # entries are plain JSON (stored in provider_data)
    assert spelling_entries(src, out) == []
    if not entries:
        assert out == dst


def test_items_after_a_left_out_item_keep_their_spelling() -> None:
    """ruby_llm replays a reasoning item with no id (Responses; the SDK's ResponseReasoningItemParam requires
    one): it is left out and reported, and the assistant message after it keeps its output_text part."""
    body = recorded("ruby_llm/openai-responses/chat_basic_chat_functionality_openai_gpt-5-nano_can_handle_multi-turn_conversations.1.request.json")
    assert [i.get("type") for i in body["input"]] == [None, "reasoning", None, None]
    mapper = get_mapper("openai-responses")
    enc = mapper.encode_request(mapper.decode_request(body).value, model=body["model"])
    assert enc.value["input"] == [body["input"][0], *body["input"][2:]]
    assert any(e.item_type == "reasoning" and e.action == "dropped" for e in enc.report)


def test_responses_function_call_in_progress_keeps_its_status() -> None:
    body = recorded("vercel-ai/openai-responses/programmatic-tool-calling.2.0.response.json")
    assert body["output"][0]["type"] == "function_call" and body["output"][0]["status"] == "in_progress"
    out = response_round_trip("openai-responses", body)
    assert out["output"][0]["status"] == "in_progress"
