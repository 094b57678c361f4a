"""OpenAI Chat Completions mapper (and OpenAI-compatible endpoints through dialects).

``mapper`` is the registered default (dialect ``openai``); another dialect is
``get_mapper("openai-chat:<dialect>")`` (:func:`variant`) or ``OpenAIChatMapper(dialect=...)``:
every host of the host registry (:data:`interlingua.hosts.HOSTS`: ``deepseek``, ``openrouter``, ``groq``, ...).
Rules and sources: :data:`DIALECT_RULES` and ``docs/providers/openai_chat.md``.
"""

from ._common import DIALECTS, Dialect
from ._dialects import DIALECT_RULES, DialectRules
from ._mapper import ID_RULE, OpenAIChatMapper, variant
from ._stream import ChatStreamAccumulator

__all__ = ["DIALECTS", "DIALECT_RULES", "ID_RULE", "ChatStreamAccumulator", "Dialect", "DialectRules", "OpenAIChatMapper", "mapper", "variant"]

mapper = OpenAIChatMapper()
"""The registered ``openai-chat`` mapper (dialect ``openai``)."""
