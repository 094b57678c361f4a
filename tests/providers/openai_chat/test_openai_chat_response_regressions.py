"""Regressions: OpenAI Chat response encoding must not copy another provider's stop reason or usage
record, and ``decode_response`` must refuse a body that is not a Chat completion."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interlingua.errors import ConversionError
from interlingua.items import StopReason, Usage
from interlingua.mapping.protocol import ModelResponse
from interlingua.providers.anthropic import mapper as anthropic
from interlingua.providers.ollama import mapper as ollama
from interlingua.providers.openai_chat import mapper as openai_chat

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"


def _load(*parts: str) -> dict:
    return json.loads(REAL.joinpath(*parts).read_text())


def test_ollama_tool_call_response_gets_tool_calls_finish_reason() -> None:
    # Ollama says done_reason "stop" on a tool call (canonical tool_use); Chat got "stop".
    response = ollama.decode_response(_load("ollama", "ollama_docs.chat_tools_nostream.response.json")).value
    body = openai_chat.encode_response(response).value
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    assert body["usage"] == {"prompt_tokens": 169, "completion_tokens": 18, "total_tokens": 187}


def test_anthropic_response_usage_is_rebuilt_in_chat_keys() -> None:
    response = anthropic.decode_response(_load("anthropic", "pai_anthropic_parallel_tool_calls.0.response.json")).value
    body = openai_chat.encode_response(response).value
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    assert set(body["usage"]) <= {"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details", "completion_tokens_details"}


def test_raw_chat_value_for_another_reason_is_not_written() -> None:
    out = openai_chat.encode_response(ModelResponse(items=[], stop_reason=StopReason(reason="max_tokens", raw="stop"))).value
    assert out["choices"][0]["finish_reason"] == "length"
    # a Chat-shaped record that disagrees with the counts is rebuilt from the counts
    usage = Usage(input_tokens=3, output_tokens=4, total_tokens=7, details={"prompt_tokens": 30, "completion_tokens": 4, "total_tokens": 34})
    out = openai_chat.encode_response(ModelResponse(items=[], usage=usage)).value
    assert out["usage"] == {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}


def test_decode_refuses_bodies_without_choices() -> None:
    # `--from openai-chat --to canonical --kind response` on {} gave {"items": []} with exit 0.
    with pytest.raises(ConversionError, match="choices"):
        openai_chat.decode_response({})
    with pytest.raises(ConversionError, match="choices"):
        openai_chat.decode_response(_load("gemini", "pai_google_thinking_part.0.response.json"))
