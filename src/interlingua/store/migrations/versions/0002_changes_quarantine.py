"""Session change history and the quarantine of rows that fail to decode.

Existing sessions get one change record (change 0, effective at seq 0) holding
the metadata, tools and tool choice they have now: revision 0001 kept no
history, so the values in place are the best record of what was in effect.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON()  # kept as written (PostgreSQL `json`)
_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "interlingua_session_changes",
        sa.Column("session_id", sa.String(128), nullable=False),
        sa.Column("change_no", sa.Integer, nullable=False),
        sa.Column("effective_seq", sa.BigInteger, nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("metadata", _JSON, nullable=True),
        sa.Column("tools", _JSON, nullable=True),
        sa.Column("tool_choice", _JSON, nullable=True),
        sa.ForeignKeyConstraint(
            ["session_id"], ["interlingua_sessions.id"],
            name="fk_interlingua_session_changes_session_id_interlingua_sessions", ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("session_id", "change_no", name="pk_interlingua_session_changes"),
    )
    op.create_table(
        "interlingua_quarantine",
        sa.Column("session_id", sa.String(128), nullable=False),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("detected_at", _TS, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"], ["interlingua_sessions.id"],
            name="fk_interlingua_quarantine_session_id_interlingua_sessions", ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("session_id", "seq", name="pk_interlingua_quarantine"),
    )
    # Backfill: copy the JSON values as they are (no decode/encode round trip).
    op.execute(
        "INSERT INTO interlingua_session_changes "
        "(session_id, change_no, effective_seq, created_at, metadata, tools, tool_choice) "
        "SELECT id, 0, 0, created_at, metadata, tools, tool_choice FROM interlingua_sessions "
        "WHERE metadata IS NOT NULL OR tools IS NOT NULL OR tool_choice IS NOT NULL"
    )


def downgrade() -> None:
    op.drop_table("interlingua_quarantine")
    op.drop_table("interlingua_session_changes")
