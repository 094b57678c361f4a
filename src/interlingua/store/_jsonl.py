"""The store's side of session files: the header line of a stored session.

The format itself (reading and writing) is :mod:`interlingua.session_file`, shared with
``interlingua migrate``; this module turns a :class:`SessionInfo` and its change history into
that header.
"""

from __future__ import annotations

from typing import Any

from ..session_file import header_bytes
from ._types import SessionChange, SessionInfo

__all__ = ["header_line"]


def header_line(info: SessionInfo, changes: list[SessionChange]) -> bytes:
    """The session header record (without newline); no part is written as null."""
    extra: dict[str, Any] = {"created_at": info.created_at, "parent_id": info.parent_id, "fork_seq": info.fork_seq}
    if changes:
        # A part a change cleared (None) is listed in `cleared`: the header has no null values.
        extra["changes"] = [_change_record(c) for c in changes]
    return header_bytes(info.id, metadata=info.metadata, tools=info.tools, tool_choice=info.tool_choice, settings=info.settings, extra=extra)


def _change_record(change: SessionChange) -> dict[str, Any]:
    record: dict[str, Any] = {"change_no": change.change_no, "effective_seq": change.effective_seq, "created_at": change.created_at}
    record.update((k, v) for k, v in change.changed.items() if v is not None)
    cleared = [k for k, v in change.changed.items() if v is None]
    if cleared:
        record["cleared"] = cleared
    return record
