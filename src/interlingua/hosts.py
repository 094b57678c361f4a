"""The registry of OpenAI-compatible hosts: one entry per host, everything else derived from it.

Each :class:`Host` holds what differs on that host's Chat Completions (the dialect rules the
``openai-chat:<name>`` mapper writes by), where it lives (API root, key variable) and where its
models are described (the catalogue provider, its default capabilities). The mapper's dialects,
the transport's base URLs and key variables, the CLI's ``--host`` help, the capability defaults and
docs/capabilities.md are all read from :data:`HOSTS`; adding a host is one entry here plus its tests.

Each entry names its public source; "recorded" means pydantic-ai's VCR cassettes of that host
(commit ``4fda38988f2939fa6ea9cdefcf120693e10ef491``) show the field.

This module imports nothing of interlingua's: the CLI and the transport read it at no cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["HOSTS", "Host", "host_names"]


@dataclass(frozen=True)
class Host:
    """One OpenAI-compatible dialect: what its Chat Completions takes and returns, and where it is.

    Attributes:
        name: Dialect name (``openai-chat:<name>`` in the mapper registry).
        reasoning_field: The assistant-message field reasoning text is sent back in
            (``reasoning`` or ``reasoning_content``); ``None``: the host takes none (left out, reported).
        max_tokens_field: The output-budget field the host documents.
        effort_path: Where a reasoning effort goes (``("reasoning_effort",)``).
        top_k: Whether ``top_k`` is a request field.
        tool_choice_modes: The string ``tool_choice`` values the host takes (a named function is
            taken wherever ``"required"`` is).
        finish_reasons: ``finish_reason`` values outside OpenAI's enum -> canonical stop reason.
        reasoning_with_calls_only: Reasoning is read back only on assistant turns with tool calls (DeepSeek).
        capabilities: Overrides of the OpenAI Chat capability defaults (field -> value): what every
            model of the host shares (a model the catalogue describes gets its own facts on top).
        base_url: The API root requests go to; ``None``: no host of its own (a dialect of another
            mapper, or the default ``openai-chat`` endpoint).
        env_vars: Environment variables the API key is read from (empty: the server takes no key).
        catalogue: The model catalogue's provider names holding this host's models (LiteLLM's
            ``litellm_provider``); empty when the catalogue has none (local servers).
        local: A server the user runs (``vllm``, ``lmstudio``, ...): no key, any model.
        vendors: The vendor segments of gateway model ids (OpenRouter's ``x-ai/grok-4``, the Hugging
            Face hub's ``deepseek-ai/DeepSeek-R1``) naming the models this host serves as their vendor:
            such an id is described by this host's catalogue rows (:mod:`interlingua.models._gateway`).
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
    base_url: str | None = None
    env_vars: tuple[str, ...] = ()
    catalogue: tuple[str, ...] = ()
    local: bool = False
    vendors: tuple[str, ...] = ()
    source: str = ""


_TEXT_ONLY = {"input_modalities": ["text"], "structured_output": False, "prompt_caching": False}

HOSTS: dict[str, Host] = {
    h.name: h
    for h in (
        Host(
            "openai", None, max_tokens_field="max_completion_tokens", catalogue=("openai",),
            source="OpenAI API reference, Create chat completion; openai-python types/chat",
        ),
        Host(
            "deepseek", "reasoning_content", reasoning_with_calls_only=True,
            capabilities={"input_modalities": ["text"], "prompt_caching": True},
            base_url="https://api.deepseek.com", env_vars=("DEEPSEEK_API_KEY",), catalogue=("deepseek",),
            vendors=("deepseek", "deepseek-ai"),
            source="api-docs.deepseek.com, Create Chat Completion and guides/thinking_mode (reasoning_content; recorded)",
        ),
        Host(
            "openrouter", "reasoning", effort_path=("reasoning", "effort"), top_k=True,
            base_url="https://openrouter.ai/api/v1", env_vars=("OPENROUTER_API_KEY",), catalogue=("openrouter",),
            source="openrouter.ai/docs API reference Parameters, use-cases/reasoning-tokens (reasoning, reasoning_details; recorded)",
        ),
        Host(
            "ollama", "reasoning", base_url="http://localhost:11434/v1", catalogue=("ollama",), local=True,
            source="docs.ollama.com/api/openai-compatibility (reasoning; PAI test_ollama_cloud_tool_output)",
        ),
        Host(
            "mistral", "reasoning", catalogue=("mistral",),
            source="the engine of the mistral mapper (interlingua.providers.mistral), which writes thinking chunks",
        ),
        Host(
            "groq", None, max_tokens_field="max_completion_tokens",
            capabilities={"prompt_caching": False},
            base_url="https://api.groq.com/openai/v1", env_vars=("GROQ_API_KEY",), catalogue=("groq",),
            source="console.groq.com/docs API reference Chat and reasoning guide (message.reasoning with reasoning_format, "
            "reasoning_effort; executed_tools; recorded); assistant reasoning is not a documented request field",
        ),
        Host(
            "together", None, top_k=True, finish_reasons={"eos": "end_turn"},
            base_url="https://api.together.xyz/v1", env_vars=("TOGETHER_API_KEY",), catalogue=("together_ai",),
            source="docs.together.ai API reference Create chat completion (top_k, finish_reason eos; message.reasoning recorded)",
        ),
        Host(
            "fireworks", "reasoning_content", top_k=True,
            base_url="https://api.fireworks.ai/inference/v1", env_vars=("FIREWORKS_API_KEY",), catalogue=("fireworks_ai",),
            source="docs.fireworks.ai guides/reasoning (reasoning_content; reasoning_effort) and API reference Create chat completion (top_k)",
        ),
        Host(
            "xai", "reasoning_content",
            base_url="https://api.x.ai/v1", env_vars=("XAI_API_KEY",), catalogue=("xai",), vendors=("x-ai",),
            source="docs.x.ai model-capabilities/text/reasoning (message.reasoning_content, reasoning_effort)",
        ),
        Host(
            "cerebras", "reasoning", max_tokens_field="max_completion_tokens",
            capabilities={"prompt_caching": False, "input_modalities": ["text"]},
            base_url="https://api.cerebras.ai/v1", env_vars=("CEREBRAS_API_KEY",), catalogue=("cerebras",),
            source="inference-docs.cerebras.ai API reference Chat completions and reasoning guide (message.reasoning, sent back; recorded)",
        ),
        Host(
            "vllm", "reasoning", top_k=True,
            capabilities={"prompt_caching": False},
            base_url="http://localhost:8000/v1", local=True,
            source="docs.vllm.ai features/reasoning_outputs (reasoning, formerly reasoning_content) and serving/openai_compatible_server "
            "(top_k among the extra sampling parameters)",
        ),
        Host(
            "lmstudio", "reasoning_content", top_k=True,
            capabilities={"prompt_caching": False},
            base_url="http://localhost:1234/v1", local=True,
            source="lmstudio.ai/docs developer openai-compat (reasoning_content in chat completions; top_k among the supported parameters)",
        ),
        Host(
            "llamacpp", "reasoning_content", top_k=True,
            capabilities={"prompt_caching": False},
            base_url="http://localhost:8080/v1", local=True,
            source="ggml-org/llama.cpp tools/server/README.md (POST /v1/chat/completions, reasoning_content with --reasoning-format, top_k)",
        ),
        Host(
            "huggingface", "reasoning",
            capabilities={"prompt_caching": False},
            # the router serves the inference providers' own model ids (the recorded calls went to Together)
            base_url="https://router.huggingface.co/v1", env_vars=("HF_TOKEN",), catalogue=("huggingface", "together_ai", "fireworks_ai"),
            source="huggingface.co/docs/inference-providers tasks/chat-completion (router; message.reasoning and reasoning_content recorded)",
        ),
        Host(
            "zai", "reasoning_content", tool_choice_modes=frozenset({"auto"}),
            finish_reasons={"sensitive": "content_filter", "network_error": "error", "model_context_window_exceeded": "max_tokens"},
            capabilities=_TEXT_ONLY,
            base_url="https://api.z.ai/api/paas/v4", env_vars=("ZAI_API_KEY",), catalogue=("zai",), vendors=("z-ai", "zai-org"),
            source="docs.z.ai api-reference/llm/chat-completion (reasoning_content sent back, thinking, tool_choice auto only, "
            "finish_reason sensitive / network_error / model_context_window_exceeded; recorded)",
        ),
        Host(
            "kimi", "reasoning_content", tool_choice_modes=frozenset({"auto", "none"}),
            capabilities={"structured_output": False},
            base_url="https://api.moonshot.ai/v1", env_vars=("MOONSHOT_API_KEY",), catalogue=("moonshot",), vendors=("moonshotai",),
            source="platform.moonshot.ai docs (Kimi API: reasoning_content kept in history for thinking models; "
            "tool_choice auto or none, required refused while thinking)",
        ),
    )
}
"""Every dialect by name. ``openai`` is OpenAI itself (the default ``openai-chat`` endpoint) and
``mistral`` the engine of the ``mistral`` mapper; the rest are the OpenAI-compatible hosts."""


def host_names() -> list[str]:
    """The names that ``openai-chat:<name>`` and ``--host`` take, in registry order (``mistral`` is its
    own format, ``mistral``, and ``openai`` the default endpoint: neither is listed)."""
    return [name for name in HOSTS if name not in ("openai", "mistral")]
