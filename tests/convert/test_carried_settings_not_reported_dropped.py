"""A setting read into its canonical field is carried, not dropped: the provider data a source mapper
keeps only to spell it back the same way (OpenAI Chat's ``max_tokens``) is not reported as lost by
another target, while a field that is really left out still is."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from interlingua import convert_request
from interlingua.cli import app

runner = CliRunner()
TARGETS = ["anthropic", "gemini", "openai-responses", "bedrock-converse", "cohere", "ollama"]
MAX_TOKENS_FIELD = {"anthropic": ("max_tokens",), "gemini": ("generationConfig", "maxOutputTokens"), "openai-responses": ("max_output_tokens",), "bedrock-converse": ("inferenceConfig", "maxTokens"), "cohere": ("max_tokens",), "ollama": ("options", "num_predict")}


def _at(body: dict, path: tuple[str, ...]) -> object:
    for key in path:
        body = body[key]
    return body


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("field", ["max_tokens", "max_completion_tokens"])
def test_max_tokens_carried_is_not_reported(target: str, field: str) -> None:
    body = {"model": "gpt-4o", field: 100, "stop": "END", "messages": [{"role": "user", "content": "hi"}]}
    out = convert_request(body, source="openai-chat", target=target, model="claude-sonnet-4-5" if target == "anthropic" else "m")
    assert _at(out.value, MAX_TOKENS_FIELD[target]) == 100
    dropped = [e for e in out.report if e.action == "dropped" and "provider data" in e.reason]
    assert dropped == [], dropped


def test_user_case_cli() -> None:
    body = {"model": "gpt-4o", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}
    result = runner.invoke(app, ["convert", "-", "--from", "openai-chat", "--to", "anthropic", "--model", "claude-sonnet-4-5"], input=json.dumps(body))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["max_tokens"] == 100
    assert "max_tokens" not in result.stderr


def test_a_field_not_carried_is_still_reported() -> None:
    """max_completion_tokens wins; a different max_tokens and logprobs are really left out."""
    body = {"model": "gpt-4o", "max_completion_tokens": 100, "max_tokens": 50, "logprobs": True, "messages": [{"role": "user", "content": "hi"}]}
    out = convert_request(body, source="openai-chat", target="anthropic", model="claude-sonnet-4-5")
    assert out.value["max_tokens"] == 100
    (entry,) = [e for e in out.report if e.action == "dropped" and "provider data" in e.reason]
    assert "(logprobs, max_tokens)" in entry.reason


def test_through_canonical_too() -> None:
    body = {"model": "gpt-4o", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}
    doc = convert_request(body, source="openai-chat", target="canonical").value
    out = convert_request(doc, source="canonical", target="anthropic", model="claude-sonnet-4-5")
    assert out.value["max_tokens"] == 100
    assert not [e for e in out.report if e.action == "dropped"]
