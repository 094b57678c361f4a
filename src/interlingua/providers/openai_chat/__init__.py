"""OpenAI Chat Completions mapper (and OpenAI-compatible endpoints through dialects).

``mapper`` is the registered default (dialect ``openai``); build another dialect with
``OpenAIChatMapper(dialect="deepseek" | "openrouter" | "ollama")``. Rules and sources:
``docs/providers/openai_chat.md``.
"""

from ._common import DIALECTS, Dialect
from ._mapper import ID_RULE, OpenAIChatMapper
from ._stream import ChatStreamAccumulator

__all__ = ["DIALECTS", "ID_RULE", "ChatStreamAccumulator", "Dialect", "OpenAIChatMapper", "mapper"]

mapper = OpenAIChatMapper()
"""The registered ``openai-chat`` mapper (dialect ``openai``)."""
