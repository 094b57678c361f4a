"""One rule for every reader: what a reader hands on passes the canonical schema limits.

``interlingua validate`` and ``interlingua store import`` read every item through the canonical
decoder (JSON Schema ``common.json#/$defs/ItemId`` and ``MessageKey``: non-empty, at most 512
characters; media data valid base64; item size and depth limits). A reader copies ids, URLs and
data from its source as they are, so before this rule a source id of 600 characters, an empty
tool-call id or an image ``data`` that is not base64 was written by ``migrate -o`` and
``convert --to canonical`` (exit 0) and then refused by ``validate``.

:class:`Conformer` applies, item by item (so a streamed agent log keeps bounded memory):

* **ids** (the one established safe repair): an item ``id`` or ``message`` key that is empty or
  longer than 512 characters is renamed to an id derived from a hash of the original (the
  :class:`~interlingua.mapping.ids.IdRule` derivation: the same original always gives the same id,
  so a tool call and the ``call_id`` of its result, or the items of one message, stay together),
  reported as ``changed``. An empty ``id`` of an item no result refers to (content, reasoning, ...)
  is left out instead (the field is optional there), reported. Two calls that both had an empty id
  get the same derived id; the history integrity rules then rename the later one with its results,
  as for any reused call id.
* **everything else** the canonical decoder refuses (an empty image URL, data that is not base64,
  nesting too deep, ...) has no safe repair (an item over ``max_item_bytes`` is left to the writers'
  size check, which names the input): the conversation is refused with
  :class:`~interlingua.errors.DocumentError`, the JSON pointer naming the item and field.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..codec import DEFAULT_LIMITS
from ..codec._items import decode_one_item, encoder
from ..errors import DocumentError, Problem
from ..items import ErrorItem, HandoffCallItem, HandoffResultItem, ToolCallItem, ToolResultItem
from ..mapping.ids import IdRule
from ..mapping.report import Report

__all__ = ["ID_MAX", "Conformer", "conform_items"]

ID_MAX = 512
"""Longest item id or message key the canonical schema accepts (``common.json#/$defs/ItemId``)."""

_RULE = IdRule("the canonical schema (ids are 1 to 512 characters)", max_length=ID_MAX, prefix="id_")
_CALLS = (ToolCallItem, HandoffCallItem)
_RESULTS = (ToolResultItem, HandoffResultItem)


def _bad(value: object) -> bool:
    return isinstance(value, str) and (not value or len(value) > ID_MAX)


def _kind(item: Any) -> str:
    tag = getattr(getattr(type(item), "__struct_config__", None), "tag", None)
    return tag if isinstance(tag, str) else getattr(item, "type", type(item).__name__)


def _shown(value: str) -> str:
    return repr(value) if len(value) <= 40 else f"{value[:24]!r}... ({len(value)} characters)"


class Conformer:
    """Brings the items of one conversation within the canonical schema limits, in order.

    Use one instance per conversation (the renamed ids are remembered so a result finds its call).
    """

    def __init__(self, report: Report, *, what: str = "the reader") -> None:
        self.report = report
        self.what = what
        self._renamed: dict[str, str] = {}
        self._derived: set[str] = set()

    def _rename(self, original: str) -> str:
        new = self._renamed.get(original)
        if new is None:
            attempt = 0
            new = _RULE.derive(original, attempt)
            while new in self._derived:
                attempt += 1
                new = _RULE.derive(original, attempt)
            self._renamed[original] = new
            self._derived.add(new)
        return new

    def item(self, item: Any, index: int) -> Any:
        """``item`` with its ids repaired (a copy; the input is not mutated), checked as ``validate`` reads it.

        Args:
            item: A canonical item a reader built.
            index: Its place in the conversation (for the report and the JSON pointer ``/items/<index>``).

        Raises:
            DocumentError: the item fails the canonical schema for a reason other than an id.
        """
        changes: dict[str, Any] = {}
        kind = _kind(item)
        item_id = getattr(item, "id", msgspec.UNSET)
        if isinstance(item_id, str) and _bad(item_id):
            if item_id == "" and not isinstance(item, _CALLS):
                changes["id"] = msgspec.UNSET
                self.report.add("dropped", "an empty item id (ids are non-empty): left out", index=index, item_type=kind, pointer=f"/items/{index}/id")
            else:
                changes["id"] = self._rename(item_id)
                why = "empty" if not item_id else f"longer than {ID_MAX} characters"
                self.report.add("changed", f"id {_shown(item_id)} is {why}: renamed {changes['id']!r}", index=index, item_type=kind, pointer=f"/items/{index}/id")
        if isinstance(item, _RESULTS) and isinstance(item.call_id, str) and _bad(item.call_id):
            changes["call_id"] = self._rename(item.call_id)
            why = "empty" if not item.call_id else f"longer than {ID_MAX} characters"
            self.report.add("changed", f"call id {_shown(item.call_id)} is {why}: renamed {changes['call_id']!r} as on its call", index=index, item_type=kind, pointer=f"/items/{index}/call_id")
        message = getattr(item, "message", msgspec.UNSET) if not isinstance(item, ErrorItem) else msgspec.UNSET  # an error's message is its text
        if isinstance(message, str) and _bad(message):
            changes["message"] = self._rename(message)
            why = "empty" if not message else f"longer than {ID_MAX} characters"
            self.report.add("changed", f"message key {_shown(message)} is {why}: renamed {changes['message']!r}", index=index, item_type=kind, pointer=f"/items/{index}/message")
        if changes:
            item = msgspec.structs.replace(item, **changes)
        self.check(item, index)
        return item

    def check(self, item: Any, index: int) -> None:
        """Read ``item`` back the way ``validate`` and ``store import`` do.

        Raises:
            DocumentError: it does not read back (the pointer names the field).
        """
        pointer = f"/items/{index}"
        try:
            raw = encoder.encode(item)
        except (TypeError, ValueError, OverflowError) as exc:
            raise DocumentError(Problem(pointer, f"{self.what} built an item that cannot be written as JSON: {exc}")) from None
        if len(raw) > DEFAULT_LIMITS.max_item_bytes:
            # the size limit is the writers' own check (``check_limits``/``check_item_limits``, a
            # LimitError naming the input and the record not copied to the rejects): not decoded here
            return
        try:
            decode_one_item(raw, pointer, "preserving", False, DEFAULT_LIMITS)
        except DocumentError as exc:
            kind = _kind(item)
            raise DocumentError([
                Problem(p.pointer, f"{p.message} (the {kind} item {self.what} read from the input at this place is not a valid canonical item; nothing was written)")
                for p in exc.problems
            ]) from None


def conform_items(items: list[Any], report: Report, *, what: str = "the reader") -> list[Any] | None:
    """:meth:`Conformer.item` over ``items``; the new list, or ``None`` when nothing changed.

    Raises:
        DocumentError: an item fails the canonical schema for a reason other than an id.
    """
    conformer = Conformer(report, what=what)
    out: list[Any] | None = None
    for i, item in enumerate(items):
        new = conformer.item(item, i)
        if new is not item:
            if out is None:
                out = list(items[:i])
            out.append(new)
        elif out is not None:
            out.append(new)
    return out
