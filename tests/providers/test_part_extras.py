"""Issue 13 item 5b: a request part of a known type with a field the mapper does not model keeps its
content; the field goes to the item's ``provider_data[<mapper>]``, comes back for the same mapper and is
reported dropped by every other one. Real case: OpenRouter ``prompt_cache_breakpoint`` (pydantic-ai
cassettes test_openai_prompt_cache/test_openrouter_responses_prompt_cache_e2e.yaml and
test_openai_chat_prompt_cache_e2e.yaml; the 12.5k-character catalogue text is shortened here)."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interlingua.items import TextItem
from interlingua.mapping.registry import get_mapper

CATALOGUE = "Reference catalogue for the prompt cache test corpus.\nEntry 0000: shelf 0, aisle 0, volume 0, catalogued under subject heading 0.\n"
BREAKPOINT = {"mode": "explicit"}

RESPONSES = {"input": [{"content": [{"prompt_cache_breakpoint": BREAKPOINT, "text": CATALOGUE, "type": "input_text"},
                                    {"text": "Which shelf holds 0001?", "type": "input_text"}], "role": "user", "type": "message"}],
             "model": "openai/gpt-5-mini"}
CHAT = {"messages": [{"role": "user", "content": [{"prompt_cache_breakpoint": BREAKPOINT, "text": CATALOGUE, "type": "text"},
                                                  {"text": "Which shelf holds 0001?", "type": "text"}]}],
        "model": "gpt-5-mini"}
CASES = [("openai-responses", RESPONSES), ("openai-chat", CHAT)]
TARGETS = ["openai-chat", "openai-responses", "anthropic", "gemini", "ollama"]


@pytest.mark.parametrize(("source", "body"), CASES, ids=[c[0] for c in CASES])
def test_unknown_part_field_keeps_the_text_and_round_trips(source: str, body: dict[str, Any]) -> None:
    mapper = get_mapper(source)
    conv = mapper.decode_request(copy.deepcopy(body))
    assert not conv.report
    first, second = conv.value.items
    assert isinstance(first, TextItem) and first.text == CATALOGUE
    assert first.provider_data == {source: {"prompt_cache_breakpoint": BREAKPOINT}}
    assert isinstance(second, TextItem) and second.provider_data is msgspec.UNSET
    back = mapper.encode_request(conv.value, model=body["model"])
    key = "input" if source == "openai-responses" else "messages"
    assert back.value[key] == body[key] and not back.report


@pytest.mark.parametrize(("source", "body"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("target", TARGETS)
def test_other_targets_carry_the_text_and_report_the_field(source: str, body: dict[str, Any], target: str) -> None:
    if target == source:
        return
    t = get_mapper(source).decode_request(copy.deepcopy(body)).value
    out = get_mapper(target).encode_request(t, model="m", policy="error")
    assert "Reference catalogue for the prompt cache test corpus." in str(out.value)
    assert any(e.action == "dropped" and "prompt_cache_breakpoint" in e.reason for e in out.report), out.report.lines()
    assert "explicit" not in str(out.value)


_key = st.from_regex(r"[a-z][a-z_]{2,12}", fullmatch=True).filter(lambda k: k not in ("type", "text", "cache_control"))
_val = st.none() | st.booleans() | st.integers() | st.text(max_size=8) | st.dictionaries(st.text(max_size=4), st.integers(), max_size=2)


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(_key, _val, min_size=1, max_size=3), st.text(min_size=1, max_size=30))
def test_any_extra_fields_on_a_text_part_round_trip(extras: dict[str, Any], text: str) -> None:
    for source, kind, key in (("openai-responses", "input_text", "input"), ("openai-chat", "text", "messages")):
        part = {"type": kind, "text": text, **extras}
        msg = {"role": "user", "content": [part, {"type": kind, "text": "q"}]}
        if source == "openai-responses":
            msg["type"] = "message"
        body = {key: [msg]}
        mapper = get_mapper(source)
        conv = mapper.decode_request(copy.deepcopy(body))
        assert conv.value.items[0].text == text
        assert mapper.encode_request(conv.value).value[key] == body[key]


def test_gemini_part_field_not_modelled_keeps_the_part() -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "hi", "mediaResolution": {"level": "MEDIA_RESOLUTION_LOW"}}]}]}
    gemini = get_mapper("gemini")
    conv = gemini.decode_request(copy.deepcopy(body))
    (item,) = conv.value.items
    assert item == TextItem(text="hi", role="user", message="m0", provider_data={"gemini": {"mediaResolution": {"level": "MEDIA_RESOLUTION_LOW"}}})
    assert gemini.encode_request(conv.value).value == body
    out = get_mapper("anthropic").encode_request(conv.value, model="claude-sonnet-4-5")
    assert any("mediaResolution" in e.reason and e.action == "dropped" for e in out.report)
