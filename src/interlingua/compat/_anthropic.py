"""Anthropic ``MessageParam`` lists (``[{role, content}]``, content a string or blocks:
``text``, ``image``, ``document``, ``tool_use``, ``tool_result``, ``thinking``, ``redacted_thinking``, ...).
Source: anthropic-sdk-python ``types/message_param.py``; read by the Anthropic mapper (signatures kept as opaque
reasoning, issuer ``anthropic``).

A stored request body (an object holding ``messages``) is read whole, with its system prompt and tools.
"""

from __future__ import annotations

from typing import Any

from ._base import Migrated, via_mapper, wrap_list

__all__ = ["FORMAT", "read"]

FORMAT = "anthropic"


def read(obj: Any) -> Migrated:
    """An anthropic list (or request body) -> :class:`Migrated`.

    Raises:
        MappingError: not a list nor a body holding ``messages``, or the mapper refused it.
    """
    return via_mapper("anthropic", wrap_list(obj, "messages", FORMAT), FORMAT)
