"""Check a transcript built in code before anything is sent.

Items are msgspec Structs, which are not validated on construction: ``TextItem(role="robot")``
builds, and a plain ``dict`` can sit in ``Transcript.items``. :func:`checked_transcript` gives such
a transcript the validation reading a file gives (the same decoder, the same JSON pointers), so a
bad value is a :class:`~interlingua.errors.DocumentError` before any request is made or any body is
converted, not a request the provider refuses (or a store write that fails later). Used by
``transport.Client.generate``.
"""

from __future__ import annotations

from typing import Any

from .codec import UnknownItem, decode_transcript, encode_transcript
from .errors import DocumentError, Problem
from .items import InputItem, Transcript

__all__ = ["checked_transcript"]

_ITEM_CLASSES: tuple[type, ...] = tuple(InputItem.__origin__.__args__)  # type: ignore[attr-defined]


def checked_transcript(transcript: Any) -> Transcript:
    """``transcript`` validated as if read from a file; returns the validated copy (the input is not changed).

    Raises:
        DocumentError: not a :class:`~interlingua.items.Transcript`; an entry of ``items`` that is not an
            item (a ``dict``, a string); or a value the schema refuses (a role outside the enum, a wrong
            type), each problem with its JSON pointer (``/items/0/role: Invalid enum value 'robot'``).
    """
    if not isinstance(transcript, Transcript):
        hint = "; read one with interlingua.decode_transcript" if isinstance(transcript, (dict, str, bytes)) else ""
        raise DocumentError(Problem("", f"expected an interlingua Transcript, got {type(transcript).__name__}{hint}"))
    problems = []
    for i, item in enumerate(transcript.items):
        if not isinstance(item, (*_ITEM_CLASSES, UnknownItem)):
            hint = "; build it with an item class (TextItem(...)) or decode it with interlingua.decode_item" if isinstance(item, (dict, str, bytes)) else ""
            problems.append(Problem(f"/items/{i}", f"expected an interlingua item, got {type(item).__name__}{hint}"))
    if problems:
        raise DocumentError(problems)
    return decode_transcript(encode_transcript(transcript))
