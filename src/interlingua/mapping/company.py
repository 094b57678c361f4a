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
- keeps item ids unique, as ``interlingua validate`` asks (a body can give two tool calls the same id,
  which providers refuse too): a later call repeating an earlier item's id is dropped (its results stay
  with the earlier call, or are dropped with it when the earlier item is no call); any other item
  repeating an id loses its ``id`` (a ``changed`` entry); a tool definition repeating an earlier
  definition's name is dropped (:func:`keep_company`);

each with a ``dropped`` entry in the report naming the item and the call id. A call a mapper could
not decode but kept as a ``raw`` item (an OpenAI Responses ``function_call`` or a Gemini
``functionCall`` with a wrongly typed field) stays in the transcript as it was read; when its result is
dropped, the raw item gets a ``degraded`` entry of its own (its result was left out) and the result's
entry names the raw item. The raw call is found by its id among the raw item's string values (any
field, a few levels deep), so no provider rule is needed here. Nothing else changes, and a transcript
with nothing to drop is returned as it is (the same object).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import msgspec

from ..codec import UnknownItem
from ..items import HandoffCallItem, HandoffResultItem, RawItem, ToolCallItem, ToolResultItem, Transcript
from .report import Report

__all__ = ["keep_company", "keep_company_items"]

T = TypeVar("T")


def _empty(value: Any) -> bool:
    return not isinstance(value, str) or value == ""


_RAW_DEPTH = 4
"""How deep in a raw item's value a call id is looked for (``value.functionCall.id`` is 2)."""


def _holds(value: Any, call_id: str, depth: int = _RAW_DEPTH) -> bool:
    """Whether ``call_id`` is one of the string values of a raw item's JSON ``value`` (bounded depth)."""
    if isinstance(value, dict):
        return depth > 0 and any(v == call_id if isinstance(v, str) else _holds(v, call_id, depth - 1) for v in value.values())
    if isinstance(value, list):
        return depth > 0 and any(v == call_id if isinstance(v, str) else _holds(v, call_id, depth - 1) for v in value)
    return False


def _repeats_an_id(items: Sequence[Any]) -> bool:
    seen: set[str] = set()
    for item in items:
        item_id = getattr(item, "id", None)
        if isinstance(item_id, str) and not isinstance(item, UnknownItem):
            if item_id in seen:
                return True
            seen.add(item_id)
    return False


def _type(item: Any) -> str:
    tag = getattr(type(item), "__struct_config__", None)
    return str(tag.tag) if tag is not None and isinstance(tag.tag, str) else type(item).__name__


_CALL, _RESULT, _RAW, _UNKNOWN, _OTHER = "call", "result", "raw", "unknown", "other"
_CALL_OR_RESULT = frozenset((_CALL, _RESULT))
_KINDS: dict[type, str] = {}
"""What each item class is to this module, decided once per class by ``issubclass`` (as ``isinstance``
would decide for each item, without the metaclass's instance check per item)."""


def _kind(cls: type) -> str:
    kind = _KINDS.get(cls)
    if kind is None:
        if issubclass(cls, (ToolCallItem, HandoffCallItem)):
            kind = _CALL
        elif issubclass(cls, (ToolResultItem, HandoffResultItem)):
            kind = _RESULT
        elif issubclass(cls, RawItem):
            kind = _RAW
        elif issubclass(cls, UnknownItem) or "id" not in getattr(cls, "__struct_fields__", ()):
            kind = _UNKNOWN if issubclass(cls, UnknownItem) else "no-id"
        else:
            kind = _OTHER
        _KINDS[cls] = kind
    return kind


