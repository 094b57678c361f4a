"""Anthropic -> Bedrock: Claude ids of models Bedrock serves only through an inference profile (issue 25).

Bedrock answers 400 "Invocation of model ID anthropic.claude-sonnet-4-20250514-v1:0 with on-demand throughput
isn't supported. Retry your request with the ID or ARN of an inference profile that contains this model" for
Claude 3.7 Sonnet and every later Claude model (AWS Bedrock user guide, "Supported Regions and models for
inference profiles"). The real Bedrock recording (pydantic-ai's Converse cassette) was made with the profile id
``us.anthropic.claude-sonnet-4-5-20250929-v1:0``. An Anthropic request for such a model goes to Bedrock with the
US profile id (the rename reported); older models keep their base id; every profile prefix reads back.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interlingua import convert_request
from interlingua.providers.bedrock_converse._models import anthropic_id, bedrock_id, profile_only

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"


@pytest.mark.parametrize(
    ("anthropic", "bedrock"),
    [
        ("claude-sonnet-4-5-20250929", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
        ("claude-haiku-4-5-20251001", "us.anthropic.claude-haiku-4-5-20251001-v1:0"),
        ("claude-sonnet-4-20250514", "us.anthropic.claude-sonnet-4-20250514-v1:0"),
        ("claude-3-7-sonnet-20250219", "us.anthropic.claude-3-7-sonnet-20250219-v1:0"),
        ("claude-3-5-haiku-20241022", "anthropic.claude-3-5-haiku-20241022-v1:0"),
        ("claude-3-5-sonnet-20241022", "anthropic.claude-3-5-sonnet-20241022-v2:0"),
        ("claude-3-haiku-20240307", "anthropic.claude-3-haiku-20240307-v1:0"),
    ],
)
def test_claude_ids_map_to_the_id_bedrock_invokes(anthropic: str, bedrock: str) -> None:
    assert bedrock_id(anthropic) == bedrock
    assert anthropic_id(bedrock) == anthropic
    assert profile_only(anthropic) == bedrock.startswith("us.")


@pytest.mark.parametrize("prefix", ["us.", "eu.", "apac.", "jp.", "au.", "global.", ""])
def test_every_profile_prefix_reads_back(prefix: str) -> None:
    assert anthropic_id(f"{prefix}anthropic.claude-sonnet-4-5-20250929-v1:0") == "claude-sonnet-4-5-20250929"


def test_an_alias_goes_as_its_dated_id() -> None:
    """An alias has no Bedrock id of its own: it goes as the dated id the catalogue says it points at."""
    assert not profile_only("claude-sonnet-4-5")
    assert bedrock_id("claude-sonnet-4-5") == bedrock_id("claude-sonnet-4-5-20250929") == "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    assert bedrock_id("claude-no-such-alias") is None


def test_anthropic_request_to_bedrock_writes_the_profile_id_the_recording_used() -> None:
    index = json.loads((REAL / "bedrock_converse" / "index.json").read_text(encoding="utf-8"))
    recorded = {v["model"] for v in index.values() if isinstance(v, dict) and "model" in v}
    assert "us.anthropic.claude-sonnet-4-5-20250929-v1:0" in recorded
    anthropic_body = {"model": "claude-sonnet-4-5-20250929", "max_tokens": 1024, "messages": [{"role": "user", "content": "hi"}]}
    out = convert_request(anthropic_body, source="anthropic", target="bedrock-converse", policy="error")
    assert out.value["modelId"] == "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    renamed = [e for e in out.report if e.pointer == "/model"]
    assert renamed and "us.anthropic.claude-sonnet-4-5-20250929-v1:0" in renamed[0].reason
