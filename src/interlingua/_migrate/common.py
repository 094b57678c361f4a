"""What the migrate modules share: the record of one input conversation, the JSON encoders, the usage error."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from ..codec import UnknownItem

_SUFFIXES = (".json", ".jsonl", ".ndjson")
_LINE_SUFFIXES = (".jsonl", ".ndjson")
_MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError, msgspec.ValidationError)
_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, UnknownItem):
        return msgspec.Raw(obj.raw)
    raise NotImplementedError(f"{type(obj).__name__} is not JSON-safe")


_item_encoder = msgspec.json.Encoder(enc_hook=_enc_hook)


class _Usage(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class Record:
    """One conversation to migrate, or a line that could not be parsed."""

    source: str
    line: int | None
    value: Any = None
    text: str | None = None
    error: str | None = None
    size: int = 0
    stream: Path | None = None
    """A transcript document file to read item by item (``-o`` only; see :func:`_stream_document`)."""
    span: Any = None
    """A long session of a session file, by where its lines are (``-o`` only; see :mod:`.session`)."""
    log: str | None = None
    """An agent log file (``claude-code``, ``codex``): one conversation read in bounded memory (:mod:`.logs`)."""
