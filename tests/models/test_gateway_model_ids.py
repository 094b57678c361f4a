"""A gateway's or host's own model id is described by the catalogue's row for the model it names.

The real cases are ids our fixtures and the corpus send (OpenRouter ``anthropic/claude-sonnet-4.5``,
``google/gemini-2.0-flash-exp:free``, ``minimax/minimax-m2:free``; Groq ``qwen/qwen3-32b``; Bedrock's
OpenAI-compatible ``openai.gpt-5.5``; the Hugging Face router ``deepseek-ai/DeepSeek-R1``; Snowflake
Cortex ``openai-gpt-4.1``); the class is checked over every row of the pinned catalogue.
"""

from __future__ import annotations

import re

import pytest

from interlingua.models import lookup, use_models_file
from interlingua.models._catalogue import rows
from interlingua.models._gateway import underlying


@pytest.fixture(autouse=True)
def _no_user_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INTERLINGUA_MODELS", raising=False)
    use_models_file(None)


@pytest.mark.parametrize(
    ("provider", "model", "row"),
    [
        ("openai-chat", "anthropic/claude-sonnet-4.5", "anthropic/claude-sonnet-4-5"),
        ("openai-chat", "anthropic/claude-sonnet-4.6", "anthropic/claude-sonnet-4-6"),
        ("openai-chat:openrouter", "anthropic/claude-sonnet-4.5", "anthropic/claude-sonnet-4-5"),
        ("openai-chat", "minimax/minimax-m2:free", "fireworks_ai/accounts/fireworks/models/minimax-m2"),
        ("openai-chat", "qwen/qwen3-32b", "fireworks_ai/accounts/fireworks/models/qwen3-32b"),
        ("openai-chat", "qwen/qwen3-30b-a3b-instruct-2507", "fireworks_ai/accounts/fireworks/models/qwen3-30b-a3b-instruct-2507"),
        ("openai-responses", "openai.gpt-5.5", "openai/gpt-5.5"),
        ("openai-responses", "openai.gpt-5.6-luna", "openai/gpt-5.6-luna"),
        ("openai-chat:huggingface", "deepseek-ai/DeepSeek-R1", "deepseek/deepseek-r1"),
        ("openai-chat", "openai-gpt-4.1", "snowflake/openai-gpt-4.1"),
        ("openai-chat", "llama3.3-70b", "snowflake/llama3.3-70b"),
    ],
)
def test_recorded_gateway_ids_find_the_row_of_their_model(provider: str, model: str, row: str) -> None:
    info = lookup(provider, model)
    assert info.known and info.catalogue_row == row
    assert info.facts["context_window"].origin == "catalogue" and row in info.why("context_window")
    if info.resolved_as is not None:
        assert info.resolved_as in info.why("context_window")  # `models show` says how the id was read


def test_the_vendors_row_gives_the_facts_not_a_default() -> None:
    via_gateway = lookup("openai-chat:openrouter", "anthropic/claude-sonnet-4.5")
    vendor = lookup("anthropic", "claude-sonnet-4-5")
    assert via_gateway.context_window == vendor.context_window
    assert via_gateway.max_output_tokens == vendor.max_output_tokens
    assert via_gateway.capabilities.input_modalities == vendor.capabilities.input_modalities
    assert via_gateway.prices == vendor.prices


def _dotted(name: str) -> str:
    """Anthropic's ``claude-sonnet-4-5`` as OpenRouter spells it: ``claude-sonnet-4.5``."""
    return re.sub(r"(?<=\b\d)-(?=\d\b)", ".", name)


ANTHROPIC_UNDATED = sorted(n for n in rows("anthropic") if not re.search(r"\d{8}$", n))


@pytest.mark.parametrize("name", ANTHROPIC_UNDATED)
def test_every_anthropic_row_is_found_by_its_openrouter_spelling(name: str) -> None:
    for model in (f"anthropic/{_dotted(name)}", f"anthropic/{_dotted(name)}:thinking"):
        info = lookup("openai-chat:openrouter", model)
        assert info.catalogue_row == f"anthropic/{name}", model
        assert info.context_window == lookup("anthropic", name).context_window


@pytest.mark.parametrize("name", sorted(n for n in rows("openai") if not n.startswith("ft:")))
def test_every_openai_row_is_found_by_its_bedrock_spelling(name: str) -> None:
    # Bedrock's own row by that exact name, where the catalogue has one, else OpenAI's row for the model
    own = f"openai.{name}" in rows("bedrock_converse")
    expected = f"bedrock_converse/openai.{name}" if own else f"openai/{name}"
    assert lookup("openai-responses", f"openai.{name}").catalogue_row == expected


def test_a_free_variant_costs_nothing_and_says_why() -> None:
    info = lookup("openai-chat", "minimax/minimax-m2:free")
    assert info.prices is not None and info.prices.input == 0.0 and info.prices.output == 0.0
    assert "':free' variant" in info.why("prices")
    paid = lookup("openai-chat", "minimax/minimax-m2")
    assert paid.catalogue_row == info.catalogue_row and paid.prices is not None and paid.prices.input


@pytest.mark.parametrize(
    "model",
    ["gpt-oss:20b", "qwen3:0.6b", "llama3.3-70b", "claude-sonnet-4-5", "accounts/fireworks/models/qwen3-32b", "unknown/"],
)
def test_ids_that_are_nobodys_gateway_id_have_no_reading(model: str) -> None:
    # an Ollama tag's ':20b' is no variant; a bare name has no vendor; a host path is not vendor/model
    assert underlying(model) == []


def test_a_variant_and_a_dotted_version_are_read_in_order() -> None:
    readings = underlying("anthropic/claude-3.7-sonnet:thinking")
    assert [(r.provider, r.name, r.variant) for r in readings] == [
        ("anthropic", "claude-3.7-sonnet", "thinking"),
        ("anthropic", "claude-3-7-sonnet", "thinking"),
    ]


def test_an_unknown_gateway_id_stays_unknown() -> None:
    info = lookup("openai-chat:openrouter", "no-such-vendor/no-such-model:free")
    assert not info.known and info.catalogue_row is None
    assert info.facts["tools"].origin == "unknown"


def test_gateway_rules_do_not_apply_to_a_vendors_own_wire_format() -> None:
    # the Anthropic API takes Anthropic's ids only: no gateway reading finds a row for its spelling
    info = lookup("anthropic", "anthropic/claude-sonnet-4.5")
    assert info.resolved_as is None and info.catalogue_row is None
