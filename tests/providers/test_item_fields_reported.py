"""The item fields a mapper left out with no report, found by the item-field tables (ADR 0044), are reported now.

Each case is the class the declarations' test found, on a real recorded payload where one exists
(tests/fixtures/real/README.md): a cache breakpoint to a target with none, a reasoning summary beside a
text that says something else, a raw value that is no JSON object, a developer image to Ollama.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from interlingua.codec import SCHEMA_VERSION, decode_item
from interlingua.items import ReasoningItem, TextItem, Transcript
from interlingua.mapping import get_mapper
from interlingua.providers.openai_chat import OpenAIChatMapper

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "corpus"
CACHED = REAL / "anthropic" / "pai__test_anthropic_mid_conversation_system__test_mid_conversation_system_prompt_takes_cache_breakpoint.0.request.json"
REASONING = REAL / "openai_responses" / "pai__test_deepseek_responses__test_deepseek_responses_replay_own_reasoning_history.0.request.json"


def _transcript(source: str, path: Path) -> Transcript:
    return get_mapper(source).decode_request(json.loads(path.read_text())).value


def _entries(conv: Any, text: str) -> list[Any]:
    return [e for e in conv.report if text in e.reason]


@pytest.mark.parametrize("target", ["cohere", "ollama", "openai-responses"])
def test_a_cache_breakpoint_is_reported_by_a_target_without_one(target: str) -> None:
    t = _transcript("anthropic", CACHED)
    marked = [i for i, item in enumerate(t.items) if getattr(item, "cache_breakpoint", msgspec.UNSET) is not msgspec.UNSET]
    assert marked, "the recorded request holds a cache_control block"
    conv = get_mapper(target).encode_request(t, model="test-model", policy="degrade")
    entries = _entries(conv, "prompt-cache breakpoint left out")
    assert [e.index for e in entries] == marked
    assert all(e.action == "dropped" for e in entries)
    assert "cache_control" not in json.dumps(conv.value)


def test_the_breakpoint_still_goes_to_targets_that_take_one() -> None:
    t = _transcript("anthropic", CACHED)
    for target in ("anthropic", "bedrock-converse"):
        conv = get_mapper(target).encode_request(t, model="anthropic.claude-3-5-sonnet-20240620-v1:0" if target == "bedrock-converse" else "claude-sonnet-4-5", policy="degrade")
        assert not _entries(conv, "prompt-cache breakpoint"), target


PLAIN_TEXT_TARGETS = ["gemini", "ollama", "cohere", "mistral", "openai-chat:deepseek-with-calls", "openai-chat:openrouter"]


def _target(name: str) -> Any:
    if name.startswith("openai-chat:"):
        return OpenAIChatMapper(dialect=name.split(":")[1].split("-")[0])  # type: ignore[arg-type]
    return get_mapper(name)


@pytest.mark.parametrize("target", PLAIN_TEXT_TARGETS)
def test_a_summary_saying_what_the_text_says_is_not_reported(target: str) -> None:
    """The recorded Responses reasoning carries the same words as text and summary: nothing is lost."""
    t = _transcript("openai-responses", REASONING)
    reasoning = [i for i in t.items if isinstance(i, ReasoningItem)]
    assert reasoning and all(r.text is not msgspec.UNSET and r.summary == [r.text] for r in reasoning)
    conv = _target(target).encode_request(t, model="test-model", policy="degrade")
    assert not _entries(conv, "summary left out")


@pytest.mark.parametrize("target", PLAIN_TEXT_TARGETS)
def test_a_summary_beside_a_different_text_is_reported(target: str) -> None:
    t = _transcript("openai-responses", REASONING)
    items = [msgspec.structs.replace(i, summary=["a summary of other words"]) if isinstance(i, ReasoningItem) else i for i in t.items]
    conv = _target(target).encode_request(msgspec.structs.replace(t, items=items), model="test-model", policy="degrade")
    sent = json.dumps(conv.value)
    if "inspect inputs" in sent:  # the reasoning text went: its summary is reported left out
        assert _entries(conv, "summary left out")
    assert "a summary of other words" not in sent


@pytest.mark.parametrize(("target", "value"), [(t, v) for t in ("anthropic", "gemini", "bedrock-converse", "cohere", "ollama", "openai-responses") for v in (None, 3, "text", [1])])
def test_a_raw_value_that_is_no_object_is_dropped_and_reported(target: str, value: Any) -> None:
    raw = msgspec.convert({"type": "raw", "provider": target, "role": "assistant", "value": value}, type(decode_item('{"type":"raw","provider":"x","value":{}}')))
    t = Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(role="user", text="hi"), raw, TextItem(role="user", text="go on")])
    model = "gemini-2.5-flash" if target == "gemini" else "amazon.nova-pro-v1:0" if target == "bedrock-converse" else "test-model"
    conv = get_mapper(target).encode_request(t, model=model, policy="degrade")
    assert [(e.action, "not a" in e.reason) for e in conv.report if e.index == 1] == [("dropped", True)]


def test_a_developer_image_goes_to_ollama_as_system_and_says_so() -> None:
    image = decode_item('{"type":"image","role":"developer","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}')
    t = Transcript(schema_version=SCHEMA_VERSION, items=[image, TextItem(role="user", text="what is this?")])
    conv = get_mapper("ollama").encode_request(t, model="llava", policy="degrade")
    assert conv.value["messages"][0] == {"role": "system", "content": "", "images": ["iVBORw0KGgo="]}
    assert [str(e) for e in conv.report if e.index == 0] == ["changed: item 0 image: developer image sent as system"]
