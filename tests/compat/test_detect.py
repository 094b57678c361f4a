"""detect_format: each shape to its format, and a clear error listing what was looked for."""

from __future__ import annotations

import pytest

from interlingua.compat import LOOKED_FOR, FormatDetectionError, detect_format
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
        ([{"schema_version": "1.0", "session_id": "s", "seq": 0, "item": {"type": "text", "text": "x", "role": "user"}}], "interlingua"),
    ],
)
def test_detects(obj, fmt: str) -> None:
    assert detect_format(obj) == fmt


@pytest.mark.parametrize(
    ("obj", "why"),
    [
        ([], "the list is empty"),
        ("hello", "a JSON str"),
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
