"""interlingua: one schema-first, provider-neutral form for LLM conversations.

The canonical models live in :mod:`interlingua.items` (generated from ``schemas/``);
reading and writing them in :mod:`interlingua.codec`; checks in
:mod:`interlingua.validation`; provider mappers in :mod:`interlingua.providers`;
one-call conversion between formats (what ``interlingua convert`` runs) in
:mod:`interlingua.conversion`; the session store in :mod:`interlingua.store`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
    from .conversion import convert_request, convert_response, convert_stream
    from .models import cost
    from .errors import (
        BudgetError,
        CapabilityError,
        ConflictError,
        ConversionError,
        DocumentError,
        FormatMismatchError,
        IntegrityError,
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
    from .history import count_tokens, repair, trim
    from .items import CacheBreakpoint, Envelope, InputItem, OutputItem, ReasoningSettings, ResponseFormat, Settings, Transcript

__version__ = "0.1.0"

__all__ = [
    "SCHEMA_VERSION",
    "BudgetError",
    "CacheBreakpoint",
    "CapabilityError",
    "ConflictError",
    "ConversionError",
    "DocumentError",
    "Envelope",
    "FormatMismatchError",
    "InputItem",
    "IntegrityError",
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
    "cost",
    "count_tokens",
    "decode_envelope",
    "decode_item",
    "decode_transcript",
    "encode_envelope",
    "encode_item",
    "encode_transcript",
    "iter_jsonl",
    "read_transcript",
    "repair",
    "trim",
    "write_jsonl",
]

_LAZY: dict[str, str] = {
    **dict.fromkeys(
        (
            "SCHEMA_VERSION", "Limits", "UnknownItem", "decode_envelope", "decode_item", "decode_transcript", "encode_envelope",
            "encode_item", "encode_transcript", "iter_jsonl", "read_transcript", "write_jsonl",
        ),
        "codec",
    ),
    **dict.fromkeys(("convert_request", "convert_response", "convert_stream"), "conversion"),
    "cost": "models",
    **dict.fromkeys(
        (
            "BudgetError", "CapabilityError", "ConflictError", "ConversionError", "DocumentError", "FormatMismatchError", "IntegrityError", "InterlinguaError",
            "LimitError", "MalformedArgumentsError", "MappingError", "StoreError", "StreamFailedError", "TransportError",
            "UnknownFormatError", "VersionError",
        ),
        "errors",
    ),
    **dict.fromkeys(("count_tokens", "repair", "trim"), "history"),
    **dict.fromkeys(("CacheBreakpoint", "Envelope", "InputItem", "OutputItem", "ReasoningSettings", "ResponseFormat", "Settings", "Transcript"), "items"),
    # the submodules an eager package import used to load, still reachable as attributes after `import interlingua`
    **dict.fromkeys(("codec", "errors", "items", "models"), ""),
}
"""Public name -> the submodule that defines it (``""``: the name is that submodule)."""


def __getattr__(name: str) -> object:
    """Every public name, imported from its submodule on first use (:data:`_LAZY`).

    ``import interlingua`` itself loads nothing else, so ``interlingua --help``, ``--version`` and
    shell completion start without msgspec, the generated models or the codec's decoders; the
    first use of a name (``from interlingua import Envelope``) imports what defines it.
    """
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module = importlib.import_module(f"{__name__}.{where or name}")
    value = module if not where else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names (``__all__``, the lazy ones included), not import plumbing such as
    ``annotations`` or ``TYPE_CHECKING``."""
    return sorted(__all__)
