"""The session store: transcripts kept as versioned envelopes in SQLite or PostgreSQL.

>>> store = await SessionStore.open("sqlite+aiosqlite:///chats.sqlite3")  # doctest: +SKIP
>>> sid = await store.create_session({"user": "ada"})                      # doctest: +SKIP
>>> await store.append(sid, [TextItem(role="user", text="hi")], expected_seq=-1)  # doctest: +SKIP
0

See ``docs/store.md`` and ``adr/0003-session-store.md``.
"""

from __future__ import annotations

from ..errors import ConflictError, MigrationRequiredError, SessionExistsError, SessionNotFoundError, StoreError
from ._engine import DEFAULT_URL, normalize_url
from ._import_table import ImportResults
from ._migrate import head_revision
from ._store import SessionStore
from ._types import CorruptRowError, CorruptRowWarning, ImportResult, NewSession, QuarantinedRow, SessionChange, SessionInfo

__all__ = [
    "DEFAULT_URL",
    "ConflictError",
    "CorruptRowError",
    "CorruptRowWarning",
    "ImportResult",
    "ImportResults",
    "MigrationRequiredError",
    "NewSession",
    "QuarantinedRow",
    "SessionChange",
    "SessionExistsError",
    "SessionInfo",
    "SessionNotFoundError",
    "SessionStore",
    "StoreError",
    "head_revision",
    "normalize_url",
    "upgrade",
]

for _name in ("SessionStore", "CorruptRowError", "CorruptRowWarning", "ImportResult", "ImportResults", "NewSession", "QuarantinedRow", "SessionChange", "SessionInfo"):
    globals()[_name].__module__ = __name__


async def upgrade(url: str | None = None) -> str:
    """Bring the database at ``url`` to the newest schema revision (creating it when empty).

    Returns:
        The revision the database is at afterwards.

    Raises:
        StoreError: unreachable database, or a revision this interlingua does not know.
    """
    store = await SessionStore.open(url, upgrade=True, create=True)
    await store.close()
    return head_revision()
