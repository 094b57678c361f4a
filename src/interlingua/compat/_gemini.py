"""Gemini ``contents`` lists (``[{role: "user"|"model", parts: [...]}]``). Source: google-genai
``types.Content``; read by the Gemini mapper (thought signatures kept exactly; id-less calls get
deterministic ids ``gemini_m{i}_c{k}``).

A stored request body (an object holding ``contents``) is read whole, with its system prompt and tools.
"""

from __future__ import annotations

from typing import Any

from ._base import Migrated, via_mapper, wrap_list

__all__ = ["FORMAT", "read"]

FORMAT = "gemini"


def read(obj: Any) -> Migrated:
    """A gemini list (or request body) -> :class:`Migrated`.

    Raises:
        MappingError: not a list nor a body holding ``contents``, or the mapper refused it.
    """
    return via_mapper("gemini", wrap_list(obj, "contents", FORMAT), FORMAT)
