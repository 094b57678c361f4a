"""Regressions: Responses encoding must not copy another provider's usage record, and
``decode_response`` must refuse a body without an ``output`` list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interlingua.errors import ConversionError
from interlingua.items import Usage
from interlingua.mapping.protocol import ModelResponse
from interlingua.providers.ollama import mapper as ollama
from interlingua.providers.openai_responses import mapper as openai_responses

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"


def test_ollama_usage_is_rebuilt_in_responses_keys() -> None:
    # `--from ollama --to openai-responses` gave usage with total_duration and the other Ollama fields.
    body = json.loads((REAL / "ollama" / "ollama_docs.chat_tools_nostream.response.json").read_text())
    out = openai_responses.encode_response(ollama.decode_response(body).value).value
    assert out["usage"] == {
        "input_tokens": 169,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},  # both Required in InputTokensDetails
        "output_tokens": 18,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 187,
    }
    assert out["status"] == "completed"


def test_anthropic_shaped_usage_with_agreeing_counts_is_not_copied() -> None:
    # input_tokens/output_tokens alone do not make a record a Responses record.
    usage = Usage(input_tokens=10, output_tokens=5, details={"input_tokens": 10, "output_tokens": 5, "service_tier": "standard"})
    out = openai_responses.encode_response(ModelResponse(items=[], usage=usage)).value
    assert "service_tier" not in out["usage"]
    assert out["usage"]["total_tokens"] == 15


def test_decode_refuses_bodies_without_output() -> None:
    # `--from openai-responses` on {} gave no items and an invented stop_reason end_turn.
    with pytest.raises(ConversionError, match="output"):
        openai_responses.decode_response({})
    with pytest.raises(ConversionError, match="output"):
        openai_responses.decode_response({"choices": []})
