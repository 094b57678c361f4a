"""Turn shape the mappers share: the calls of one assistant turn go in one message.

Providers that pair tool calls with their results by adjacency answer an assistant message holding
calls with the message right after it (Anthropic: "Each ``tool_use`` block must have a corresponding
``tool_result`` block in the next message"; Gemini: the user turn after a model turn with
``functionCall`` parts holds one ``functionResponse`` per call; OpenAI Chat: "An assistant message
with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'"). A flat
source (OpenAI Responses ``input``: one item per ``function_call``) gives each call its own
``message`` key, so grouping items by key alone would write ``assistant[call A]``,
``assistant[call B]``, ``results``: the first call is not answered by the next message.

:func:`call_turn_keys` says which items must take another ``message`` key so that a mapper grouping
by role and key writes each such turn as one message. It is provider-neutral: it reads only the
canonical items (who speaks them, their ``message`` keys); each mapper applies the keys and reports
the joins in its own words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from ..items import HandoffCallItem, HandoffResultItem, ReasoningItem, RefusalItem, StructuredItem, ToolCallItem, ToolResultItem

__all__ = ["CallTurns", "call_turn_keys"]

_ASSISTANT_TYPES = (ToolCallItem, HandoffCallItem, ReasoningItem, RefusalItem, StructuredItem)
_CALL_TYPES = (ToolCallItem, HandoffCallItem)
_RESULT_TYPES = (ToolResultItem, HandoffResultItem)
_UNSET = msgspec.UNSET


def _assistant_side(item: Any) -> bool:
    """Whether the model speaks ``item`` (calls, reasoning, refusals, structured output, assistant content)."""
    cls = type(item)
    side = _SIDES[cls] if cls in _SIDES else _class_side(cls)
    if side is None:
        return getattr(item, "role", _UNSET) == "assistant"  # content items and raw items with a role
    return side


_SIDES: dict[type, bool | None] = {}
"""Per item class: ``True`` (the model speaks it), ``False`` (a result), ``None`` (its ``role`` says)."""


def _class_side(cls: type) -> bool | None:
    side = _SIDES[cls] = True if issubclass(cls, _ASSISTANT_TYPES) else False if issubclass(cls, _RESULT_TYPES) else None
    return side


@dataclass(frozen=True)
class CallTurns:
    """The ``message`` keys to change so that each assistant turn's calls share one message.

    Attributes:
        keys: ``item index -> message key`` for every item whose key must change (items not listed
            keep their own ``message``).
        joins: ``(index of the first item moved, its old key, the key it joins)`` once per source
            message joined, for the mapper's report.
    """

    keys: dict[int, Any]
    joins: list[tuple[int, Any, Any]]

    def key(self, index: int, item: Any) -> Any:
        """The ``message`` key item ``index`` is grouped by (its own unless listed in :attr:`keys`)."""
        keys = self.keys
        if keys and index in keys:
            return keys[index]
        return getattr(item, "message", _UNSET)

    def __bool__(self) -> bool:
        return bool(self.keys)


_NONE = CallTurns({}, [])


def call_turn_keys(items: Sequence[Any]) -> CallTurns:
    """Which items join the message holding the first call of their assistant turn.

    A run of consecutive assistant-side items (tool and handoff calls, reasoning, refusals,
    structured output, content with role ``assistant``; anything else ends the run) is one assistant
    turn. From its first call on, every item of the run goes in the message of that call: later
    calls, and text or reasoning after them, whatever their own ``message`` key. Items before the
    first call keep their keys (an assistant message before the calls is still answered by the one
    holding them). An item without a key already joins the message before it in every mapper, so it
    is never listed; the key of the first call's message is its own, or, when it has none, the last
    key before it in the run, or, when the run has none up to the call, the first key after it (the
    keyed item joins the unkeyed message the call opened).

    Args:
        items: The transcript's items (not mutated).

    Returns:
        A :class:`CallTurns`; empty (falsy) when every turn is already one message.
    """
    keys: dict[int, Any] = {}
    joins: list[tuple[int, Any, Any]] = []
    n = len(items)
    side = list(map(_assistant_side, items))  # once per item (each run's end is looked at twice)
    i = 0
    while i < n:
        if not side[i]:
            i += 1
            continue
        start = i
        while i < n and side[i]:
            i += 1
        # the run is items[start:i]
        target: Any = _UNSET
        calling = False
        last_joined: Any = _UNSET
        for j in range(start, i):
            item = items[j]
            key = getattr(item, "message", _UNSET)
            if not calling:
                if key is not _UNSET:
                    target = key
                if isinstance(item, _CALL_TYPES):
                    calling = True
                continue
            if target is _UNSET:
                # the first call had no key, nor anything before it in the run: it opened a message
                # without a key, which the first keyed item after it joins; that key is the turn's
                target = key
                continue
            if key is _UNSET or key == target:
                continue
            keys[j] = target
            if key != last_joined:
                joins.append((j, key, target))
                last_joined = key
    if not keys:
        return _NONE
    return CallTurns(keys, joins)
