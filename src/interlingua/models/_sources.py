"""Which catalogue providers hold a wire format's models, and how gateway ids name them (data, no logic).

Keys are mapper registry names; values the catalogue's own provider names (LiteLLM's
``litellm_provider``), searched in order. The OpenAI-compatible hosts (``openai-chat:<host>``) take
theirs from the host registry (:data:`interlingua.hosts.HOSTS`, field ``catalogue``), and the vendor
segments of gateway ids that name them from its field ``vendors``.
"""

from __future__ import annotations

from ..hosts import HOSTS, host_names

__all__ = ["CATALOGUE_PROVIDERS", "GATEWAY_CATALOGUES", "GATEWAY_VARIANTS", "OPEN_HOST_FALLBACK", "VENDOR_FORMATS"]

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

OPEN_HOST_FALLBACK: frozenset[str] = frozenset({"openai-chat", "openai-responses", "openai-chat:openrouter", "openai-chat:huggingface"})
"""Wire formats spoken by many hosts, and the gateways (OpenRouter, the Hugging Face router): a model
their own catalogue providers lack is looked up, by its exact name (or its last ``/`` segment: a
gateway's ``openai/gpt-5-mini``), in every wire format's catalogue rows, then by the gateway id rules
of :mod:`interlingua.models._gateway`."""

GATEWAY_CATALOGUES: tuple[str, ...] = ("snowflake",)
"""Catalogue providers of OpenAI-compatible gateways that have no host entry of their own (Snowflake
Cortex's ``/api/v2/cortex/v1/chat/completions``, whose model ids such as ``openai-gpt-4.1`` are its
own): searched only by the open-host fallback, after every wire format's own rows."""

_BUILTIN_VENDORS: dict[str, str | None] = {
    "anthropic": "anthropic",
    "google": "gemini",
    "openai": "openai-responses",
    "mistralai": "mistral",
    "cohere": "cohere",
    "meta-llama": None,
    "qwen": None,
    "minimax": None,
    "minimaxai": None,
}

VENDOR_FORMATS: dict[str, str | None] = {
    **_BUILTIN_VENDORS,
    **{vendor: f"openai-chat:{name}" for name in host_names() for vendor in HOSTS[name].vendors},
}
"""A gateway id's vendor segment (``anthropic`` of OpenRouter's ``anthropic/claude-sonnet-4.5``, of
Bedrock's ``openai.gpt-5.5``) -> the wire format whose rows describe that vendor's own models
(``None``: the vendor serves no API of its own; its models are found in the hosts' rows). Vendor
slugs as OpenRouter (openrouter.ai/models) and the Hugging Face hub spell them; a host's own come
from its registry entry (:attr:`interlingua.hosts.Host.vendors`)."""

GATEWAY_VARIANTS: frozenset[str] = frozenset({"free", "thinking", "extended", "nitro", "floor", "online", "exacto"})
"""OpenRouter's model variant suffixes (``:free``, ``:thinking``, ...; openrouter.ai/docs
"Model Variants"): the same model served another way; stripped to find the model's row."""
