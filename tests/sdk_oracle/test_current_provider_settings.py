"""What today's providers take (issue 25 section 1): each class on its real case, checked with the SDK oracle.

- Anthropic has no sampling parameters any more (anthropic 2.14+ ``MessageCreateParams``): they are reported
  dropped (refused under ``error``); an old recorded request that holds them still decodes.
- Anthropic's default ``max_tokens`` is one the official client sends without streaming.
- ``reasoning.effort`` goes to ``output_config.effort`` where the Claude model takes it.
- ``service_tier``, ``speed``, ``inference_geo``, ``container`` come back from an Anthropic round trip.
- Gemini 2.5 takes ``thinkingBudget``, Gemini 3 ``thinkingLevel``.
- The model carries between two APIs of one vendor (renamed and reported where the ids differ).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from interlingua.conversion import convert_request
from interlingua.errors import ConversionError
from interlingua.mapping import get_mapper

from .bodies import REAL
from .clients import send
from .oracle import check_request

TEMPERATURE_CHAT = "corpus/openai_chat/pai__test_snowflake__test_snowflake_thinking.0.request.json"  # temperature: 1
EFFORT_HIGH_CHAT = "openai_compatible_hosts/groq__pai_thinking_wire_contract_reasoning_wire_contract_groq_gpt_oss_thinking_high.0.request.json"
GPT41_CHAT = "openai_chat/pai_openai_instructions_with_tool_calls.0.request.json"  # gpt-4.1-mini
BEDROCK_CLAUDE = "pai_bedrock_anthropic_message_history_starting_with_response"  # model in the URL (index.json)


def load(rel: str) -> dict[str, Any]:
    return json.loads((REAL / rel).read_text(encoding="utf-8"))


def accepted(target: str, body: dict[str, Any]) -> None:
    assert check_request(target, body) == []  # type: ignore[arg-type]
    assert send(target, body) == []


def entries(report: Any) -> list[tuple[str, str | None]]:
    return [(e.action, e.pointer) for e in report]


# --------------------------------------------------------------------------- Anthropic: no sampling parameters


def test_chat_temperature_is_reported_dropped_for_anthropic_and_the_client_sends_the_body() -> None:
    body = load(TEMPERATURE_CHAT)
    assert body["temperature"] == 1
    out = convert_request(body, source="openai-chat", target="anthropic", model="claude-sonnet-4-6", policy="drop")
    assert "temperature" not in out.value
    assert ("dropped", "/settings/temperature") in entries(out.report)
    accepted("anthropic", out.value)


def test_chat_temperature_is_refused_for_anthropic_under_policy_error() -> None:
    with pytest.raises(ConversionError, match=r"temperature=1(\.0)? has no Anthropic equivalent.*use policy drop"):
        convert_request(load(TEMPERATURE_CHAT), source="openai-chat", target="anthropic", model="claude-sonnet-4-6", policy="error")


def test_the_client_oracle_refuses_what_the_current_anthropic_api_lacks() -> None:
    """The case the oracle missed before (it checked types only, and no fixture sent temperature to Anthropic)."""
    body = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [{"role": "user", "content": "hi"}], "temperature": 0.2}
    assert check_request("anthropic", body) == ["/temperature: extra_forbidden: Extra inputs are not permitted"]
    assert send("anthropic", body) == ["anthropic client refused the body: TypeError: unexpected keyword argument 'temperature'"]


def test_an_old_recorded_anthropic_request_with_temperature_decodes_and_goes_elsewhere() -> None:
    """Bedrock's recorded Claude request (temperature 0.0) and an Anthropic body holding temperature."""
    old = {"model": "claude-sonnet-4-5", "max_tokens": 100, "temperature": 0.3, "top_k": 5, "messages": [{"role": "user", "content": "hi"}]}
    transcript = get_mapper("anthropic").decode_request(old)
    assert not transcript.report and transcript.value.settings.temperature == 0.3
    chat = convert_request(old, source="anthropic", target="openai-chat", model="gpt-4.1", policy="drop")
    assert chat.value["temperature"] == 0.3 and ("dropped", "/settings/top_k") in entries(chat.report)
    back = convert_request(old, source="anthropic", target="anthropic", policy="drop")
    assert "temperature" not in back.value and "top_k" not in back.value
    assert {("dropped", "/settings/temperature"), ("dropped", "/settings/top_k")} <= set(entries(back.report))
    accepted("anthropic", back.value)


# --------------------------------------------------------------------------- Anthropic: max_tokens the client sends


