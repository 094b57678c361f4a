"""interlingua.models.lookup: facts from the catalogue snapshot, the overrides and the user's table, each with its origin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interlingua.errors import DocumentError, UnknownFormatError
from interlingua.items import Usage
from interlingua.models import MODEL_LEVEL, cost, lookup, source, use_models_file

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "src" / "interlingua" / "data" / "catalogue.json"


@pytest.fixture(autouse=True)
def _no_user_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INTERLINGUA_MODELS", raising=False)
    use_models_file(None)


def _row(provider: str, name: str) -> dict:
    return json.loads(SNAPSHOT.read_text(encoding="utf-8"))["providers"][provider][name]


def test_catalogue_facts_are_the_snapshot_rows() -> None:
    info = lookup("openai-chat:cerebras", "gpt-oss-120b")
    row = _row("cerebras", "gpt-oss-120b")
    assert info.known and info.catalogue_row == "cerebras/gpt-oss-120b"
    assert info.context_window == row["max_input_tokens"]
    assert info.max_output_tokens == row["max_output_tokens"] == info.capabilities.max_output_tokens
    assert info.capabilities.tools is row["supports_function_calling"]
    assert info.facts["tools"].origin == "catalogue" and "cerebras/gpt-oss-120b" in info.facts["tools"].detail
    assert info.prices is not None and info.prices.input == pytest.approx(row["input_cost_per_token"] * 1e6)
    # what the host registry says for every model of the host stays (Cerebras serves no image input)
    assert info.capabilities.input_modalities == ["text"] and info.facts["input_modalities"].origin == "default"


def test_an_override_beats_the_catalogue_and_names_its_source() -> None:
    info = lookup("openai-chat", "gpt-5-mini")
    assert info.override is not None and info.override.pattern == "gpt-5*"
    assert info.capabilities.reasoning is False  # Chat Completions returns no reasoning (the override), whatever the catalogue says
    assert info.facts["reasoning"].origin == "override" and "gpt-5*" in info.why("reasoning")
    assert info.context_window == _row("openai", "gpt-5-mini")["max_input_tokens"]  # what the override does not say: the catalogue's


def test_reasoning_from_the_catalogue_is_the_wire_formats_to_send_back() -> None:
    """Groq takes no reasoning back (its registry entry); the catalogue says the model reasons: both hold."""
    info = lookup("openai-chat:groq", "openai/gpt-oss-120b")
    assert info.known
    assert info.capabilities.reasoning is False
    assert info.capabilities.reasoning_settings is True


def test_dated_and_prefixed_names_find_their_row() -> None:
    assert lookup("gemini", "models/gemini-2.5-flash").catalogue_row == "gemini/gemini-2.5-flash"
    assert lookup("anthropic", "claude-sonnet-4-5-20250929").catalogue_row is not None


def test_unknown_model_has_unknown_capabilities_not_a_defaults() -> None:
    info = lookup("openai-chat", "no-such-model-7b")
    assert not info.known and info.catalogue_row is None and info.prices is None
    for name in MODEL_LEVEL:
        assert info.facts[name].origin == "unknown" and info.facts[name].value is None, name
    assert info.facts["requires_tool_definitions"].origin == "default"  # a wire rule, not a model fact
    assert cost(Usage(input_tokens=10, output_tokens=10), "openai-chat", "no-such-model-7b") is None


def test_a_model_sent_over_plain_openai_chat_is_found_among_the_hosts_rows() -> None:
    """The corpus's Cerebras and DeepSeek traffic is recorded as openai-chat (the URL path)."""
    info = lookup("openai-chat", "gpt-oss-120b")
    assert info.known and info.catalogue_row is not None
    # borrowed from another wire format: only the model's facts, never that format's wire rules
    assert lookup("openai-chat", "claude-sonnet-4-5").capabilities.requires_tool_definitions is False
    assert lookup("openai-chat", "claude-sonnet-4-5").capabilities.reasoning_settings is True


