"""Initial schema: sessions and item envelopes.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSONB = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")  # item: queryable
_JSON = sa.JSON()  # kept as written (PostgreSQL `json`)
_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "interlingua_sessions",
        sa.Column("id", sa.String(128), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("updated_at", _TS, nullable=False),
        sa.Column("head_seq", sa.BigInteger, nullable=False),
        sa.Column("metadata", _JSON, nullable=True),
        sa.Column("tools", _JSON, nullable=True),
        sa.Column("tool_choice", _JSON, nullable=True),
        sa.Column("parent_id", sa.String(128), nullable=True),
        sa.Column("fork_seq", sa.BigInteger, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_interlingua_sessions"),
    )
    op.create_index("ix_interlingua_sessions_created_at", "interlingua_sessions", ["created_at"])
    op.create_table(
        "interlingua_items",
        sa.Column("session_id", sa.String(128), nullable=False),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("schema_version", sa.String(16), nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("role", sa.String(32), nullable=True),
        sa.Column("call_id", sa.String, nullable=True),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("item", _JSONB, nullable=False),
        sa.Column("raw_json", sa.Text, nullable=True),
        sa.Column("usage", _JSON, nullable=True),
        sa.Column("stop_reason", _JSON, nullable=True),
        sa.ForeignKeyConstraint(
            ["session_id"], ["interlingua_sessions.id"],
            name="fk_interlingua_items_session_id_interlingua_sessions", ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("session_id", "seq", name="pk_interlingua_items"),
    )
    op.create_index("ix_interlingua_items_session_id_call_id", "interlingua_items", ["session_id", "call_id"])


def downgrade() -> None:
    op.drop_index("ix_interlingua_items_session_id_call_id", table_name="interlingua_items")
    op.drop_table("interlingua_items")
    op.drop_index("ix_interlingua_sessions_created_at", table_name="interlingua_sessions")
    op.drop_table("interlingua_sessions")
