"""Regressions: Ollama response encoding must not copy another provider's stop reason or usage
record, and ``decode_response`` must refuse a body without a ``message`` object or an ``error``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interlingua.errors import ConversionError
from interlingua.items import ErrorItem, StopReason, Usage
from interlingua.mapping.protocol import ModelResponse
from interlingua.providers.anthropic import mapper as anthropic
from interlingua.providers.ollama import mapper as ollama

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"


def _load(*parts: str) -> dict:
    return json.loads(REAL.joinpath(*parts).read_text())


def test_anthropic_response_to_ollama_uses_ollama_vocabulary() -> None:
    # `--from anthropic --to ollama` gave "done_reason": "end_turn" and no eval counts.
    response = anthropic.decode_response(_load("anthropic", "pai_anthropic_parallel_tool_calls.0.response.json")).value
    body = ollama.encode_response(response).value
    assert body["done_reason"] == "stop"
    assert body["prompt_eval_count"] == response.usage.input_tokens
    assert body["eval_count"] == response.usage.output_tokens
    assert "input_tokens" not in body and "cache_creation_input_tokens" not in body


def test_reasons_without_an_ollama_value_are_reported() -> None:
    conv = ollama.encode_response(ModelResponse(items=[], stop_reason=StopReason(reason="content_filter", raw="content_filter")))
    assert conv.value["done_reason"] == "stop"
    assert [(e.action, e.item_type) for e in conv.report] == [("changed", "stop_reason")]
    # an Ollama value that decodes to another reason gives way to the reason
    out = ollama.encode_response(ModelResponse(items=[], stop_reason=StopReason(reason="max_tokens", raw="stop"))).value
    assert out["done_reason"] == "length"


def test_ollama_record_disagreeing_with_counts_is_rebuilt() -> None:
    usage = Usage(input_tokens=4, output_tokens=2, details={"prompt_eval_count": 40, "eval_count": 2, "total_duration": 9})
    out = ollama.encode_response(ModelResponse(items=[], usage=usage)).value
    assert (out["prompt_eval_count"], out["eval_count"], "total_duration" in out) == (4, 2, False)


def test_decode_refuses_bodies_without_message() -> None:
    # `--from ollama --kind response` on an Anthropic response gave items: [] with exit 0.
    with pytest.raises(ConversionError, match="message"):
        ollama.decode_response(_load("anthropic", "pai_anthropic_parallel_tool_calls.0.response.json"))
    with pytest.raises(ConversionError, match="message"):
        ollama.decode_response({})


def test_decode_still_reads_error_and_generate_bodies() -> None:
    err = ollama.decode_response(_load("ollama", "ollama_docs.error.response.json")).value
    assert [type(i) for i in err.items] == [ErrorItem]
    gen = ollama.decode_response({"model": "m", "response": "hi", "done": True}).value
    assert [i.text for i in gen.items] == ["hi"]
