"""OpenAI Chat message lists (``[{role, content, tool_calls?, ...}]``), including the deprecated
``functions``/``function_call`` form and ``role: "function"`` messages. The OpenAI Chat mapper reads the
deprecated form: each ``function_call`` gets the deterministic call id ``call_function_{i}`` (``i`` = message
index) and the next ``function`` message of that name becomes its result with the same ``call_id``.
Source: openai-python ``types/chat/chat_completion_*_message_param.py`` (``FunctionCall``, deprecated).

A stored request body (an object holding ``messages``) is read whole, with its system prompt and tools.
"""

from __future__ import annotations

from typing import Any

from ._base import Migrated, via_mapper, wrap_list

__all__ = ["FORMAT", "read"]

FORMAT = "openai-chat"


def read(obj: Any) -> Migrated:
    """An openai-chat list (or request body) -> :class:`Migrated`.

    Raises:
        MappingError: not a list nor a body holding ``messages``, or the mapper refused it.
    """
    return via_mapper("openai-chat", wrap_list(obj, "messages", FORMAT), FORMAT)