@pytest.mark.parametrize(("model", "expected"), [("claude-sonnet-4-5", 21333), ("claude-opus-4-0", 8192), ("claude-3-5-haiku-20241022", 8192)])
def test_default_max_tokens_is_sent_by_the_official_client_without_streaming(model: str, expected: int) -> None:
    body = load(GPT41_CHAT)
    assert "max_tokens" not in body and "max_completion_tokens" not in body and body.get("stream") is not True
    out = convert_request(body, source="openai-chat", target="anthropic", model=model, policy="drop")
    assert out.value["max_tokens"] == expected
    assert ("changed", "/settings/max_output_tokens") in entries(out.report)
    accepted("anthropic", out.value)
    # what the model's full output limit would have been: the client refuses it without streaming
    if expected == 21333:
        assert send("anthropic", {**out.value, "max_tokens": 64000})[0].startswith("anthropic client refused the body: ValueError: Streaming is required")


def test_a_streamed_request_keeps_the_models_output_limit() -> None:
    body = {**load(GPT41_CHAT), "stream": True}
    out = convert_request(body, source="openai-chat", target="anthropic", model="claude-sonnet-4-5", policy="drop")
    assert out.value["max_tokens"] == 64000 and out.value["stream"] is True
    accepted("anthropic", out.value)


# --------------------------------------------------------------------------- Anthropic: effort, format, tiers


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("claude-opus-4-7", {"output_config": {"effort": "high"}}),
        ("claude-opus-4-5-20251101", {"output_config": {"effort": "high"}}),
        ("claude-sonnet-4-5", {"thinking": {"type": "enabled", "budget_tokens": 16384}}),
    ],
)
def test_reasoning_effort_goes_to_output_config_effort_where_the_model_takes_it(model: str, expected: dict[str, Any]) -> None:
    body = load(EFFORT_HIGH_CHAT)
    assert body["reasoning_effort"] == "high"
    out = convert_request(body, source="openai-chat", target="anthropic", model=model, policy="drop")
    assert {k: out.value[k] for k in expected} == expected
    assert ("output_config" in out.value) != ("thinking" in out.value)
    if "thinking" in expected:
        assert ("changed", "/settings/reasoning/effort") in entries(out.report)
    accepted("anthropic", out.value)


def test_an_effort_level_the_model_lacks_goes_to_the_nearest_one_and_is_reported() -> None:
    body = {**load(EFFORT_HIGH_CHAT), "reasoning_effort": "xhigh"}
    out = convert_request(body, source="openai-chat", target="anthropic", model="claude-opus-4-5-20251101", policy="drop")
    assert out.value["output_config"] == {"effort": "high"}
    assert ("changed", "/settings/reasoning/effort") in entries(out.report)


