"""The OpenAI-compatible hosts by name: what each one's Chat Completions differs in.

One :class:`DialectRules` per dialect. Reading accepts every dialect's fields whatever the
dialect (``reasoning``, ``reasoning_content``, ``reasoning_details``, Mistral thinking chunks);
the rules decide what is *written*: where reasoning goes back (or that it cannot), the output
budget field, the effort field, whether ``top_k`` is taken, which ``tool_choice`` modes exist, and
the ``finish_reason`` values outside OpenAI's enum that a host returns. Each entry names its
public source; "recorded" means pydantic-ai's VCR cassettes of that host (commit
``4fda38988f2939fa6ea9cdefcf120693e10ef491``) show the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["DIALECT_RULES", "DialectRules"]


@dataclass(frozen=True)
class DialectRules:
    """What one OpenAI-compatible host's Chat Completions takes and returns.

    Attributes:
        name: Dialect name (``openai-chat:<name>`` in the registry).
        reasoning_field: The assistant-message field reasoning text is sent back in
            (``reasoning`` or ``reasoning_content``); ``None``: the host takes none (left out, reported).
        reasoning_with_calls_only: Reasoning is read back only on assistant turns with tool calls (DeepSeek).
        max_tokens_field: The output-budget field the host documents.
        effort_path: Where a reasoning effort goes (``("reasoning_effort",)``).
        top_k: Whether ``top_k`` is a request field.
        tool_choice_modes: The string ``tool_choice`` values the host takes (a named function is
            taken wherever ``"required"`` is).
        finish_reasons: ``finish_reason`` values outside OpenAI's enum -> canonical stop reason.
        capabilities: Overrides of the OpenAI Chat capability defaults (field -> value).
        source: The public reference the rules come from.
    """

    name: str
    reasoning_field: str | None
    max_tokens_field: str = "max_tokens"
    effort_path: tuple[str, ...] = ("reasoning_effort",)
    top_k: bool = False
    tool_choice_modes: frozenset[str] = frozenset({"auto", "none", "required"})
    finish_reasons: Mapping[str, str] = field(default_factory=dict)
    reasoning_with_calls_only: bool = False
    capabilities: Mapping[str, object] = field(default_factory=dict)
    source: str = ""


_TEXT_ONLY = {"input_modalities": ["text"], "structured_output": False, "prompt_caching": False}

DIALECT_RULES: dict[str, DialectRules] = {
    r.name: r
    for r in (
        DialectRules(
            "openai", None, max_tokens_field="max_completion_tokens",
            source="OpenAI API reference, Create chat completion; openai-python types/chat",
        ),
        DialectRules(
            "deepseek", "reasoning_content", reasoning_with_calls_only=True,
            capabilities={"input_modalities": ["text"], "prompt_caching": True},
            source="api-docs.deepseek.com, Create Chat Completion and guides/thinking_mode (reasoning_content; recorded)",
        ),
        DialectRules(
            "openrouter", "reasoning", effort_path=("reasoning", "effort"), top_k=True,
            source="openrouter.ai/docs API reference Parameters, use-cases/reasoning-tokens (reasoning, reasoning_details; recorded)",
        ),
        DialectRules("ollama", "reasoning", source="docs.ollama.com/api/openai-compatibility (reasoning; PAI test_ollama_cloud_tool_output)"),
        DialectRules(
            "mistral", "reasoning",
            source="the engine of the mistral mapper (interlingua.providers.mistral), which writes thinking chunks",
        ),
        DialectRules(
            "groq", None, max_tokens_field="max_completion_tokens",
            capabilities={"prompt_caching": False},
            source="console.groq.com/docs API reference Chat and reasoning guide (message.reasoning with reasoning_format, "
            "reasoning_effort; executed_tools; recorded); assistant reasoning is not a documented request field",
        ),
        DialectRules(
            "together", None, top_k=True, finish_reasons={"eos": "end_turn"},
            source="docs.together.ai API reference Create chat completion (top_k, finish_reason eos; message.reasoning recorded)",
        ),
        DialectRules(
            "fireworks", "reasoning_content", top_k=True,
            source="docs.fireworks.ai guides/reasoning (reasoning_content; reasoning_effort) and API reference Create chat completion (top_k)",
        ),
        DialectRules(
            "xai", "reasoning_content",
            source="docs.x.ai model-capabilities/text/reasoning (message.reasoning_content, reasoning_effort)",
        ),
        DialectRules(
            "cerebras", "reasoning", max_tokens_field="max_completion_tokens",
            capabilities={"prompt_caching": False, "input_modalities": ["text"]},
            source="inference-docs.cerebras.ai API reference Chat completions and reasoning guide (message.reasoning, sent back; recorded)",
        ),
        DialectRules(
            "vllm", "reasoning", top_k=True,
            capabilities={"prompt_caching": False},
            source="docs.vllm.ai features/reasoning_outputs (reasoning, formerly reasoning_content) and serving/openai_compatible_server "
            "(top_k among the extra sampling parameters)",
        ),
        DialectRules(
            "lmstudio", "reasoning_content", top_k=True,
            capabilities={"prompt_caching": False},
            source="lmstudio.ai/docs developer openai-compat (reasoning_content in chat completions; top_k among the supported parameters)",
        ),
        DialectRules(
            "llamacpp", "reasoning_content", top_k=True,
            capabilities={"prompt_caching": False},
            source="ggml-org/llama.cpp tools/server/README.md (POST /v1/chat/completions, reasoning_content with --reasoning-format, top_k)",
        ),
        DialectRules(
            "huggingface", "reasoning",
            capabilities={"prompt_caching": False},
            source="huggingface.co/docs/inference-providers tasks/chat-completion (router; message.reasoning and reasoning_content recorded)",
        ),
        DialectRules(
            "zai", "reasoning_content", tool_choice_modes=frozenset({"auto"}),
            finish_reasons={"sensitive": "content_filter", "network_error": "error", "model_context_window_exceeded": "max_tokens"},
            capabilities=_TEXT_ONLY,
            source="docs.z.ai api-reference/llm/chat-completion (reasoning_content sent back, thinking, tool_choice auto only, "
            "finish_reason sensitive / network_error / model_context_window_exceeded; recorded)",
        ),
        DialectRules(
            "kimi", "reasoning_content", tool_choice_modes=frozenset({"auto", "none"}),
            capabilities={"structured_output": False},
            source="platform.moonshot.ai docs (Kimi API: reasoning_content kept in history for thinking models; "
            "tool_choice auto or none, required refused while thinking)",
        ),
    )
}
"""Every dialect's rules, by name (the first five existed before; the rest are the OpenAI-compatible hosts)."""
