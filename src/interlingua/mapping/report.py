"""Conversion reports and the loss policy.

Every mapper returns a :class:`Report` beside its result: each item it dropped,
degraded or changed (for example a tool-call id renamed for the target), so that
nothing is lost silently (DESIGN.md invariant 1).

A long conversion repeats one entry per item (a million texts whose ``id`` a target does not
carry): past :data:`AGGREGATE_AFTER` entries of the same action, reason and item type, the
repeats are one aggregated entry (its ``count`` and its first :data:`AGGREGATE_AFTER` places),
so a report's memory and what the CLI prints do not grow with the conversation (ADR 0047).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from ..errors import ConversionError
from ..items import TextItem

__all__ = ["AGGREGATE_AFTER", "Action", "Place", "Policy", "Report", "ReportEntry", "POLICIES"]

Policy: TypeAlias = Literal["error", "drop", "degrade"]
"""What to do with content the target cannot carry: refuse (default), leave it out, or replace it by a short text marker."""

POLICIES: tuple[Policy, ...] = ("error", "drop", "degrade")

_intern = sys.intern

Action: TypeAlias = Literal["dropped", "degraded", "changed"]

Place: TypeAlias = tuple["int | None", "str | None"]
"""Where one occurrence of an aggregated entry is: ``(index, pointer)``, as an entry's ``index`` and ``pointer``."""

AGGREGATE_AFTER = 100
"""Entries of one action, reason and item type kept one by one before they are one aggregated entry
(which keeps this many places: the first ones)."""

_SHOWN = 3  # places an aggregated entry's text names


@dataclass(frozen=True, init=False)
class ReportEntry:
    """One loss or change made by a conversion, or (``count`` > 1) the same one made ``count`` times.

    Attributes:
        action: ``dropped`` (left out), ``degraded`` (replaced by something poorer) or
            ``changed`` (kept with a representation change, e.g. a renamed tool-call id).
        reason: One line saying what and why.
        index: Index of the source item (canonical) or message (provider), when known; of the
            first occurrence for an aggregated entry.
        item_type: The canonical item type or provider part type concerned.
        pointer: JSON pointer into the source payload, when known; of the first occurrence for
            an aggregated entry.
        count: How many times this loss or change was made (1 for a single entry; an
            aggregated entry counts every occurrence, the first included).
        places: For an aggregated entry, the ``(index, pointer)`` of its first occurrences (at
            most :data:`AGGREGATE_AFTER`, in order; the first is ``(index, pointer)``); ``()``
            for a single entry.
    """

    action: Action
    reason: str
    index: int | None = None
    item_type: str | None = None
    pointer: str | None = None
    count: int = 1
    places: tuple[Place, ...] = ()

    def __init__(
        self,
        action: Action,
        reason: str,
        index: int | None = None,
        item_type: str | None = None,
        pointer: str | None = None,
        count: int = 1,
        places: tuple[Place, ...] = (),
    ) -> None:
        # Frozen: each field is written once, here, straight into the instance dict (the generated
        # frozen __init__ calls object.__setattr__ per field, several times slower; one entry is made
        # per reported change). The reason is interned: a long conversion repeats one reason per
        # item (a million "fields that do not come back ..." entries hold one string, not a million).
        d = self.__dict__
        d["action"] = action
        d["reason"] = _intern(reason) if type(reason) is str else reason
        d["index"] = index
        d["item_type"] = item_type
        d["pointer"] = pointer
        d["count"] = count
        d["places"] = places

    def __str__(self) -> str:
        if self.count > 1:
            shown = ", ".join(_place_text(p) for p in self.places[:_SHOWN])
            more = ", ..." if self.count > _SHOWN else ""
            kind = f"{self.item_type}: " if self.item_type else ""
            return f"{self.action} {self.count:,} x: {kind}{self.reason} (first at {shown}{more})"
        where = []
        if self.index is not None:
            where.append(f"item {self.index}")
        if self.item_type:
            where.append(self.item_type)
        if self.pointer:
            where.append(self.pointer)
        prefix = f"{' '.join(where)}: " if where else ""
        return f"{self.action}: {prefix}{self.reason}"

    def to_builtins(self) -> dict[str, Any]:
        """The entry as JSON-ready builtins (the JSON form of a report entry, docs/reports.md):
        ``{"action", "reason", "index", "item_type", "pointer", "count"}`` and, for an aggregated
        entry, ``"places": [{"index", "pointer"}, ...]`` (its first occurrences)."""
        out: dict[str, Any] = {"action": self.action, "reason": self.reason, "index": self.index, "item_type": self.item_type, "pointer": self.pointer, "count": self.count}
        if self.count > 1:
            out["places"] = [{"index": i, "pointer": p} for i, p in self.places]
        return out


def _place_text(place: Place) -> str:
    index, pointer = place
    parts = ([f"item {index}"] if index is not None else []) + ([pointer] if pointer else [])
    return " ".join(parts) or "?"


def _key(e: ReportEntry) -> tuple[str, str, str | None]:
    return (e.action, e.reason, e.item_type)


def _places(e: ReportEntry) -> tuple[Place, ...]:
    return e.places if e.count > 1 else ((e.index, e.pointer),)


def _merged(first: ReportEntry, more: ReportEntry) -> ReportEntry:
    """``first`` (single or aggregated) with ``more``'s occurrences counted in."""
    places = _places(first)
    if len(places) < AGGREGATE_AFTER:
        places = (places + _places(more))[:AGGREGATE_AFTER]
    return ReportEntry(first.action, first.reason, first.index, first.item_type, first.pointer, first.count + more.count, places)