def test_user_table_beats_both_for_the_fields_it_spells_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = {"schema_version": "1.0", "entries": [{"provider": "openai-chat", "pattern": "gpt-4o", "capabilities": {"tools": False}, "note": "our proxy strips tools"}]}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    monkeypatch.setenv("INTERLINGUA_MODELS", str(path))
    info = lookup("openai-chat", "gpt-4o")
    assert info.capabilities.tools is False and info.facts["tools"].origin == "user" and "our proxy" in info.facts["tools"].detail
    assert info.capabilities.input_modalities == lookup("openai-chat", "gpt-4o-mini").capabilities.input_modalities  # the rest: unchanged
    assert lookup("openai-chat", "gpt-4o-mini").facts["tools"].origin != "user"  # whole-name glob
    monkeypatch.delenv("INTERLINGUA_MODELS")
    assert lookup("openai-chat", "gpt-4o").capabilities.tools is True


def test_user_table_that_is_not_valid_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"schema_version": "1.0", "entries": [{"provider": "x", "pattern": "m", "capabilities": {"tools": "yes"}}]}', encoding="utf-8")
    with pytest.raises(DocumentError, match="bad.json"):
        use_models_file(path)


def test_unknown_provider_is_refused() -> None:
    with pytest.raises(UnknownFormatError):
        lookup("no-such-format", "gpt-4o")


def test_cost_prices_cache_and_reasoning_apart() -> None:
    row = _row("anthropic", "claude-sonnet-4-5")
    usage = Usage(input_tokens=1_000, output_tokens=200, cache_read_tokens=600, cache_write_tokens=100)
    got = cost(usage, "anthropic", "claude-sonnet-4-5")
    assert got is not None
    want = 300 * row["input_cost_per_token"] + 600 * row["cache_read_input_token_cost"] + 100 * row["cache_creation_input_token_cost"] + 200 * row["output_cost_per_token"]
    assert got.usd == pytest.approx(want)
    assert got.as_of == source().label() and "estimate" in got.label() and source().date in got.label()


def test_source_is_the_tools_pin() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("refresh_models", ROOT / "tools" / "refresh_models.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert source().__dict__ == mod.PIN
    # the committed file is exactly what the tool renders (so --check compares like with like)
    text = SNAPSHOT.read_text(encoding="utf-8")
    assert mod.render(json.loads(text)) == text


def test_refresh_keeps_only_conversational_models_of_mapped_providers_and_the_derived_fields() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("refresh_models", ROOT / "tools" / "refresh_models.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    raw = {
        "sample_spec": {"litellm_provider": "one of https://docs.litellm.ai/docs/providers", "mode": "chat"},
        "cerebras/gpt-oss-120b": {**_row("cerebras", "gpt-oss-120b"), "litellm_provider": "cerebras", "source": "https://example", "supported_regions": ["x"]},
        "text-embedding-3-small": {"litellm_provider": "openai", "mode": "embedding", "max_input_tokens": 8191},
        "somewhere/else-model": {"litellm_provider": "somewhere", "mode": "chat"},
        "deepseek-chat": {"litellm_provider": "deepseek", "mode": "chat", "max_input_tokens": 1},
        "deepseek/deepseek-chat": {"litellm_provider": "deepseek", "mode": "chat", "max_input_tokens": 2},
    }
    doc = mod.derive(raw)
    assert set(doc["providers"]) == {"cerebras", "deepseek"}
    assert doc["providers"]["cerebras"]["gpt-oss-120b"] == _row("cerebras", "gpt-oss-120b")  # no source URL, no regions
    assert doc["providers"]["deepseek"]["deepseek-chat"]["max_input_tokens"] == 1  # the unprefixed key wins
    changes = mod._changes({"source": doc["source"], "providers": {"cerebras": {}}}, doc)
    assert any("cerebras: 1 added: gpt-oss-120b" in c for c in changes) and any("deepseek: 1 added" in c for c in changes)
