"""Canonical item limits for what a mapper made (:func:`check_limits`, re-exported by :mod:`interlingua.conversion`).

The checks :func:`~interlingua.codec.decode_item` makes on items read from a file (size, nesting depth,
inline base64), made here on items built in memory, so nothing a conversion or ``migrate`` writes is
refused later by ``validate`` or ``store import``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from .codec import DEFAULT_LIMITS, Limits
from .codec._items import encoder
from .codec._json_safety import FREE_FORM, check_base64, item_too_deep
from .codec._line_shape import ACCELERATED, line_shape
from .errors import LimitError, Problem
from .items import Base64Source

__all__ = ["check_limits"]


def check_limits(items: Iterable[Any], *, limits: Limits = DEFAULT_LIMITS, what: str = "the input", measure_strings: bool = True) -> None:
    """Refuse canonical items a mapper made that the canonical limits forbid, as
    :func:`~interlingua.codec.decode_item` would refuse them read from a file: an item over
    ``limits.max_item_bytes`` encoded, an inline base64 source over ``max_base64_bytes``, nesting
    deeper than ``max_depth``. So nothing a conversion or ``migrate`` writes is refused later by
    ``validate`` or ``store import``.

    Each item is encoded once (msgspec, C speed: items in a list 256 at a time as JSON Lines when
    the compiled line check is there, else into one reused buffer); its length is the exact size. Nesting is walked only for an item whose
    JSON holds more brackets than ``max_depth`` (fewer cannot nest deeper), inline base64 checked
    only for an item whose JSON holds a ``"base64"`` source tag: the checks of
    :func:`~interlingua.codec.check_item_limits`.

    Args:
        items: Canonical items (a transcript's or a response's).
        limits: The bounds (the readers' defaults unless given).
        what: Names the input in the error (``"the openai-chat request"``).
        measure_strings: Measure each item's longest string first, so a huge string is refused
            without encoding it (a copy as large again). The caller that read the input's bytes
            knows whether any string can be that long (none is longer than the bytes it was read
            from) and passes ``False`` when none can; without it an over-limit item is encoded
            once (a transient copy) before it is refused.

    Raises:
        LimitError: the first such item (pointer ``/items/N`` of the canonical transcript).
    """
    if _CHUNKED and not measure_strings and isinstance(items, (list, tuple)):
        _check_chunks(items, limits, what)
    else:
        _check_each(enumerate(items), limits, what, measure_strings)


_CHUNK = 256  # items _check_chunks encodes in one call (a copy bounded by max_item_bytes)
_CHUNKED = ACCELERATED  # the pure line proof (two translate copies) costs more than the per-item pre-check


def _check_chunks(items: list[Any] | tuple[Any, ...], limits: Limits, what: str) -> None:
    """:func:`check_limits` for items in memory, ``_CHUNK`` at a time encoded as JSON Lines (one C call).

    A chunk of at most ``max_item_bytes`` holds no item over it. When no line holds more than
    ``max_depth`` opening brackets (``line_shape``, the codec's line proof) no item nests too deep,
    and only the items whose line holds a ``"base64"`` tag are checked further (found by ``find``);
    else every line is checked. A chunk over ``max_item_bytes`` (or not JSON-safe) is checked item by
    item (:func:`_check_each`: one reused buffer, no second copy of a huge item)."""
    max_bytes, limit = limits.max_item_bytes, limits.max_depth + 1
    for k in range(0, len(items), _CHUNK):
        part = items[k : k + _CHUNK]
        try:
            block = encoder.encode_lines(part)
        except (TypeError, ValueError, OverflowError):
            block = None  # an item that is not JSON-safe: the encoder's own check says where
        if block is None or len(block) > max_bytes:
            del block  # not held while a huge item is checked
            _check_each(enumerate(part, k), limits, what, False)
        elif line_shape(block, 0, len(block), limit)[2]:
            for i, line in enumerate(block.split(b"\n")[: len(part)], k):
                _check_encoded(items[i], line, f"/items/{i}", limits, what)
        else:
            i, seen, at = k, 0, block.find(b'"base64"')
            while at >= 0:  # each item whose line holds the tag, in order
                i += block.count(b"\n", seen, at)
                check_base64(items[i], f"/items/{i}", limits)
                seen = block.find(b"\n", at) + 1
                at = block.find(b'"base64"', seen)


def _check_each(items: Iterable[tuple[int, Any]], limits: Limits, what: str, measure_strings: bool) -> None:
    """:func:`check_limits` item by item (``items``: index and item), one reused buffer."""
    buf = bytearray()
    encode, max_bytes = encoder.encode_into, limits.max_item_bytes
    try:
        for i, item in items:
            if measure_strings:
                longest = _longest_string(item)
                if longest > max_bytes:  # refused without encoding it (a copy as large again)
                    raise LimitError(Problem(f"/items/{i}", f"{what} gives a canonical item of more than {longest} bytes; the limit is {max_bytes} (max_item_bytes)"))
            try:
                encode(item, buf)
            except (TypeError, ValueError, OverflowError):
                continue  # not JSON-safe: the encoder's own check says where
            if len(buf) > max_bytes or _may_break(item):
                _check_encoded(item, buf, f"/items/{i}", limits, what)
    finally:
        del buf  # an over-limit item's copy is not held past the check


def _check_encoded(item: Any, encoded: bytes | bytearray, pointer: str, limits: Limits, what: str) -> None:
    """The checks of :func:`check_limits` for one item (``encoded``: its JSON)."""
    if len(encoded) > limits.max_item_bytes:
        raise LimitError(Problem(pointer, f"{what} gives a canonical item of {len(encoded)} bytes; the limit is {limits.max_item_bytes} (max_item_bytes)"))
    if encoded.count(b"{") + encoded.count(b"[") > limits.max_depth and item_too_deep(item, limits.max_depth):
        raise LimitError(Problem(pointer, f"{what} gives a canonical item nesting deeper than {limits.max_depth} levels"))
    if b'"base64"' in encoded:  # a Base64Source encodes as {"type":"base64",...}: none without it
        check_base64(item, pointer, limits)


_SHAPES: dict[type, tuple[tuple[str, ...], bool, bool, bool]] = {}
"""Per item class: its free-form fields and whether it has an ``opaque`` (``item_too_deep`` looks
into them), a ``source`` and a ``content`` (``check_base64`` looks at them); built once per class."""

_NESTS = frozenset((dict, list))


def _shape(cls: type) -> tuple[tuple[str, ...], bool, bool, bool]:
    shape = _SHAPES.get(cls)
    if shape is None:
        names = getattr(cls, "__struct_fields__", ())
        free = tuple(n for n in FREE_FORM if n in names)
        shape = _SHAPES[cls] = (free, "opaque" in names, "source" in names, "content" in names)
    return shape


def _may_break(item: Any) -> bool:
    """Whether ``item`` holds what the depth or the base64 check looks at: a free-form value that
    is an object or an array (only those nest), an opaque value, an inline base64 source, or such a
    part in its ``content``. ``False`` means neither check can refuse it. (A class that is no
    struct has no fields here: ``UnknownItem`` is written back as it was read.)"""
    free, opaque, source, content = _SHAPES.get(type(item)) or _shape(type(item))
    for name in free:
        if type(getattr(item, name)) in _NESTS:
            return True
    if opaque and isinstance(getattr(item, "opaque"), msgspec.Struct):
        return True
    if source and isinstance(getattr(item, "source"), Base64Source):
        return True
    if content:
        parts = getattr(item, "content")
        if type(parts) is list:
            for sub in parts:
                if _may_break(sub):
                    return True
    return False


def _longest_string(item: Any) -> int:
    """Length of the longest string held in a field of ``item`` or of the items in its ``content``."""
    longest = 0
    for value in msgspec.structs.astuple(item) if isinstance(item, msgspec.Struct) else ():
        if type(value) is str:
            longest = max(longest, len(value))
        elif type(value) is list:
            for sub in value:
                if isinstance(sub, msgspec.Struct):
                    longest = max(longest, _longest_string(sub))
        elif isinstance(value, msgspec.Struct):
            longest = max(longest, _longest_string(value))
    return longest
