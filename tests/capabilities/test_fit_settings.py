"""Preflight of the settings: what a model cannot take is refused (error) or left out (drop/degrade).

Real case: pydantic-ai's Responses request for gpt-5 (``reasoning: {effort: low, summary: detailed}``)
sent to gpt-4o on Chat Completions, which takes no reasoning parameter at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from interlingua import convert_request
from interlingua.capabilities import fit, preflight, resolve
from interlingua.codec import SCHEMA_VERSION
from interlingua.errors import CapabilityError
from interlingua.items import ModelCapabilities, ReasoningSettings, ResponseFormat, Settings, TextItem, Transcript

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
THINKING = REAL / "openai_responses" / "pai_openai_responses_thinking_with_tool_calls.0.request.json"
PLAIN = ModelCapabilities(input_modalities=["text"], output_modalities=["text"], tools=True, reasoning=False, structured_output=False, stop_sequences=False, max_output_tokens=4096)


def doc(**settings: object) -> Transcript:
    return Transcript(schema_version=SCHEMA_VERSION, items=[TextItem(role="user", text="hi")], settings=msgspec.convert(settings, Settings))


def test_the_real_case_is_refused_under_error_and_left_out_under_drop() -> None:
    body = json.loads(THINKING.read_text())
    with pytest.raises(CapabilityError) as info:
        convert_request(body, source="openai-responses", target="openai-chat", model="gpt-4o")
    assert "the settings ask for reasoning (effort='low', summary='detailed')" in str(info.value)
    for policy in ("drop", "degrade"):
        conv = convert_request(body, source="openai-responses", target="openai-chat", model="gpt-4o", policy=policy)
        assert "reasoning_effort" not in conv.value and "reasoning" not in conv.value
        assert any(e.action == "dropped" and e.pointer == "/settings/reasoning" for e in conv.report)
    # a reasoning model keeps it
    kept = convert_request(body, source="openai-responses", target="openai-chat", model="o3")
    assert kept.value["reasoning_effort"] == "low"


@pytest.mark.parametrize(
    ("settings", "needle"),
    [
        ({"reasoning": {"effort": "none"}}, "reasoning (effort='none')"),
        ({"reasoning": {"budget_tokens": 2048}}, "reasoning (budget_tokens=2048)"),
        ({"response_format": {"type": "json_object"}}, "json_object output"),
        ({"stop": ["END"]}, "stop sequences"),
        ({"max_output_tokens": 100000}, "above the model's limit of 4096"),
    ],
)
def test_each_setting_the_model_cannot_take_is_one_violation(settings: dict[str, object], needle: str) -> None:
    with pytest.raises(CapabilityError) as info:
        preflight(doc(**settings), PLAIN, model="m", provider="openai-chat")
    assert [v.item_type for v in info.value.violations] == ["settings"]
    assert needle in str(info.value)


def test_what_the_model_takes_is_no_violation() -> None:
    ok = doc(response_format={"type": "text"}, stop=[], max_output_tokens=4096, temperature=0.2)
    preflight(ok, PLAIN, model="m", provider="openai-chat")
    rich = ModelCapabilities(reasoning=True, structured_output=True, stop_sequences=True)
    preflight(doc(reasoning={"effort": "high"}, response_format={"type": "json_object"}, stop=["x"], max_output_tokens=10**6), rich, model="m", provider="openai-chat")


def test_drop_leaves_out_or_lowers_and_reports_each_one() -> None:
    t = doc(reasoning={"effort": "high"}, response_format={"type": "json_schema", "schema": {"type": "object"}}, stop=["END"], max_output_tokens=10**6, temperature=0.5)
    fitted = fit(t, PLAIN, model="m", provider="openai-chat", policy="drop")
    s = fitted.transcript.settings
    assert s.reasoning is msgspec.UNSET and s.response_format is msgspec.UNSET and s.stop is msgspec.UNSET
    assert s.max_output_tokens == 4096 and s.temperature == 0.5
    assert sorted((e.action, e.pointer) for e in fitted.report) == [
        ("changed", "/settings/max_output_tokens"),
        ("dropped", "/settings/reasoning"),
        ("dropped", "/settings/response_format"),
        ("dropped", "/settings/stop"),
    ]
    assert t.settings.reasoning == ReasoningSettings(effort="high") and t.settings.response_format == ResponseFormat(type="json_schema", schema={"type": "object"})  # input untouched


def test_the_model_table_decides() -> None:
    claude = resolve("anthropic", "claude-sonnet-4-5").capabilities
    assert claude.reasoning is True
    preflight(doc(reasoning={"budget_tokens": 4096}), claude, model="claude-sonnet-4-5", provider="anthropic")
    # o3 on Chat Completions returns no reasoning but takes reasoning_effort
    o3 = resolve("openai-chat", "o3").capabilities
    assert (o3.reasoning, o3.reasoning_settings) == (False, True)
    preflight(doc(reasoning={"effort": "high"}), o3, model="o3", provider="openai-chat")
    with pytest.raises(CapabilityError):
        preflight(doc(reasoning={"effort": "high"}), resolve("openai-chat", "gpt-4o").capabilities, model="gpt-4o", provider="openai-chat")
