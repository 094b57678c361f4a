"""One item: decode, encode, limits of an item built in memory, conversion to plain data."""

from __future__ import annotations

from typing import Any

import msgspec

from ..errors import DocumentError, LimitError, Problem
from ..items import InputItem
from ._model import DEFAULT_LIMITS, Item, KNOWN_ITEM_TYPES, Limits, Mode, UnknownItem
from ._json_safety import _any_decoder, _MAX_DEPTH, _MEDIA_CLASSES, _STRUCT_CHECKS, _escape, _few_brackets, check_base64, check_json_safe, item_too_deep, split_msgspec_error


# --------------------------------------------------------------------------- items

_item_decoder = msgspec.json.Decoder(InputItem)
encoder = msgspec.json.Encoder(enc_hook=lambda obj: _enc_hook(obj))


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, UnknownItem):
        return msgspec.Raw(obj.raw)
    raise NotImplementedError(f"{type(obj).__name__} is not JSON-safe")


_REPEATED = " (a key given more than once counts with its last value)"


def _last_wins(raw: bytes, decoder: msgspec.json.Decoder[Any], problem: Problem, pointer: str) -> tuple[Any, Problem]:
    """Duplicate keys: the last value counts, in every reader (ADR 0015).

    msgspec keeps the last value of a repeated field but picks a tagged union's class by the first
    ``type`` key, so ``{"type": "x", ..., "type": "text"}`` fails with ``Invalid value`` at a
    ``type``. On that error only, the object is read generically (last value wins), written once
    and decoded again. Returns ``(value, problem)``: the value when the re-read decodes, else
    ``None`` and the problem to report (the re-read's own, marked, when it differs).
    """
    if not problem.message.startswith("Invalid value"):
        return None, problem
    try:
        norm = msgspec.json.encode(_any_decoder.decode(raw))
    except (msgspec.DecodeError, RecursionError, TypeError, ValueError):
        return None, problem
    try:
        return decoder.decode(norm), problem
    except msgspec.ValidationError as exc:
        again = split_msgspec_error(exc, pointer)
        if again == problem:  # nothing was repeated: the same error
            return None, problem
        return None, Problem(again.pointer, again.message + _REPEATED)
    except (msgspec.DecodeError, RecursionError):
        return None, problem


def decode_one_item(raw: bytes, pointer: str, mode: Mode, newer_minor: bool, limits: Limits) -> Item:
    if len(raw) > limits.max_item_bytes:
        raise LimitError(Problem(pointer, f"item is {len(raw)} bytes; the limit is {limits.max_item_bytes}"))
    try:
        item = _item_decoder.decode(raw)
    except msgspec.ValidationError as exc:
        again, problem = _last_wins(raw, _item_decoder, split_msgspec_error(exc, pointer), pointer)
        if again is not None:
            return _checked_item(again, raw, pointer, limits)
        if mode == "preserving":
            try:
                generic = _any_decoder.decode(raw)
            except msgspec.DecodeError:
                generic = None
            if isinstance(generic, dict):
                typ = generic.get("type")
                # an unknown item is kept only with a non-empty string `type` (the store keeps it by
                # its type: one contract for validate and store import)
                if isinstance(typ, str) and typ and typ not in KNOWN_ITEM_TYPES:
                    return UnknownItem(raw, typ)
                if newer_minor and "unknown field" in problem.message and isinstance(typ, str) and typ:
                    return UnknownItem(raw, typ)
        if problem.message.startswith("Invalid value") and problem.pointer == f"{pointer}/type":
            problem = Problem(problem.pointer, _bad_type_message(raw, mode))
        raise DocumentError(problem) from exc
    except msgspec.DecodeError as exc:
        raise DocumentError(Problem(pointer, f"invalid JSON: {exc}")) from exc
    except RecursionError as exc:
        raise LimitError(Problem(pointer, "nesting too deep")) from exc
    return _checked_item(item, raw, pointer, limits)


def check_item_limits(item: Item, encoded: bytes, *, pointer: str = "", limits: Limits = DEFAULT_LIMITS) -> None:
    """Check an item built in memory (a mapper's output) against the limits every reader applies.

    What a writer writes must read back: an item over ``max_item_bytes``, nested deeper than
    ``max_depth`` or holding oversized inline base64 is refused here as it would be on reading.

    Args:
        item: The item.
        encoded: Its compact JSON (as it will be written).
        pointer: JSON pointer of the item, for the error.
        limits: The bounds (the readers' defaults unless given).

    Raises:
        LimitError: over a limit.
    """
    if len(encoded) > limits.max_item_bytes:
        raise LimitError(Problem(pointer, f"item is {len(encoded)} bytes; the limit is {limits.max_item_bytes}"))
    _checked_item(item, encoded, pointer, limits)


