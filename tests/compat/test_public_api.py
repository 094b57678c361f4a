"""The public surface of interlingua.compat does not drift unnoticed."""

from __future__ import annotations

import interlingua.compat as compat


def test_exported_names() -> None:
    assert sorted(compat.__all__) == sorted(
        [
            "FORMATS", "LOOKED_FOR", "FormatDetectionError", "Fork", "Migrated", "detect_format", "read", "read_any",
            "registered", "session_id_for", "session_id_from_bytes", "upcast", "upcast_row", "upcaster",
            "WRITERS", "write",
        ]
    )
    for name in compat.__all__:
        assert hasattr(compat, name)
    assert compat.Migrated.__module__ == "interlingua.compat"
    assert compat.FORMATS == (
        "openai-chat", "anthropic", "gemini", "ollama", "openai-responses", "pydantic-ai", "langchain", "interlingua", "bedrock-converse", "cohere", "mistral",
        # stored conversations (issue 26)
        "vercel-ui", "vercel-model", "openai-finetune", "sharegpt", "llamafactory", "hf-messages", "chatgpt-export", "claude-export",
        "claude-code", "codex", "adk", "mcp-sampling",
    )
