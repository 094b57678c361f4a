"""Mistral chat completions mapper (``POST https://api.mistral.ai/v1/chat/completions``).

Exports the module-level :data:`mapper` (registry name ``mistral``). Mistral's chat API is an
OpenAI-Chat-shaped format with its own rules, applied here on top of the OpenAI Chat engine
(dialect ``mistral``); sources are the Mistral API reference "Chat Completion" and the
``mistralai`` SDK types (``ChatCompletionRequest``, ``ChatCompletionStreamRequest``,
``AssistantMessage``, ``ThinkChunk``, ``DocumentURLChunk``, ``ChatCompletionChoice``,
``ToolChoiceEnum``). The rules are listed in ``docs/providers/mistral.md``.
"""

from ._mapper import ID_RULE, ISSUER, NAME, MistralMapper

__all__ = ["ID_RULE", "ISSUER", "NAME", "MistralMapper", "mapper"]

mapper = MistralMapper()
"""The registered ``mistral`` mapper."""