def _checked_item(item: Any, raw: bytes, pointer: str, limits: Limits) -> Item:
    if not _few_brackets(raw, limits.max_depth) and item_too_deep(item, limits.max_depth):
        raise LimitError(Problem(pointer, f"nesting deeper than {limits.max_depth} levels"))
    if isinstance(item, _MEDIA_CLASSES) or getattr(item, "content", None):
        check_base64(item, pointer, limits)
    return item


def _bad_type_message(raw: bytes, mode: Mode) -> str:
    """Why the item's ``type`` was refused: a duplicate key, a non-string, or a type this reader does not know."""
    try:
        generic = _any_decoder.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        generic = None
    typ = generic.get("type") if isinstance(generic, dict) else None
    known = ", ".join(sorted(KNOWN_ITEM_TYPES))
    if isinstance(typ, str) and typ in KNOWN_ITEM_TYPES:
        # the typed decoder read another `type` than the last one: the key is given more than once
        return "the item has more than one `type` key; give `type` once"
    if not isinstance(typ, str):
        return f"item type must be a string naming an item type (known: {known})"
    if mode == "strict":
        return f"unknown item type {typ!r} (known: {known}); read in preserving mode to keep it"
    return f"unknown item type {typ!r} (known: {known})"


def decode_item(data: bytes | str, *, mode: Mode = "preserving", limits: Limits = DEFAULT_LIMITS, pointer: str = "") -> Item:
    """Decode one item from JSON.

    Args:
        data: The item's JSON.
        mode: ``"preserving"`` keeps unknown item types as :class:`UnknownItem`; ``"strict"`` rejects them.
        limits: Size and depth bounds.
        pointer: JSON pointer prefix used in errors.

    Raises:
        DocumentError: invalid JSON or not a valid item; LimitError: over a limit.
    """
    raw = data.encode() if isinstance(data, str) else bytes(data)
    try:
        return decode_one_item(raw, pointer, mode, False, limits)
    except msgspec.DecodeError as exc:
        raise DocumentError(Problem(pointer, f"invalid JSON: {exc}")) from exc


def encode_item(item: Item) -> bytes:
    """Encode one item to compact JSON after checking it is JSON-safe.

    Raises:
        DocumentError: the item holds NaN/Infinity, bytes, non-string keys or non-JSON types.
    """
    return _checked_encode(item)


def _checked_encode(obj: Any) -> bytes:
    """``check_json_safe(obj)`` then ``_encode_text(obj)``, with the common case in one frame.

    A Struct whose class already has its generated check (:func:`_compile_struct_check`) is
    checked by it directly; anything else, or any doubt, goes through :func:`check_json_safe`
    (which decides, builds the error pointer and generates the check on first use). The work
    and the answers are the same; this only leaves out four Python calls per value, which at
    the benchmark's 9,078 envelopes were ~11M instructions against the check's ~140M.
    """
    chk = _STRUCT_CHECKS.get(type(obj))
    try:
        ok = chk is not None and chk(obj, _MAX_DEPTH)
    except RecursionError:  # deeper than Python's stack: the iterative walk decides
        ok = False
    if not ok:
        check_json_safe(obj)
    try:
        return encoder.encode(obj)
    except UnicodeEncodeError:
        return _encode_text(obj)  # raises DocumentError at the string's pointer


def _encode_text(obj: Any) -> bytes:
    """``encoder.encode(obj)``; a string that UTF-8 cannot carry (a lone surrogate, which Python
    strings may hold and JSON text may not) is a :class:`DocumentError` at its pointer."""
    try:
        return encoder.encode(obj)
    except UnicodeEncodeError:
        pointer = _surrogate_pointer(obj, "") or ""
        raise DocumentError(Problem(pointer, "string holds a lone surrogate (not valid Unicode text, so not JSON text)")) from None


def _surrogate_pointer(value: Any, pointer: str) -> str | None:
    """The JSON pointer of the first string (or key) in ``value`` that UTF-8 cannot encode."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return pointer
        return None
    if isinstance(value, msgspec.Struct):
        for name, wire in zip(value.__struct_fields__, value.__struct_encode_fields__):
            found = _surrogate_pointer(getattr(value, name), f"{pointer}/{_escape(wire)}")
            if found is not None:
                return found
        return None
    if isinstance(value, dict):
        for key, sub in value.items():
            if _surrogate_pointer(key, "") is not None:
                return f"{pointer}/{_escape(str(key).encode('utf-8', 'backslashreplace').decode())}"
            found = _surrogate_pointer(sub, f"{pointer}/{_escape(key)}")
            if found is not None:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for i, sub in enumerate(value):
            found = _surrogate_pointer(sub, f"{pointer}/{i}")
            if found is not None:
                return found
    return None


def to_builtins(obj: Any) -> Any:
    """Convert items, transcripts or envelopes to plain dicts/lists (UNSET fields left out)."""
    return msgspec.json.decode(encoder.encode(obj))


