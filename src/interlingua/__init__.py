"""interlingua: one schema-first, provider-neutral form for LLM conversations.

The canonical models live in :mod:`interlingua.items` (generated from ``schemas/``);
reading and writing them in :mod:`interlingua.codec`; checks in
:mod:`interlingua.validation`; provider mappers in :mod:`interlingua.providers`;
one-call conversion between formats (what ``interlingua convert`` runs) in
:mod:`interlingua.conversion`; the session store in :mod:`interlingua.store`.
"""

from __future__ import annotations

from .codec import (
    SCHEMA_VERSION,
    Limits,
    UnknownItem,
    decode_envelope,
    decode_item,
    decode_transcript,
    encode_envelope,
    encode_item,
    encode_transcript,
    iter_jsonl,
    read_transcript,
    write_jsonl,
)
from typing import TYPE_CHECKING

from .errors import (
    CapabilityError,
    ConflictError,
    ConversionError,
    DocumentError,
    FormatMismatchError,
    InterlinguaError,
    LimitError,
    MalformedArgumentsError,
    MappingError,
    StoreError,
    StreamFailedError,
    TransportError,
    UnknownFormatError,
    VersionError,
)
from .items import CacheBreakpoint, Envelope, InputItem, OutputItem, ReasoningSettings, ResponseFormat, Settings, Transcript

if TYPE_CHECKING:
    from .conversion import convert_request, convert_response, convert_stream

__version__ = "0.1.0"

__all__ = [
    "SCHEMA_VERSION",
    "CacheBreakpoint",
    "CapabilityError",
    "ConflictError",
    "ConversionError",
    "DocumentError",
    "Envelope",
    "FormatMismatchError",
    "InputItem",
    "InterlinguaError",
    "LimitError",
    "Limits",
    "MalformedArgumentsError",
    "MappingError",
    "OutputItem",
    "ReasoningSettings",
    "ResponseFormat",
    "Settings",
    "StoreError",
    "StreamFailedError",
    "Transcript",
    "TransportError",
    "UnknownFormatError",
    "UnknownItem",
    "VersionError",
    "__version__",
    "convert_request",
    "convert_response",
    "convert_stream",
    "decode_envelope",
    "decode_item",
    "decode_transcript",
    "encode_envelope",
    "encode_item",
    "encode_transcript",
    "iter_jsonl",
    "read_transcript",
    "write_jsonl",
]

_LAZY = {"convert_request", "convert_response", "convert_stream"}


def __getattr__(name: str) -> object:
    """The one-call conversion (:mod:`interlingua.conversion`), imported on first use so that
    ``import interlingua`` (and the CLI's start-up) does not load the capability machinery."""
    if name in _LAZY:
        from . import conversion

        return getattr(conversion, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names (``__all__``, the lazy ones included), not import plumbing such as
    ``annotations`` or ``TYPE_CHECKING``."""
    return sorted(__all__)
