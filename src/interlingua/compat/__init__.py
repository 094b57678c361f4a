"""Readers for stored legacy formats.

Each reader turns one stored conversation (parsed JSON) into a canonical
transcript plus a report (:class:`Migrated`). Formats (:data:`FORMATS`):

* ``openai-chat``: OpenAI Chat message lists, with the deprecated ``functions``/``function_call``
  form and ``role: "function"`` messages;
* ``anthropic``, ``gemini``, ``ollama``, ``openai-responses``, ``bedrock-converse``, ``cohere``,
  ``mistral``: message lists (or stored request bodies) of those APIs, read by the provider mappers
  (``mistral`` only when named: its lists are OpenAI Chat ones too);
* ``pydantic-ai``: ``ModelMessagesTypeAdapter`` JSON, older field names included;
* ``langchain``: ``messages_to_dict`` output;
* ``interlingua``: documents and envelopes of any schema version the upcaster chain reads.

:func:`write` is the way back for the frameworks (:data:`WRITERS`: ``pydantic-ai``, ``langchain``):
a canonical transcript to the JSON those frameworks load, with a report of every field the
framework's form does not keep.

:func:`detect_format` picks the format; :func:`read_any` detects and reads. Older
interlingua versions go through the upcaster chain (:func:`upcaster`, :func:`upcast`,
:func:`upcast_row` for store rows).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import UnknownFormatError
from ..items import Transcript
from ..mapping import Conversion, Policy, Report
from . import _anthropic, _bedrock_converse, _cohere, _gemini, _interlingua, _langchain, _langchain_writer, _mistral, _ollama, _openai_chat, _openai_responses, _pydantic_ai, _pydantic_ai_writer
from ._base import Migrated, session_id_for, session_id_from_bytes
from ._detect import LOOKED_FOR, FormatDetectionError, detect_format
from ._upcast import registered, upcast, upcast_row, upcaster

__all__ = [
    "FORMATS",
    "LOOKED_FOR",
    "WRITERS",
    "FormatDetectionError",
    "Migrated",
    "detect_format",
    "read",
    "read_any",
    "registered",
    "session_id_for",
    "session_id_from_bytes",
    "upcast",
    "upcast_row",
    "upcaster",
    "write",
]

_READERS: dict[str, Callable[[Any], Migrated]] = {
    m.FORMAT: m.read
    for m in (_openai_chat, _anthropic, _gemini, _ollama, _openai_responses, _pydantic_ai, _langchain, _interlingua, _bedrock_converse, _cohere, _mistral)
}

FORMATS: tuple[str, ...] = tuple(_READERS)
"""Every format name a reader exists for."""


def read(obj: Any, fmt: str) -> Migrated:
    """Read ``obj`` as format ``fmt`` (a name from :data:`FORMATS`).

    Raises:
        UnknownFormatError: ``fmt`` is not a format name.
        MappingError, DocumentError: the reader refused the input.
    """
    reader = _READERS.get(fmt)
    if reader is None:
        raise UnknownFormatError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    migrated = reader(obj)
    # One rule for every reader: the history integrity rules validate counts as errors (a result
    # whose call is not in the history is left out, a reused call id renamed), each reported.
    from ..history._integrity import read_history

    fixed = read_history(migrated.transcript, migrated.report)
    if fixed is not migrated.transcript:
        migrated.transcript = fixed
    return migrated


_WRITERS: dict[str, Callable[..., Conversion[list[dict[str, Any]]]]] = {
    _pydantic_ai.FORMAT: _pydantic_ai_writer.write,
    _langchain.FORMAT: _langchain_writer.write,
}

WRITERS: tuple[str, ...] = tuple(_WRITERS)
"""Every format a transcript can be written back to (the inverse of its reader)."""


def write(transcript: Transcript, fmt: str, *, policy: Policy = "error", report: Report | None = None) -> Conversion[list[dict[str, Any]]]:
    """Write ``transcript`` as format ``fmt`` (a name from :data:`WRITERS`).

    ``pydantic-ai``: a ``ModelMessagesTypeAdapter`` JSON history (``[{"kind": "request"|"response",
    "parts": [...]}, ...]``); ``langchain``: ``messages_to_dict`` output (``[{"type", "data"}, ...]``).
    Every field the framework's form does not keep is reported per item; what has no form at all
    (``error`` items, another provider's ``raw`` items) follows ``policy``.

    Raises:
        UnknownFormatError: ``fmt`` is not a writer's format.
        ConversionError: under policy ``error``, an item the format has no form for.
    """
    writer = _WRITERS.get(fmt)
    if writer is None:
        raise UnknownFormatError(f"no writer for format {fmt!r}; known: {', '.join(WRITERS)}")
    return writer(transcript, policy=policy, report=report)


def read_any(obj: Any, fmt: str = "auto") -> Migrated:
    """Detect the format of ``obj`` (unless ``fmt`` names one) and read it.

    Interlingua documents of an older schema version are upcast through the chain first.

    Raises:
        FormatDetectionError: ``fmt`` is ``auto`` and the format cannot be told.
        UnknownFormatError, MappingError, DocumentError, VersionError: as :func:`read`.
    """
    return read(obj, detect_format(obj) if fmt == "auto" else fmt)


for _name, _obj in ((n, globals()[n]) for n in ("Migrated", "FormatDetectionError", "detect_format", "read", "read_any", "write", "session_id_for", "upcast", "upcast_row", "upcaster", "registered")):
    try:
        _obj.__module__ = __name__
    except (AttributeError, TypeError):
        pass
