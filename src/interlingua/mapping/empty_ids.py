"""An empty tool-call id is replaced by a generated one on the call and on its result.

Some clients and OpenAI-compatible hosts write ``"id": ""`` on a tool call and ``"tool_call_id": ""``
(``"tool_use_id": ""``, ...) on its result. An empty id names nothing, so the result can only be linked
to its call by position: the k-th result with an empty id answers the k-th call with an empty id still
unanswered before it. Every provider decoder applies this one rule (:func:`link_empty_ids`) to the
items it decoded from a request body: the call gets a generated id, its result the same id, each
with a ``changed`` report entry. A result with an empty id and no such call before it is left as it
is (the company rule, :mod:`interlingua.mapping.company`, then drops it with a report entry).

No provider rule lives here: the decoders pass an empty id through as ``""``, and this module links
the items.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import msgspec

from ..items import HandoffCallItem, HandoffResultItem, ToolCallItem, ToolResultItem
from .report import Report

__all__ = ["EMPTY_ID_PREFIX", "link_empty_ids", "links_empty_ids"]

EMPTY_ID_PREFIX = "call_empty_"
"""Generated ids are ``call_empty_<n>`` (``n`` counts the empty-id calls of the history from 1;
a suffix ``_<k>`` is added if the history already holds such an id)."""

_CALLS = (ToolCallItem, HandoffCallItem)
_RESULTS = (ToolResultItem, HandoffResultItem)


_ID_FIELD: dict[type, str | None] = {ToolCallItem: "id", HandoffCallItem: "id", ToolResultItem: "call_id", HandoffResultItem: "call_id"}
"""The id field of each item class (``None``: not a call or a result), decided once per class."""


def _id_field(cls: type) -> str | None:
    name = "id" if issubclass(cls, _CALLS) else "call_id" if issubclass(cls, _RESULTS) else None
    _ID_FIELD[cls] = name
    return name


def _empty(item: Any) -> bool:
    if isinstance(item, _CALLS):
        return item.id == ""
    if isinstance(item, _RESULTS):
        return item.call_id == ""
    return False


def link_empty_ids(items: Sequence[Any], report: Report, *, where: Sequence[str | None] | None = None) -> list[Any] | None:
    """Give every call with an empty id a generated id, and the result with an empty id that answers it
    (by position: the oldest such call not yet answered) the same id.

    Args:
        items: Canonical items in order, as a decoder made them (not mutated).
        report: Gets one ``changed`` entry per call renamed and per result linked, with the item's index.
        where: Optional JSON pointer into the provider body of each item (``None`` where unknown),
            named in the report entries.

    Returns:
        The items with the ids filled in, or ``None`` when no item has an empty id (nothing to copy).
    """
    fields = _ID_FIELD
    for item in items:  # the usual history has no empty id: one dict look-up per item, nothing copied
        cls = type(item)
        name = fields[cls] if cls in fields else _id_field(cls)
        if name is not None and getattr(item, name) == "":
            break
    else:
        return None
    taken: set[str] = set()
    for item in items:
        for name in ("id", "call_id"):
            value = getattr(item, name, None)
            if isinstance(value, str):
                taken.add(value)
    out = list(items)
    waiting: dict[bool, deque[tuple[int, str]]] = {True: deque(), False: deque()}  # tool: True, handoff: False
    n = 0
    for i, item in enumerate(items):
        if not _empty(item):
            continue
        pointer = where[i] if where is not None and i < len(where) else None
        tool = isinstance(item, (ToolCallItem, ToolResultItem))
        kind = "tool_call" if tool else "handoff_call"
        if isinstance(item, _CALLS):
            n += 1
            new, k = f"{EMPTY_ID_PREFIX}{n}", 1
            while new in taken:
                k += 1
                new = f"{EMPTY_ID_PREFIX}{n}_{k}"
            taken.add(new)
            out[i] = msgspec.structs.replace(item, id=new)
            waiting[tool].append((i, new))
            report.add("changed", f"{kind} with an empty id; given {new!r} (its result is the next result with an empty id)", index=i, item_type=kind, pointer=pointer)
        else:
            queue = waiting[tool]
            if not queue:
                continue  # no call with an empty id before it: the company rule drops it, reported
            call_at, new = queue.popleft()
            out[i] = msgspec.structs.replace(item, call_id=new)
            what = "tool_result" if tool else "handoff_result"
            report.add("changed", f"{what} with an empty call id; linked to the {kind} with an empty id at item {call_at} by position, as {new!r}", index=i, item_type=what, pointer=pointer)
    return out


_F = TypeVar("_F", bound=Callable[..., Any])


def links_empty_ids(fn: _F) -> _F:
    """Decorate a provider decoder returning a :class:`~interlingua.mapping.protocol.Conversion` of a
    transcript or a model response: :func:`link_empty_ids` is applied to its items (entries added to
    its report). A decoder passes empty ids through as ``""``; this decorator links them."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        conv = fn(*args, **kwargs)
        value = conv.value
        items = getattr(value, "items", None)
        if type(items) is not list:
            return conv
        linked = link_empty_ids(items, conv.report)
        if linked is None:
            return conv
        new = msgspec.structs.replace(value, items=linked) if isinstance(value, msgspec.Struct) else dataclasses.replace(value, items=linked)
        return type(conv)(new, conv.report)

    return wrapper  # type: ignore[return-value]
