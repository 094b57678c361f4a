"""The bodies written for the provider rules of issue 25 pass the providers' SDK types.

The rules (calls of one turn in one message, tool definitions synthesized for a tool history, a
tool-message image read and written where the target carries it) change the body's shape; what they
write must still be what the SDK request types take.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from interlingua.mapping import get_mapper

from .oracle import check_request

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
RESPONSES = REAL / "openai_responses" / "pai_openai_responses_model_retry.1.request.json"
CHAT = REAL / "openai_chat" / "pai_openai_instructions_with_tool_calls.1.request.json"
MODEL = {"anthropic": "claude-sonnet-4-5", "gemini": "gemini-2.5-flash", "openai-chat": "gpt-4.1", "openai-responses": "gpt-4.1", "cohere": "command-a-03-2025", "ollama": "qwen3-vl:8b"}


def _encode(source: str, body: dict[str, Any], target: str) -> dict[str, Any]:
    transcript = get_mapper(source).decode_request(body).value
    out: dict[str, Any] = get_mapper(target).encode_request(transcript, model=MODEL[target], policy="drop").value
    return out


@pytest.mark.parametrize("target", ["anthropic", "gemini", "openai-chat", "cohere", "ollama"])
def test_parallel_calls_joined_pass_the_sdk_types(target: str) -> None:
    body = json.loads(RESPONSES.read_text(encoding="utf-8"))
    assert check_request(target, _encode("openai-responses", body, target)) == []


@pytest.mark.parametrize("target", ["anthropic", "cohere"])
def test_synthesized_tool_definitions_pass_the_sdk_types(target: str) -> None:
    body = json.loads(CHAT.read_text(encoding="utf-8"))
    del body["tools"], body["tool_choice"]
    out = _encode("openai-chat", body, target)
    assert out["tools"] and check_request(target, out) == []


@pytest.mark.parametrize("target", ["openai-responses", "anthropic", "gemini"])
def test_tool_message_image_passes_the_sdk_types(target: str) -> None:
    body = json.loads(CHAT.read_text(encoding="utf-8"))
    tool = next(m for m in body["messages"] if m["role"] == "tool")
    tool["content"] = [{"type": "text", "text": tool["content"]}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]
    out = _encode("openai-chat", body, target)
    assert "iVBORw0KGgo=" in json.dumps(out) and check_request(target, out) == []
