"""Conversion reports and the loss policy.

Every mapper returns a :class:`Report` beside its result: each item it dropped,
degraded or changed (for example a tool-call id renamed for the target), so that
nothing is lost silently (DESIGN.md invariant 1).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from ..errors import ConversionError
from ..items import TextItem

__all__ = ["Action", "Policy", "Report", "ReportEntry", "POLICIES"]

Policy: TypeAlias = Literal["error", "drop", "degrade"]
"""What to do with content the target cannot carry: refuse (default), leave it out, or replace it by a short text marker."""

POLICIES: tuple[Policy, ...] = ("error", "drop", "degrade")

_intern = sys.intern

Action: TypeAlias = Literal["dropped", "degraded", "changed"]


@dataclass(frozen=True, init=False)
class ReportEntry:
    """One loss or change made by a conversion.

    Attributes:
        action: ``dropped`` (left out), ``degraded`` (replaced by something poorer) or
            ``changed`` (kept with a representation change, e.g. a renamed tool-call id).
        reason: One line saying what and why.
        index: Index of the source item (canonical) or message (provider), when known.
        item_type: The canonical item type or provider part type concerned.
        pointer: JSON pointer into the source payload, when known.
    """

    action: Action
    reason: str
    index: int | None = None
    item_type: str | None = None
    pointer: str | None = None

    def __init__(self, action: Action, reason: str, index: int | None = None, item_type: str | None = None, pointer: str | None = None) -> None:
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

    def __str__(self) -> str:
        where = []
        if self.index is not None:
            where.append(f"item {self.index}")
        if self.item_type:
            where.append(self.item_type)
        if self.pointer:
            where.append(self.pointer)
        prefix = f"{' '.join(where)}: " if where else ""
        return f"{self.action}: {prefix}{self.reason}"


@dataclass
class Report:
    """Everything a conversion could not carry unchanged.

    Iterating yields :class:`ReportEntry` objects; ``bool(report)`` is true when there is any entry.
    """

    entries: list[ReportEntry] = field(default_factory=list)

    def add(self, action: Action, reason: str, *, index: int | None = None, item_type: str | None = None, pointer: str | None = None) -> None:
        """Record one entry."""
        self.entries.append(ReportEntry(action, reason, index, item_type, pointer))

    def extend(self, other: Report) -> None:
        """Append every entry of ``other``."""
        self.entries.extend(other.entries)

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
        """One ``warning: ...`` line per entry, as the CLI prints them."""
        return [f"warning: {e}" for e in self.entries]

    def __iter__(self) -> Iterator[ReportEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __bool__(self) -> bool:
        return bool(self.entries)