@dataclass
class Report:
    """Everything a conversion could not carry unchanged.

    Iterating yields :class:`ReportEntry` objects; ``bool(report)`` is true when there is any entry;
    ``len(report)`` is the number of entries held (an aggregated entry is one).

    ``aggregate``: when true, :meth:`add`, :meth:`add_entry` and :meth:`extend` keep at most
    :data:`AGGREGATE_AFTER` entries of one action, reason and item type one by one; the next one
    turns them into one aggregated entry, in the first one's place, that counts every later one
    (bounded memory for any number of repeats). Off by default: the entries are then exactly
    those added, in order (:meth:`aggregated` and :meth:`lines` fold a copy).
    """

    entries: list[ReportEntry] = field(default_factory=list)
    aggregate: bool = False
    _seen: dict[tuple[str, str, str | None], int] = field(default_factory=dict, init=False, repr=False, compare=False)
    _folded: dict[tuple[str, str, str | None], ReportEntry] = field(default_factory=dict, init=False, repr=False, compare=False)
    _at: dict[tuple[str, str, str | None], int] = field(default_factory=dict, init=False, repr=False, compare=False)

    def add(self, action: Action, reason: str, *, index: int | None = None, item_type: str | None = None, pointer: str | None = None) -> None:
        """Record one entry."""
        entry = ReportEntry(action, reason, index, item_type, pointer)
        if self.aggregate:
            self.add_entry(entry)
        else:
            self.entries.append(entry)

    def add_entry(self, entry: ReportEntry) -> None:
        """Record ``entry`` (single or aggregated), folded into its aggregated entry when the
        report aggregates and its action, reason and item type were seen often enough."""
        if not self.aggregate:
            self.entries.append(entry)
            return
        key = _key(entry)
        folded = self._folded.get(key)
        if folded is not None:
            at = self._at.get(key)
            if at is None or at >= len(self.entries) or self.entries[at] is not folded:
                at = next((n for n, e in enumerate(self.entries) if e is folded), None)  # the list was changed from outside
            if at is not None:
                self.entries[at] = self._folded[key] = _merged(folded, entry)
                self._at[key] = at
                return
            del self._folded[key]  # no longer there: count again
            self._seen.pop(key, None)
        seen = self._seen.get(key, 0) + entry.count
        self._seen[key] = seen
        self.entries.append(entry)
        if seen > AGGREGATE_AFTER:
            self._fold(key)

    def _fold(self, key: tuple[str, str, str | None]) -> None:
        """Turn the entries of ``key`` into one aggregated entry, in the first one's place."""
        kept: list[ReportEntry] = []
        first: int | None = None
        agg: ReportEntry | None = None
        for e in self.entries:
            if _key(e) != key:
                kept.append(e)
            elif agg is None:
                first, agg = len(kept), e
                kept.append(e)
            else:
                agg = _merged(agg, e)
        assert agg is not None and first is not None
        kept[first] = agg
        self.entries[:] = kept
        self._folded[key] = agg
        folded = {id(e): k for k, e in self._folded.items()}
        self._at = {folded[id(e)]: n for n, e in enumerate(kept) if id(e) in folded}

    def extend(self, other: Report | Iterable[ReportEntry]) -> None:
        """Append every entry of ``other`` (a report or entries), folded as :meth:`add_entry` does."""
        entries = other.entries if isinstance(other, Report) else other
        if not self.aggregate:
            self.entries.extend(entries)
            return
        for e in entries:
            self.add_entry(e)

    def aggregated(self) -> Report:
        """A copy with the repeats aggregated (as an aggregating report would hold them); ``self``
        unchanged."""
        out = Report(aggregate=True)
        out.extend(self.entries)
        return out

    def unsupported(
        self, policy: Policy, reason: str, *, index: int | None = None, item_type: str | None = None, marker: str | None = None
    ) -> list[TextItem]:
        """Apply ``policy`` to content the target cannot carry.

        Returns:
            ``[]`` under ``drop``; under ``degrade`` a one-item list holding a short text
            marker (``marker`` or ``[<item_type> omitted: <reason>]``), never the content itself.

        Raises:
            ConversionError: under ``error``.
        """
        if policy == "error":
            raise ConversionError(reason, index=index, item_type=item_type)
        if policy == "drop":
            self.add("dropped", reason, index=index, item_type=item_type)
            return []
        text = marker or f"[{item_type or 'content'} omitted: {reason}]"
        self.add("degraded", f"{reason}; replaced by a text marker", index=index, item_type=item_type)
        return [TextItem(text=text)]

    def lines(self) -> list[str]:
        """One ``warning: ...`` line per entry, as the CLI prints them: more than
        :data:`AGGREGATE_AFTER` entries of one action, reason and item type are one line
        (``warning: dropped 1,000 x: image: ... (first at item 3, item 5, item 9, ...)``)."""
        shown = self if self.aggregate or len(self.entries) <= AGGREGATE_AFTER else self.aggregated()
        return [f"warning: {e}" for e in shown.entries]

    def to_builtins(self) -> list[dict[str, Any]]:
        """The report as JSON-ready builtins: one :meth:`ReportEntry.to_builtins` dict per entry
        held, in order (docs/reports.md)."""
        return [e.to_builtins() for e in self.entries]

    @property
    def total(self) -> int:
        """Occurrences reported: the sum of the entries' ``count`` (``len`` counts an aggregated entry once)."""
        return sum(e.count for e in self.entries)

    def __iter__(self) -> Iterator[ReportEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __bool__(self) -> bool:
        return bool(self.entries)
