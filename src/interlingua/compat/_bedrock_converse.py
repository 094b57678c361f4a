"""Amazon Bedrock Converse message lists (``[{role, content: [{text} | {image} | {toolUse} | ...]}]``) and
request bodies. Source: botocore ``bedrock-runtime`` ``Message``/``ContentBlock`` shapes; read by the
``bedrock-converse`` mapper.

A stored request body (an object holding ``messages``) is read whole, with its system prompt, tools and settings.
"""

from __future__ import annotations

from typing import Any

from ._base import Migrated, via_mapper, wrap_list

__all__ = ["FORMAT", "read"]

FORMAT = "bedrock-converse"


def read(obj: Any) -> Migrated:
    """A Converse message list (or request body) -> :class:`Migrated`.

    Raises:
        MappingError: not a list nor a body holding ``messages``, or the mapper refused it.
    """
    return via_mapper("bedrock-converse", wrap_list(obj, "messages", FORMAT), FORMAT)
