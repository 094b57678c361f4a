"""Provider streams -> canonical stream events (see :mod:`interlingua.streaming.events`)."""

from .driver import aiter_stream, collect, iter_stream
from .events import (
    RawEvent,
    ReasoningDelta,
    RefusalDelta,
    StreamAccumulator,
    StreamDone,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    UsageUpdate,
    is_terminal,
)

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
    "aiter_stream",
    "collect",
    "is_terminal",
    "iter_stream",
]
