"""Canonical item sequence -> Responses items (``input`` of a request, ``output`` of a response).

Rules (sources in docs/providers/openai_responses.md):

* Consecutive content items with the same ``message`` key, speaker and ``msg_`` id form one
  message item; unkeyed items group by speaker. Tool calls, results, reasoning and raw items
  are items of their own, so parallel calls stay consecutive ``function_call`` items.
* A reasoning item and the item after it are one unit (the API refuses a reasoning item
  without its following item): when that item is dropped, the reasoning item goes too.
* A result whose call was dropped is dropped (no orphan ``function_call_output``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...codec import UnknownItem
from ...items import (
    ArtifactRefItem,
    AudioItem,
    VideoItem,
    DocumentItem,
    ErrorItem,
    HandoffCallItem,
    HandoffResultItem,
    ImageItem,
    RawItem,
    ReasoningItem,
    RefusalItem,
    StructuredItem,
    TextItem,
    ToolCallItem,
    ToolResultItem,
)
from ...mapping.cache_breakpoints import report_cache_breakpoints
from ._common import UNSET, own_item_id
from ._items import EncodeContext, describe, encode_message, encode_raw, encode_reasoning, encode_tool_call, encode_tool_result

__all__ = ["encode_sequence"]

_CONTENT = (TextItem, ImageItem, AudioItem, VideoItem, DocumentItem, ArtifactRefItem, RefusalItem, StructuredItem)


@dataclass
class _Entry:
    indices: list[int]
    kind: str
    wire: dict[str, Any] | None


def _speaker(item: Any, index: int, ctx: EncodeContext) -> str:
    if isinstance(item, (RefusalItem, StructuredItem)):
        return "assistant"
    if item.role is UNSET:
        ctx.report.add("changed", "content item without a role sent as user content", index=index, item_type=describe(item))
        return "user"
    return str(item.role)


def _group_key(item: Any, role: str) -> tuple[Any, str, Any]:
    return (item.message if item.message is not UNSET else None, role, own_item_id(item.origin, "msg_"))


def encode_sequence(items: Sequence[tuple[int, Any]], ctx: EncodeContext, *, output_form: bool = False) -> list[dict[str, Any]]:
    """Encode ``(canonical index, item)`` pairs in order.

    Args:
        items: The items with their indices in the source transcript (for reports and errors).
        ctx: Policy, report and call-id map.
        output_form: Write assistant messages in the output form (responses).

    Raises:
        ConversionError: under policy ``error`` for content the Responses API cannot carry.
        MalformedArgumentsError: under policy ``error`` for a call without an arguments object.
    """
    entries: list[_Entry] = []
    dropped_calls: set[str] = set()
    for index, item in items:
        report_cache_breakpoints(item, index, ctx.report, why="OpenAI caches prompts automatically, with no breakpoint field")
    i, n = 0, len(items)
    while i < n:
        index, item = items[i]
        if isinstance(item, _CONTENT):
            role = _speaker(item, index, ctx)
            key = _group_key(item, role)
            group = [(index, item)]
            j = i + 1
            while j < n and isinstance(items[j][1], _CONTENT):
                nxt_index, nxt = items[j]
                nxt_role = "assistant" if isinstance(nxt, (RefusalItem, StructuredItem)) else (str(nxt.role) if nxt.role is not UNSET else "user")
                if _group_key(nxt, nxt_role) != key:
                    break
                if nxt_role == "user" and not isinstance(nxt, (RefusalItem, StructuredItem)) and nxt.role is UNSET:
                    _speaker(nxt, nxt_index, ctx)
                group.append((nxt_index, nxt))
                j += 1
            wires: list[dict[str, Any] | None] = list(encode_message(group, role, ctx, output_form=output_form)) or [None]
            entries.extend(_Entry([g[0] for g in group], "message", w) for w in wires)
            i = j
            continue
        wire: dict[str, Any] | None
        if isinstance(item, ToolCallItem):
            wire = encode_tool_call(item, ctx, index)
            if wire is None:
                dropped_calls.add(item.id)
        elif isinstance(item, ToolResultItem):
            if item.call_id in dropped_calls:
                ctx.report.add("dropped", f"result of the dropped tool call {item.call_id!r}", index=index, item_type="tool_result")
                wire = None
            else:
                wire = encode_tool_result(item, ctx, index)
        elif isinstance(item, ReasoningItem):
            wire = encode_reasoning(item, ctx, index)
        elif isinstance(item, RawItem):
            wire = encode_raw(item, ctx, index)
        elif isinstance(item, ErrorItem):
            ctx.report.add("dropped", "error items are runtime records, not conversation input", index=index, item_type="error")
            wire = None
        elif isinstance(item, (HandoffCallItem, HandoffResultItem, UnknownItem)):
            markers = ctx.report.unsupported(ctx.policy, f"{describe(item)} items have no Responses form", index=index, item_type=describe(item))
            role = "assistant" if isinstance(item, HandoffCallItem) else "user"
            wire = {"role": role, "content": markers[0].text} if markers else None
        else:  # pragma: no cover - the item union is closed
            raise TypeError(f"not a canonical item: {type(item).__name__}")
        entries.append(_Entry([index], describe(item), wire))
        i += 1
    for k, entry in enumerate(entries):
        if entry.kind == "reasoning" and entry.wire is not None:
            nxt = next((e for e in entries[k + 1 :] if e.kind != "reasoning"), None)
            if nxt is not None and nxt.wire is None:
                ctx.report.add("dropped", "reasoning item left out with the item it precedes", index=entry.indices[0], item_type="reasoning")
                entry.wire = None
    return [e.wire for e in entries if e.wire is not None]
