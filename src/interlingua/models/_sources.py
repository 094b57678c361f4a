"""Which catalogue providers hold a wire format's models (data, no logic).

Keys are mapper registry names; values the catalogue's own provider names (LiteLLM's
``litellm_provider``), searched in order. The OpenAI-compatible hosts (``openai-chat:<host>``) take
theirs from the host registry (:data:`interlingua.hosts.HOSTS`, field ``catalogue``).
"""

from __future__ import annotations

from ..hosts import HOSTS, host_names

__all__ = ["CATALOGUE_PROVIDERS", "OPEN_HOST_FALLBACK"]

_BUILTIN: dict[str, tuple[str, ...]] = {
    "openai-chat": ("openai",),
    "openai-responses": ("openai",),
    "anthropic": ("anthropic",),
    "gemini": ("gemini", "vertex_ai-language-models"),
    "bedrock-converse": ("bedrock_converse",),
    "cohere": ("cohere_chat",),
    "mistral": ("mistral",),
    "ollama": ("ollama",),
}

CATALOGUE_PROVIDERS: dict[str, tuple[str, ...]] = {
    **_BUILTIN,
    **{f"openai-chat:{name}": HOSTS[name].catalogue for name in host_names()},
}
"""Wire format -> catalogue providers holding its models."""

OPEN_HOST_FALLBACK: frozenset[str] = frozenset({"openai-chat", "openai-responses", "openai-chat:openrouter"})
"""Wire formats spoken by many hosts: a model their own catalogue providers lack is looked up, by its
exact name (or its last ``/`` segment: a gateway's ``openai/gpt-5-mini``), in every wire format's catalogue rows."""
