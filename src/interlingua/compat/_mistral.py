"""Mistral chat message lists (``[{role, content, tool_calls?, prefix?}, ...]``) and request bodies.
Source: ``mistralai`` SDK ``ChatCompletionRequest`` / ``Messages``; read by the ``mistral`` mapper.

A stored request body (an object holding ``messages``) is read whole, with its tools, tool choice and
settings. Not detected automatically (a Mistral message list is also an OpenAI Chat one): name it with
``--from mistral``.
"""

from __future__ import annotations

from typing import Any

from ._base import Migrated, via_mapper, wrap_list

__all__ = ["FORMAT", "read"]

FORMAT = "mistral"


def read(obj: Any) -> Migrated:
    """A Mistral message list (or request body) -> :class:`Migrated`.

    Raises:
        MappingError: not a list nor a body holding ``messages``, or the mapper refused it.
    """
    return via_mapper("mistral", wrap_list(obj, "messages", FORMAT), FORMAT)
