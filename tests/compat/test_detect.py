"""detect_format: each shape to its format, and a clear error listing what was looked for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interlingua.compat import LOOKED_FOR, FormatDetectionError, detect_format, read_any
from interlingua.errors import UnknownFormatError


@pytest.mark.parametrize(
    ("obj", "fmt"),
    [
        ([{"role": "user", "content": "hi"}], "openai-chat"),
        ({"messages": [{"role": "user", "content": "hi"}], "model": "gpt-4o"}, "openai-chat"),
        ([{"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}}], "openai-chat"),
        ([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]}], "anthropic"),
        ([{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}}]}], "anthropic"),
        ([{"role": "user", "content": "look", "images": ["AA=="]}], "ollama"),
        ([{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}], "ollama"),
        ([{"role": "user", "parts": [{"text": "hi"}]}, {"role": "model", "parts": [{"text": "yo"}]}], "gemini"),
        ({"contents": [{"parts": [{"text": "hi"}]}]}, "gemini"),
        ([{"role": "user", "content": "hi"}, {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}], "openai-responses"),
        ([{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}], "openai-responses"),
        ({"input": "hi", "instructions": "be brief"}, "openai-responses"),
        ([{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi"}]}], "pydantic-ai"),
        ([{"type": "human", "data": {"content": "hi"}}], "langchain"),
        ({"schema_version": "1.0", "items": []}, "interlingua"),
        ([{"role": "user", "content": [{"text": "hi"}]}, {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t", "name": "f", "input": {}}}]}], "bedrock-converse"),
        ({"messages": [{"role": "user", "content": [{"text": "hi"}]}], "system": [{"text": "be brief"}]}, "bedrock-converse"),
        ([{"role": "user", "content": "hi"}, {"role": "assistant", "tool_plan": "I will look", "tool_calls": [{"id": "f_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}], "cohere"),
        ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "yo"}]}], "cohere"),
        ({"messages": [{"role": "user", "content": "hi"}], "model": "command-r-plus", "stop_sequences": ["Paris"]}, "cohere"),
        ({"messages": [{"role": "user", "content": "hi"}], "tool_choice": "REQUIRED"}, "cohere"),
        ({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 5, "stop_sequences": ["x"]}, "anthropic"),
        ([{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "openai-chat"),
        ([{"schema_version": "1.0", "session_id": "s", "seq": 0, "item": {"type": "text", "text": "x", "role": "user"}}], "interlingua"),
    ],
)
def test_detects(obj, fmt: str) -> None:
    assert detect_format(obj) == fmt


@pytest.mark.parametrize(
    ("obj", "why"),
    [
        ([], "the list is empty"),
        ("hello", "a string, not a list or object"),
        (None, "null, not a list or object"),
        (3.5, "a number, not a list or object"),
        ({"foo": 1}, "an object with keys ['foo']"),
        ([{"content": "no role"}], "some messages have no 'role'"),
        ([1, 2], "not every list entry is a JSON object"),
    ],
)
def test_undetectable_input_says_why_and_what_was_looked_for(obj, why: str) -> None:
    with pytest.raises(FormatDetectionError) as info:
        detect_format(obj)
    message = str(info.value)
    assert why in message
    for line in LOOKED_FOR:
        assert line in message
    assert isinstance(info.value, UnknownFormatError)


@pytest.mark.parametrize(
    ("body", "fmt"),
    [
        ({"system": "be brief", "messages": [{"role": "user", "content": "hi"}]}, "anthropic"),
        ({"messages": [{"role": "user", "content": "hi"}], "tools": [{"name": "f", "input_schema": {"type": "object"}}]}, "anthropic"),
        ({"messages": [{"role": "user", "content": "hi"}], "tool_choice": {"type": "any"}}, "anthropic"),
        ({"messages": [{"role": "user", "content": "hi"}], "options": {"temperature": 0}}, "ollama"),
        # Anthropic's thinking config (ThinkingConfigParam) names Anthropic; z.ai's toggle of the same name does not
        ({"messages": [{"role": "user", "content": "hi"}], "thinking": {"type": "enabled", "budget_tokens": 2048}}, "anthropic"),
        ({"messages": [{"role": "user", "content": "hi"}], "thinking": {"type": "adaptive", "display": "omitted"}}, "anthropic"),
        ({"messages": [{"role": "user", "content": "hi"}], "thinking": {"type": "disabled"}}, "anthropic"),
        ({"messages": [{"role": "user", "content": "hi"}], "thinking": {"type": "enabled"}}, "openai-chat"),
        ({"messages": [{"role": "user", "content": "hi"}], "thinking": {"type": "enabled", "clear_thinking": False}}, "openai-chat"),
        # a thinking block with a string is Anthropic's (signed) or Cohere's (unsigned); Mistral's ThinkChunk holds a list
        ({"messages": [{"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"}]}]}, "anthropic"),
        ({"messages": [{"role": "assistant", "content": [{"type": "thinking", "thinking": "t"}]}]}, "cohere"),
        ({"messages": [{"role": "assistant", "content": [{"type": "thinking", "thinking": [{"type": "text", "text": "t"}]}]}]}, "openai-chat"),
        ({"messages": [{"role": "user", "content": "hi"}], "tool_choice": {"type": "function", "function": {"name": "f"}}}, "openai-chat"),
    ],
)
def test_request_body_keys_name_their_api(body, fmt: str) -> None:
    assert detect_format(body) == fmt


REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
_EXPECTED_DIR = {"anthropic": {"anthropic"}, "gemini": {"gemini"}, "openai_responses": {"openai-responses"}, "openai_chat": {"openai-chat"}, "openai_chat_extra": {"openai-chat"}, "openai_compatible": {"openai-chat"}, "openrouter": {"openai-chat"}, "ollama": {"ollama", "openai-chat"}, "bedrock_converse": {"bedrock-converse"}, "cohere": {"cohere", "openai-chat"}, "mistral": {"openai-chat"}, "openai_compatible_hosts": {"openai-chat"}}


@pytest.mark.parametrize("path", sorted(REAL.glob("*/*.request.json")), ids=lambda p: p.name)
def test_real_request_bodies_are_detected(path: Path) -> None:
    """Real recorded request bodies (tests/fixtures/real): detected as their API and read without refusal.

    Ollama's plain-text bodies and Ollama Cloud's OpenAI-compatible ones read as openai-chat (the same transcript);
    so do Cohere bodies with nothing Cohere's own in them.
    """
    body = json.loads(path.read_text())
    fmt = detect_format(body)
    assert fmt in _EXPECTED_DIR[path.parent.name]
    assert read_any(body).format == fmt
