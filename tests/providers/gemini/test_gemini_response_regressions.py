"""Regressions: Gemini response encoding must not copy another provider's stop reason or usage record,
and ``decode_response`` must refuse a body that is not a Gemini response."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interlingua.errors import ConversionError
from interlingua.items import ErrorItem, StopReason, Usage
from interlingua.mapping.protocol import ModelResponse
from interlingua.providers.anthropic import mapper as anthropic
from interlingua.providers.gemini import mapper as gemini
from interlingua.providers.openai_chat import mapper as openai_chat
from interlingua.streaming import collect

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"
_GEMINI_USAGE_KEYS = {"promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount", "cachedContentTokenCount", "totalTokenCount"}


def test_anthropic_stream_to_gemini_uses_gemini_vocabulary() -> None:
    # `interlingua convert --from anthropic --to gemini --kind stream` gave finishReason "end_turn"
    # and usageMetadata holding Anthropic keys.
    done = collect(anthropic, (REAL / "anthropic" / "pai_anthropic_thinking_part_stream.0.response.sse").read_bytes())[-1]
    body = gemini.encode_response(done.response, policy="drop").value
    assert body["candidates"][0]["finishReason"] == "STOP"
    assert body["usageMetadata"] == {"promptTokenCount": 43, "candidatesTokenCount": 282, "cachedContentTokenCount": 0, "totalTokenCount": 325}


def test_openai_chat_response_to_gemini_uses_gemini_vocabulary() -> None:
    body = json.loads((REAL / "openai_chat" / "openai_python.completion_text.response.json").read_text())
    out = gemini.encode_response(openai_chat.decode_response(body).value).value
    assert out["candidates"][0]["finishReason"] == "STOP"  # was "stop"
    assert set(out["usageMetadata"]) <= _GEMINI_USAGE_KEYS
    assert out["usageMetadata"]["promptTokenCount"] == 14
    assert out["usageMetadata"]["totalTokenCount"] == 51


def test_foreign_raw_values_are_not_written() -> None:
    # A raw value outside Gemini's vocabulary, or one decoding to another reason, gives way to the reason.
    for stop, want in [
        (StopReason(reason="other", raw="weird"), "OTHER"),
        (StopReason(reason="max_tokens", raw="length"), "MAX_TOKENS"),
        (StopReason(reason="end_turn", raw="SAFETY"), "STOP"),
        (StopReason(reason="content_filter", raw="RECITATION"), "RECITATION"),
    ]:
        out = gemini.encode_response(ModelResponse(items=[], stop_reason=stop)).value
        assert out["candidates"][0]["finishReason"] == want, stop
    # a Gemini record that disagrees with the canonical counts is rebuilt from the counts
    usage = Usage(input_tokens=5, output_tokens=2, total_tokens=7, details={"promptTokenCount": 9, "candidatesTokenCount": 2, "totalTokenCount": 11})
    out = gemini.encode_response(ModelResponse(items=[], usage=usage)).value
    assert out["usageMetadata"] == {"promptTokenCount": 5, "candidatesTokenCount": 2, "totalTokenCount": 7}


def test_decode_refuses_an_anthropic_body() -> None:
    # `--from gemini --kind response` on an Anthropic response gave `items: []` with exit 0.
    body = json.loads((REAL / "anthropic" / "pai_anthropic_parallel_tool_calls.0.response.json").read_text())
    with pytest.raises(ConversionError, match="candidates"):
        gemini.decode_response(body)
    with pytest.raises(ConversionError, match="candidates"):
        gemini.decode_response({})


def test_decode_still_reads_prompt_feedback_and_error_bodies() -> None:
    blocked = gemini.decode_response({"promptFeedback": {"blockReason": "SAFETY"}}).value
    assert blocked.stop_reason == StopReason(reason="content_filter", raw="SAFETY")
    failed = gemini.decode_response({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "quota"}}).value
    assert [type(i) for i in failed.items] == [ErrorItem]
