"""Canonical stream events and the accumulator contract.

A provider stream is framed (SSE or NDJSON) by :mod:`interlingua.streaming.framing`
into :class:`RawEvent` records; a provider's :class:`StreamAccumulator` turns
those into canonical events. Every stream ends with exactly one terminal event:
:class:`StreamDone` or :class:`StreamError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, TypeAlias

from ..items import ErrorItem, ToolCallItem, Usage
from ..mapping.report import Report

__all__ = [
    "RawEvent",
    "ReasoningDelta",
    "RefusalDelta",
    "StreamAccumulator",
    "StreamDone",
    "StreamError",
    "StreamEvent",
    "TextDelta",
    "ToolCallComplete",
    "UsageUpdate",
    "is_terminal",
]


@dataclass(frozen=True)
class RawEvent:
    """One framed provider event.

    Attributes:
        event: The SSE ``event:`` name (``None`` when absent, and for NDJSON).
        data: The SSE ``data:`` text (multi-line fields joined with ``\\n``) or one NDJSON line.
    """

    event: str | None
    data: str


@dataclass(frozen=True)
class TextDelta:
    """A piece of visible assistant text, whitespace exactly as sent."""

    text: str


@dataclass(frozen=True)
class ReasoningDelta:
    """A piece of reasoning text (never mixed into :class:`TextDelta`)."""

    text: str


@dataclass(frozen=True)
class RefusalDelta:
    """A piece of a refusal message."""

    text: str


@dataclass(frozen=True)
class ToolCallComplete:
    """A whole tool call: id, name and parsed arguments together (or the raw text and an error)."""

    item: ToolCallItem


@dataclass(frozen=True)
class UsageUpdate:
    """Usage so far (providers report cumulative counts)."""

    usage: Usage


@dataclass(frozen=True)
class StreamDone:
    """Terminal: the stream reached its completion marker.

    Attributes:
        response: The final :class:`~interlingua.mapping.protocol.ModelResponse`; its items
            equal what the mapper's ``decode_response`` gives for the same content.
        report: What the accumulator dropped or changed while decoding (e.g. extra choices).
    """

    response: object  # ModelResponse; typed loosely to avoid an import cycle
    report: Report = field(default_factory=Report)


@dataclass(frozen=True)
class StreamError:
    """Terminal: the stream failed or stopped before its completion marker (code ``truncated``).

    Attributes:
        error: The error as a canonical item; its message is short and safe (no raw upstream text).
        partial: A :class:`~interlingua.mapping.protocol.ModelResponse` with what arrived before the failure.
        report: What the accumulator dropped or changed before the failure.
        pointer: For a malformed stream (code ``provider_error``): a JSON pointer to the offending
            place, the stream read as an array of events: ``/3/content_block/type`` is field
            ``content_block.type`` of the event at index 3 (0-based, counting framed events).
            ``None`` otherwise.
    """

    error: ErrorItem
    partial: object = None
    report: Report = field(default_factory=Report)
    pointer: str | None = None


StreamEvent: TypeAlias = TextDelta | ReasoningDelta | RefusalDelta | ToolCallComplete | UsageUpdate | StreamDone | StreamError


def is_terminal(event: StreamEvent) -> bool:
    """Whether ``event`` ends the stream."""
    return isinstance(event, (StreamDone, StreamError))


class StreamAccumulator(Protocol):
    """Turns one provider stream into canonical events. Pure: no I/O.

    The driver calls :meth:`feed` once per framed event, then :meth:`finish` at the end of
    input. After the accumulator has returned a terminal event, the driver stops feeding it.
    :meth:`finish` must return a terminal event if none was returned yet: :class:`StreamDone`
    only if the completion marker was seen, else :class:`StreamError` with code ``truncated``.

    A malformed event (not JSON, or a field of the wrong type) is signalled by raising
    :class:`~interlingua.errors.MalformedInputError` (pointer inside the event) or
    :class:`~interlingua.errors.DocumentError` (from :func:`interlingua.codec.decode_json`) from
    :meth:`feed`; the driver turns it into a ``provider_error`` :class:`StreamError` whose pointer
    names the event. An accumulator may offer ``partial() -> ModelResponse`` (what arrived so far)
    for that error's ``partial``.
    """

    def feed(self, event: RawEvent) -> list[StreamEvent]:
        """Consume one framed event; return the canonical events it completes."""
        ...

    def finish(self) -> list[StreamEvent]:
        """End of input: return the remaining events, ending with the terminal one."""
        ...