def keep_company_items(items: Sequence[T], report: Report) -> list[T] | None:
    """The items without calls that cannot be replayed and results without their call (see the module).

    Args:
        items: Canonical items in order.
        report: Gets one ``dropped`` entry per item left out.

    Returns:
        The kept items, or ``None`` when every item is kept (nothing to copy).
    """
    ids: set[str] = set()
    kinds = _KINDS
    if not _CALL_OR_RESULT & {kinds.get(c) or _kind(c) for c in set(map(type, items))}:
        if not _repeats_an_id(items):
            return None
    calls: set[str] = set()
    handoffs: set[str] = set()
    dropped_calls: dict[str, int] = {}
    raws: list[tuple[int, RawItem]] = []
    told: set[int] = set()
    out: list[T] = []
    changed = False
    for n, given in enumerate(items):
        item: Any = given  # what it is, decided by its class's kind below (not by isinstance)
        kind_of = kinds.get(type(item)) or _kind(type(item))
        if kind_of is _OTHER and getattr(item, "id") is msgspec.UNSET:
            out.append(item)  # the common item: no id, not a call, result or raw item (nothing below applies)
            continue
        item_id = getattr(item, "id", None)
        if kind_of is _CALL:
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
            if item.id in ids:
                own = item.id in (calls if kind == "tool_call" else handoffs)
                after = "its results stay with the earlier call" if own else "left out with its results"
                report.add("dropped", f"{kind} repeats the id {item.id!r} of an earlier item (ids are unique in a transcript); {after}", index=n, item_type=kind)
                if not own:
                    dropped_calls.setdefault(item.id, n)
                changed = True
                continue
            ids.add(item.id)
            (calls if kind == "tool_call" else handoffs).add(item.id)
            out.append(item)
            continue
        if isinstance(item_id, str) and kind_of is not _UNKNOWN:
            if item_id in ids:
                report.add("changed", f"the id {item_id!r} repeats an earlier item's (ids are unique in a transcript); left out", index=n, item_type=_type(item))
                item = msgspec.structs.replace(item, id=msgspec.UNSET)
                changed = True
            else:
                ids.add(item_id)
        if kind_of is _RESULT:
            tool = isinstance(item, ToolResultItem)
            if item.call_id not in (calls if tool else handoffs):
                kind, call = ("tool_result", "tool_call") if tool else ("handoff_result", "handoff_call")
                raw = None if item.call_id in dropped_calls or _empty(item.call_id) else next((k for k, r in reversed(raws) if _holds(r.value, item.call_id)), None)
                if item.call_id in dropped_calls:
                    why = f"its {call} {item.call_id!r} (item {dropped_calls[item.call_id]}) was left out; left out with it"
                elif raw is not None:
                    why = f"its call {item.call_id!r} could not be decoded and is kept raw (item {raw}); a result without a decoded call cannot be replayed"
                    if raw not in told:
                        told.add(raw)
                        report.add("degraded", f"this call could not be decoded and is kept raw; its result {item.call_id!r} (item {n}) was left out", index=raw, item_type="raw")
                else:
                    why = f"no earlier {call} has id {item.call_id!r} (it is missing or could not be decoded); a result without its call cannot be replayed"
                report.add("dropped", why, index=n, item_type=kind)
                changed = True
                continue
        if kind_of is _RAW:
            raws.append((n, item))
        out.append(item)
    return out if changed else None


def keep_company(transcript: Transcript, report: Report) -> Transcript:
    """:func:`keep_company_items` on a transcript's items, and tool definitions unique by name (a later
    definition repeating a name is dropped with a report entry, as ``interlingua validate`` refuses a
    repeated name). The same transcript when nothing is dropped."""
    kept = keep_company_items(transcript.items, report)
    out = transcript if kept is None else msgspec.structs.replace(transcript, items=kept)
    tools = out.tools
    if isinstance(tools, list) and len(tools) > 1 and len({t.name for t in tools}) < len(tools):
        seen: set[str] = set()
        unique = []
        for i, tool in enumerate(tools):
            if tool.name in seen:
                report.add("dropped", f"tool definition {tool.name!r} repeats an earlier definition's name (names are unique); the first one is kept", pointer=f"/tools/{i}")
                continue
            seen.add(tool.name)
            unique.append(tool)
        out = msgspec.structs.replace(out, tools=unique)
    return out
