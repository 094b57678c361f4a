"""Rules a session record follows beyond its schema, shared by the session-file reader and ``validate``.

``store import`` (:func:`interlingua.session_file.iter_session_parts`) and ``validate``
(:mod:`interlingua.validation`) apply the same rules with the same messages; they live here so neither
module imports the other's private names (``session_file`` uses ``validation``'s item checks, and both
use these).
"""

from __future__ import annotations

from .errors import DocumentError, Problem
from .items import SessionRecord

__all__ = ["SESSION_ID_MAX", "check_header", "late_header_message", "session_id_problem"]

SESSION_ID_MAX = 128
"""Longest session id (characters): the envelope schema's ``session_id`` and the session store's rule."""


def session_id_problem(session_id: object) -> str | None:
    """Why ``session_id`` is not a session id, or ``None``: the envelope schema's rule (1 to
    :data:`SESSION_ID_MAX` characters, no control characters U+0000-U+001F, U+007F), which ``validate``,
    ``store import`` and the store apply, and by which ``migrate`` picks a source's own id or its own.
    Whitespace-only ids and ids that look like paths are data, not refused (no command uses an id as a path)."""
    if not isinstance(session_id, str) or not session_id or len(session_id) > SESSION_ID_MAX:
        return f"a session id is a non-empty string of at most {SESSION_ID_MAX} characters"
    if any(ord(c) < 32 or ord(c) == 127 for c in session_id):
        return "a session id must not contain control characters"
    return None


def late_header_message(session_id: str, first_line: int) -> str:
    """The message for a session header that follows envelopes of its own session (the block began at
    ``first_line`` without it): a header is the first line of its session's block."""
    return f"the session header of {session_id!r} comes after its envelopes (from line {first_line}): a header is the first line of its session's block"


def check_header(record: SessionRecord) -> None:
    """Check a session header's record: each ``change_no`` appears once among ``record.changes``.

    Raises:
        DocumentError: a repeated ``change_no``, at ``/session/changes/<j>/change_no``.
    """
    seen: set[int] = set()
    for j, change in enumerate(record.changes or ()):
        if change.change_no in seen:
            raise DocumentError(Problem(f"/session/changes/{j}/change_no", f"change_no {change.change_no} appears twice"))
        seen.add(change.change_no)
