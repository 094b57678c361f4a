"""Regressions: Anthropic response encoding must not copy another provider's usage record."""

from __future__ import annotations

import json
from pathlib import Path

from interlingua.items import Usage
from interlingua.mapping.protocol import ModelResponse
from interlingua.providers.anthropic import mapper as anthropic
from interlingua.providers.ollama import mapper as ollama
from interlingua.providers.openai_responses import mapper as openai_responses

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"


def test_responses_usage_with_agreeing_counts_is_not_copied() -> None:
    # A Responses record {input_tokens, output_tokens, total_tokens} agreed with the Anthropic counts
    # and was copied whole, total_tokens included.
    response = openai_responses.decode_response(
        {"id": "resp_1", "status": "completed", "output": [], "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}
    ).value
    body = anthropic.encode_response(response).value
    assert body["usage"] == {"input_tokens": 10, "output_tokens": 5}


def test_ollama_tool_call_response_to_anthropic() -> None:
    body = json.loads((REAL / "ollama" / "ollama_docs.chat_tools_nostream.response.json").read_text())
    out = anthropic.encode_response(ollama.decode_response(body).value).value
    assert out["stop_reason"] == "tool_use"
    assert out["usage"] == {"input_tokens": 169, "output_tokens": 18}


def test_own_record_is_kept() -> None:
    details = {"input_tokens": 1, "output_tokens": 2, "cache_read_input_tokens": 3, "cache_creation_input_tokens": 0, "service_tier": "standard"}
    usage = Usage(input_tokens=4, output_tokens=2, cache_read_tokens=3, cache_write_tokens=0, details=details)
    assert anthropic.encode_response(ModelResponse(items=[], usage=usage)).value["usage"] == details
