"""The items' call-id index holds only rows that have a call id (ADR 0051).

Revision 0001 indexed ``(session_id, call_id)`` for every item row, so each appended text,
reasoning or media item (two thirds of a typical conversation) wrote an index entry holding only its
session id and a NULL, which no query can use: a look-up by call id (``call_id = ...``) never matches
NULL. The index is rebuilt as a partial index, ``WHERE call_id IS NOT NULL``, on SQLite and
PostgreSQL; both use it for the same look-ups (a ``call_id = ...`` term implies the condition). No
row changes: only index entries that could never be found are gone.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_NAME = "ix_interlingua_items_session_id_call_id"
_HAS_CALL_ID = sa.text("call_id IS NOT NULL")


def upgrade() -> None:
    op.drop_index(_NAME, table_name="interlingua_items")
    op.create_index(_NAME, "interlingua_items", ["session_id", "call_id"], sqlite_where=_HAS_CALL_ID, postgresql_where=_HAS_CALL_ID)


def downgrade() -> None:
    op.drop_index(_NAME, table_name="interlingua_items")
    op.create_index(_NAME, "interlingua_items", ["session_id", "call_id"])
