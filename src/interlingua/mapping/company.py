"""A tool call and its results stay together: the rule every request decoder's output goes through.

A provider body can hold a call that cannot be decoded (its id or part is ``null`` or of the wrong
type, its name is empty) or a result whose call is not in the body at all. A canonical transcript
must not hold a result without an earlier call with its id (``interlingua validate`` refuses it, and
providers refuse such a history), nor a call with an empty id or name. So, after a mapper has decoded a
body, :func:`keep_company`:

- drops a ``tool_call`` with an empty ``id`` or ``name`` (a ``handoff_call`` with an empty ``id`` or
  ``target``) together with every result that refers to it;
- drops every ``tool_result`` / ``handoff_result`` whose ``call_id`` names no earlier call of its kind
  (the call was missing, later in the body, or could not be decoded and was dropped or kept as ``raw``);

each with a ``dropped`` entry in the report naming the item and the call id. Nothing else changes, and
a transcript with nothing to drop is returned as it is (the same object).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import msgspec

from ..items import HandoffCallItem, HandoffResultItem, ToolCallItem, ToolResultItem, Transcript
from .report import Report

__all__ = ["keep_company", "keep_company_items"]

T = TypeVar("T")


def _empty(value: Any) -> bool:
    return not isinstance(value, str) or value == ""


def keep_company_items(items: Sequence[T], report: Report) -> list[T] | None:
    """The items without calls that cannot be replayed and results without their call (see the module).

    Args:
        items: Canonical items in order.
        report: Gets one ``dropped`` entry per item left out.

    Returns:
        The kept items, or ``None`` when every item is kept (nothing to copy).
    """
    if not any(isinstance(i, (ToolCallItem, ToolResultItem, HandoffCallItem, HandoffResultItem)) for i in items):
        return None
    calls: set[str] = set()
    handoffs: set[str] = set()
    dropped_calls: dict[str, int] = {}
    out: list[T] = []
    changed = False
    for n, item in enumerate(items):
        if isinstance(item, (ToolCallItem, HandoffCallItem)):
            kind = "tool_call" if isinstance(item, ToolCallItem) else "handoff_call"
            what = "name" if isinstance(item, ToolCallItem) else "target"
            empty_id, empty_what = _empty(item.id), _empty(getattr(item, what))
            if empty_id or empty_what:
                field = "id" if empty_id else what
                report.add("dropped", f"{kind} with an empty {field} cannot be replayed; left out with its results", index=n, item_type=kind)
                if not empty_id:
                    dropped_calls[item.id] = n
                changed = True
                continue
            (calls if kind == "tool_call" else handoffs).add(item.id)
        elif isinstance(item, (ToolResultItem, HandoffResultItem)):
            tool = isinstance(item, ToolResultItem)
            if item.call_id not in (calls if tool else handoffs):
                kind, call = ("tool_result", "tool_call") if tool else ("handoff_result", "handoff_call")
                if item.call_id in dropped_calls:
                    why = f"its {call} {item.call_id!r} (item {dropped_calls[item.call_id]}) was left out; left out with it"
                else:
                    why = f"no earlier {call} has id {item.call_id!r} (it is missing or could not be decoded); a result without its call cannot be replayed"
                report.add("dropped", why, index=n, item_type=kind)
                changed = True
                continue
        out.append(item)
    return out if changed else None


def keep_company(transcript: Transcript, report: Report) -> Transcript:
    """:func:`keep_company_items` on a transcript's items (the same transcript when nothing is dropped)."""
    kept = keep_company_items(transcript.items, report)
    return transcript if kept is None else msgspec.structs.replace(transcript, items=kept)
