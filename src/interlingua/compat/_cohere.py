"""Cohere v2 chat message lists (``[{role, content, tool_plan?, tool_calls?}, ...]``) and request
bodies. Source: cohere-python ``ChatMessageV2``; read by the ``cohere`` mapper.

A stored request body (an object holding ``messages``) is read whole, with its tools, tool choice and settings.
"""

from __future__ import annotations

from typing import Any

from ._base import Migrated, via_mapper, wrap_list

__all__ = ["FORMAT", "read"]

FORMAT = "cohere"


def read(obj: Any) -> Migrated:
    """A Cohere v2 message list (or request body) -> :class:`Migrated`.

    Raises:
        MappingError: not a list nor a body holding ``messages``, or the mapper refused it.
    """
    return via_mapper("cohere", wrap_list(obj, "messages", FORMAT), FORMAT)
