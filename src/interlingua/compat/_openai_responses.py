"""OpenAI Responses input item lists (``[{type: "message"|"function_call"|"function_call_output"|"reasoning", ...}]``).
Source: openai-python ``types/responses/response_input_item_param.py``; read by the Responses mapper (``rs_``/``fc_``
ids in ``origin.item_id``, ``encrypted_content`` kept as opaque reasoning).

A stored request body (an object holding ``input``) is read whole, with its system prompt and tools.
"""

from __future__ import annotations

from typing import Any

from ._base import Migrated, via_mapper, wrap_list

__all__ = ["FORMAT", "read"]

FORMAT = "openai-responses"


def read(obj: Any) -> Migrated:
    """An openai-responses list (or request body) -> :class:`Migrated`.

    Raises:
        MappingError: not a list nor a body holding ``input``, or the mapper refused it.
    """
    return via_mapper("openai-responses", wrap_list(obj, "input", FORMAT), FORMAT)
