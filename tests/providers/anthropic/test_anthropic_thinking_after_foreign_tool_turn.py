"""Thinking on, and a last assistant tool_use turn whose reasoning was another provider's (issue 25).

Anthropic refuses such a request: "Expected `thinking` or `redacted_thinking`, but found `tool_use`. When
`thinking` is enabled, a final `assistant` message must start with a thinking block" (extended-thinking
guide, "Preserving thinking blocks"). A Responses request (real, recorded by pydantic-ai) asks for reasoning
and holds an encrypted reasoning item, a function call and its output: the reasoning cannot be carried, so
``thinking`` is left out with a report, or the conversion is refused under policy ``error``. A history whose
last tool turn opens with its signed thinking block (a real Anthropic request, recorded by simonw/llm-anthropic)
keeps ``thinking``.
"""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from interlingua.errors import ConversionError
from interlingua.mapping import get_mapper

REPO = Path(__file__).resolve().parents[3]
RESPONSES = REPO / "tests/fixtures/real/openai_responses/pai_openai_responses_thinking_with_tool_calls.1.request.json"
EXTRA = REPO / "tests/fixtures/corpus_extra/corpus_extra.tar.xz"
ANTHROPIC_THINKING_TOOL_TURN = "llm-anthropic/anthropic/test_anthropic__test_fixed_version_tool_chain_with_thinking_display_regression.1.request.json"


def _responses_transcript():  # type: ignore[no-untyped-def]
    body = json.loads(RESPONSES.read_bytes())
    assert body["reasoning"]["effort"] == "low"
    assert [i.get("type") for i in body["input"]][1:] == ["reasoning", "function_call", "function_call_output"]
    return get_mapper("openai-responses").decode_request(body).value


def test_thinking_is_left_out_when_the_last_tool_turn_has_no_thinking_block() -> None:
    conv = get_mapper("anthropic").encode_request(_responses_transcript(), model="claude-sonnet-4-5", policy="drop")
    body = conv.value
    last = [m for m in body["messages"] if m["role"] == "assistant"][-1]
    assert [b["type"] for b in last["content"]] == ["tool_use"]
    assert "thinking" not in body
    entry = [e for e in conv.report if e.pointer == "/settings/reasoning" and e.action == "dropped"]
    assert entry and "found `tool_use`" in entry[0].reason


def test_thinking_after_a_foreign_tool_turn_is_refused_under_error() -> None:
    with pytest.raises(ConversionError, match="thinking cannot be sent"):
        get_mapper("anthropic").encode_request(_responses_transcript(), model="claude-sonnet-4-5", policy="error")


def test_the_same_history_without_the_tool_turn_keeps_thinking() -> None:
    """Only the last assistant message counts: with the call and its output gone, thinking stays."""
    import msgspec

    t = _responses_transcript()
    t = msgspec.structs.replace(t, items=[i for i in t.items if type(i).__name__ not in ("ToolCallItem", "ToolResultItem")])
    conv = get_mapper("anthropic").encode_request(t, model="claude-sonnet-4-5", policy="drop")
    assert conv.value["thinking"]["type"] == "enabled"


def test_a_tool_turn_opening_with_its_thinking_block_keeps_thinking() -> None:
    with tarfile.open(EXTRA) as tar:
        member = tar.extractfile(ANTHROPIC_THINKING_TOOL_TURN)
        assert member is not None
        body = json.loads(member.read())
    last = [m for m in body["messages"] if m["role"] == "assistant"][-1]
    assert last["content"][0]["type"] == "thinking" and any(b["type"] == "tool_use" for b in last["content"])
    mapper = get_mapper("anthropic")
    conv = mapper.encode_request(mapper.decode_request(body).value, model=body["model"], policy="drop")
    assert conv.value["thinking"] == body["thinking"]
    assert not any(e.pointer == "/settings/reasoning" and e.action == "dropped" for e in conv.report)


def test_claude_on_bedrock_follows_the_same_rule() -> None:
    """Converse to a Claude model: ``additionalModelRequestFields.thinking`` is left out the same way."""
    model = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    conv = get_mapper("bedrock-converse").encode_request(_responses_transcript(), model=model, policy="drop")
    last = [m for m in conv.value["messages"] if m["role"] == "assistant"][-1]
    assert [next(iter(b)) for b in last["content"]] == ["toolUse"]
    assert "thinking" not in conv.value.get("additionalModelRequestFields", {})
    assert any(e.pointer == "/settings/reasoning" and e.action == "dropped" for e in conv.report)
    with pytest.raises(ConversionError, match="thinking cannot be sent"):
        get_mapper("bedrock-converse").encode_request(_responses_transcript(), model=model, policy="error")
