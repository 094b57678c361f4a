"""The schema's constants and the types every codec module shares: version, read modes, limits, unknown items."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import msgspec

from ..items import InputItem


SCHEMA_VERSION = "1.0"
"""The schema version this library writes (``MAJOR.MINOR``)."""

MAJOR, MINOR = (int(p) for p in SCHEMA_VERSION.split("."))

Mode: TypeAlias = Literal["preserving", "strict"]


def _tag_of(cls: type) -> str:
    return cls.__struct_config__.tag  # type: ignore[attr-defined]


_ITEM_CLASSES: dict[str, type] = {_tag_of(c): c for c in InputItem.__origin__.__args__}  # type: ignore[attr-defined]
KNOWN_ITEM_TYPES: frozenset[str] = frozenset(_ITEM_CLASSES)
"""Item ``type`` values defined by this schema version."""


@dataclass(frozen=True)
class Limits:
    """Bounds applied on read and write.

    Attributes:
        max_depth: Deepest nesting of JSON arrays/objects inside one item (levels).
        max_item_bytes: Largest encoded item (bytes).
        max_line_bytes: Longest JSON Lines record (bytes).
        max_base64_bytes: Largest inline ``base64`` source ``data`` string (characters).
    """

    max_depth: int = 64
    max_item_bytes: int = 32 * 1024 * 1024
    max_line_bytes: int = 48 * 1024 * 1024
    max_base64_bytes: int = 24 * 1024 * 1024


DEFAULT_LIMITS = Limits()


class UnknownItem:
    """An item this reader does not know, preserved unchanged.

    Produced only in ``"preserving"`` mode. Encoding writes :attr:`raw` back
    byte-for-byte.

    Attributes:
        raw: The item's JSON exactly as read.
        type: The item's ``type`` (``None`` when it has none that is a string).
    """

    __slots__ = ("raw", "type", "_value")

    def __init__(self, raw: bytes, type: str | None = None) -> None:
        self.raw = bytes(raw)
        self.type = type
        self._value: Any = None

    @property
    def value(self) -> dict[str, Any]:
        """The item decoded as a plain dict (decoded lazily, cached)."""
        if self._value is None:
            self._value = msgspec.json.decode(self.raw)
        return self._value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnknownItem) and other.raw == self.raw

    def __hash__(self) -> int:
        return hash(self.raw)

    def __repr__(self) -> str:
        return f"UnknownItem(type={self.type!r}, raw={self.raw[:60]!r}{'...' if len(self.raw) > 60 else ''})"


Item: TypeAlias = InputItem | UnknownItem
"""A canonical item, or an unknown one preserved unchanged."""