def test_an_anthropic_round_trip_keeps_service_tier_speed_inference_geo_container_and_format() -> None:
    body = {
        "model": "claude-opus-4-7", "max_tokens": 2048, "service_tier": "standard_only", "speed": "fast", "inference_geo": "us",
        "container": "container_011CZ", "output_config": {"effort": "xhigh", "format": {"type": "json_schema", "schema": {"type": "object", "additionalProperties": False}}},
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    out = convert_request(body, source="anthropic", target="anthropic", policy="error")
    assert out.value == body and not list(out.report)
    accepted("anthropic", out.value)
    via_canonical = convert_request(convert_request(body, source="anthropic", target="canonical").value, source="canonical", target="anthropic", policy="error")
    assert via_canonical.value == body


# --------------------------------------------------------------------------- Gemini: thinkingBudget for 2.5


def test_gemini_2_5_gets_a_thinking_budget_not_a_level() -> None:
    out = convert_request(load(EFFORT_HIGH_CHAT), source="openai-chat", target="gemini", model="gemini-2.5-flash", policy="drop")
    thinking = out.value["generationConfig"]["thinkingConfig"]
    assert thinking == {"thinkingBudget": 24576}
    assert ("changed", "/settings/reasoning/effort") in entries(out.report)
    assert check_request("gemini", out.value) == []


@pytest.mark.parametrize(("effort", "model", "budget"), [("none", "gemini-2.5-pro", 128), ("none", "gemini-2.5-flash", 0), ("minimal", "gemini-2.5-pro", 512), ("low", "gemini-2.5-flash-lite", 1024), ("xhigh", "gemini-2.5-pro", 32768)])
def test_gemini_2_5_budgets_stay_within_the_models_range(effort: str, model: str, budget: int) -> None:
    body = {**load(EFFORT_HIGH_CHAT), "reasoning_effort": effort}
    out = convert_request(body, source="openai-chat", target="gemini", model=model, policy="drop")
    assert out.value["generationConfig"]["thinkingConfig"] == {"thinkingBudget": budget}
    assert ("changed", "/settings/reasoning/effort") in entries(out.report)


def test_gemini_3_keeps_the_thinking_level() -> None:
    out = convert_request(load(EFFORT_HIGH_CHAT), source="openai-chat", target="gemini", model="gemini-3-pro-preview", policy="drop")
    assert out.value["generationConfig"]["thinkingConfig"] == {"thinkingLevel": "high"}
    assert check_request("gemini", out.value) == []


# --------------------------------------------------------------------------- the model between two APIs of one vendor


def test_chat_to_responses_keeps_the_openai_model() -> None:
    body = load(GPT41_CHAT)
    out = convert_request(body, source="openai-chat", target="openai-responses", policy="drop")
    assert out.value["model"] == body["model"] == "gpt-4.1-mini"
    assert not [e for e in out.report if e.pointer == "/model"]
    accepted("openai-responses", out.value)
    back = convert_request(out.value, source="openai-responses", target="openai-chat", policy="drop")
    assert back.value["model"] == "gpt-4.1-mini"


def test_bedrock_and_anthropic_claude_ids_map_to_each_other_and_the_rename_is_reported() -> None:
    index = json.loads((REAL / "bedrock_converse" / "index.json").read_text(encoding="utf-8"))
    model_id = index[BEDROCK_CLAUDE]["model"]
    assert model_id == "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    body = {**load(f"bedrock_converse/{BEDROCK_CLAUDE}.request.json"), "modelId": model_id}  # the URL's model id, as the body field
    out = convert_request(body, source="bedrock-converse", target="anthropic", policy="drop")
    assert out.value["model"] == "claude-sonnet-4-5-20250929"
    assert ("changed", "/model") in entries(out.report)
    accepted("anthropic", out.value)
    back = convert_request(out.value, source="anthropic", target="bedrock-converse", policy="drop")
    # Claude Sonnet 4.5 is invoked through an inference profile (the recording's own id); the rename is reported
    assert back.value["modelId"] == "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    assert ("changed", "/model") in entries(back.report)


def test_a_model_of_another_vendor_or_an_alias_without_an_id_is_not_carried() -> None:
    chat = convert_request(load(GPT41_CHAT), source="openai-chat", target="anthropic", policy="drop")
    assert "model" not in chat.value
    recorded = load("anthropic/" + next(p.name for p in (REAL / "anthropic").glob("*.request.json") if '"claude-haiku-4-5"' in p.read_text()))
    # an alias the catalogue resolves goes as the dated id it points at, renamed and reported
    alias = convert_request(recorded, source="anthropic", target="bedrock-converse", policy="drop")
    assert alias.value["modelId"] == "us.anthropic.claude-haiku-4-5-20251001-v1:0" and ("changed", "/model") in entries(alias.report)
    # one it does not resolve has no Bedrock id: not carried, reported
    unknown = convert_request({**recorded, "model": "claude-no-such-alias"}, source="anthropic", target="bedrock-converse", policy="drop")
    assert "modelId" not in unknown.value and ("changed", "/model") in entries(unknown.report)


# --------------------------------------------------------------------------- the CLI, as the issue ran it


def test_cli_convert_of_chat_temperature_to_anthropic_exits_1_under_error_and_warns_under_drop() -> None:
    from typer.testing import CliRunner

    from interlingua.cli import app

    path = str(REAL / TEMPERATURE_CHAT)
    refused = CliRunner().invoke(app, ["convert", "--from", "openai-chat", "--to", "anthropic", "--model", "claude-sonnet-4-6", path])
    assert refused.exit_code == 1 and "temperature" in refused.stderr and "use policy drop" in refused.stderr
    dropped = CliRunner().invoke(app, ["convert", "--from", "openai-chat", "--to", "anthropic", "--model", "claude-sonnet-4-6", "--policy", "drop", path])
    assert dropped.exit_code == 0, dropped.stderr
    assert "warning: dropped: settings /settings/temperature" in dropped.stderr
    assert "temperature" not in json.loads(dropped.stdout)


def test_cli_convert_of_chat_to_responses_writes_the_model() -> None:
    from typer.testing import CliRunner

    from interlingua.cli import app

    out = CliRunner().invoke(app, ["convert", "--from", "openai-chat", "--to", "openai-responses", "--policy", "drop", str(REAL / GPT41_CHAT)])
    assert out.exit_code == 0, out.stderr
    assert json.loads(out.stdout)["model"] == "gpt-4.1-mini" and "not carried over" not in out.stderr
