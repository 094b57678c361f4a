"""The shipped model table: valid against its schema, loaded by msgspec, patterns hit the intended models."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import jsonschema
import msgspec
import pytest
from referencing import Registry, Resource

from interlingua.capabilities import default_table, load_table, lookup, pattern_matches
from interlingua.capabilities._table import spelled_fields
from interlingua.errors import DocumentError

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
TABLE = ROOT / "src" / "interlingua" / "data" / "models.json"
PACKAGE = ROOT / "src" / "interlingua" / "capabilities"


def _validator() -> jsonschema.Draft202012Validator:
    registry: Registry = Registry()
    for path in SCHEMAS.glob("*.json"):
        schema = json.loads(path.read_text(encoding="utf-8"))
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
    schema = json.loads((SCHEMAS / "model_table.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, registry=registry)


def test_table_validates_against_its_schema() -> None:
    errors = sorted(_validator().iter_errors(json.loads(TABLE.read_text(encoding="utf-8"))), key=str)
    assert errors == []


def test_schema_rejects_a_broken_entry() -> None:
    bad = {"schema_version": "1.0", "entries": [{"provider": "x", "pattern": "m*", "capabilities": {"tools": "yes"}}]}
    assert list(_validator().iter_errors(bad))
    missing = {"schema_version": "1.0", "entries": [{"provider": "x", "capabilities": {}}]}
    assert list(_validator().iter_errors(missing))


def test_schema_describes_every_field() -> None:
    schema = json.loads((SCHEMAS / "model_table.json").read_text(encoding="utf-8"))
    assert schema["$id"] == "https://interlingua.dev/schemas/1.0/model_table.json"
    assert schema["title"] == "ModelTable"
    for obj in (schema, schema["$defs"]["ModelTableEntry"]):
        assert obj["description"]
        for name, prop in obj["properties"].items():
            assert prop.get("description"), name


def test_packaged_table_loads_and_each_override_states_facts_with_a_source() -> None:
    """An override states only what it changes on top of the catalogue (issue 28): each entry states
    at least one fact, only fields of the capability schema, and names where its facts come from."""
    table = default_table()
    raw = json.loads(TABLE.read_text(encoding="utf-8"))
    assert len(table.entries) == len(raw["entries"])
    fields = {f.name for f in msgspec.structs.fields(type(table.entries[0].capabilities))}
    for entry, given in zip(table.entries, raw["entries"], strict=True):
        assert set(given["capabilities"]) <= fields, entry.pattern
        assert given["capabilities"] or "context_window" in given or "retired" in given, entry.pattern
        assert spelled_fields(entry) == frozenset(given["capabilities"]), entry.pattern
        assert isinstance(entry.source, str) or (isinstance(entry.note, str) and entry.note), entry.pattern
        if "retired" in given:  # a retired model keeps its last known facts, from a public page
            assert isinstance(entry.source, str) and entry.source.startswith("https://"), entry.pattern


def test_load_table_rejects_an_invalid_file(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    path.write_text('{"schema_version": "1.0", "entries": [{"provider": "x"}]}', encoding="utf-8")
    with pytest.raises(DocumentError, match="models.json"):
        load_table(path)


# Every entry must be reached by at least one of these names (else it is shadowed or dead).
EXPECTED: list[tuple[str, str, str]] = [
    ("openai-chat", "gpt-4o-audio-preview", "gpt-4o*audio*"),
    ("openai-chat", "gpt-4o-mini-audio-preview-2024-12-17", "gpt-4o*audio*"),
    ("openai-chat", "gpt-4o-search-preview", "gpt-4o*search*"),
    ("openai-chat", "gpt-4o", "gpt-4o*"),
    ("openai-chat", "gpt-4o-mini-2024-07-18", "gpt-4o*"),
    ("openai-chat", "gpt-4.1-nano", "gpt-4.1*"),
    ("openai-chat", "gpt-5-mini", "gpt-5*"),
    ("openai-chat", "o3-mini-2025-01-31", "o3-mini*"),
    ("openai-chat", "o3", "o3*"),
    ("openai-chat", "o4-mini", "o4-mini*"),
    ("openai-chat:deepseek", "deepseek-reasoner", "deepseek-reasoner*"),
    ("openai-responses", "gpt-4o", "gpt-4o*"),
    ("openai-responses", "GPT-5-MINI", "gpt-5*"),  # matched case-insensitively
    ("openai-responses", "gpt-5", "gpt-5*"),
    ("openai-responses", "gpt-5.1-codex", "gpt-5*"),
    ("openai-responses", "o3-mini", "o3-mini*"),
    ("openai-responses", "o3-pro-2025-06-10", "o3-pro*"),
    ("openai-responses", "o3-2025-04-16", "o3*"),
    ("openai-responses", "o4-mini-2025-04-16", "o4-mini*"),
    ("anthropic", "claude-3-5-sonnet-20241022", "claude-3-5-sonnet*"),
    ("anthropic", "claude-3-5-haiku-latest", "claude-3-5-haiku*"),
    ("anthropic", "claude-3-7-sonnet-20250219", "claude-3-7-sonnet*"),
    ("anthropic", "claude-sonnet-4-0", "claude-sonnet-4-0*"),
    ("anthropic", "claude-sonnet-4-20250514", "claude-sonnet-4-2025*"),
    ("anthropic", "claude-opus-4-0", "claude-opus-4-0*"),
    ("anthropic", "claude-opus-4-20250514", "claude-opus-4-2025*"),
    ("anthropic", "claude-opus-4-1-20250805", "claude-opus-4-1*"),
    ("anthropic", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5*"),
    ("anthropic", "claude-opus-4-5", "claude-opus-4-5*"),
    ("anthropic", "claude-haiku-4-5-20251001", "claude-haiku-4-5*"),
    ("anthropic", "claude-sonnet-4-6", "claude-sonnet-4*"),
    ("anthropic", "claude-opus-4-6", "claude-opus-4*"),
    ("anthropic", "claude-haiku-4-7", "claude-haiku-4*"),
    ("gemini", "gemini-2.0-flash", "gemini-2.0*"),
    ("gemini", "gemini-2.0-flash-lite-001", "gemini-2.0*"),
    ("gemini", "gemini-2.5-pro", "gemini-2.*"),
    ("gemini", "models/gemini-2.5-flash", "gemini-2.*"),
    ("gemini", "gemini-3-pro-preview", "gemini-3*"),
    ("ollama", "llama3.2-vision:11b", "llama3.2-vision*"),
    ("ollama", "llama3", "llama3"),
    ("ollama", "llama3:70b", "llama3:*"),
    ("ollama", "llama3.1:8b", "llama3*"),
    ("ollama", "llama3.3", "llama3*"),
    ("ollama", "qwen3-vl:8b", "qwen3-vl*"),
    ("ollama", "qwen2.5vl:7b", "qwen2.5vl*"),
    ("ollama", "qwen3:8b", "qwen3*"),
    ("ollama", "qwen2.5-coder:7b", "qwen*"),
    ("ollama", "gpt-oss:20b", "gpt-oss*"),
    ("ollama", "llava:13b", "llava*"),
    ("ollama", "mistral-small3.2:24b", "mistral-small3.[12]*"),
    ("ollama", "mistral:7b", "mistral*"),
    ("ollama", "mistral-nemo", "mistral*"),
    ("ollama", "deepseek-r1:7b", "deepseek-r1*"),
    ("bedrock-converse", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "*anthropic.claude*"),
    ("bedrock-converse", "anthropic.claude-3-7-sonnet-20250219-v1:0", "*anthropic.claude*"),
    ("bedrock-converse", "us.amazon.nova-micro-v1:0", "*amazon.nova*"),
    ("cohere", "command-a-vision-07-2025", "command-a-vision*"),
    ("cohere", "command-a-reasoning-08-2025", "command-a-reasoning*"),
    ("cohere", "command-r7b-12-2024", "command*"),
    ("cohere", "command-a-03-2025", "command*"),
    ("mistral", "codestral-latest", "codestral*"),
    ("mistral", "magistral-medium-latest", "magistral*"),
    # issue 28: the models our fixtures and corpus name that the catalogue does not (retired, a host's own id)
    ("openai-chat", "gpt-4.5-preview", "gpt-4.5-preview*"),
    ("openai-chat", "o1-mini", "o1-mini*"),
    ("anthropic", "claude-3-opus-latest", "claude-3-opus*"),
    ("gemini", "gemini-2.5-pro-preview-05-06", "gemini-2.5-pro-preview-*"),
    ("gemini", "gemini-2.0-flash-exp", "gemini-2.0-flash-exp*"),
    ("mistral", "pixtral-12b-latest", "pixtral-12b*"),
    ("ollama", "qwen3:0.6b", "qwen3:0.6b"),
    ("openai-chat:groq", "llama3-8b-8192", "llama3-8b-8192"),
    ("openai-chat:groq", "deepseek-r1-distill-llama-70b", "deepseek-r1-distill-llama-70b"),
    ("openai-chat:groq", "llama-3.3-70b-versatile", "llama-3.3-70b-versatile"),
    ("openai-chat:groq", "meta-llama/llama-4-maverick-17b-128e-instruct", "meta-llama/llama-4-maverick-17b-128e-instruct"),
    ("openai-chat:groq", "compound-beta", "compound-beta*"),
    ("openai-chat:cerebras", "zai-glm-4.7", "zai-glm-4.7"),
    ("openai-chat:cerebras", "qwen-3-coder-480b", "qwen-3-coder-480b"),
    ("openai-chat:zai", "glm-4.6v", "glm-4.6v*"),
    ("openai-chat:huggingface", "meta-llama/llama-3.1-8b-instruct", "meta-llama/llama-3.1-8b-instruct"),
    ("openai-chat:huggingface", "meta-llama/Llama-3.3-70B-Instruct", "meta-llama/llama-3.3-70b-instruct"),
]


@pytest.mark.parametrize(("provider", "model", "pattern"), EXPECTED)
def test_pattern_picks_the_intended_entry(provider: str, model: str, pattern: str) -> None:
    entry = lookup(provider, model)
    assert entry is not None and entry.pattern == pattern


def test_every_entry_is_reachable() -> None:
    reached = {(p, pat) for p, _, pat in EXPECTED}
    unreached = [(e.provider, e.pattern) for e in default_table().entries if (e.provider, e.pattern) not in reached]
    assert unreached == []


@pytest.mark.parametrize(
    ("provider", "model"),
    [("anthropic", "gpt-4o"), ("openai-chat", "claude-sonnet-4-5"), ("ollama", "phi4"), ("gemini", "gemini-1.5-pro"), ("openai-chat", "gpt-4")],
)
def test_no_entry_for_other_providers_or_unknown_models(provider: str, model: str) -> None:
    assert lookup(provider, model) is None


def test_table_facts_that_preflight_depends_on() -> None:
    """The facts preflight checks, as resolved: an override states only what it changes, so each fact
    is read merged (override over catalogue over the wire format's defaults) and its entry must match."""
    from interlingua.models import lookup as model_lookup

    def caps(provider: str, model: str):  # type: ignore[no-untyped-def]
        assert lookup(provider, model) is not None
        return model_lookup(provider, model).capabilities

    assert caps("anthropic", "claude-sonnet-4-5").requires_tool_definitions is True
    assert caps("anthropic", "claude-sonnet-4-5").assistant_prefill is True
    assert caps("anthropic", "claude-opus-4-6").assistant_prefill is False  # removed in Claude 4.6
    assert caps("anthropic", "claude-sonnet-4-20250514").structured_output is False
    assert caps("openai-chat", "gpt-4o").requires_tool_definitions is False
    assert "image" in caps("ollama", "llava:7b").input_modalities and caps("ollama", "llava:7b").tools is False
    assert caps("ollama", "deepseek-r1:8b").reasoning is True
    assert caps("ollama", "llama3:8b").tools is False and caps("ollama", "llama3.1:8b").tools is True
    assert caps("openai-responses", "gpt-5").stop_sequences is False
    assert caps("openai-chat", "gpt-5").reasoning is False  # Chat neither returns nor accepts reasoning
    assert caps("openai-responses", "gpt-5").reasoning is True
    assert "audio" in caps("gemini", "gemini-2.5-flash").input_modalities
    assert caps("gemini", "gemini-2.0-flash").reasoning is False


def test_no_host_is_listed_in_the_table() -> None:
    """The OpenAI-compatible hosts' defaults live in their host registry entry (interlingua.hosts), not in models.json."""
    from interlingua.models import lookup as model_lookup

    assert [e.provider for e in default_table().entries if e.provider.startswith("openai-chat:") and e.pattern == "*"] == []
    assert model_lookup("openai-chat:zai", "glm-4.6").capabilities.input_modalities == ["text"]
    groq = model_lookup("openai-chat:groq", "openai/gpt-oss-120b")
    assert groq.known and groq.capabilities.reasoning is False  # Groq takes no reasoning back (its registry entry)
    assert groq.capabilities.reasoning_settings is True  # but the model reasons (the catalogue)
    assert model_lookup("openai-chat:cerebras", "gpt-oss-120b").capabilities.reasoning is True


def test_glob_not_regex() -> None:
    assert pattern_matches("gpt-4.1*", "gpt-4.1-mini")
    assert not pattern_matches("gpt-4.1*", "gpt-4x1")  # `.` is literal in a glob
    assert pattern_matches("claude-*", "CLAUDE-OPUS-4-5")
    assert not pattern_matches("llama3", "llama3:8b")
    assert pattern_matches("gemini-3*", "models/gemini-3-pro-preview")
    assert not pattern_matches("models/*", "gemini-3")


def test_capability_logic_names_no_provider() -> None:
    """Preflight and resolution are neutral: no provider name in code (docstrings aside)."""
    names = ("openai", "anthropic", "claude", "gemini", "google", "ollama", "gpt", "llama", "http")
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and ast.get_docstring(node):
                node.body = node.body[1:]
        code = ast.unparse(tree).lower()
        for name in names:
            assert name not in code, f"{path.name} mentions {name!r}"


def test_docs_list_every_shipped_pattern() -> None:
    docs = (ROOT / "docs" / "capabilities.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(" `"): line for line in docs.splitlines() if line.startswith("| `") and line.count("|") == 3}
    for entry in default_table().entries:
        assert f"`{entry.pattern}`" in rows.get(entry.provider, ""), (entry.provider, entry.pattern)
