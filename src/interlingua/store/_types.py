"""Values the store returns, and its one error of its own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import StoreError
from ..items import Settings, ToolChoice, ToolDefinition

__all__ = ["CorruptRowError", "CorruptRowWarning", "ImportResult", "NewSession", "QuarantinedRow", "SessionChange", "SessionInfo"]


@dataclass(frozen=True)
class SessionInfo:
    """One session's row.

    Attributes:
        id: Session id.
        created_at: RFC 3339 UTC timestamp of creation.
        updated_at: RFC 3339 UTC timestamp of the last append or change.
        head_seq: Seq of the last item; ``-1`` while the session is empty.
        metadata: Caller-owned JSON-safe data, or ``None``.
        tools: Tool definitions the conversation is held with, or ``None``.
        tool_choice: Tool choice, or ``None``.
        settings: Generation settings (model, max output tokens, ...), or ``None``.
        parent_id: For a fork, the session it was forked from.
        fork_seq: For a fork, the last seq taken from the parent.
    """

    id: str
    created_at: str
    updated_at: str
    head_seq: int
    metadata: dict[str, Any] | None = None
    tools: list[ToolDefinition] | None = None
    tool_choice: ToolChoice | None = None
    settings: Settings | None = None
    parent_id: str | None = None
    fork_seq: int | None = None

    @property
    def length(self) -> int:
        """Number of items (``head_seq + 1``)."""
        return self.head_seq + 1


@dataclass(frozen=True)
class SessionChange:
    """A change of a session's metadata, tools, tool choice or settings.

    Attributes:
        change_no: 0, 1, 2, ... in the order the changes were made.
        effective_seq: The first item seq the change applies to (the session's
            length when it was made).
        created_at: RFC 3339 UTC timestamp.
        changed: The parts that changed (``"metadata"``, ``"tools"``,
            ``"tool_choice"``, ``"settings"``) with their new values; ``None`` means cleared.
    """

    change_no: int
    effective_seq: int
    created_at: str
    changed: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class NewSession:
    """One session for :meth:`SessionStore.add_sessions`: an id, its items and its settings.

    Attributes:
        session_id: The id (a non-empty string of at most 128 characters).
        items: Canonical items, :class:`~interlingua.codec.UnknownItem` or
            :class:`~interlingua.items.Envelope` (as :meth:`SessionStore.append` takes).
        metadata: Caller-owned JSON-safe object, or ``None``.
        tools: Tool definitions, or ``None``.
        tool_choice: Tool choice, or ``None``.
        settings: Generation settings, or ``None``.
        usage: Usage of the response that ended the conversation (on the last item), or ``None``.
        stop_reason: Its stop reason (on the last item), or ``None``.
        response: Its metadata (:class:`~interlingua.items.ResponseInfo`: id, model, provider
            fields; on the last item), or ``None``.
    """

    session_id: str
    items: Sequence[Any]
    metadata: dict[str, Any] | None = None
    tools: Sequence[Any] | None = None
    tool_choice: Any = None
    settings: Any = None
    usage: Any = None
    stop_reason: Any = None
    response: Any = None


@dataclass(frozen=True)
class ImportResult:
    """What importing one session of a session file did.

    Attributes:
        session_id: The stored session's id.
        status: ``imported`` (written now) or ``unchanged`` (that id already held this content).
        items: Number of items in the session.
        source_id: The session's id in the file.
    """

    session_id: str
    status: Literal["imported", "unchanged"]
    items: int
    source_id: str


@dataclass(frozen=True)
class QuarantinedRow:
    """A stored row that failed to decode. The row itself stays in place (nothing is deleted).

    Attributes:
        session_id: Its session.
        seq: Its seq.
        reason: Why it did not decode.
        detected_at: RFC 3339 UTC timestamp of the first failed read.
    """

    session_id: str
    seq: int
    reason: str
    detected_at: str = ""

    def __str__(self) -> str:
        return f"seq {self.seq}: {self.reason}"


class CorruptRowError(StoreError):
    """Stored rows failed to decode; they were recorded in the quarantine table.

    Attributes:
        session_id: The session.
        rows: Every row of the read that failed, in seq order.
    """

    def __init__(self, session_id: str, rows: list[QuarantinedRow]) -> None:
        self.session_id = session_id
        self.rows = list(rows)
        listed = "; ".join(str(r) for r in self.rows[:5]) + (f"; and {len(self.rows) - 5} more" if len(self.rows) > 5 else "")
        super().__init__(
            f"session {session_id}: {len(self.rows)} stored row(s) failed to decode and were quarantined ({listed}); "
            "see `interlingua store show` or SessionStore.quarantined(); load(..., on_corrupt='omit') reads the rest"
        )


class CorruptRowWarning(UserWarning):
    """Issued by ``load(..., on_corrupt="omit")`` for each quarantined row left out."""
