"""Ollama ``/api/chat`` message lists (``[{role, content, images?, thinking?, tool_calls?, tool_name?}]``).
Source: ollama ``docs/api.md``; read by the Ollama mapper (id-less calls get deterministic ids).

A stored request body (an object holding ``messages``) is read whole, with its system prompt and tools.
"""

from __future__ import annotations

from typing import Any

from ._base import Migrated, via_mapper, wrap_list

__all__ = ["FORMAT", "read"]

FORMAT = "ollama"


def read(obj: Any) -> Migrated:
    """An ollama list (or request body) -> :class:`Migrated`.

    Raises:
        MappingError: not a list nor a body holding ``messages``, or the mapper refused it.
    """
    return via_mapper("ollama", wrap_list(obj, "messages", FORMAT), FORMAT)
