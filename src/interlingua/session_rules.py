"""Rules a session record follows beyond its schema, shared by the session-file reader and ``validate``.

``store import`` (:func:`interlingua.session_file.iter_session_parts`) and ``validate``
(:mod:`interlingua.validation`) apply the same rules with the same messages; they live here so neither
module imports the other's private names (``session_file`` uses ``validation``'s item checks, and both
use these).
"""

from __future__ import annotations

from .errors import DocumentError, Problem
from .items import SessionRecord

__all__ = ["check_header"]


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
